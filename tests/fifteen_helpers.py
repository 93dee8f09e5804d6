"""Helpers for the fifteen-card game's tests: hand-built positions through ``Game.from_dict``.

``fifteen_state`` places the given cards; every other card of the table's decks goes to the
bottom of the stock (or of the discard pile), so a position always conserves cards.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Sequence
from typing import Any

from continental_env.cards import JOKER, NUM_NATURALS, card_to_str, parse_cards
from continental_env.fifteen.game import Game, decks_for


def cards(text: str) -> list[str]:
    """Canonical card strings of a text."""
    return [card_to_str(c) for c in parse_cards(text)]


def fifteen_state(
    *,
    hands: Sequence[str],
    discard: str = "",
    stock_top: str = "",
    rest_to: str = "stock",
    current: int = 0,
    phase: str = "draw",
    hand_index: int = 0,
    has_played: Sequence[bool] | None = None,
    scores: Sequence[int] | None = None,
    turn: int = 0,
    options: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """A ``to_dict`` state: hands (one text per seat), discard (bottom first), stock top cards."""
    p = len(hands)
    decks = decks_for(p)
    pool: Counter[int] = Counter({c: decks for c in range(NUM_NATURALS)})
    pool[JOKER] = decks
    hand_lists = [cards(h) for h in hands]
    placed = [c for h in hand_lists for c in h] + cards(discard) + cards(stock_top)
    for c in parse_cards(placed):
        pool[c] -= 1
        if pool[c] < 0:
            raise AssertionError(f"{card_to_str(c)} used more times than the decks hold")
    rest = [card_to_str(c) for c in sorted(pool.elements())]
    stock = list(reversed(cards(stock_top)))  # the first card named is the top (drawn first)
    pile = cards(discard)
    if rest_to == "stock":
        stock = rest + stock
    else:
        pile = rest + pile
    version, state, gauss = random.Random(12345).getstate()
    return {
        "game": "fifteen",
        "num_players": p,
        "options": options or {},
        "hand_index": hand_index,
        "dealer": hand_index % p,
        "current": current,
        "phase": phase,
        "hands": hand_lists,
        "stock": stock,
        "discard": pile,
        "scores": list(scores or [0] * p),
        "turn": turn,
        "has_played": list(has_played if has_played is not None else [True] * p),
        "known": [[] for _ in range(p)],
        "seen_discards": [],
        "deal_seeds": list(range(_cap(options or {}))),
        "rng": [version, list(state), gauss],
    }


def _cap(options: dict[str, Any]) -> int:
    limit = options.get("hands")
    cap = options.get("max_hands", 100)
    return cap if limit is None else min(limit, cap)


def fifteen_game(**kwargs: Any) -> Game:
    """``Game.from_dict(fifteen_state(...))``."""
    return Game.from_dict(fifteen_state(**kwargs))


def act(game: Game, text: str) -> None:
    """Apply an action given as text."""
    game.apply(game.action_from_str(text))


def legal_texts(game: Game) -> list[str]:
    """The legal actions as text."""
    return [game.action_to_str(a) for a in game.legal_actions()]
