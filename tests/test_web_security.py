"""The web table against a hostile page and hostile uploads: foreign origins and hosts, non-JSON
and oversized bodies, deep JSON, unbounded replay records, unfinished records, slow engine work
and model loads that must not hold up other requests, and PPO models that do or do not load."""

from __future__ import annotations

import importlib
import json
import os
import random
import threading
import time
from pathlib import Path
from typing import Any

import pytest

for _module in ("fastapi", "httpx2"):
    if os.environ.get("CI"):
        importlib.import_module(_module)
    else:
        pytest.importorskip(_module)

from fastapi.testclient import TestClient  # noqa: E402

import continental_web.opponents as web_opponents  # noqa: E402
import continental_web.session as web_session  # noqa: E402
import continental_web.worker as web_worker  # noqa: E402
from continental_web.app import create_app  # noqa: E402
from continental_web.security import MAX_BODY, MAX_DEPTH, SECURITY_HEADERS  # noqa: E402
from continental_web.session import Opponents  # noqa: E402

BASE = "http://127.0.0.1"


@pytest.fixture
def app(tmp_path):
    return create_app(results_dir=tmp_path, opponents=Opponents(None))


@pytest.fixture
def client(app):
    return TestClient(app, base_url=BASE)


def start(client: TestClient, **body: Any) -> tuple[str, dict]:
    body.setdefault("opponents", ["greedy"])
    r = client.post("/api/games", json=body)
    assert r.status_code == 200, r.text
    return r.json()["id"], r.json()["state"]


def play_out(client: TestClient, gid: str, state: dict, rng: random.Random) -> dict:
    while not state["game_over"]:
        if state["your_move"]:
            text = rng.choice([a["text"] for a in state["legal"]])
            r = client.post(f"/api/games/{gid}/move", json={"action": text})
        else:
            r = client.post(f"/api/games/{gid}/advance", json={})
        assert r.status_code == 200, r.text
        state = r.json()
    return state


def finished_record(client: TestClient, **body: Any) -> dict:
    gid, state = start(client, **body)
    play_out(client, gid, state, random.Random(1))
    return client.get(f"/api/games/{gid}/record").json()


# ---------------------------------------------------------------------- a hostile page


def test_a_foreign_origin_or_a_text_body_changes_nothing(client, app):
    gid, _ = start(client, seed=3, seat=1)  # seat 1 plays first in round 1
    session = app.state.store.get(gid)
    moves = session.game.moves
    draw = json.dumps({"action": "draw"})
    refused = [
        # a no-cors POST from another site: text/plain, with that site's Origin
        ({"Origin": "http://evil.example", "Content-Type": "text/plain"}, 403),
        ({"Origin": "http://127.0.0.1:9999", "Content-Type": "application/json"}, 403),
        ({"Origin": "null", "Content-Type": "application/json"}, 403),
        ({"Sec-Fetch-Site": "cross-site", "Content-Type": "application/json"}, 403),
        ({"Content-Type": "text/plain"}, 415),
        ({"Content-Type": "application/x-www-form-urlencoded"}, 415),
        ({}, 415),
    ]
    for headers, status in refused:
        r = client.post(f"/api/games/{gid}/move", content=draw, headers=headers)
        assert r.status_code == status, (headers, r.text)
        assert "error" in r.json()
        r = client.post("/api/games", content=b'{"opponents": ["greedy"]}', headers=headers)
        assert r.status_code == status
    assert session.game.moves == moves and len(app.state.store._games) == 1
    # the page's own origin is accepted
    same = {"Origin": BASE, "Sec-Fetch-Site": "same-origin", "Content-Type": "application/json"}
    r = client.post(f"/api/games/{gid}/move", content=draw, headers=same)
    assert r.status_code == 200 and session.game.moves == moves + 1


