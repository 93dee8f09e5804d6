"""The web table's HTTP API through FastAPI's test client: every kind of move, refusals that
change nothing, replays, several games side by side, and no hidden card in any response."""

from __future__ import annotations

import importlib
import json
import os
import random
import threading
from typing import Any

import pytest

# The [web] extra is optional for a developer; CI installs it, and there a missing module fails.
for _module in ("fastapi", "httpx2"):
    if os.environ.get("CI"):
        importlib.import_module(_module)
    else:
        pytest.importorskip(_module)

from fastapi.testclient import TestClient  # noqa: E402
from helpers import make_game  # noqa: E402

import continental_web.contract as web_contract  # noqa: E402
import continental_web.session as web_session  # noqa: E402
from continental_env.cards import JOKER, NUM_TYPES, card_to_str  # noqa: E402
from continental_env.contract.game import Game  # noqa: E402
from continental_web.app import create_app  # noqa: E402
from continental_web.session import Opponents, SessionStore, build_state, new_session  # noqa: E402


@pytest.fixture
def app(tmp_path):
    app = create_app(results_dir=tmp_path)
    assert app.state.opponents.probe.wait(300), "the model probe did not finish"
    return app


@pytest.fixture
def client(app):
    return TestClient(app, base_url="http://127.0.0.1")


def start(client: TestClient, **body: Any) -> tuple[str, dict]:
    body.setdefault("opponents", ["greedy"])
    r = client.post("/api/games", json=body)
    assert r.status_code == 200, r.text
    data = r.json()
    return data["id"], data["state"]


def scripted(app, game: Game, opponents: list[str], seat: int = 0) -> str:
    """Store a session whose engine is the hand-made ``game``; returns its id."""
    session = new_session(app.state.opponents, opponents=opponents, seed=1, seat=seat)
    session.game = game
    return app.state.store.add(session)


def move(client: TestClient, gid: str, text: Any) -> Any:
    return client.post(f"/api/games/{gid}/move", json={"action": text})


def texts(state: dict) -> list[str]:
    return [a["text"] for a in state["legal"]]


def flat_hand(state: dict) -> list[str]:
    return [c for g in state["hand"] for c in g["cards"]]


def play_out(client: TestClient, gid: str, state: dict, rng: random.Random, each=None) -> dict:
    """Play to the end: random legal moves for the person, bot moves through ``advance``."""
    while not state["game_over"]:
        if state["your_move"]:
            r = move(client, gid, rng.choice(texts(state)))
        else:
            r = client.post(f"/api/games/{gid}/advance", json={})
        assert r.status_code == 200, r.text
        state = r.json()
        if each:
            each(state)
    return state


# ---------------------------------------------------------------------- start page


def test_options_offer_bots_and_model_names_never_paths(client):
    opts = client.get("/api/options").json()
    assert {"random", "greedy", "strong"} <= set(opts["opponents"])
    assert "ppo_continental_4p" in opts["models"]
    assert all(
        "/" not in n and "\\" not in n and not n.startswith("ppo:") for n in opts["opponents"]
    )
    assert set(opts["games"]["contract"]["presets"]) == {
        "continental",
        "continental_us",
        "continental_es",
    }
    assert opts["games"]["contract"]["presets"]["continental_us"]["max_players"] == 6


def test_the_page_and_its_assets_are_served_locally(client):
    page = client.get("/")
    assert page.status_code == 200 and '<script src="/static/app.js">' in page.text
    assert "http://" not in page.text and "https://" not in page.text  # nothing from a CDN
    for asset in ("app.js", "style.css"):
        r = client.get(f"/static/{asset}")
        assert r.status_code == 200 and "https://" not in r.text


@pytest.mark.parametrize(
    ("body", "needle"),
    [
        ({"opponents": ["greedy"], "preset": "poker"}, "unknown preset 'poker'"),
        ({"opponents": ["greedy"], "game": "chess"}, "unknown game 'chess'"),
        ({"opponents": ["ppo:agents/models/ppo_continental_4p.zip"]}, "unknown opponent"),
        ({"opponents": ["../../etc/passwd"]}, "unknown opponent"),
        ({"opponents": []}, "non-empty list"),
        ({"opponents": ["greedy"] * 6, "preset": "continental_us"}, "7 players"),
        ({"opponents": ["greedy"], "seed": -1}, "seed -1"),
        ({"opponents": ["greedy"], "seed": "12x"}, "seed '12x'"),
        ({"opponents": ["greedy"], "seed": str(2**63)}, "seed 9223372036854775808 must be"),
        ({"opponents": ["greedy"], "rounds": [1] * 8}, "must list 1 to 7 rounds"),
        ({"opponents": ["greedy"], "seat": 2}, "seat 2"),
        ({"opponents": ["greedy"], "rounds": [8]}, "rounds [8]"),
        ({"opponents": ["greedy"], "model": "x.zip"}, "unknown fields ['model']"),
        ({"opponents": ["ppo_continental_4p"]}, "trained for 4 players"),
    ],
)
def test_a_bad_start_is_refused_with_its_reason(client, app, body, needle):
    r = client.post("/api/games", json=body)
    assert r.status_code == 400
    assert needle in r.json()["error"]
    assert not app.state.store._games


