"""The web table in a real browser: Debian's chromium driven by Playwright plays a round by
clicking, reads the round summary, downloads the replay and steps through it.

These pages run with ``bypass_csp``: Playwright's ``wait_for_function`` evaluates text, which
the table's content security policy forbids; ``test_web_pages`` plays with the policy on.

CI (``.ci/run``) installs chromium when it is missing, so there this test always runs; without
``CI`` set and without chromium it is skipped with the reason.
"""

from __future__ import annotations

import json
import os
import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

if os.environ.get("CI"):  # CI installs the [web] extra: a missing module fails there
    import uvicorn
    from playwright import sync_api
else:
    uvicorn = pytest.importorskip("uvicorn")
    sync_api = pytest.importorskip("playwright.sync_api")

from continental_web.app import create_app

ROOT = Path(__file__).resolve().parents[1]
CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
# Without the background-networking flags chromium keeps trying to reach its update and sync
# services, which on a closed network only produces refused connections.
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def server(tmp_path_factory) -> Iterator[str]:
    with serve(create_app(results_dir=tmp_path_factory.mktemp("results"))) as url:
        yield url


@contextmanager
def serve(app: object) -> Iterator[str]:
    """``app`` served by uvicorn on a free local port in a thread; its URL while open."""
    port = _free_port()
    config = uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning")
    srv = uvicorn.Server(config)
    thread = threading.Thread(target=srv.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not srv.started:
        assert time.monotonic() < deadline, "the server did not start"
        time.sleep(0.05)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        srv.should_exit = True
        thread.join(10)


def _legal(page) -> list[str]:
    return page.eval_on_selector_all(
        "#actions [data-move], #card-moves [data-move], #all-moves-list [data-move]",
        "nodes => nodes.map(n => n.dataset.move)",
    )


def _wait_for_me_or_summary(page) -> str:
    page.wait_for_selector("#prompt.your-move, #overlay:not([hidden])", timeout=60_000)
    return "summary" if page.is_visible("#overlay") else "me"


def _still(page) -> None:
    """No hover, focus ring or transition in flight: the same table gives the same picture."""
    page.mouse.move(0, 0)
    page.evaluate("document.activeElement && document.activeElement.blur()")


def _save_screenshot(path: Path, png: bytes) -> None:
    """Write ``png`` unless the file already shows the same table.

    Chromium's software rasteriser leaves a few pixels different between runs of the same game;
    rewriting the tracked file for those would leave every checkout modified after a test run.
    """
    import io

    from PIL import Image, ImageChops

    if path.exists():
        old = Image.open(path).convert("RGB")
        new = Image.open(io.BytesIO(png)).convert("RGB")
        if old.size == new.size:
            diff = (
                ImageChops.difference(old, new).convert("L").point(lambda v: 255 if v > 16 else 0)
            )
            changed = sum(diff.histogram()[255:])
            if changed < 0.001 * new.size[0] * new.size[1]:
                return
    path.write_bytes(png)


def _version(page) -> int:
    return int(page.evaluate("document.body.dataset.version || 0"))


def _play_and_wait(page) -> str:
    """One move by clicking, then wait until the page shows the server's answer to it."""
    before = _version(page)
    move = _play_my_turn(page)
    page.wait_for_function(f"Number(document.body.dataset.version) > {before}", timeout=30_000)
    return move


def _play_my_turn(page) -> str:
    """One of the person's moves, made by clicking like a person; returns what was clicked."""
    actions = page.eval_on_selector_all("#actions [data-move]", "n => n.map(x => x.dataset.move)")
    for preferred in ("laydown", "close", "pass", "draw"):
        if preferred in actions:
            page.click(f'#actions [data-move="{preferred}"]')
            return preferred
    # play step: lay off a card on a highlighted meld when one fits, else discard
    hand = page.locator("#hand .card")
    names = [hand.nth(i).get_attribute("data-card") for i in range(hand.count())]
    for i in range(len(names)):
        hand.nth(i).click()  # select (the hand is drawn again)
        target = page.locator("#melds .meld.target")
        if target.count() and not page.locator(".meld.target .end-button").count():
            target.first.click()
            return "layoff"
    # discard the highest card: click it twice
    order = "AKQJT98765432"
    i = min(range(len(names)), key=lambda k: order.find(names[k][0]) % 20)
    page.keyboard.press("Escape")  # put the last card looked at back
    hand.nth(i).click()
    if not page.locator(f'#card-moves [data-move="discard {names[i]}"]').count():
        page.keyboard.press("Escape")
        discard = next(m for m in _legal(page) if m.startswith("discard"))
        page.click("#all-moves summary")
        page.click(f'#all-moves-list [data-move="{discard}"]')
        return discard
    hand.nth(i).click()
    return f"discard {names[i]}"


def test_play_a_round_in_the_browser(server, browser, tmp_path):
    page = browser.new_page(viewport={"width": 1400, "height": 900}, bypass_csp=True)
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.goto(server + "/")
    page.add_style_tag(content="* { transition: none !important; caret-color: transparent; }")
    page.wait_for_selector("#f-opponents select")
    page.select_option("#f-players", "4")
    page.select_option("#f-opponents select >> nth=0", "greedy")
    page.select_option("#f-opponents select >> nth=1", "strong")
    page.select_option("#f-opponents select >> nth=2", "random")
    page.select_option("#f-rounds", "1")
    page.select_option("#f-speed", "40")
    page.fill("#f-seed", "2026")
    page.click("#start-button")
    page.wait_for_selector("#table-page:not([hidden])")
    assert page.inner_text("#t-contract") == "Contract: 2 trios"
    assert page.locator("#seats .seat").count() == 4

    clicked: list[str] = []
    shot = None
    for _ in range(400):
        if _wait_for_me_or_summary(page) == "summary":
            break
        if page.locator("#melds .meld").count() >= 2 or shot is None:
            _still(page)
            shot = page.screenshot(full_page=True)
        hand_before = page.locator("#hand .card").count()
        clicked.append(_play_and_wait(page))
        assert hand_before >= 1
    else:
        pytest.fail(f"the round did not end; moves clicked: {clicked}")
    assert any(c.startswith("discard") for c in clicked) and "draw" in clicked

    # the round summary lists every seat's points
    assert page.inner_text("#o-title") == "Round 1 over"
    rows = page.locator("#o-body table.points tbody tr")
    assert rows.count() == 4
    points = [int(rows.nth(i).locator("td").nth(1).inner_text()) for i in range(4)]
    assert min(points) <= 0 or points.count(0) >= 1 or "Nobody closed" in page.inner_text("#o-body")
    _still(page)
    shot_summary = page.screenshot(full_page=True)
    out = ROOT / "results"
    out.mkdir(exist_ok=True)
    _save_screenshot(out / "web_table.png", shot or shot_summary)
    _save_screenshot(out / "web_round_summary.png", shot_summary)

    # the game (one round) is over: totals, then the replay downloads and replays
    page.click("#o-buttons button.primary")
    page.wait_for_selector("#o-title:has-text('Game over')")
    assert "Winner:" in page.inner_text("#o-body")
    with page.expect_download() as dl:
        page.click("#download-replay")
    record = json.loads(Path(dl.value.path()).read_text())
    assert record["seed"] == "2026" and len(record["actions"]) > 10
    page.click("#o-buttons button:has-text('Watch the replay')")
    page.wait_for_selector("#replay-controls:not([hidden])")
    assert page.inner_text("#r-step") == f"move 0 / {len(record['actions'])}"
    page.click("#r-next")
    page.wait_for_selector("#r-step:has-text('move 1 /')")
    page.keyboard.press("ArrowRight")
    page.wait_for_selector("#r-step:has-text('move 2 /')")
    page.click("#r-last")
    page.wait_for_selector("#prompt:has-text('End of the record')")
    assert not errors, errors


def test_keyboard_only_moves_and_a_refused_move_shows_its_reason(server, browser):
    page = browser.new_page(viewport={"width": 1300, "height": 850}, bypass_csp=True)
    page.goto(server + "/")
    page.wait_for_selector("#f-opponents select")
    page.select_option("#f-players", "2")
    page.select_option("#f-speed", "40")
    page.fill("#f-seed", "7")
    page.select_option("#f-seat", "1")  # seat 1 plays first in round 1
    page.click("#start-button")
    page.wait_for_selector("#prompt.your-move")
    page.keyboard.press("d")  # draw
    page.wait_for_selector("#prompt.your-move:has-text('then discard a card')")
    n = page.locator("#hand .card").count()
    page.keyboard.press("ArrowRight")  # select the first card
    page.wait_for_selector("#hand .card.selected")
    page.keyboard.press("Enter")  # discard it
    page.wait_for_function(f"document.querySelectorAll('#hand .card').length === {n - 1}")
    # with "pass on claims" ticked, the page answers the claim questions itself
    page.check("#auto-pass")
    passed = "[...document.querySelectorAll('#log li')].some(li => li.textContent.includes('you pass on'))"
    ready = "!ui.busy && ui.state && ui.state.your_move"
    for _ in range(20):  # keep drawing and discarding until a bot draws and you are asked
        # wait on the page's own state: the prompt's text can lag one answer behind
        page.wait_for_function(f"{passed} || ({ready} && ui.state.phase === 'draw')")
        if page.evaluate(passed):
            break
        page.keyboard.press("d")
        page.wait_for_function(f"{ready} && ui.state.phase === 'play'")
        n = page.locator("#hand .card").count()
        page.keyboard.press("ArrowRight")
        page.wait_for_selector("#hand .card.selected")
        page.keyboard.press("Enter")
        page.wait_for_function(f"document.querySelectorAll('#hand .card').length === {n - 1}")
    assert page.locator("#log li:has-text('you pass on')").count()
    assert not page.locator("#log li:has-text('you claim')").count()
    page.uncheck("#auto-pass")
    # the page offers only legal moves; a forged one is refused with the engine's reason
    reply = page.evaluate(
        """async () => {
            const r = await fetch(`/api/games/${ui.gameId}/move`, {method: 'POST',
              headers: {'Content-Type': 'application/json'}, body: JSON.stringify({action: 'close'})});
            return [r.status, (await r.json()).error];
        }"""
    )
    assert reply[0] == 409 and "close" in reply[1]