def test_seventy_foreign_posts_do_not_evict_a_game(client, app):
    gid, _ = start(client, seed=5)
    headers = {"Origin": "http://evil.example", "Content-Type": "text/plain"}
    body = b'{"opponents": ["random"]}'
    assert {
        client.post("/api/games", content=body, headers=headers).status_code for _ in range(70)
    } == {403}
    assert client.get(f"/api/games/{gid}").status_code == 200


def test_a_foreign_host_name_is_refused(app):
    rebinding = TestClient(app, base_url="http://attacker.example:8000")
    assert rebinding.get("/api/options").status_code == 400
    assert rebinding.post("/api/games", json={"opponents": ["greedy"]}).status_code == 400
    assert not app.state.store._games
    for host in ("127.0.0.1:8000", "localhost:8000", "[::1]:8000"):
        assert TestClient(app, base_url=f"http://{host}").get("/api/options").status_code == 200


def test_bodies_are_bounded_while_they_stream(client, app):
    big = b'{"opponents": ["greedy"], "name": "' + b"x" * MAX_BODY + b'"}'
    r = client.post("/api/games", content=big, headers={"Content-Type": "application/json"})
    assert r.status_code == 413 and f"over {MAX_BODY} bytes" in r.json()["error"]
    # a body without Content-Length is counted as it arrives and refused once past the limit
    import anyio
    from starlette.requests import Request

    from continental_web.security import read_json

    pulled = []

    async def receive() -> dict:
        pulled.append(1)
        return {"type": "http.request", "body": b" " * 100_000, "more_body": len(pulled) < 1000}

    request = Request({"type": "http", "method": "POST", "headers": []}, receive)

    async def read() -> None:
        with pytest.raises(web_session.WebError, match="over") as too_big:
            await read_json(request)
        assert too_big.value.status == 413

    anyio.run(read)
    assert len(pulled) == MAX_BODY // 100_000 + 1  # not one chunk more
    assert not app.state.store._games and not app.state.store._replays


def test_deep_json_and_long_lists_are_400s(client):
    for depth in (MAX_DEPTH + 1, 1000, 100_000):
        body = '{"a": ' + "[" * depth + "]" * depth + "}"
        r = client.post("/api/replays", content=body, headers={"Content-Type": "application/json"})
        assert r.status_code == 400 and "nests deeper" in r.json()["error"], depth
    r = client.post("/api/games", json={"opponents": ["greedy"], "rounds": [1] * 100_000})
    assert r.status_code == 400 and "1 to 7 rounds" in r.json()["error"]
    r = client.post("/api/games", json={"opponents": ["greedy"] * 10_000})
    assert r.status_code == 400 and len(r.text) < 300


def test_every_answer_carries_the_security_headers(client):
    for r in (
        client.get("/"),
        client.get("/static/app.js"),
        client.get("/api/options"),
        client.get("/api/games/nope"),
        client.post("/api/games", content=b"x", headers={"Content-Type": "text/plain"}),
    ):
        for key, value in SECURITY_HEADERS.items():
            assert r.headers.get(key) == value, (r.url, key)
    csp = SECURITY_HEADERS["Content-Security-Policy"]
    assert "frame-ancestors 'none'" in csp and "script-src 'self'" in csp
    assert "unsafe-inline" not in csp and "unsafe-eval" not in csp


def test_a_name_with_a_lone_surrogate_is_a_400_and_stores_nothing(client, app):
    """JSON's ``\\ud800`` decodes to a lone surrogate, which no answer can encode: it is
    refused with its reason and the headers, and eight of them evict nobody's game."""
    gid, _ = start(client, seed=5)
    for field in ('"name": "\\ud800"', '"name": "ab\\udfffc"', '"\\ud800": 1'):
        for _ in range(8):
            r = client.post(
                "/api/games",
                content=f'{{"opponents": ["greedy"], {field}}}'.encode(),
                headers={"Content-Type": "application/json"},
            )
            assert r.status_code == 400, r.text
            error = r.json()["error"]
            assert "lone surrogate" in error and "\n" not in error, error
            for key, value in SECURITY_HEADERS.items():
                assert r.headers.get(key) == value, key
    assert list(app.state.store._games) == [gid]
    assert client.get(f"/api/games/{gid}").status_code == 200
    with pytest.raises(web_session.WebError, match=r"name .* lone surrogate") as refused:
        web_session.new_session(Opponents(None), name="\ud800")
    assert refused.value.status == 400
    record = finished_record(client, seed=4, rounds=[1])
    with pytest.raises(web_session.WebError, match="not valid text"):
        web_session.Replay(dict(record, names=["\udc00", *record["names"][1:]]))


