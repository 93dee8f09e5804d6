"""The games the browser table can start, and the seed field every start and record carries.

The contract game, and each side game with its page's words in a module of the same interface
(``continental_web.fifteen``, ``continental_web.knock``: ``state``, ``log_move``, ``first_line``,
``options``, ``round_results``). Labels, player ranges, engines, views and bots come from the
game's ``GameSpec`` (``agents.games``).
"""

from __future__ import annotations

import secrets
from typing import Any

from agents.games import game_spec
from continental_web import fifteen, knock
from continental_web.errors import WebError

MAX_SEED = 2**63 - 1
SIDE_TABLES: dict[str, Any] = {"fifteen": fifteen, "knock": knock}


def _page_games() -> dict[str, dict[str, Any]]:
    """Each game's label and presets with their player ranges, from the specs."""
    out = {}
    for kind, spec_name in (("continental", "contract"), *((k, k) for k in SIDE_TABLES)):
        spec = game_spec(spec_name)
        ranges = spec.player_ranges() if spec.player_ranges else {}
        presets = {n: {"min_players": lo, "max_players": hi} for n, (lo, hi) in ranges.items()}
        out[kind] = {"label": spec.label, "presets": presets}
    return out


GAMES: dict[str, dict[str, Any]] = _page_games()


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
