"""What a card player reads at the web table: the log in the second person, each round's end
(every hand as counted, the final table), the score sheet's data, bot labels from the registry."""

from __future__ import annotations

import importlib
import os
import random
from pathlib import Path

import pytest

for _module in ("fastapi", "httpx2"):
    if os.environ.get("CI"):
        importlib.import_module(_module)
    else:
        pytest.importorskip(_module)

from fastapi.testclient import TestClient  # noqa: E402

import continental_web.session as web_session  # noqa: E402
from continental_env.cards import card_from_str  # noqa: E402
from continental_env.rules import PRESETS, points_table  # noqa: E402
from continental_web.app import create_app  # noqa: E402
from continental_web.session import Opponents, second_person  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture
def client(tmp_path):
    return TestClient(
        create_app(results_dir=tmp_path, opponents=Opponents(None)), base_url="http://127.0.0.1"
    )


def play_out(client, body: dict, rng: random.Random) -> tuple[dict, list[str]]:
    r = client.post("/api/games", json=body)
    assert r.status_code == 200, r.text
    gid, state = r.json()["id"], r.json()["state"]
    while not state["game_over"]:
        if state["your_move"]:
            r = client.post(
                f"/api/games/{gid}/move", json={"action": rng.choice(state["legal"])["text"]}
            )
        else:
            r = client.post(f"/api/games/{gid}/advance", json={})
        state = r.json()
    return state, state["log"]


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("you draws from the stock", "you draw from the stock"),
        ("you claims 7C and takes a penalty card", "you claim 7C and take a penalty card"),
        (
            "Round 2 dealt; you deals, Casual (1) plays first",
            "Round 2 dealt; you deal, Casual (1) plays first",
        ),
        (
            "Hand 3 dealt; Casual (2) deals, you plays first",
            "Hand 3 dealt; Casual (2) deals, you play first",
        ),
        ("Hand 2: you announces knock (2C 3C 4C)", "Hand 2: you announce knock (2C 3C 4C)"),
        ("  you is over 100 and out", "  you are over 100 and out"),
        ("  you buys back for 20: 101 -> 80", "  you buy back for 20: 101 -> 80"),
        ("Casual (1) lays off 9H on you's trio #0", "Casual (1) lays off 9H on your trio #0"),
        ("Casual (1) draws from the stock", "Casual (1) draws from the stock"),
        (
            "points: you +12 (deadwood 12), Casual (1) +3",
            "points: you +12 (deadwood 12), Casual (1) +3",
        ),
    ],
)
def test_the_log_speaks_to_you(line, expected):
    assert second_person(line) == expected


def test_whole_games_log_no_third_person_verb_after_you(client):
    wrong = (
        "you draws",
        "you takes",
        "and takes",
        "you claims",
        "you deals",
        "you passes",
        "you discards",
        "you announces",
        "you lays",
        "you closes",
        "you is ",
        "you's",
    )
    for body in (
        {"opponents": ["greedy", "strong"], "seed": 3, "rounds": [1, 2], "seat": 1},
        {"game": "knock", "opponents": ["greedy", "greedy"], "seed": 5},
        {"game": "fifteen", "opponents": ["greedy"], "seed": 6, "hands": 1},
    ):
        _, log = play_out(client, body, random.Random(4))
        if body.get("game") is None:
            assert sum("you" in x for x in log) > 5, log
        for line in log:
            assert not any(w in line for w in wrong if "you" in line), line


def test_each_round_end_shows_every_hand_as_counted_and_the_final_table(client):
    final, _ = play_out(
        client,
        {"opponents": ["greedy", "strong", "random"], "seed": 12, "rounds": [1, 2, 3]},
        random.Random(2),
    )
    ends = final["round_ends"]
    assert [e["round"] for e in ends] == [1, 2, 3]
    assert [e["points"] for e in ends] == [r["points"] for r in final["rounds_played"]]
    pts = points_table(PRESETS["continental"])
    shown_any = 0
    for end in ends:
        for seat, cards in enumerate(end["shown"]):
            if seat == end["closer"]:
                assert cards == []
                continue
            assert cards is not None, end  # the seats' last hands are known here
            assert sum(pts[card_from_str(c)] for c in cards) == end["points"][seat]
            shown_any += len(cards)
        if end["closer"] is not None:
            assert end["table"], "a closed round has the closer's melds on the table"
    assert shown_any > 10
    assert "round_ends" not in final["config"]


def test_knock_and_fifteen_hand_ends_show_what_the_rules_show(client):
    final, _ = play_out(
        client, {"game": "knock", "opponents": ["greedy", "greedy"], "seed": 9}, random.Random(1)
    )
    for end, hand in zip(final["round_ends"], final["rounds_played"], strict=True):
        assert end["points"] == hand["points"]
        assert any(cards for cards in end["shown"])  # every hand in the game is shown
    final, _ = play_out(
        client, {"game": "fifteen", "opponents": ["greedy"], "seed": 2}, random.Random(1)
    )
    for end in final["round_ends"]:
        assert end["shown"] is None  # only the winner's sequences are shown in this game
        assert (end["closer"] is None) == (not end["melds"])