def test_a_failure_is_a_500_with_the_security_headers_and_no_traceback(client, app, monkeypatch):
    def broken(self: Any) -> dict:
        raise RuntimeError(f"secret detail {Path.cwd()}")

    monkeypatch.setattr(web_session.Session, "state", broken)
    for r in (
        client.post("/api/games", json={"opponents": ["greedy"]}),
        TestClient(app, base_url="http://attacker.example").get("/api/options"),
    ):
        assert r.status_code in (400, 500), r.text
        for key, value in SECURITY_HEADERS.items():
            assert r.headers.get(key) == value, (r.status_code, key)
    assert r.status_code == 400
    failed = client.post("/api/games", json={"opponents": ["greedy"]})
    assert failed.json() == {"error": "the server failed (RuntimeError)"}
    assert not app.state.store._games  # a game whose page failed is not kept


# ---------------------------------------------------------------------- hostile replay files


def test_replay_records_are_bounded_and_refused_before_any_move_is_replayed(client, monkeypatch):
    record = finished_record(client, seed=4, rounds=[1])
    knock = finished_record(client, game="knock", opponents=["greedy"], seed=4)
    bad = [
        (dict(record, rules=dict(record["rules"], deck_schedule=[[8, [2] * 100_000]])), 400),
        (dict(record, rules=dict(record["rules"], rounds=[1] * 5000)), 400),
        (dict(record, preset="nope"), 400),
        (dict(knock, options=dict(knock["options"], max_hands=10**7)), 400),
        (dict(knock, options=dict(knock["options"], max_turns_per_hand=10**9)), 400),
        (dict(knock, options=dict(knock["options"], stake=True)), 400),
        (dict(record, actions=["draw"] * (web_session.MAX_REPLAY_ACTIONS + 1)), 413),
        (dict(record, num_players=10**6), 400),
        (dict(record, seed=2**64), 400),
    ]
    checked = []
    monkeypatch.setattr(web_worker, "run", lambda *args, **kw: checked.append(args))
    for rec, status in bad:
        r = client.post("/api/replays", json=rec)
        assert r.status_code == status, r.text
    # each refused from its fields alone, before a single move is replayed
    assert checked == []


def test_an_unfinished_record_is_refused(client):
    """A record of a game in progress would show every hand: refused, whoever wrote it."""
    record = finished_record(client, seed=4, rounds=[1])
    for cut in (0, 5, len(record["actions"]) - 1):
        r = client.post("/api/replays", json=dict(record, actions=record["actions"][:cut]))
        assert r.status_code == 400 and "before the game is over" in r.json()["error"]
    longer = dict(record, actions=[*record["actions"], "draw"])
    r = client.post("/api/replays", json=longer)
    assert r.status_code == 400 and "the game is over" in r.json()["error"]
    gid, _ = start(client, seed=4)
    assert client.get(f"/api/games/{gid}/record").status_code == 409
    assert client.post(f"/api/games/{gid}/replay", json={}).status_code == 409


def test_replay_checking_has_a_time_limit(client):
    record = finished_record(client, seed=4, rounds=[1, 2])
    with pytest.raises(web_session.WebError, match="took over") as slow:
        web_session.Replay(record, time_limit=0.0)
    assert slow.value.status == 413
    assert web_session.Replay(record).final_scores == record["scores"]


# ---------------------------------------------------------------------- seeds above 2**53


