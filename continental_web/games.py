"""The games the browser table can start, and the fields every start and record carries.

Each game has a table module with the same interface (``continental_web.contract``,
``continental_web.fifteen``, ``continental_web.knock``): ``TITLE``, ``FIELDS`` (the start page's
fields it takes), ``MODEL_ABOUT``, ``Game`` (its engine's class), ``start_options``,
``record_fields``, ``replay_options``, ``log_move``, ``first_line``, ``state``, ``round_results``
and ``round_number``. Shared code looks a game's module up in ``TABLES`` and never asks which
game it is. Labels, player ranges, engines, views and bots come from the game's ``GameSpec``
(``agents.games``).

The contract game was called ``continental`` by the table's API and replay files before; that
name is still read (``game_name``).
"""

from __future__ import annotations

import secrets
from typing import Any

from agents.games import game_spec
from continental_web import contract, fifteen, knock
from continental_web.errors import WebError

MAX_SEED = 2**63 - 1
TABLES: dict[str, Any] = {"contract": contract, "fifteen": fifteen, "knock": knock}
SIDE_TABLES: dict[str, Any] = {"fifteen": fifteen, "knock": knock}
# Names a request or a replay file may still use for a game: the API's name before the rename.
GAME_ALIASES = {"continental": "contract"}


def _page_games() -> dict[str, dict[str, Any]]:
    """Each game's label, presets with their player ranges and start-page fields."""
    out = {}
    for kind, table in TABLES.items():
        spec = game_spec(kind)
        ranges = spec.player_ranges() if spec.player_ranges else {}
        presets = {n: {"min_players": lo, "max_players": hi} for n, (lo, hi) in ranges.items()}
        out[kind] = {"label": spec.label, "presets": presets, "fields": list(table.FIELDS)}
    return out


GAMES: dict[str, dict[str, Any]] = _page_games()


def game_name(game: Any) -> str:
    """The table's name for ``game`` (an old name mapped); WebError 400 naming an unknown one."""
    if isinstance(game, str):
        game = GAME_ALIASES.get(game, game)
    if not isinstance(game, str) or game not in TABLES:
        raise WebError(400, f"unknown game {str(game)[:30]!r}; choose one of {', '.join(TABLES)}")
    return game


def table_of(engine: Any) -> Any:
    """The table module of a game engine (by its class)."""
    for table in TABLES.values():
        if isinstance(engine, table.Game):
            return table
    raise TypeError(f"no table plays a {type(engine).__name__}")


def parse_seed(seed: Any, draw: bool = True) -> int:
    """A seed given as an integer or a string of digits (a page sends strings: its numbers are
    exact only below 2**53); empty draws one when ``draw``. WebError 400 naming a bad one."""
    if draw and (seed is None or seed == ""):
        return secrets.randbelow(MAX_SEED)
    if isinstance(seed, str) and seed.isascii() and seed.isdigit() and len(seed) <= 19:
        seed = int(seed)
    if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed <= MAX_SEED:
        shown = repr(seed)[:30]
        raise WebError(400, f"seed {shown} must be a whole number in 0..{MAX_SEED} (or empty)")
    return seed


def valid_text(text: str) -> bool:
    """Whether ``text`` can be written as UTF-8 (JSON's ``\\ud800`` escapes decode to lone
    surrogates, which cannot: an answer echoing one would fail to encode)."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True
