"""Play Continental against the bots in a browser: ``python -m continental_web``.

A local web table (FastAPI + uvicorn, the optional ``[web]`` extra) on top of the engines and the
bots. The start page chooses the game (the contract game's presets, the fifteen-card game, the knock game), the players, each opponent (the bots ``make_agent``
offers and the shipped PPO models that load, by name) and a seed; the table shows the person's
seat only, built from its ``PlayerView``; finished games download as replay files and replay step
by step. ``docs/web.md`` describes the page, the security model, the limits and the load figures.

| module | what |
|---|---|
| ``session`` | games in progress (``Session``, ``new_session``) and the bounded store of games and replays |
| ``games`` | the games the page can start (``GAMES``; ``TABLES``, each game's table module; ``game_name`` reads the contract game's old name ``continental``) and the seed field |
| ``opponents`` | the bots and PPO models offered, their labels, the model probe |
| ``view`` | the seat's view as JSON (``seat_state``, ``build_state``) and the move log |
| ``replay`` | records: checked, replayed step by step from one seat's view |
| ``contract`` | the contract game's table: its moves in words, round ends, hand, prompt and seat view |
| ``fifteen`` | the fifteen-card game's table: its moves in words and its seat's view |
| ``knock`` | the knock game's table: its moves in words and its seat's view |
| ``side`` | what the fifteen-card and knock tables share |
| ``app`` | the HTTP API and the page (``create_app``) |
| ``security`` | what is refused before a route runs (origin, content type, size, depth) and the security headers |
| ``side`` | what the fifteen-card and knock pages share: a seat's view as the page's data |
| ``errors`` | the one error the table's code raises for a refused request |
| ``worker`` | replay checks and model probes in worker processes, with a hard time limit |
| ``__main__`` | the command line (``main``) |
| ``static/`` | the page: plain HTML, CSS and JavaScript, no build step, nothing from a CDN |
"""

from __future__ import annotations

__all__ = ["main"]


def main(argv: list[str] | None = None) -> int:
    """Start the server (see ``continental_web.__main__``)."""
    from continental_web.__main__ import main as _main

    return _main(argv)