def test_a_seed_above_2_53_travels_as_a_string_and_replays_exactly(client):
    seed = 2**62 + 707149  # a double would round it
    assert float(seed) != seed
    gid, state = start(client, seed=str(seed), rounds=[1, 2], opponents=["greedy", "strong"])
    final = play_out(client, gid, state, random.Random(8))
    assert final["seed"] == str(seed)
    text = client.get(f"/api/games/{gid}/record").text
    record = json.loads(text)
    assert record["seed"] == str(seed)
    # the downloaded file, uploaded as it is, and the game opened as a replay directly
    uploaded = client.post(
        "/api/replays", content=text, headers={"Content-Type": "application/json"}
    ).json()
    own = client.post(f"/api/games/{gid}/replay", json={}).json()
    for rep in (uploaded, own):
        assert rep["steps"] == len(record["actions"])
        last = client.get(f"/api/replays/{rep['id']}/{rep['steps']}").json()
        assert [s["score"] for s in last["seats"]] == [s["score"] for s in final["seats"]]
        assert last["rounds_played"] == final["rounds_played"]
    # an integer seed (the files written before seeds were strings) replays too
    assert client.post("/api/replays", json=dict(record, seed=seed)).status_code == 200


# ---------------------------------------------------------------------- slow work off the loop


@pytest.fixture
def live(tmp_path):
    """A real server in a thread (its event loop, worker threads and worker processes)."""
    import socket

    uvicorn = pytest.importorskip("uvicorn")
    holder: dict[str, Any] = {}

    def make(models: Path) -> tuple[str, Any]:
        app = create_app(results_dir=tmp_path, models_dir=models)
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
        server = uvicorn.Server(
            uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning")
        )
        thread = threading.Thread(target=server.run, daemon=True)
        thread.start()
        deadline = time.monotonic() + 120  # a wait for the start, not a measure of speed
        while not server.started:
            assert time.monotonic() < deadline
            time.sleep(0.02)
        holder["server"], holder["thread"] = server, thread
        return f"http://127.0.0.1:{port}", app

    yield make
    if "server" in holder:
        holder["server"].should_exit = True
        holder["thread"].join(10)


def test_the_server_answers_while_a_replay_check_and_a_model_load_are_under_way(
    live, tmp_path, monkeypatch
):
    """A replay being checked and a model being tried run off the event loop (in worker
    processes): while both are held up, ``/api/options`` answers (the model not yet offered,
    asking for it a 503) and another game plays; once they finish, both succeed."""
    import shutil

    shipped = web_session.default_models_dir() / "ppo_continental_4p.npz"
    models = tmp_path / "models"
    models.mkdir()
    shutil.copy(shipped, models / "fresh_copy.npz")  # a file no probe has tried yet
    recorder = TestClient(create_app(opponents=Opponents(None)), base_url=BASE)
    record = finished_record(recorder, seed=4, rounds=[1, 2])
    held = {"run": threading.Event(), "run_once": threading.Event()}
    release = threading.Event()
    for name, entered in held.items():
        real = getattr(web_worker, name)

        def holding(*args: Any, _real: Any = real, _entered: Any = entered, **kw: Any) -> Any:
            _entered.set()
            assert release.wait(120), "the test never released the worker"
            return _real(*args, **kw)

        monkeypatch.setattr(web_worker, name, holding)
    import continental_web.app as web_app

    monkeypatch.setattr(web_app, "REPLAY_TIME_LIMIT", 120.0)  # the hold is not a slow check
    url, app = live(models)
    import httpx2 as httpx

    answers: dict[str, Any] = {}

    def upload() -> None:
        with httpx.Client(base_url=url, timeout=120) as http:
            answers["upload"] = http.post("/api/replays", json=record)

    uploading = threading.Thread(target=upload)
    uploading.start()
    try:
        assert held["run"].wait(120) and held["run_once"].wait(120)
        with httpx.Client(base_url=url, timeout=60) as http:
            opts = http.get("/api/options").json()
            assert opts["models_loading"] == ["fresh_copy"] and "fresh_copy" not in opts["models"]
            r = http.post("/api/games", json={"opponents": ["fresh_copy", "greedy", "greedy"]})
            assert r.status_code == 503 and "still loading" in r.json()["error"]
            r = http.post("/api/games", json={"opponents": ["greedy"], "seed": 3, "seat": 1})
            assert r.status_code == 200, r.text
            r = http.post(f"/api/games/{r.json()['id']}/move", json={"action": "draw"})
            assert r.status_code == 200, r.text
            assert "upload" not in answers  # the check is still held
    finally:
        release.set()
        uploading.join(120)
    assert answers["upload"].status_code == 200
    assert answers["upload"].json()["steps"] == len(record["actions"])
    assert app.state.opponents.probe.wait(120)
    with httpx.Client(base_url=url, timeout=60) as http:
        assert "fresh_copy" in http.get("/api/options").json()["models"]


