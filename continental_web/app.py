"""The HTTP API and the static page (FastAPI).

| method and path | body | answer |
|---|---|---|
| ``GET /`` | | the page (``static/index.html``) |
| ``GET /api/options`` | | games (``contract``, ``fifteen``, ``knock``): presets and their player ranges, the start fields each takes, opponent names; replay files |
| ``POST /api/games`` | ``{game, preset, opponents: [names], seed, seat, rounds or hands, name}`` | ``{id, state}`` |
| ``GET /api/games/{id}`` | | the state for the person's seat |
| ``POST /api/games/{id}/move`` | ``{action: "layoff 9S 2"}`` | the new state |
| ``POST /api/games/{id}/advance`` | ``{}`` | one bot move, then the new state |
| ``GET /api/games/{id}/record`` | | the finished game as a replay file (409 before the end) |
| ``POST /api/games/{id}/replay`` | ``{}`` | the finished game opened as a replay: ``{id, steps, state}`` |
| ``POST /api/replays`` | a replay file, or ``{file: name}`` from the results folder | ``{id, steps, state}`` |
| ``GET /api/replays/{id}/{step}?seat=S`` | | the position after ``step`` moves from seat S's view |

``game`` names a table of ``continental_web.games.TABLES``; ``continental``, the contract game's
name before, is still read, in a request and in a replay file.

Bots move one at a time when the page asks (``advance``): the page waits a short, visible delay
between its requests, so the server needs no timers or background tasks, each bot move is one
locked step of one game, and a test client drives a game exactly as the page does.

Refusals are JSON ``{"error": message}`` with a 4xx status: 400 for a malformed request or a move
that cannot be read, 404 for an unknown id, 409 for a move that is not legal now (the engine's
reason is in the message) or a request out of turn, 403/415/413 for a request from another
origin, not JSON, or too large (``continental_web.security``), 503 while a model is still
loading or when engine work passes its time limit. A refused request changes nothing. Every
answer, a refusal or a failure (500) included, carries the security headers.

Engine work (bots, replays, model loads) runs in worker threads (``off_loop``), never on the
event loop, so one slow request does not hold up the others.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Callable, Sequence
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any, TypeVar

import anyio
from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import FileResponse, JSONResponse, Response
from fastapi.staticfiles import StaticFiles
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.middleware.trustedhost import TrustedHostMiddleware

from continental_web import worker
from continental_web.errors import WebError
from continental_web.games import GAMES
from continental_web.opponents import Opponents, default_models_dir
from continental_web.replay import (
    REPLAY_TIME_LIMIT,
    Replay,
    check_record,
    load_record_file,
    record_files,
)
from continental_web.security import LOOPBACK_HOSTS, GuardMiddleware, read_json
from continental_web.session import SessionStore, new_session

STATIC = Path(__file__).resolve().parent / "static"
ENGINE_TIME_LIMIT = 30.0  # seconds a request waits for engine work (a bot, a model) in a thread
T = TypeVar("T")


async def off_loop(fn: Callable[[], T], limit: float = ENGINE_TIME_LIMIT) -> T:
    """Run ``fn`` in a worker thread so that the event loop keeps answering; WebError 503 when
    it takes over ``limit`` seconds (the thread finishes on its own; its result is dropped)."""
    with anyio.move_on_after(limit):
        return await anyio.to_thread.run_sync(fn, abandon_on_cancel=True)
    raise WebError(503, f"the server took over {limit:g} s on this request; try again")


@asynccontextmanager
async def _lifespan(app: FastAPI) -> AsyncIterator[None]:
    """On the server's shutdown (Ctrl-C, SIGTERM), end the worker processes it started: uvicorn
    then re-raises the signal, which ends this process without running ``atexit``."""
    yield
    app.state.opponents.probe.stop()  # before the workers: it starts no process after them
    await anyio.to_thread.run_sync(worker.stop_all)


def client_of(request: Request) -> str:
    """The client's address (the per-client cap of the store)."""
    return request.client.host if request.client else ""