def test_non_json_bodies_are_refused(client):
    r = client.post(
        "/api/games", content=b"{not json", headers={"Content-Type": "application/json"}
    )
    assert r.status_code == 400 and "not JSON" in r.json()["error"]
    r = client.post("/api/games", json=[1, 2])
    assert r.status_code == 400 and "JSON object" in r.json()["error"]


def test_game_ids_are_unguessable_and_unknown_ids_are_404(client):
    ids = {start(client, seed=1)[0] for _ in range(5)}
    assert len(ids) == 5
    assert all(len(i) >= 22 for i in ids)  # token_urlsafe(16): 128 random bits
    for path in ("/api/games/nope", "/api/games/1"):
        assert client.get(path).status_code == 404
    assert client.post("/api/games/nope/advance", json={}).status_code == 404


def test_a_ppo_model_plays_by_name(client):
    gid, state = start(
        client, opponents=["ppo_continental_4p", "greedy", "strong"], seed=5, rounds=[1]
    )
    assert state["names"][1].startswith("Trained")
    final = play_out(client, gid, state, random.Random(0))
    assert len(final["rounds_played"]) == 1


# ---------------------------------------------------------------------- every kind of move


def test_draw_opens_the_claim_window_and_bots_answer_one_move_at_a_time(client, app):
    game = make_game(
        hands=["5C 5D 5H 4C 4D 4H KC", "2C 3D 9H TC JD QH KS"],
        discard="7C QH",
        current=0,
        phase="draw",
    )
    gid = scripted(app, game, ["greedy"])
    state = client.get(f"/api/games/{gid}").json()
    assert texts(state) == ["draw", "take"]
    assert "take QH" in state["prompt"]
    state = move(client, gid, "draw").json()
    assert state["phase"] == "claim" and state["actor"] == 1 and not state["your_move"]
    assert state["legal"] == []
    assert "asked whether to claim QH" in state["prompt"]
    assert state["log"][-1] == "you draw from the stock"
    moves_before = app.state.store.get(gid).game.moves
    state = client.post(f"/api/games/{gid}/advance", json={}).json()
    assert app.state.store.get(gid).game.moves == moves_before + 1  # exactly one bot move
    assert "QH" in state["log"][-1]


def test_take_claim_and_pass(client, app):
    game = make_game(
        hands=["5C 5D 5H 4C 4D 4H KC", "2C 3D 9H TC JD QH KS"],
        discard="7C QH",
        current=0,
        phase="draw",
    )
    gid = scripted(app, game, ["greedy"])
    state = move(client, gid, "take").json()
    assert "QH" in flat_hand(state) and state["hand_size"] == 8 and state["phase"] == "play"
    assert state["log"][-1] == "you take QH from the discard pile"

    for answer in ("claim", "pass"):
        game = make_game(
            hands=["5C 5D 5H 4C 4D 4H KC", "2C 3D 9H TC JD QH KS"],
            discard="7C QH",
            current=1,
            phase="claim",
            asked=0,
        )
        gid = scripted(app, game, ["greedy"])
        state = client.get(f"/api/games/{gid}").json()
        assert texts(state) == ["claim", "pass"]
        assert "declined QH. Claim QH" in state["prompt"]
        state = move(client, gid, answer).json()
        if answer == "claim":
            assert state["hand_size"] == 9 and state["seats"][0]["claims"] == 1
            assert state["seats"][0]["known"] == []  # one's own hand is not listed as "known"
        else:
            assert state["hand_size"] == 7
        assert state["current"] == 1 and state["phase"] == "play"


def test_laydown_discard_and_close(client, app):
    game = make_game(
        hands=["5C 5D 5H 4C 4D 4H KC", "2C 3D 9H TC JD QH KS"],
        discard="7C",
        current=0,
        phase="play",
    )
    gid = scripted(app, game, ["greedy"])
    state = client.get(f"/api/games/{gid}").json()
    assert "laydown" in texts(state) and "close" not in texts(state)
    state = move(client, gid, "laydown").json()
    assert [m["owner"] for m in state["table"]] == [0, 0]
    assert all(m["owner_name"] == "you" for m in state["table"])
    assert state["seats"][0]["laid_down"] and state["hand_size"] == 1
    assert "close" in texts(state) and not any(t.startswith("discard") for t in texts(state))
    state = move(client, gid, "close").json()
    assert state["game_over"] is False  # round 2 is dealt at once
    assert state["rounds_played"][0]["closer"] == 0
    assert state["rounds_played"][0]["points"][0] == 0
    assert state["rounds_played"][0]["points"][1] > 0
    assert state["round"] == 2 and state["seats"][1]["score"] > 0
    assert any("Round 1 over" in line for line in state["log"])
    # the card placed face down is never named
    assert not any("close" in line and "KC" in line for line in state["log"])

    game = make_game(
        hands=["5C 9D KC", "2C 3D 9H TC JD QH KS"], discard="7C", current=0, phase="play"
    )
    gid = scripted(app, game, ["greedy"])
    state = move(client, gid, "discard KC").json()
    assert "KC" not in flat_hand(state) and state["discard_top"] == "KC" and state["current"] == 1


