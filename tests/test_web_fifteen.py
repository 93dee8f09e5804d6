"""The fifteen-card game at the web table: its moves, a whole game, replays, hidden cards."""

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
from fifteen_helpers import fifteen_game  # noqa: E402
from test_web_api import assert_no_hidden_information, move, play_out, texts  # noqa: E402

from continental_env.fifteen.game import Game  # noqa: E402
from continental_web.app import create_app  # noqa: E402
from continental_web.session import new_session  # noqa: E402

OUT_HAND = "AH 2H 3H 4C 5C 6C 7D 8D 9D 4S 5S 6S 9C TC JC"  # 3+3+3+3+3
OTHER = "2D 4D 6D TD QD 2S 8S TS QS KS 3C 7C KC 5H 9H"  # goes nowhere


@pytest.fixture
def app(tmp_path):
    return create_app(results_dir=tmp_path)


@pytest.fixture
def client(app):
    return TestClient(app, base_url="http://127.0.0.1")


def scripted(app, game: Game) -> str:
    session = new_session(app.state.opponents, game="fifteen", opponents=["greedy"], seed=1)
    session.game = game
    return app.state.store.add(session)


def test_options_offer_the_fifteen_card_game_with_its_own_bots(client):
    games = client.get("/api/options").json()["games"]
    assert games["fifteen"]["opponents"][:3] == ["random", "greedy", "strong"]  # then its model
    assert games["fifteen"]["presets"]["fifteen"] == {"min_players": 2, "max_players": 12}
    r = client.post("/api/games", json={"game": "fifteen", "opponents": ["search"]})
    assert r.status_code == 400 and "unknown opponent 'search' for fifteen" in r.json()["error"]
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


def test_a_whole_fifteen_game_hides_every_hidden_card_and_replays(client, app):
    r = client.post(
        "/api/games",
        json={"game": "fifteen", "opponents": ["greedy", "random"], "seed": 5, "hands": 2},
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
    assert final["game_over"] and len(final["rounds_played"]) == 2
    record = client.get(f"/api/games/{gid}/record").json()
    assert record["game"] == "fifteen" and record["options"]["hands"] == 2
    rep = client.post("/api/replays", json=record).json()
    last = client.get(f"/api/replays/{rep['id']}/{rep['steps']}").json()
    assert [s["score"] for s in last["seats"]] == [s["score"] for s in final["seats"]]
    bad = dict(record, options={"cheat": 1})
    r = client.post("/api/replays", json=bad)
    assert r.status_code == 400 and "options must be a dict" in r.json()["error"]