def create_app(
    models_dir: Path | None = None,
    results_dir: Path | None = None,
    store: SessionStore | None = None,
    allowed_hosts: Sequence[str] | None = None,
    opponents: Opponents | None = None,
) -> FastAPI:
    """The web application; ``models_dir`` holds the PPO models offered by name.

    ``allowed_hosts`` are the names the ``Host`` header may give (default the loopback names;
    ``python -m continental_web --host`` adds its own).
    """
    app = FastAPI(
        title="Continental", docs_url=None, redoc_url=None, openapi_url=None, lifespan=_lifespan
    )
    if opponents is None:
        opponents = Opponents(default_models_dir() if models_dir is None else models_dir)
    store = store or SessionStore()
    app.state.store = store
    app.state.opponents = opponents
    app.state.results_dir = results_dir
    # The guard is the outermost: its security headers go on every answer, the trusted-host
    # refusal and a failure's 500 included.
    app.add_middleware(TrustedHostMiddleware, allowed_hosts=list(allowed_hosts or LOOPBACK_HOSTS))
    app.add_middleware(GuardMiddleware)

    @app.exception_handler(WebError)
    async def _web_error(request: Request, exc: WebError) -> JSONResponse:
        return JSONResponse({"error": exc.message}, status_code=exc.status)

    @app.exception_handler(RequestValidationError)
    async def _bad_request(request: Request, exc: RequestValidationError) -> JSONResponse:
        return JSONResponse({"error": "malformed request"}, status_code=400)

    @app.exception_handler(StarletteHTTPException)
    async def _http_error(request: Request, exc: StarletteHTTPException) -> JSONResponse:
        return JSONResponse({"error": str(exc.detail)}, status_code=exc.status_code)

    @app.get("/", include_in_schema=False)
    def index() -> FileResponse:
        return FileResponse(STATIC / "index.html", headers={"Cache-Control": "no-store"})

    @app.get("/api/options")
    def options() -> dict[str, Any]:
        return {
            "games": {
                name: {
                    "label": spec["label"],
                    "presets": spec["presets"],
                    "fields": spec["fields"],
                    "opponents": opponents.names(name),
                    "labels": opponents.labels(name),
                }
                for name, spec in GAMES.items()
            },
            "opponents": opponents.names(),
            "bots": opponents.bots,
            "models": [m for name in GAMES for m in opponents.offered_models(name)],
            "models_loading": opponents.pending_models(),
            "replay_files": record_files(results_dir),
        }

    @app.post("/api/games")
    async def create_game(request: Request) -> dict[str, Any]:
        data = await read_json(request)
        allowed = {"game", "preset", "opponents", "seed", "seat", "rounds", "hands", "name"}
        unknown = sorted(set(data) - allowed)
        if unknown:
            raise WebError(400, f"unknown fields {unknown[:10]}; allowed: {sorted(allowed)}")
        client = client_of(request)

        def start() -> dict[str, Any]:
            session = new_session(opponents, **data)
            state = session.state()  # before it is stored: a game whose page fails is not kept
            return {"id": store.add(session, client), "state": state}

        return await off_loop(start)

    @app.get("/api/games/{game_id}")
    async def game_state(game_id: str) -> dict[str, Any]:
        return await off_loop(lambda: store.run(game_id, lambda s: s.state()))

    @app.post("/api/games/{game_id}/move")
    async def move(game_id: str, request: Request) -> dict[str, Any]:
        data = await read_json(request)
        if set(data) != {"action"}:
            raise WebError(400, 'expected {"action": "<move text>"}')
        return await off_loop(lambda: store.run(game_id, lambda s: s.move(data["action"])))

    @app.post("/api/games/{game_id}/advance")
    async def advance(game_id: str, request: Request) -> dict[str, Any]:
        data = await read_json(request)
        if data:
            raise WebError(400, "advance takes an empty JSON object")
        return await off_loop(lambda: store.run(game_id, lambda s: s.advance()))

    @app.get("/api/games/{game_id}/record")
    async def record(game_id: str) -> Response:
        rec = await off_loop(lambda: store.run(game_id, lambda s: s.record()))
        filename = f"{rec['game']}_seed{rec['seed']}.json"
        return Response(
            json.dumps(rec, indent=1),
            media_type="application/json",
            headers={"Content-Disposition": f'attachment; filename="{filename}"'},
        )

    @app.post("/api/games/{game_id}/replay")
    async def replay_own(game_id: str, request: Request) -> dict[str, Any]:
        await read_json(request)
        client = client_of(request)

        def open_own() -> dict[str, Any]:
            return _open(store.run(game_id, lambda s: s.record()), client)

        return await off_loop(open_own, REPLAY_TIME_LIMIT + 5)

    def _open(data: dict[str, Any], client: str) -> dict[str, Any]:
        replay = Replay(data)
        replay_id = store.add_replay(replay, client)
        return {"id": replay_id, "steps": replay.steps, "state": replay.frame(0)}

    @app.post("/api/replays")
    async def open_replay(request: Request) -> dict[str, Any]:
        data = await read_json(request)
        client = client_of(request)

        def check_and_open() -> dict[str, Any]:
            record = data
            if set(record) == {"file"}:
                record = load_record_file(results_dir, record["file"])
            Replay(record, checked=([], []))  # the fields, in milliseconds, before the moves
            # every move, in the worker process: seconds of engine work hold no lock here
            checked = worker.run(
                check_record, record, REPLAY_TIME_LIMIT, timeout=REPLAY_TIME_LIMIT + 10
            )
            replay = Replay(record, checked=checked)
            replay_id = store.add_replay(replay, client)
            return {"id": replay_id, "steps": replay.steps, "state": replay.frame(0)}

        return await off_loop(check_and_open, REPLAY_TIME_LIMIT + 15)

    @app.get("/api/replays/{replay_id}/{step}")
    async def replay_frame(replay_id: str, step: int, seat: int | None = None) -> dict[str, Any]:
        return await off_loop(lambda: store.get_replay(replay_id).frame(step, seat))

    app.mount("/static", StaticFiles(directory=STATIC), name="static")
    return app
