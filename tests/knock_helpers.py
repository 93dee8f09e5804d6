"""Helpers for the knock game's tests: hand-built positions through ``Game.from_dict``.

``knock_state`` places the given cards; every other card of the two decks and their jokers goes
to the bottom of the stock (or of the discard pile), so a position always conserves cards.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Sequence
from typing import Any

from continental_env.cards import JOKER, NUM_NATURALS, card_to_str, parse_cards
from continental_env.knock.game import Game, jokers_for


def cards(text: str) -> list[str]:
    """Canonical card strings of a text."""
    return [card_to_str(c) for c in parse_cards(text)]


def knock_state(
    *,
    hands: Sequence[str | None],
    discard: str = "",
    stock_top: str = "",
    rest_to: str = "stock",
    current: int = 0,
    dealer: int | None = None,
    phase: str = "draw",
    hand_index: int = 0,
    scores: Sequence[int] | None = None,
    chips: Sequence[int] | None = None,
    pot: int | None = None,
    buys: Sequence[int] | None = None,
    turn: int = 0,
    options: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """A ``to_dict`` state: hands (one text per seat, None for a seat that is out), discard
    (bottom first), stock top cards (the first named is drawn first)."""
    p = len(hands)
    options = options or {}
    stake = options.get("stake", 50)
    pool: Counter[int] = Counter({c: 2 for c in range(NUM_NATURALS)})
    pool[JOKER] = jokers_for(p)
    hand_lists = [cards(h) if h is not None else [] for h in hands]
    placed = [c for h in hand_lists for c in h] + cards(discard) + cards(stock_top)
    for c in parse_cards(placed):
        pool[c] -= 1
        if pool[c] < 0:
            raise AssertionError(f"{card_to_str(c)} used more times than the decks hold")
    rest = [card_to_str(c) for c in sorted(pool.elements())]
    stock = list(reversed(cards(stock_top)))
    pile = cards(discard)
    if rest_to == "stock":
        stock = rest + stock
    else:
        pile = rest + pile
    chips = list(chips) if chips is not None else [-stake] * p
    version, state, gauss = random.Random(12345).getstate()
    return {
        "game": "knock",
        "num_players": p,
        "options": options,
        "hand_index": hand_index,
        "dealer": dealer if dealer is not None else hand_index % p,
        "current": current,
        "phase": phase,
        "hands": hand_lists,
        "stock": stock,
        "discard": pile,
        "scores": list(scores or [0] * p),
        "in_game": [h is not None for h in hands],
        "chips": chips,
        "pot": -sum(chips) if pot is None else pot,
        "buys": list(buys or [0] * p),
        "buyers": [],
        "turn": turn,
        "known": [[] for _ in range(p)],
        "seen_discards": [],
        "hand_history": [],
        "result": None,
        "moves": 0,
        "deal_seeds": list(range(options.get("max_hands", 100))),
        "rng": [version, list(state), gauss],
    }


def knock_game(**kwargs: Any) -> Game:
    """``Game.from_dict(knock_state(...))``."""
    return Game.from_dict(knock_state(**kwargs))


def act(game: Game, text: str) -> None:
    """Apply an action given as text."""
    game.apply(game.action_from_str(text))


def legal_texts(game: Game) -> list[str]:
    """The legal actions as text."""
    return [game.action_to_str(a) for a in game.legal_actions()]
