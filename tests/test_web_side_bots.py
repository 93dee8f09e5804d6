"""The side games' trained agents at the web table: each model offered at the table of the game
its metadata names and no other, a whole game played against it through the HTTP API, and no
response that reveals a hidden card (with a positive control of that check)."""

from __future__ import annotations

import importlib
import json
import os
import random
import shutil
from pathlib import Path

import pytest

for _module in ("fastapi", "httpx2"):  # the [web] extra: optional for a developer, not in CI
    if os.environ.get("CI"):
        importlib.import_module(_module)
    else:
        pytest.importorskip(_module)

from fastapi.testclient import TestClient  # noqa: E402
from test_web_api import assert_no_hidden_information, play_out  # noqa: E402

from agents.bots.ppo_agent import NumpyPolicy  # noqa: E402
from continental_env.cards import card_to_str  # noqa: E402
from continental_web.app import create_app  # noqa: E402
from continental_web.opponents import Opponents, default_models_dir, model_table  # noqa: E402

BASE = "http://127.0.0.1"
SHIPPED = default_models_dir()
MODEL = {"contract": "ppo_continental_4p", "fifteen": "ppo_fifteen_4p", "knock": "ppo_knock_4p"}
ALSO = {
    "contract": [
        "selfplay_continental_4p",
        "selfplay2_continental_4p",
        "selfplay3_continental_4p",
        "selfplay4_continental_4p",
        "selfplay5_continental_4p",
        "selfplay6_continental_4p",
        "selfplay7_continental_4p",
    ]
}  # further shipped models (numpy alone)


def export(name: str) -> Path:
    """The shipped numpy export of ``name`` (the table prefers it over the .zip)."""
    return SHIPPED / f"{name}.npz"


@pytest.fixture(scope="module")
def offer() -> Opponents:
    opponents = Opponents(SHIPPED, probe_mode="thread")  # the numpy exports: no torch needed
    assert opponents.probe.wait(60)
    return opponents


@pytest.fixture
def app(tmp_path: Path, offer: Opponents):  # type: ignore[no-untyped-def]
    return create_app(results_dir=tmp_path, opponents=offer)


@pytest.fixture
def client(app) -> TestClient:  # type: ignore[no-untyped-def]
    return TestClient(app, base_url=BASE)


def test_each_model_is_offered_at_its_own_games_table_only(client: TestClient) -> None:
    opts = client.get("/api/options").json()
    every = {k: [m, *ALSO.get(k, [])] for k, m in MODEL.items()}
    for kind, models in every.items():
        offered = opts["games"][kind]["opponents"]
        others = [m for k, ms in every.items() if k != kind for m in ms]
        assert not set(others) & set(offered), (kind, offered)  # never another game's model
        for model in models:
            assert model in offered, (kind, offered)
            label = opts["games"][kind]["labels"][model]
            assert label["label"] == "Trained" and model in label["about"]
            assert "/" not in label["about"]  # a name, never a server path
    assert opts["games"]["fifteen"]["opponents"][:3] == ["random", "greedy", "strong"]
    shipped = {m for ms in every.values() for m in ms}
    assert set(opts["models"]) == shipped
    assert set(opts["opponents"]) & shipped == {
        "ppo_continental_4p",
        "selfplay_continental_4p",
        "selfplay2_continental_4p",
        "selfplay3_continental_4p",
        "selfplay4_continental_4p",
        "selfplay5_continental_4p",
        "selfplay6_continental_4p",
        "selfplay7_continental_4p",
    }
    # Another game's model is refused at a table, in one line naming it and the table's names.
    for kind, model in (("knock", "ppo_fifteen_4p"), ("fifteen", "ppo_knock_4p"),
                        ("knock", "ppo_continental_4p"), ("contract", "ppo_knock_4p")):  # fmt: skip
        r = client.post("/api/games", json={"game": kind, "opponents": [model, "greedy", "greedy"]})
        assert r.status_code == 400, (kind, model)
        error = r.json()["error"]
        assert f"unknown opponent {model!r} for {kind}" in error and MODEL[kind] in error


def test_the_table_comes_from_the_metadata_not_the_file_name(tmp_path: Path) -> None:
    models = tmp_path / "models"
    models.mkdir()
    shutil.copy(export("ppo_knock_4p"), models / "mystery.npz")  # a knock model, any name
    shutil.copy(export("ppo_fifteen_4p"), models / "ppo_knock_4p.npz")  # a misleading name
    policy = NumpyPolicy.load_npz(str(export("ppo_knock_4p")))
    policy.meta = {**(policy.meta or {}), "env": "poker_v0"}
    policy.save_npz(str(models / "poker.npz"))  # a game no table plays
    assert model_table(models / "mystery.npz") == "knock"
    assert model_table(models / "ppo_knock_4p.npz") == "fifteen"
    assert model_table(models / "poker.npz") is None
    assert model_table(export("ppo_continental_4p")) == "contract"
    offer = Opponents(models, probe_mode="thread")
    assert offer.probe.wait(60)
    assert offer.names("knock") == ["random", "greedy", "strong", "mystery"]
    assert offer.names("fifteen") == ["random", "greedy", "strong", "ppo_knock_4p"]
    assert "poker" not in offer.names() and "mystery" not in offer.names()
    assert "no table here plays" in offer.probe.status("poker")


