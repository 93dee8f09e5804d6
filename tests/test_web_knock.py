"""The knock game at the web table: its own options and moves, a knock and the buy-backs after
it (what both side games check alike, a whole game, replays and hidden cards, is in
``test_side_web.py``)."""

from __future__ import annotations

from knock_helpers import knock_game
from side_helpers import scripted
from test_web_api import move, texts  # the [web] extra, skipped without it

KNOCK5 = "2H 3H 4H 5H 6C 6D 6S AS 3C AD"
LOOSE1 = "KC QD JS 9H 7C 5D 3S TC 8D 6H"
LOOSE2 = "2C 4D 6S 8H TD QC AH 3S 5C 9D"
LOOSE3 = "KS KH 7S 7H 4C 4H 2S 8C JC 9C"


def test_the_start_page_checks_the_knock_table(client):
    r = client.post("/api/games", json={"game": "knock", "opponents": ["greedy"] * 6})
    assert r.status_code == 400 and "7 players: the knock game allows 2..6" in r.json()["error"]
    r = client.post("/api/games", json={"game": "knock", "opponents": ["greedy"], "hands": 2})
    assert r.status_code == 400 and "no rounds or hands" in r.json()["error"]


def test_knock_then_buy_back_at_the_table(client, app):
    game = knock_game(hands=[KNOCK5, LOOSE1, LOOSE2, LOOSE3], current=0, scores=[0, 0, 20, 10])
    gid = scripted(app, game)
    state = client.get(f"/api/games/{gid}").json()
    assert texts(state) == ["draw", "knock"] and "You may announce: knock" in state["prompt"]
    assert state["title"] == "Knock game" and "pot 200" in state["round_text"]
    state = move(client, gid, "knock").json()
    last = state["rounds_played"][0]
    assert last["closer"] == 0 and last["points"] == [5, 78, 72, 71] and last["end"] == "knock"
    assert last["melds"] and state["seats"][0]["score"] == 5 and state["seats"][0]["chips"] == -30
    assert any("you announce knock" in line for line in state["log"])
    assert any("bonus 10 from each other player" in line for line in state["log"])
    # Seats 2 and 3 (over 80) answer buy or pass before the next deal: the bots, here.
    while state["phase"] == "buy" and not state["your_move"]:
        state = client.post(f"/api/games/{gid}/advance", json={}).json()
    assert state["round"] == 2 and any("Hand 2 dealt" in line for line in state["log"])
    # The hand's totals include the scores it started from; a buy-back shows from the next hand.
    assert state["rounds_played"][0]["totals"] == [5, 78, 92, 81]
    bought = app.state.store.get(gid).game.hand_history[0]["buys"]
    assert [(b["seat"], b["from"], b["to"]) for b in bought] == [(2, 92, 78), (3, 81, 78)]
    assert [seat["score"] for seat in state["seats"]] == [5, 78, 78, 78]
    bad = move(client, gid, "buy")
    assert bad.status_code == 409
