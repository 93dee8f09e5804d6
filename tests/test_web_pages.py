"""The web table in chromium beyond one contract round: a random-size seed that replays exactly
from the page and from the downloaded file, the knock game on a 390x844 phone with the content
security policy on (no horizontal scroll, touch-size buttons, a reload and a second tab return to
the game, Leave asks), and the fifteen-card game on a desktop, whose game vanishing from the
server is explained.

Skipped without chromium like ``test_web_browser`` (CI installs it).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from test_web_browser import (
    ROOT,
    _play_my_turn,
    _save_screenshot,
    _still,
    _version,
    serve,
)

from continental_web.app import create_app
from continental_web.session import Opponents

BIG_SEED = "7301982735405707149"  # above 2**53: a JavaScript number would round it


@pytest.fixture(scope="module")
def served(tmp_path_factory) -> Iterator[tuple[str, object]]:
    app = create_app(results_dir=tmp_path_factory.mktemp("results"), opponents=Opponents(None))
    with serve(app) as url:
        yield url, app


def _start(page, url: str, game: str, players: int, seed: str = "", **extra: str) -> None:
    page.goto(url + "/")
    page.wait_for_selector("#f-opponents select")
    page.select_option("#f-game", game)
    page.select_option("#f-players", str(players))
    for field, value in extra.items():
        page.select_option(f"#f-{field}", value)
    page.select_option("#f-speed", "40")
    page.fill("#f-seed", seed)
    page.click("#start-button")
    page.wait_for_selector("#table-page:not([hidden])")


def _play_until_summary(page, limit: int = 600) -> int:
    """Click moves like a person until a round's summary opens; waits on selectors only (the
    page's content security policy forbids Playwright's evaluated waits)."""
    for n in range(limit):
        page.wait_for_selector("#prompt.your-move, #overlay:not([hidden])", timeout=60_000)
        if page.is_visible("#overlay"):
            return n
        before = _version(page)
        _play_my_turn(page)
        page.wait_for_selector(f'body:not([data-version="{before}"])', timeout=30_000)
    pytest.fail("no round ended")


def _no_horizontal_scroll(page) -> None:
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= page.viewport_size["width"], f"scrollWidth {width}"


def test_a_big_random_seed_replays_exactly_in_the_page_and_from_the_file(served, browser):
    url, _ = served
    page = browser.new_page(viewport={"width": 1300, "height": 850}, bypass_csp=True)
    _start(page, url, "contract", 2, BIG_SEED, rounds="1")
    _play_until_summary(page)
    page.click("#o-buttons button.primary")
    page.wait_for_selector("#o-title:has-text('Game over')")
    assert f"Seed {BIG_SEED}." in page.inner_text("#o-body")
    assert page.locator("#o-body table.sheet tbody tr").count() == 2  # round 1 and the totals
    with page.expect_download() as dl:
        page.click("#download-replay")
    path = Path(dl.value.path())
    record = json.loads(path.read_text())
    assert record["seed"] == BIG_SEED
    finals = ", ".join(f"{n} {s}" for n, s in zip(record["names"], record["scores"], strict=True))
    # in the page
    page.click("#o-buttons button:has-text('Watch the replay')")
    page.wait_for_selector(f"#r-step:has-text('move 0 / {len(record['actions'])}')")
    page.click("#r-last")
    page.wait_for_selector("#prompt:has-text('End of the record')")
    assert page.inner_text("#prompt") == f"End of the record. Final scores: {finals}"
    # from the downloaded file, uploaded as a person would
    page.click("#t-leave")
    page.wait_for_selector("#start-page:not([hidden])")
    page.set_input_files("#replay-upload", str(path))
    page.click("#replay-open")
    page.wait_for_selector(f"#r-step:has-text('move 0 / {len(record['actions'])}')")
    page.click("#r-last")
    page.wait_for_selector("#prompt:has-text('End of the record')")
    assert page.inner_text("#prompt") == f"End of the record. Final scores: {finals}"
    page.close()


def test_the_knock_table_on_a_phone(served, browser):
    url, _ = served
    context = browser.new_context(viewport={"width": 390, "height": 844}, has_touch=True)
    page = context.new_page()
    problems: list[str] = []
    page.on("pageerror", lambda exc: problems.append(str(exc)))
    page.on("console", lambda m: problems.append(m.text) if m.type == "error" else None)
    _start(page, url, "knock", 3, "11")
    page.wait_for_selector("#prompt.your-move, #overlay:not([hidden])")
    _no_horizontal_scroll(page)
    for node in page.locator("#actions button, #t-leave, #t-rules").all():
        box = node.bounding_box()
        assert box["height"] >= 44 and box["width"] >= 44, box  # touch-size targets
    hand = page.locator("#hand").bounding_box()
    assert hand["x"] >= 0 and hand["x"] + hand["width"] <= 390
    _still(page)
    _save_screenshot(ROOT / "results" / "web_phone_table.png", page.screenshot(full_page=True))
    _play_until_summary(page)
    assert re.match(r"Hand 1 over", page.inner_text("#o-title"))
    assert page.locator("#o-body .reveal-hand").count() == 3  # every hand shown, with points
    _no_horizontal_scroll(page)
    _still(page)
    _save_screenshot(ROOT / "results" / "web_phone_summary.png", page.screenshot())
    page.click("#o-buttons button.primary")  # next hand
    page.wait_for_selector("#overlay[hidden]", state="attached")
    names = page.inner_text("#seats")
    # a reload returns to the game, and so does a second tab
    page.reload()
    page.wait_for_selector("#table-page:not([hidden])")
    assert page.inner_text("#seats") == names or "Hand 2" in page.inner_text("#log")
    assert "#game=" in page.url
    other = context.new_page()
    other.goto(url + "/")
    other.wait_for_selector("#table-page:not([hidden])")
    assert other.locator("#sheet table.sheet tbody tr").count() == 2  # hand 1 and the totals
    other.close()
    # the rules panel, then Leave asks before abandoning the game
    page.click("#t-rules")
    page.wait_for_selector("#o-title:has-text('How to play')")
    assert "knock" in page.inner_text("#o-body")
    page.click("#o-buttons button.primary")
    page.click("#t-leave")
    page.wait_for_selector("#o-title:has-text('Leave this game?')")
    page.click("#o-buttons button.primary")  # stay
    assert page.is_visible("#table-page")
    page.click("#t-leave")
    page.click("#confirm-leave")
    page.wait_for_selector("#start-page:not([hidden])")
    page.reload()
    page.wait_for_selector("#f-opponents select")
    assert page.is_hidden("#table-page")
    assert not [p for p in problems if "Content Security Policy" in p or "Refused" in p], problems
    assert not [p for p in problems if "404" not in p], problems
    context.close()


def test_the_fifteen_card_table_and_a_game_the_server_dropped(served, browser):
    url, app = served
    page = browser.new_page(viewport={"width": 1300, "height": 850})
    _start(page, url, "fifteen", 2, "5", hands="3")
    _play_until_summary(page)
    assert page.inner_text("#o-title") == "Hand 1 over"
    assert "chips this hand" in page.inner_text("#o-body")
    _still(page)
    _save_screenshot(ROOT / "results" / "web_fifteen_summary.png", page.screenshot())
    page.click("#o-buttons button.primary")
    assert page.locator("#sheet table.sheet tbody tr").count() == 2
    # the server forgets the game (a restart, an expiry): the page says so instead of freezing
    app.state.store._games.clear()
    page.wait_for_selector("#prompt.your-move, #overlay:not([hidden])", timeout=30_000)
    if not page.is_visible("#overlay"):  # the person's move: the page learns it when playing
        _play_my_turn(page)
    page.wait_for_selector("#o-title:has-text('no longer on the server')", timeout=30_000)
    assert "a few hours" in page.inner_text("#o-body")
    page.click("#o-buttons button.primary")
    page.wait_for_selector("#start-page:not([hidden])")
    page.close()
