"""The web table's layout in chromium: the start page on a 390 px phone has no horizontal scroll,
a round's end opens at its top (its title in view), and a four-player score sheet shows every
column, in the side panel at 1,280 px and in the game-over dialog on a phone."""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import Any

import pytest
from test_web_browser import serve

from continental_web.app import create_app
from continental_web.session import Opponents, new_session

PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1280, "height": 800}
OPPONENTS = ["greedy", "strong", "random"]


@pytest.fixture(scope="module")
def table(tmp_path_factory) -> Iterator[tuple[str, Any]]:
    app = create_app(results_dir=tmp_path_factory.mktemp("results"), opponents=Opponents(None))
    with serve(app) as url:
        yield url, app


def _fits(page, selector: str) -> bool:
    """Whether the box ``selector`` shows all its content across (no hidden or scrolled part)."""
    return page.evaluate(
        "s => { const e = document.querySelector(s); return e.scrollWidth <= e.clientWidth; }",
        selector,
    )


def test_the_start_page_has_no_horizontal_scroll_on_a_390px_phone(table, browser):
    url, _ = table
    page = browser.new_page(viewport=PHONE, bypass_csp=True)
    page.goto(url + "/")
    page.wait_for_selector("#f-opponents select")
    games = page.eval_on_selector_all("#f-game option", "o => o.map(x => x.value)")
    assert len(games) == 3
    for game in games:
        page.select_option("#f-game", game)
        most = page.eval_on_selector_all("#f-players option", "o => o.map(x => x.value)")[-1]
        page.select_option("#f-players", most)  # the most opponent selects, each a long label
        width = page.evaluate("document.documentElement.scrollWidth")
        assert width <= PHONE["width"], (game, most, width)


def _one_move_before_the_end(app: Any) -> tuple[str, str, bool]:
    """A one-round, four-player contract game stored in ``app`` one move before it ends: its
    id, the last move's text and whether the person plays it (a bot's, the page asks for)."""
    offer = app.state.opponents

    def deal() -> Any:
        return new_session(offer, opponents=OPPONENTS, seed=11, rounds=[1])

    played, rng = deal(), random.Random(3)
    while not played.game.is_over:
        if played.game.actor == played.seat:
            played.move(rng.choice([a["text"] for a in played.state()["legal"]]))
        else:
            played.advance()
    *moves, last = played.actions
    session = deal()  # the same deal and seeded bots, replayed up to the last move
    for text in moves:
        if session.game.actor == session.seat:
            session.move(text)
        else:
            assert session.advance()["log"]
    mine = session.game.actor == session.seat
    return app.state.store.add(session, "127.0.0.1"), last, mine


def test_a_round_end_opens_at_its_top_on_a_phone(table, browser):
    url, app = table
    gid, last, mine = _one_move_before_the_end(app)
    page = browser.new_page(viewport=PHONE, bypass_csp=True)
    page.goto(f"{url}/#game={gid}")
    page.wait_for_selector("#table-page:not([hidden])")
    if mine:
        page.evaluate("text => play(text)", last)
    page.wait_for_selector("#overlay:not([hidden])", timeout=60_000)
    assert page.inner_text("#o-title") == "Round 1 over"
    dialog = page.evaluate(
        """() => { const d = document.querySelector('#overlay .dialog');
                   const t = document.querySelector('#o-title').getBoundingClientRect();
                   return {top: d.scrollTop, long: d.scrollHeight > d.clientHeight,
                           title: t.top - d.getBoundingClientRect().top}; }"""
    )
    # the reveal of four hands is longer than a phone's screen; it opens at its title
    assert dialog["long"] and dialog["top"] == 0 and dialog["title"] >= 0, dialog


def test_a_four_player_score_sheet_shows_every_column(table, browser):
    """In the game-over dialog on a phone and in the side panel at 1,280 px."""
    url, app = table
    gid, last, mine = _one_move_before_the_end(app)
    session = app.state.store.get(gid)
    if mine:
        session.move(last)
    else:
        session.advance()
    page = browser.new_page(viewport=PHONE, bypass_csp=True)
    page.goto(f"{url}/#game={gid}")
    page.wait_for_selector("#o-title:has-text('Game over')")
    assert page.locator("#o-body table.sheet th").count() == 5
    assert _fits(page, "#overlay .dialog") and _fits(page, "#o-body table.sheet")

    page.set_viewport_size(DESKTOP)
    page.click("#o-buttons button:has-text('Look at the table')")
    page.wait_for_selector("#overlay", state="hidden")
    assert page.locator("#sheet table.sheet th").count() == 5
    assert _fits(page, "#sheet"), "the score sheet is wider than its panel"
    edges = page.evaluate(
        """() => { const box = document.querySelector('#sheet').getBoundingClientRect();
                   return [...document.querySelectorAll('#sheet th, #sheet td')]
                     .map(c => c.getBoundingClientRect().right - box.right); }"""
    )
    assert max(edges) <= 0.5, edges  # every cell inside the panel, the last column included