def test_layoff_natural_and_joker_at_a_chosen_end(client, app):
    table = [(1, "run", "5H 6H 7H 8H"), (1, "trio", "9C 9D 9S")]
    game = make_game(
        hands=["9H JK KC QD", "2C 3D"], table=table, laid_down=[True, True], current=0, phase="play"
    )
    gid = scripted(app, game, ["greedy"])
    state = client.get(f"/api/games/{gid}").json()
    legal = texts(state)
    assert {
        "layoff 9H 0",
        "layoff 9H 1",
        "layoff JK 0 low",
        "layoff JK 0 high",
        "layoff JK 1",
    } <= set(legal)
    state = move(client, gid, "layoff JK 0 low").json()
    assert state["table"][0]["cards"] == ["JK", "5H", "6H", "7H", "8H"]
    state = move(client, gid, "layoff 9H 0").json()
    assert state["table"][0]["cards"][-1] == "9H"
    assert state["log"][-1] == "you lay off 9H on Casual (1)'s run #0"
    state = move(client, gid, "layoff KC 0").status_code
    assert state == 409  # KC does not fit


def test_layoff_joker_on_a_trio(client, app):
    table = [(1, "trio", "9C 9D 9S")]
    game = make_game(
        hands=["JK KC QD", "2C 3D"], table=table, laid_down=[True, True], current=0, phase="play"
    )
    gid = scripted(app, game, ["greedy"])
    state = move(client, gid, "layoff JK 0").json()
    assert state["table"][0]["cards"] == ["9C", "9D", "9S", "JK"]


def test_swap_takes_the_joker_into_hand(client, app):
    table = [(1, "run", "5H JK 7H 8H")]
    game = make_game(
        hands=["6H KC QD", "2C 3D"], table=table, laid_down=[True, True], current=0, phase="play"
    )
    gid = scripted(app, game, ["greedy"])
    state = client.get(f"/api/games/{gid}").json()
    assert "swap 6H 0" in texts(state)
    state = move(client, gid, "swap 6H 0").json()
    assert state["table"][0]["cards"] == ["5H", "6H", "7H", "8H"]
    assert "JK" in flat_hand(state) and state["hand"][-1]["suit"] == "jokers"
    assert state["log"][-1] == "you swap 6H for the joker in Casual (1)'s run #0"


def test_movejoker_in_the_us_rules(client, app):
    table = [(0, "run", "5H 6H 7H 8H JK"), (1, "run", "2S 3S 4S 5S")]
    game = make_game(
        "continental_us",
        hands=["KC QD", "2C 3D"],
        table=table,
        laid_down=[True, True],
        current=0,
        phase="play",
    )
    gid = scripted(app, game, ["greedy"])
    state = client.get(f"/api/games/{gid}").json()
    assert {"movejoker 0 1 low", "movejoker 0 1 high"} <= set(texts(state))
    state = move(client, gid, "movejoker 0 1 high").json()
    assert state["table"][0]["cards"] == ["5H", "6H", "7H", "8H"]
    assert state["table"][1]["cards"] == ["2S", "3S", "4S", "5S", "JK"]
    assert state["log"][-1] == "you move the joker of run #0 to the high end of run #1"


# ---------------------------------------------------------------------- refusals change nothing


@pytest.mark.parametrize(
    ("body", "status", "needle"),
    [
        ({"action": "fly"}, 400, "malformed move 'fly'"),
        ({"action": "layoff ZZ 1"}, 400, "malformed move 'layoff ZZ 1'"),
        ({"action": "layoff 9H 99"}, 400, "out of range"),
        ({"action": ""}, 400, "malformed move ''"),
        ({"action": 5}, 400, "malformed move 5"),
        ({"action": None}, 400, "malformed move None"),
        ({"move": "draw"}, 400, '{"action"'),
        ({"action": "draw", "x": 1}, 400, '{"action"'),
        ({"action": "take"}, 409, "move 'take' refused"),
        ({"action": "discard 2S"}, 409, "2S is not in seat 0's hand"),
        ({"action": "layoff KC 0"}, 409, "does not fit"),
        ({"action": "close"}, 409, "closing needs exactly one card"),
        ({"action": "swap 9H 0"}, 409, "no joker of meld 0 stands for 9H"),
    ],
)
def test_illegal_or_malformed_moves_are_refused_and_change_nothing(
    client, app, body, status, needle
):
    table = [(1, "run", "5H 6H 7H 8H")]
    game = make_game(
        hands=["9H JK KC QD", "2C 3D"], table=table, laid_down=[True, True], current=0, phase="play"
    )
    gid = scripted(app, game, ["greedy"])
    before_state = client.get(f"/api/games/{gid}").json()
    before = app.state.store.get(gid).game.to_dict()
    r = client.post(f"/api/games/{gid}/move", json=body)
    assert r.status_code == status, r.text
    assert needle in r.json()["error"]
    assert app.state.store.get(gid).game.to_dict() == before
    assert client.get(f"/api/games/{gid}").json() == before_state