def test_the_worker_process_probes_a_side_model_for_its_game(tmp_path: Path) -> None:
    models = tmp_path / "models"
    models.mkdir()
    shutil.copy(export("ppo_knock_4p"), models / "knocker.npz")
    app = create_app(results_dir=tmp_path, models_dir=models)  # the default: a worker process
    assert app.state.opponents.probe.wait(120)
    opts = TestClient(app, base_url=BASE).get("/api/options").json()
    assert opts["models"] == ["knocker"] and opts["models_loading"] == []
    assert "knocker" in opts["games"]["knock"]["opponents"]
    assert "knocker" not in opts["games"]["fifteen"]["opponents"] + opts["opponents"]


def play_against_the_model(app, client: TestClient, body: dict, seed: int) -> tuple[str, dict, int]:  # type: ignore[no-untyped-def]
    """Play ``body``'s game to its end through the API, every response checked against a twin
    whose hidden cards differ; the game's id, its final state and the number of checks."""
    r = client.post("/api/games", json=body)
    assert r.status_code == 200, r.text
    gid, state = r.json()["id"], r.json()["state"]
    session = app.state.store.get(gid)
    # The record (seed and every move) is refused while the game is played: it would reveal.
    assert client.get(f"/api/games/{gid}/record").status_code == 409
    rng = random.Random(seed)
    differing: list[bool] = [assert_no_hidden_information(session, state, rng)]
    final = play_out(
        client, gid, state, random.Random(seed + 1),
        each=lambda s: differing.append(assert_no_hidden_information(session, s, rng)),
    )  # fmt: skip
    assert sum(differing) > len(differing) // 2  # the check had hidden cards to move
    return gid, final, len(differing)


@pytest.mark.parametrize(
    ("kind", "extra"),
    [("fifteen", {"hands": 2}), ("knock", {})],  # knock: the whole game, to one player left
)
def test_a_whole_game_against_the_model_hides_every_hidden_card(
    app,  # type: ignore[no-untyped-def]
    client: TestClient,
    kind: str,
    extra: dict,
) -> None:
    body = {"game": kind, "opponents": [MODEL[kind], "greedy", "strong"], "seed": 31, **extra}
    gid, final, checked = play_against_the_model(app, client, body, seed=7)
    assert final["game_over"] and final["winners"] and checked > 20
    assert final["names"][1] == "Trained (1)"
    # The model played its own moves: its seat is named in the log's moves.
    assert any(line.startswith("Trained (1) ") for line in final["log"]), final["log"][-10:]
    record = client.get(f"/api/games/{gid}/record").json()
    assert record["game"] == kind and record["opponents"][0] == MODEL[kind]
    assert "/" not in json.dumps(record["opponents"])  # the model's name, never its path


def test_the_model_is_refused_at_a_table_of_another_size(client: TestClient) -> None:
    r = client.post("/api/games", json={"game": "knock", "opponents": ["ppo_knock_4p", "greedy"]})
    assert r.status_code == 400
    error = r.json()["error"]
    assert "ppo_knock_4p" in error and "4 players" in error and "3 players" in error
    assert str(SHIPPED) not in error and "ppo:" not in error


def test_the_hidden_card_check_catches_a_leaked_hand(app, client: TestClient) -> None:  # type: ignore[no-untyped-def]
    """Positive control: the same check fails on a response that shows the model's hand."""
    body = {"game": "knock", "opponents": ["ppo_knock_4p", "greedy", "greedy"], "seed": 4}
    r = client.post("/api/games", json=body)
    gid, state = r.json()["id"], r.json()["state"]
    session = app.state.store.get(gid)
    assert assert_no_hidden_information(session, state, random.Random(1))  # the honest answer
    hand = session.game.hands[1]  # the model's seat: every card it holds, counts per type
    leaked = json.loads(json.dumps(state))
    leaked["seats"][1]["known"] = [card_to_str(c) for c in range(len(hand)) for _ in range(hand[c])]
    with pytest.raises(AssertionError, match="hidden cards"):
        assert_no_hidden_information(session, leaked, random.Random(1))
