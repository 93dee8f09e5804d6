"""The knock game at the web table: its moves, a whole game, replays, hidden cards."""

from __future__ import annotations

import importlib
import os
import random

import pytest

for _module in ("fastapi", "httpx2"):  # the [web] extra: optional for a developer, not in CI
    if os.environ.get("CI"):
        importlib.import_module(_module)
    else:
        pytest.importorskip(_module)

from fastapi.testclient import TestClient  # noqa: E402
from knock_helpers import knock_game  # noqa: E402
from test_web_api import assert_no_hidden_information, move, play_out, texts  # noqa: E402

from continental_env.knock.game import Game  # noqa: E402
from continental_web.app import create_app  # noqa: E402
from continental_web.session import new_session  # noqa: E402

KNOCK5 = "2H 3H 4H 5H 6C 6D 6S AS 3C AD"
LOOSE1 = "KC QD JS 9H 7C 5D 3S TC 8D 6H"
LOOSE2 = "2C 4D 6S 8H TD QC AH 3S 5C 9D"
LOOSE3 = "KS KH 7S 7H 4C 4H 2S 8C JC 9C"


@pytest.fixture
def app(tmp_path):
    return create_app(results_dir=tmp_path)


@pytest.fixture
def client(app):
    return TestClient(app, base_url="http://127.0.0.1")


def scripted(app, game: Game) -> str:
    opponents = ["greedy"] * (game.num_players - 1)
    session = new_session(app.state.opponents, game="knock", opponents=opponents, seed=1)
    session.game = game
    return app.state.store.add(session)


def test_options_offer_the_knock_game_with_its_own_bots(client):
    games = client.get("/api/options").json()["games"]
    assert games["knock"]["opponents"][:3] == ["random", "greedy", "strong"]  # then its model
    assert games["knock"]["presets"]["knock"] == {"min_players": 2, "max_players": 6}
    r = client.post("/api/games", json={"game": "knock", "opponents": ["search"]})
    assert r.status_code == 400 and "unknown opponent 'search' for knock" in r.json()["error"]
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


def test_a_whole_knock_game_hides_every_hidden_card_and_replays(client, app):
    r = client.post(
        "/api/games", json={"game": "knock", "opponents": ["greedy", "random"], "seed": 5}
    )
    assert r.status_code == 200, r.text
    gid, state = r.json()["id"], r.json()["state"]
    session = app.state.store.get(gid)
    rng = random.Random(4)
    differing = []
    final = play_out(
        client,
        gid,
        state,
        random.Random(6),
        each=lambda s: differing.append(assert_no_hidden_information(session, s, rng)),
    )
    assert len(differing) > 20 and sum(differing) > len(differing) // 2
    assert final["game_over"] and final["winners"]
    record = client.get(f"/api/games/{gid}/record").json()
    assert record["game"] == "knock" and record["options"]["stake"] == 50
    rep = client.post("/api/replays", json=record).json()
    last = client.get(f"/api/replays/{rep['id']}/{rep['steps']}").json()
    assert [s["score"] for s in last["seats"]] == [s["score"] for s in final["seats"]]
    assert [s["chips"] for s in last["seats"]] == [s["chips"] for s in final["seats"]]
    bad = dict(record, options={"target": 1})
    r = client.post("/api/replays", json=bad)
    assert r.status_code == 400 and "options must be a dict" in r.json()["error"]