def test_out_of_turn_requests_are_refused(client, app):
    game = make_game(hands=["5C 9D KC", "2C 3D 9H"], discard="7C", current=1, phase="play")
    gid = scripted(app, game, ["greedy"])
    before = app.state.store.get(gid).game.to_dict()
    r = move(client, gid, "discard KC")
    assert r.status_code == 409 and "Casual (1)'s move, not yours" in r.json()["error"]
    r = client.get(f"/api/games/{gid}/record")
    assert r.status_code == 409 and "once the game is over" in r.json()["error"]
    assert app.state.store.get(gid).game.to_dict() == before
    game = make_game(hands=["5C 9D KC", "2C 3D 9H"], discard="7C", current=0, phase="play")
    gid = scripted(app, game, ["greedy"])
    r = client.post(f"/api/games/{gid}/advance", json={})
    assert r.status_code == 409 and "it is your move" in r.json()["error"]


# ---------------------------------------------------------------------- whole games, records, replays


def test_a_whole_game_records_and_replays_through_the_engine(client, tmp_path):
    gid, state = start(
        client, opponents=["greedy", "strong"], seed=11, rounds=[1, 2], preset="continental_es"
    )
    seen_rounds = []
    final = play_out(
        client,
        gid,
        state,
        random.Random(3),
        each=lambda s: seen_rounds.append(len(s["rounds_played"])),
    )
    assert final["game_over"] and final["seed"] == "11"
    assert [r["round"] for r in final["rounds_played"]] == [1, 2]
    totals = [sum(r["points"][s] for r in final["rounds_played"]) for s in range(3)]
    assert [s["score"] for s in final["seats"]] == totals
    assert final["winners"] == [s for s in range(3) if totals[s] == min(totals)]
    r = client.get(f"/api/games/{gid}/record")
    assert r.status_code == 200 and "attachment" in r.headers["content-disposition"]
    record = r.json()
    assert record["seed"] == "11" and record["preset"] == "continental_es"
    # replaying the record through the engine gives the same game
    g = Game.new(web_session.RuleConfig.from_dict(record["rules"]), 3, seed=11)
    for text in record["actions"]:
        g.apply(g.action_from_str(text))
    assert g.is_over and g.scores == record["scores"] == totals

    rep = client.post("/api/replays", json=record).json()
    assert rep["steps"] == len(record["actions"])
    first = rep["state"]
    assert first["replay"]["step"] == 0 and first["legal"] == [] and first["seat"] == 0
    last = client.get(f"/api/replays/{rep['id']}/{rep['steps']}").json()
    assert [s["score"] for s in last["seats"]] == totals
    mid = client.get(f"/api/replays/{rep['id']}/7?seat=2").json()
    assert mid["seat"] == 2 and mid["seats"][2]["you"]
    back = client.get(f"/api/replays/{rep['id']}/3").json()  # stepping backwards replays again
    assert back["replay"]["step"] == 3 and len(back["log"]) < len(mid["log"])
    assert client.get(f"/api/replays/{rep['id']}/{rep['steps'] + 1}").status_code == 400
    assert client.get(f"/api/replays/{rep['id']}/1?seat=3").status_code == 400

    # a record in the results folder is chosen by name, never by path
    (tmp_path / "mygame.json").write_text(json.dumps(record, indent=1))
    (tmp_path / "other.json").write_text('{"not": "a replay"}')
    assert client.get("/api/options").json()["replay_files"] == ["mygame.json"]
    assert client.post("/api/replays", json={"file": "mygame.json"}).status_code == 200
    for bad in ("other.json", "../mygame.json", str(tmp_path / "mygame.json")):
        r = client.post("/api/replays", json={"file": bad})
        assert r.status_code == 400 and "no replay file named" in r.json()["error"]


