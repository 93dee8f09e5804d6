"""Helpers for the knock game's tests: hand-built positions through ``Game.from_dict``.

``knock_state`` places the given cards; every other card of the two decks and their jokers goes
to the bottom of the stock (or of the discard pile), so a position always conserves cards.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from side_helpers import act, cards, common_state, legal_texts, place_rest

from continental_env.knock.game import Game, jokers_for


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
    hand_lists = [cards(h) if h is not None else [] for h in hands]
    stock, pile = place_rest(hand_lists, discard, stock_top, rest_to, 2, jokers_for(p))
    chips = list(chips) if chips is not None else [-stake] * p
    return common_state(
        "knock",
        hand_lists,
        stock,
        pile,
        options=options,
        hand_index=hand_index,
        dealer=dealer if dealer is not None else hand_index % p,
        current=current,
        phase=phase,
        scores=list(scores or [0] * p),
        in_game=[h is not None for h in hands],
        chips=chips,
        pot=-sum(chips) if pot is None else pot,
        buys=list(buys or [0] * p),
        buyers=[],
        turn=turn,
        hand_history=[],
        result=None,
        moves=0,
        deal_seeds=list(range(options.get("max_hands", 100))),
    )


def earlier_hand(points: Sequence[int]) -> dict[str, Any]:
    """The ``hand_history`` record of one earlier hand that scored ``points`` (no announcer, no
    chips, no buy-back): a position given these totals by it adds up to its history, so it still
    loads once a hand it plays is recorded (``knock_state(..., hand_index=1)``)."""
    p = len(points)
    return {
        "hand": 1,
        "dealer": 0,
        "players": list(range(p)),
        "announcer": None,
        "end": "turn_limit",
        "discarded": None,
        "lays": None,
        "shown": [""] * p,
        "deadwood": list(points),
        "points": list(points),
        "bonus": 0,
        "pot_payer": None,
        "chips": [0] * p,
        "eliminated": [],
        "buys": [],
        "turns": 0,
    }


def knock_game(**kwargs: Any) -> Game:
    """``Game.from_dict(knock_state(...))``."""
    return Game.from_dict(knock_state(**kwargs))


__all__ = ["act", "cards", "earlier_hand", "knock_game", "knock_state", "legal_texts"]