def test_bot_labels_come_from_the_registry(client, monkeypatch):
    opts = client.get("/api/options").json()
    labels = opts["games"]["contract"]["labels"]
    assert labels["greedy"]["label"] == "Casual" and labels["strong"]["label"] == "Expert"
    assert set(opts["games"]["knock"]["labels"]) == set(opts["games"]["knock"]["opponents"])
    # a bot registered later for the knock game is offered, with a label, without a change here
    from agents import games

    spec = games.game_spec("knock")
    extended = type(spec)(**{**spec.__dict__, "agent_names": (*spec.agent_names, "ace_bot")})
    monkeypatch.setattr("agents.knock.GAME", extended)
    opts = client.get("/api/options").json()
    assert "ace_bot" in opts["games"]["knock"]["opponents"]
    assert opts["games"]["knock"]["labels"]["ace_bot"] == {
        "label": "Ace bot",
        "about": "the ace_bot bot",
    }
    assert web_session.bot_label("strong")["label"] == "Expert"


def test_the_contract_game_is_called_contract_and_its_old_name_still_works(client):
    """The API, the pages and new records say ``contract``; a request or a replay file that
    says ``continental`` (the name before) still starts or replays the contract game."""
    opts = client.get("/api/options").json()
    assert list(opts["games"]) == ["contract", "fifteen", "knock"]
    fields = [opts["games"][g]["fields"] for g in opts["games"]]
    assert fields == [["preset", "rounds"], ["hands"], []]
    # a field another game takes is refused, naming it (the table module's ``start_options``)
    for body, needle in (
        ({"game": "fifteen", "rounds": [1]}, "rounds is a field of the contract game"),
        ({"game": "knock", "hands": 1}, "no rounds or hands"),
        ({"game": "contract", "hands": 1}, "hands is a field of the fifteen-card game"),
    ):
        r = client.post("/api/games", json={"opponents": ["greedy"], **body})
        assert r.status_code == 400 and needle in r.json()["error"], r.text
    ids = []
    for name in ("contract", "continental"):
        body = {"game": name, "opponents": ["greedy"], "seed": 4, "rounds": [1]}
        r = client.post("/api/games", json=body)
        assert r.status_code == 200, r.text
        assert r.json()["state"]["game"] == "contract" and r.json()["state"]["auto_pass"]
        ids.append(r.json()["id"])
    gid, state, rng = ids[0], client.get(f"/api/games/{ids[0]}").json(), random.Random(2)
    while not state["game_over"]:
        if state["your_move"]:
            text = rng.choice(state["legal"])["text"]
            state = client.post(f"/api/games/{gid}/move", json={"action": text}).json()
        else:
            state = client.post(f"/api/games/{gid}/advance", json={}).json()
    r = client.get(f"/api/games/{gid}/record")
    record = r.json()
    assert record["game"] == "contract"
    assert 'filename="contract_seed4.json"' in r.headers["content-disposition"]
    old = dict(record, game="continental")
    older = {k: v for k, v in record.items() if k != "game"}  # the first files had no "game"
    for rec in (record, old, older):
        opened = client.post("/api/replays", json=rec)
        assert opened.status_code == 200, opened.text
        steps = opened.json()["steps"]
        last = client.get(f"/api/replays/{opened.json()['id']}/{steps}").json()
        assert last["game"] == "contract" and last["game_over"]
        assert [s["score"] for s in last["seats"]] == [s["score"] for s in state["seats"]]
    r = client.post("/api/replays", json=dict(record, game="chess"))
    assert r.status_code == 400 and "unknown game 'chess'" in r.json()["error"]
    # the shipped replay file was written before the rename
    shipped = web_session.load_record_file(ROOT / "results", "web_replay_seed2027.json")
    assert shipped["game"] == "continental"
    replay = web_session.Replay(shipped)
    assert replay.kind == "contract" and replay.final_scores == shipped["scores"]


def test_the_shared_web_code_never_asks_which_game_it_is():
    """Game-specific questions live in each game's table module or its ``GameSpec``: no shared
    module (nor the page's script) compares a game's name."""
    import re

    comparison = re.compile(r"""[=!]= *["'](contract|continental|knock|fifteen)["']""")
    found = [
        f"{path.relative_to(ROOT)}:{n}: {line.strip()}"
        for path in sorted((ROOT / "continental_web").rglob("*"))
        if path.suffix in (".py", ".js")
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if comparison.search(line)
    ]
    assert not found, found
