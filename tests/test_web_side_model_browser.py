"""A side game's trained agent at the table in chromium: the start page offers it under a label
a player understands, only for its own game, and it plays its seat; the pictures of the table on
a desktop and on a phone are ``results/web_side_model_{desktop,phone}.png``.

Skipped without chromium like ``test_web_browser`` (CI installs it).
"""

from __future__ import annotations

from collections.abc import Iterator

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
from continental_web.opponents import Opponents, default_models_dir

MODEL = "ppo_knock_4p"


@pytest.fixture(scope="module")
def url(tmp_path_factory) -> Iterator[str]:
    offer = Opponents(default_models_dir(), probe_mode="thread")  # the shipped numpy exports
    assert offer.probe.wait(60)
    app = create_app(results_dir=tmp_path_factory.mktemp("results"), opponents=offer)
    with serve(app) as url:
        yield url


def _options(page, nth: int) -> dict[str, str]:
    """The values and texts of the ``nth`` opponent menu."""
    return dict(
        page.eval_on_selector_all(
            f"#f-opponents select >> nth={nth} >> option",
            "nodes => nodes.map(n => [n.value, n.textContent])",
        )
    )


def _seat_the_model(page, url: str) -> None:
    page.goto(url + "/")
    page.wait_for_selector("#f-opponents select")
    page.select_option("#f-game", "contract")
    assert MODEL not in _options(page, 0)  # a knock model is no contract-game opponent
    page.select_option("#f-game", "fifteen")
    assert MODEL not in _options(page, 0) and "ppo_fifteen_4p" in _options(page, 0)
    page.select_option("#f-game", "knock")
    page.select_option("#f-players", "4")
    offered = _options(page, 0)
    assert "Trained" in offered[MODEL] and "ppo_fifteen_4p" not in offered
    page.select_option("#f-opponents select >> nth=0", MODEL)
    page.select_option("#f-opponents select >> nth=1", "strong")
    page.select_option("#f-opponents select >> nth=2", "greedy")
    page.select_option("#f-speed", "40")
    page.fill("#f-seed", "24")
    page.click("#start-button")
    page.wait_for_selector("#table-page:not([hidden])")


def _play_until_the_model_moved(page) -> None:
    """Click moves until the model's seat has made six moves (three turns) and it is our turn."""
    for _ in range(200):
        page.wait_for_selector("#prompt.your-move, #overlay:not([hidden])", timeout=60_000)
        if page.is_visible("#overlay"):
            page.click("#o-buttons button.primary")
            continue
        if page.inner_text("#log").count("Trained (1) ") >= 6:
            return
        before = _version(page)
        _play_my_turn(page)
        page.wait_for_selector(f'body:not([data-version="{before}"])', timeout=30_000)
    pytest.fail("the model's seat never played")


@pytest.mark.parametrize(
    ("device", "context"),
    [
        ("desktop", {"viewport": {"width": 1300, "height": 850}}),
        ("phone", {"viewport": {"width": 390, "height": 844}, "has_touch": True}),
    ],
)
def test_the_knock_table_with_its_trained_agent(url, browser, device, context) -> None:  # type: ignore[no-untyped-def]
    ctx = browser.new_context(**context)
    page = ctx.new_page()
    problems: list[str] = []
    page.on("pageerror", lambda exc: problems.append(str(exc)))
    _seat_the_model(page, url)
    assert "Trained (1)" in page.inner_text("#seats")
    _play_until_the_model_moved(page)
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= page.viewport_size["width"], f"scrollWidth {width}"
    _still(page)
    _save_screenshot(
        ROOT / "results" / f"web_side_model_{device}.png", page.screenshot(full_page=True)
    )
    assert not problems, problems
    ctx.close()
