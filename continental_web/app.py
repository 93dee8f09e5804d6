"""The HTTP API and the static page (FastAPI).

| method and path | body | answer |
|---|---|---|
| ``GET /`` | | the page (``static/index.html``) |
| ``GET /api/options`` | | games, presets and their player ranges, opponent names, replay files |
| ``POST /api/games`` | ``{game, preset, opponents: [names], seed, seat, rounds or hands, name}`` | ``{id, state}`` |
| ``GET /api/games/{id}`` | | the state for the person's seat |
| ``POST /api/games/{id}/move`` | ``{action: "layoff 9S 2"}`` | the new state |
| ``POST /api/games/{id}/advance`` | | one bot move, then the new state |
| ``GET /api/games/{id}/record`` | | the finished game as a replay file (409 before the end) |
| ``POST /api/replays`` | a replay file, or ``{file: name}`` from the results folder | ``{id, steps, state}`` |
| ``GET /api/replays/{id}/{step}?seat=S`` | | the position after ``step`` moves from seat S's view |

Bots move one at a time when the page asks (``advance``): the page waits a short, visible delay
between its requests, so the server needs no timers or background tasks, each bot move is one
locked step of one game, and a test client drives a game exactly as the page does.

Refusals are JSON ``{"error": message}`` with a 4xx status: 400 for a malformed request or a move
that cannot be read, 404 for an unknown id, 409 for a move that is not legal now (the engine's
reason is in the message) or a request out of turn. A refused request changes nothing.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import FileResponse, JSONResponse, Response
from fastapi.staticfiles import StaticFiles

from continental_web.session import (
    GAMES,
    Opponents,
    Replay,
    SessionStore,
    WebError,
    default_models_dir,
    load_record_file,
    new_session,
    record_files,
)

STATIC = Path(__file__).resolve().parent / "static"
MAX_BODY = 2_000_000  # bytes; a replay of the longest game is far smaller


def create_app(
    models_dir: Path | None = None,
    results_dir: Path | None = None,
    store: SessionStore | None = None,
) -> FastAPI:
    """The web application; ``models_dir`` holds the PPO models offered by name."""
    app = FastAPI(title="Continental", docs_url=None, redoc_url=None, openapi_url=None)
    opponents = Opponents(default_models_dir() if models_dir is None else models_dir)
    store = store or SessionStore()
    app.state.store = store
    app.state.opponents = opponents
    app.state.results_dir = results_dir

    @app.exception_handler(WebError)
    async def _web_error(request: Request, exc: WebError) -> JSONResponse:
        return JSONResponse({"error": exc.message}, status_code=exc.status)

    @app.exception_handler(RequestValidationError)
    async def _bad_request(request: Request, exc: RequestValidationError) -> JSONResponse:
        return JSONResponse({"error": "malformed request"}, status_code=400)

    async def body_json(request: Request) -> dict[str, Any]:
        raw = await request.body()
        if len(raw) > MAX_BODY:
            raise WebError(413, f"request body over {MAX_BODY} bytes")
        try:
            data = json.loads(raw or b"{}")
        except ValueError as exc:
            raise WebError(400, f"request body is not JSON: {exc}") from None
        if not isinstance(data, dict):
            raise WebError(400, "request body must be a JSON object")
        return data

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
                    "opponents": opponents.names(name),
                }
                for name, spec in GAMES.items()
            },
            "opponents": opponents.names(),
            "bots": opponents.bots,
            "models": list(opponents.models),
            "replay_files": record_files(results_dir),
        }

    @app.post("/api/games")
    async def create_game(request: Request) -> dict[str, Any]:
        data = await body_json(request)
        allowed = {"game", "preset", "opponents", "seed", "seat", "rounds", "hands", "name"}
        unknown = sorted(set(data) - allowed)
        if unknown:
            raise WebError(400, f"unknown fields {unknown}; allowed: {sorted(allowed)}")
        session = new_session(opponents, **data)
        game_id = store.add(session)
        return {"id": game_id, "state": store.run(game_id, lambda s: s.state())}

    @app.get("/api/games/{game_id}")
    def game_state(game_id: str) -> dict[str, Any]:
        return store.run(game_id, lambda s: s.state())

    @app.post("/api/games/{game_id}/move")
    async def move(game_id: str, request: Request) -> dict[str, Any]:
        data = await body_json(request)
        if set(data) != {"action"}:
            raise WebError(400, 'expected {"action": "<move text>"}')
        return store.run(game_id, lambda s: s.move(data["action"]))

    @app.post("/api/games/{game_id}/advance")
    def advance(game_id: str) -> dict[str, Any]:
        return store.run(game_id, lambda s: s.advance())

    @app.get("/api/games/{game_id}/record")
    def record(game_id: str) -> Response:
        rec = store.run(game_id, lambda s: s.record())
        filename = f"continental_seed{rec['seed']}.json"
        return Response(
            json.dumps(rec, indent=1),
            media_type="application/json",
            headers={"Content-Disposition": f'attachment; filename="{filename}"'},
        )

    @app.post("/api/replays")
    async def open_replay(request: Request) -> dict[str, Any]:
        data = await body_json(request)
        if set(data) == {"file"}:
            data = load_record_file(results_dir, data["file"])
        replay = Replay(data)
        replay_id = store.add_replay(replay)
        return {"id": replay_id, "steps": replay.steps, "state": replay.frame(0)}

    @app.get("/api/replays/{replay_id}/{step}")
    def replay_frame(replay_id: str, step: int, seat: int | None = None) -> dict[str, Any]:
        return store.get_replay(replay_id).frame(step, seat)

    app.mount("/static", StaticFiles(directory=STATIC), name="static")
    return app
