"""The fifteen-card game at the web table: its own options and moves (what both side games
check alike, a whole game, replays and hidden cards, is in ``test_side_web.py``)."""

from __future__ import annotations

from fifteen_helpers import fifteen_game
from side_helpers import scripted
from test_web_api import move, texts  # the [web] extra, skipped without it

OUT_HAND = "AH 2H 3H 4C 5C 6C 7D 8D 9D 4S 5S 6S 9C TC JC"  # 3+3+3+3+3
OTHER = "2D 4D 6D TD QD 2S 8S TS QS KS 3C 7C KC 5H 9H"  # goes nowhere


def test_the_start_page_checks_the_fifteen_card_options(client):
    r = client.post("/api/games", json={"game": "fifteen", "opponents": ["greedy"], "hands": 0})
    assert r.status_code == 400 and "hands 0" in r.json()["error"]
    r = client.post("/api/games", json={"opponents": ["greedy"], "hands": 2})
    assert r.status_code == 400 and "fifteen-card game" in r.json()["error"]


def test_out_without_drawing(client, app):
    gid = scripted(
        app, fifteen_game(hands=[OUT_HAND, OTHER], discard="KD", has_played=[False, True])
    )
    state = client.get(f"/api/games/{gid}").json()
    assert texts(state) == ["draw", "take", "out"]
    assert "go out as dealt" in state["prompt"]
    state = move(client, gid, "out").json()
    last = state["rounds_played"][0]
    assert last["closer"] == 0 and last["points"] == [21, -21] and len(last["melds"]) == 5
    assert state["seats"][0]["score"] == 21
    assert any("you go out with the cards dealt" in line for line in state["log"])


def test_draw_then_discard_and_go_out(client, app):
    game = fifteen_game(
        hands=["AH 2H 3H 4C 5C 6C 7D 8D 9D 4S 5S 6S 9C TC QH", OTHER],
        stock_top="JC",
        has_played=[False, True],
    )
    gid = scripted(app, game)
    state = move(client, gid, "draw").json()
    assert "out QH" in texts(state) and "discard QH" in texts(state)
    assert state["hand_size"] == 16
    bad = move(client, gid, "out 2D")
    assert bad.status_code == 409 and "2D is not in seat 0's hand" in bad.json()["error"]
    state = move(client, gid, "out QH").json()
    assert state["rounds_played"][0]["closer"] == 0
    assert any("you discard QH and go out" in line for line in state["log"])