def test_tampered_or_malformed_replays_are_refused(client):
    gid, state = start(client, seed=4, rounds=[1])
    play_out(client, gid, state, random.Random(1))
    record = client.get(f"/api/games/{gid}/record").json()
    bad = dict(record, actions=[*record["actions"][:3], "close", *record["actions"][4:]])
    r = client.post("/api/replays", json=bad)
    assert r.status_code == 400 and "replay move 3 'close' refused" in r.json()["error"]
    for broken, needle in [
        ({"format": "x"}, "not a replay file"),
        (dict(record, version=9), "version 9"),
        (dict(record, seed="x"), "must be integers"),
        (dict(record, names=["a"]), "one string per seat"),
        (dict(record, actions=[1, 2]), "list of action texts"),
        (dict(record, rules={"bogus": 1}), "unknown rule fields"),
    ]:
        r = client.post("/api/replays", json=broken)
        assert r.status_code == 400 and needle in r.json()["error"], (broken, r.text)


# ---------------------------------------------------------------------- several games at once


def test_games_side_by_side_do_not_interfere(app):
    """Two games with one seed played at once in threads end exactly like one played alone."""
    client = TestClient(app, base_url="http://127.0.0.1")

    def run(seed: int, out: dict) -> None:
        gid, state = start(client, opponents=["greedy", "random"], seed=seed, rounds=[1])
        out[seed] = (gid, play_out(client, gid, state, random.Random(seed)))

    results: dict = {}
    threads = [threading.Thread(target=run, args=(seed, results)) for seed in (21, 22, 23)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    alone: dict = {}
    run(22, alone)
    assert results[22][1]["rounds_played"] == alone[22][1]["rounds_played"]
    assert results[22][1]["log"] == alone[22][1]["log"]
    assert len({gid for gid, _ in results.values()}) == 3


def test_one_game_is_locked_against_simultaneous_requests(app):
    client = TestClient(app, base_url="http://127.0.0.1")
    game = make_game(
        hands=["5C 9D", "2C 3D 9H TC JD QH KS", "2D 3H 9S TD JH QS KC"],
        table=[(0, "trio", "4C 4D 4H")],
        laid_down=[True, False, False],
        discard="7C",
        current=1,
        phase="draw",
    )
    gid = scripted(app, game, ["random", "random"])
    session = app.state.store.get(gid)
    codes: list[int] = []

    def poke() -> None:
        codes.append(client.post(f"/api/games/{gid}/advance", json={}).status_code)

    threads = [threading.Thread(target=poke) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    # the bot moves until it is the person's turn; every accepted request is exactly one move
    assert session.game.moves == codes.count(200) and codes.count(200) >= 4
    assert set(codes) <= {200, 409}
    assert session.game.actor == 0


class FakeClock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_the_store_keeps_a_bounded_number_of_games():
    clock = FakeClock()
    store = SessionStore(max_games=3, per_client=5, min_idle=600, clock=clock)
    offer = Opponents(None)

    def game(seed: int):
        return new_session(offer, opponents=["random"], seed=seed)

    ids = []
    for i in range(3):
        ids.append(store.add(game(i), "a"))
        clock.now += 10
    # full of games in play a moment ago: a fourth is refused, nobody's game is dropped
    with pytest.raises(web_session.WebError, match="full of games in play") as refused:
        store.add(game(9), "b")
    assert refused.value.status == 503 and set(store._games) == set(ids)
    # a finished game makes room first, even if it is the most recently used
    store.get(ids[2]).game.state.phase = "game_over"
    store.get(ids[1])  # a request restarts a game's clock
    newer = store.add(game(10), "b")
    assert set(store._games) == {ids[0], ids[1], newer}
    # idle for over min_idle, the least recently used game in play makes room
    clock.now += 700
    store.get(ids[1])
    newest = store.add(game(11), "b")
    assert set(store._games) == {ids[1], newer, newest}


def test_games_expire_by_age_and_one_client_holds_a_bounded_number():
    clock = FakeClock()
    store = SessionStore(max_games=50, per_client=2, ttl=3600, finished_ttl=60, clock=clock)
    offer = Opponents(None)
    a1 = store.add(new_session(offer, opponents=["random"], seed=1), "10.0.0.1")
    clock.now += 1
    a2 = store.add(new_session(offer, opponents=["random"], seed=2), "10.0.0.1")
    b1 = store.add(new_session(offer, opponents=["random"], seed=3), "10.0.0.2")
    clock.now += 1
    # a third game of one client drops its own finished one, never another client's
    store.get(a1).game.state.phase = "game_over"
    store.get(a2)
    a3 = store.add(new_session(offer, opponents=["random"], seed=4), "10.0.0.1")
    assert set(store._games) == {a2, b1, a3}
    with pytest.raises(web_session.WebError) as gone:
        store.get(a1)
    assert gone.value.status == 404 and "no such game" in gone.value.message
    # by age: a game in progress lives an hour after its last request, a finished one a minute
    store.get(a3).game.state.phase = "game_over"
    clock.now += 120
    store.get(b1)
    with pytest.raises(web_session.WebError):
        store.get(a3)
    clock.now += 3500
    store.get(b1)  # still in use
    with pytest.raises(web_session.WebError):
        store.get(a2)  # idle for over an hour
    assert set(store._games) == {b1}


def test_a_game_in_play_is_never_evicted_by_its_own_address():
    """Every tab of one browser is one address: its cap refuses a new game (429) rather than
    drop one in play; a finished game, then one left idle, makes room."""
    clock = FakeClock()
    store = SessionStore(max_games=50, per_client=3, min_idle=600, clock=clock)
    offer = Opponents(None)

    def game(seed: int):
        return new_session(offer, opponents=["random"], seed=seed)

    ids = [store.add(game(i), "127.0.0.1") for i in range(3)]
    for seed in (7, 8):
        with pytest.raises(web_session.WebError, match="3 games in play from your address") as full:
            store.add(game(seed), "127.0.0.1")
        assert full.value.status == 429 and set(store._games) == set(ids)
        clock.now += 300  # each game has a request every five minutes: all stay in play
        for gid in ids:
            store.get(gid)
    assert store.add(game(9), "10.0.0.2")  # another address is not held up
    store.get(ids[1]).game.state.phase = "game_over"
    fourth = store.add(game(10), "127.0.0.1")  # the finished game makes room
    mine = {k for k, v in store._games.items() if v.client == "127.0.0.1"}
    assert mine == {ids[0], ids[2], fourth}
    clock.now += 601
    store.get(ids[2])
    store.get(fourth)
    fifth = store.add(game(11), "127.0.0.1")  # ids[0], idle for ten minutes, makes room
    mine = {k for k, v in store._games.items() if v.client == "127.0.0.1"}
    assert mine == {ids[2], fourth, fifth}


def test_one_address_starting_many_games_keeps_every_game_in_play(app, client):
    gids = [start(client, seed=i, rounds=[1])[0] for i in range(web_session.MAX_PER_CLIENT)]
    r = client.post("/api/games", json={"opponents": ["greedy"], "seed": 99})
    assert r.status_code == 429 and "from your address" in r.json()["error"]
    assert "\n" not in r.json()["error"]
    for gid in gids:
        assert client.get(f"/api/games/{gid}").status_code == 200
    assert set(app.state.store._games) == set(gids)


def test_the_load_script_at_twelve_clients_loses_no_game_in_play():
    """``scripts/web_load.py``: twelve players from one address (more than its cap of games in
    play) get 429s for new games, never a 404 for a game they are playing."""
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    run = subprocess.run(
        [sys.executable, "scripts/web_load.py", "--clients", "12", "--requests", "600"],
        cwd=root,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert run.returncode == 0, run.stdout + run.stderr
    refused = next(line for line in run.stdout.splitlines() if line.startswith("refused:"))
    lost = [f"{kind} 404" for kind in ("move", "advance", "state") if f"{kind} 404" in refused]
    assert not lost and "create 429" in refused, refused


# ---------------------------------------------------------------------- hidden information


def hidden_twin(game: Any, seat: int, rng: random.Random) -> Any:
    """The same position with every card ``seat`` cannot see dealt differently.

    Opponents keep the cards they are publicly known to hold; the rest of their hands and the
    stock (and a closing card placed face down) are pooled, shuffled and dealt back with the same
    sizes. The deal seeds change too.
    """
    data = game.to_dict()
    pool: list[str] = list(data["stock"])
    history = getattr(game, "round_history", None)  # the contract game's closing card
    face_down = game.is_over and bool(history) and history[-1]["closer"] is not None
    if face_down:
        pool.append(data["discard"].pop())
    keep: dict[int, list[str]] = {}
    for s in range(game.num_players):
        if s == seat:
            continue
        known = list(data["known"][s])
        hidden = list(data["hands"][s])
        for c in known:
            hidden.remove(c)
        keep[s] = known
        pool += hidden
    rng.shuffle(pool)
    for s, known in keep.items():
        n = len(data["hands"][s]) - len(known)
        data["hands"][s] = sorted(known + pool[:n])
        del pool[:n]
    if face_down:
        data["discard"].append(pool.pop())
    data["stock"] = pool
    data["deal_seeds"] = [rng.getrandbits(64) for _ in data["deal_seeds"]]
    return type(game).from_dict(data)


def assert_no_hidden_information(session, response: dict, rng: random.Random) -> bool:
    """The response equals the one built from a twin whose hidden cards differ.

    Returns whether the twin really differed (some hidden card moved).
    """
    twin = hidden_twin(session.game, session.seat, rng)
    rebuilt = build_state(
        twin, session.seat, session.names, session.log, session.config, session.seed
    )
    assert json.loads(json.dumps(rebuilt)) == response, "a response depends on hidden cards"
    text = json.dumps(response)
    for word in ('"stock"', '"hands"', '"deal_seeds"', '"rng"'):
        assert word not in text
    if not session.game.is_over:
        assert "seed" not in response
    return twin.to_dict()["hands"] != session.game.to_dict()["hands"]


def check_game(app, client, rng: random.Random, seed: int | None, opponents: list[str]) -> int:
    body = {"opponents": opponents, "rounds": [1, 4]}
    if seed is not None:
        body["seed"] = seed
    gid, state = start(client, **body)
    session = app.state.store.get(gid)
    differing = 0
    checked = 0

    def each(state: dict) -> None:
        nonlocal differing, checked
        differing += assert_no_hidden_information(session, state, rng)
        checked += 1

    each(state)
    play_out(client, gid, state, random.Random(seed), each=each)
    assert checked > 50 and differing > checked // 2  # the check had hidden cards to move
    return checked


def test_no_response_depends_on_hidden_cards(app, client):
    rng = random.Random(99)
    check_game(app, client, rng, None, ["greedy", "strong", "random"])
    check_game(app, client, rng, 8, ["strong"])


def test_replay_frames_show_one_seat_only(client, app):
    gid, state = start(client, opponents=["greedy", "greedy"], seed=13, rounds=[1])
    play_out(client, gid, state, random.Random(2))
    record = client.get(f"/api/games/{gid}/record").json()
    rep = client.post("/api/replays", json=record).json()
    replay = app.state.store.get_replay(rep["id"])
    rng = random.Random(5)
    for step in [*range(0, rep["steps"], 5), rep["steps"]]:
        for seat in (0, 2):
            frame = client.get(f"/api/replays/{rep['id']}/{step}?seat={seat}").json()
            game = replay._cursor
            twin = hidden_twin(game, seat, rng)
            rebuilt = build_state(
                twin, seat, replay.names, replay._cursor_log, frame["config"], None
            )
            for key in ("hand", "seats", "table", "stock_size", "discard_top", "log", "prompt"):
                assert frame[key] == json.loads(json.dumps(rebuilt[key])), (step, seat, key)


def test_the_hidden_information_check_catches_a_leak(app, client, monkeypatch):
    """Positive control: a builder that adds an opponent's hand is caught."""
    real = web_session.seat_state
    behind: dict[int, Any] = {}  # a view holds no reference to its game: note it on the side

    class SpiedView(web_session.PlayerView):
        def __init__(self, game, seat, **kwargs):
            super().__init__(game, seat, **kwargs)
            behind[id(self)] = game

    monkeypatch.setattr(web_contract, "PlayerView", SpiedView)

    def leaky(view, names, log, extra=None):
        state = real(view, names, log, extra)
        other = (view.seat + 1) % view.num_players
        game = behind[id(view)]  # the live engine behind the view
        state["seats"][other]["hand"] = [
            card_to_str(c) for c in range(NUM_TYPES) for _ in range(game.hands[other][c])
        ]
        return state

    monkeypatch.setattr(web_contract, "seat_state", leaky)
    with pytest.raises(AssertionError, match="depends on hidden cards"):
        check_game(app, client, random.Random(1), 3, ["greedy"])

    def stock_leak(view, names, log, extra=None):
        state = real(view, names, log, extra)
        stock = behind[id(view)].stock
        state["next_card"] = card_to_str(stock[-1]) if stock else None
        return state

    monkeypatch.setattr(web_contract, "seat_state", stock_leak)
    with pytest.raises(AssertionError, match="depends on hidden cards"):
        check_game(app, client, random.Random(1), 3, ["greedy"])

    def closing_card_leak(view, names, log, extra=None):
        state = real(view, names, log, extra)
        if view.phase == "game_over":
            state["pile"] = [card_to_str(c) for c in view.discard[-1:]]  # the face-down card
        return state

    monkeypatch.setattr(web_contract, "seat_state", closing_card_leak)
    with pytest.raises(AssertionError, match="depends on hidden cards"):
        for seed in range(3, 8):  # until a game ends with a close rather than the turn limit
            check_game(app, client, random.Random(seed), seed, ["greedy"])


def test_the_hand_is_grouped_by_suit_with_jokers_last(client, app):
    game = make_game(hands=["JK 9H 2C KC 5S AD JK", "2D 3D"], discard="7C", current=0, phase="play")
    gid = scripted(app, game, ["greedy"])
    state = client.get(f"/api/games/{gid}").json()
    assert state["hand"] == [
        {"suit": "clubs", "cards": ["2C", "KC"]},
        {"suit": "diamonds", "cards": ["AD"]},
        {"suit": "hearts", "cards": ["9H"]},
        {"suit": "spades", "cards": ["5S"]},
        {"suit": "jokers", "cards": ["JK", "JK"]},
    ]
    assert JOKER == 52


def test_the_command_prints_its_address_and_serves_the_page(tmp_path):
    """``python -m continental_web --port 0`` binds 127.0.0.1, prints the address, serves."""
    import re
    import subprocess
    import sys
    import urllib.request
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    proc = subprocess.Popen(
        [sys.executable, "-m", "continental_web", "--port", "0", "--results", str(tmp_path)],
        cwd=root,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        line = proc.stdout.readline()
        match = re.search(r"http://127\.0\.0\.1:(\d+)/", line)
        assert match, line
        with urllib.request.urlopen(match.group(0) + "api/options", timeout=10) as r:
            assert "greedy" in json.loads(r.read())["opponents"]
    finally:
        proc.terminate()
        proc.wait(10)
    bad = subprocess.run(
        [sys.executable, "-m", "continental_web", "--port", "70000"],
        cwd=root,
        capture_output=True,
        text=True,
        check=False,
    )
    assert bad.returncode == 2 and "--port 70000 is out of range" in bad.stderr


def _descendants(pid: int) -> dict[int, str]:
    """Every process under ``pid`` (children, their children, ...) with its command line."""
    from pathlib import Path

    parents: dict[int, int] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                parents[int(entry.name)] = int(
                    (entry / "stat").read_text().rsplit(")", 1)[1].split()[1]
                )
            except (OSError, ValueError, IndexError):
                continue
    found: dict[int, str] = {}
    todo = [pid]
    while todo:
        parent = todo.pop()
        for child, ppid in parents.items():
            if ppid == parent and child not in found:
                try:
                    cmd = Path(f"/proc/{child}/cmdline").read_bytes().replace(b"\0", b" ")
                except OSError:
                    continue
                found[child] = cmd.decode(errors="replace")
                todo.append(child)
    return found


def _running(pid: int, cmd: str) -> bool:
    """Whether the process ``pid`` still runs ``cmd`` (not exited, not a zombie, not reused)."""
    from pathlib import Path

    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        now = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ")
    except (OSError, IndexError):
        return False
    return state != "Z" and now.decode(errors="replace") == cmd


@pytest.mark.skipif(not os.path.isdir("/proc"), reason="reads the process table from /proc")
def test_sigterm_ends_the_server_and_every_process_it_started(tmp_path):
    """``python -m continental_web`` after a replay check (the worker pool and the resource
    tracker are running): SIGTERM ends the server, its worker processes and the tracker."""
    import re
    import signal
    import subprocess
    import sys
    import time
    import urllib.request
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    proc = subprocess.Popen(
        [sys.executable, "-m", "continental_web", "--port", "0", "--results", "results"],
        cwd=root,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    children: dict[int, str] = {}
    try:
        line = proc.stdout.readline()
        match = re.search(r"http://127\.0\.0\.1:(\d+)/", line)
        assert match, line
        request = urllib.request.Request(
            match.group(0) + "api/replays",
            data=json.dumps({"file": "web_replay_seed2027.json"}).encode(),
            headers={"Content-Type": "application/json"},
            method="POST",
        )
        with urllib.request.urlopen(request, timeout=120) as r:
            assert r.status == 200  # checked in the worker process
        children = _descendants(proc.pid)
        assert any("spawn_main" in cmd for cmd in children.values()), children
        assert any("resource_tracker" in cmd for cmd in children.values()), children
        proc.send_signal(signal.SIGTERM)
        proc.wait(120)
        deadline = time.monotonic() + 120  # generous: a poll, not a measure of speed
        while any(_running(pid, cmd) for pid, cmd in children.items()):
            if time.monotonic() > deadline:
                break
            time.sleep(0.1)
        left = {pid: cmd for pid, cmd in children.items() if _running(pid, cmd)}
        assert not left, f"still running after SIGTERM: {left}"
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(30)
        for pid, cmd in children.items():  # this test's server's processes, if any were left
            if _running(pid, cmd):
                os.kill(pid, signal.SIGKILL)
        proc.stdout.close()


def test_the_shipped_replay_files_replay_through_the_engine():
    """Every replay file in results/ is listed by the start page and replays to its scores."""
    from pathlib import Path

    results = Path(__file__).resolve().parents[1] / "results"
    names = web_session.record_files(results)
    assert "web_replay_seed2027.json" in names
    for name in names:
        replay = web_session.Replay(web_session.load_record_file(results, name))
        record = json.loads((results / name).read_text())
        assert replay.final_scores == record["scores"]
        assert replay.frame(replay.steps)["game_over"]


def test_the_web_command_is_registered_in_the_continental_command(capsys):
    from agents import cli

    assert cli.COMMANDS["web"].module == "continental_web"
    assert cli.main(["--help"]) == 0
    assert "  web " in capsys.readouterr().out
    with pytest.raises(SystemExit) as stop:
        cli.main(["web", "--port", "70000"])
    assert stop.value.code == 2
    assert "continental web: error: --port 70000 is out of range" in capsys.readouterr().err