# ---------------------------------------------------------------------- PPO models


def test_a_model_that_does_not_load_is_not_offered_and_never_a_500(tmp_path, monkeypatch):
    models = tmp_path / "srv" / "secret_dir"
    models.mkdir(parents=True)
    (models / "mymodel.zip").write_bytes(b"PK")

    def no_torch(path: Path, seed: int, game: str = "contract") -> Any:
        raise ImportError("No module named 'torch'", name="torch")

    monkeypatch.setattr(web_opponents, "load_model", no_torch)
    offer = Opponents(models, probe_mode="thread")  # the patched loader runs in this process
    app = create_app(results_dir=tmp_path, opponents=offer)
    assert app.state.opponents.probe.wait(10)
    client = TestClient(app, base_url=BASE)
    opts = client.get("/api/options").json()
    assert "mymodel" not in opts["opponents"] and opts["models"] == []
    r = client.post("/api/games", json={"opponents": ["mymodel", "greedy", "greedy"]})
    assert r.status_code == 400
    error = r.json()["error"]
    assert "torch" in error and "numpy export" in error and "mymodel" in error
    assert str(tmp_path) not in error and "secret_dir" not in error


def test_a_broken_model_file_names_the_model_not_the_path(tmp_path):
    models = tmp_path / "secret_dir"
    models.mkdir()
    (models / "broken.npz").write_bytes(b"not an npz")
    app = create_app(results_dir=tmp_path, models_dir=models)
    assert app.state.opponents.probe.wait(30)
    client = TestClient(app, base_url=BASE)
    assert "broken" not in client.get("/api/options").json()["opponents"]
    r = client.post("/api/games", json={"opponents": ["broken"]})
    assert r.status_code == 400 and "broken" in r.json()["error"]
    assert "secret_dir" not in r.text and str(tmp_path) not in r.text


def test_a_model_that_loads_is_offered_and_plays(tmp_path, monkeypatch):
    models = tmp_path / "models"
    models.mkdir()
    (models / "copycat.npz").write_bytes(b"")
    from agents.contract.greedy import GreedyAgent

    monkeypatch.setattr(web_opponents, "load_model", lambda path, seed, game: GreedyAgent(seed))
    monkeypatch.setattr("agents.bots.ppo_agent.check_table", lambda agent, players: None)
    app = create_app(results_dir=tmp_path, opponents=Opponents(models, probe_mode="thread"))
    assert app.state.opponents.probe.wait(10)
    client = TestClient(app, base_url=BASE)
    opts = client.get("/api/options").json()
    assert "copycat" in opts["opponents"] and opts["models_loading"] == []
    assert opts["games"]["contract"]["labels"]["copycat"]["label"] == "Trained"
    gid, state = start(client, opponents=["copycat"], seed=2, rounds=[1])
    assert state["names"][1] == "Trained (1)"
    assert play_out(client, gid, state, random.Random(0))["game_over"]
