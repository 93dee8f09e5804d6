"""Helpers for the fifteen-card game's tests: hand-built positions through ``Game.from_dict``.

``fifteen_state`` places the given cards; every other card of the table's decks goes to the
bottom of the stock (or of the discard pile), so a position always conserves cards.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from side_helpers import act, cards, common_state, legal_texts, place_rest

from continental_env.fifteen.game import Game, decks_for


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
    hand_lists = [cards(h) for h in hands]
    stock, pile = place_rest(hand_lists, discard, stock_top, rest_to, decks, jokers=decks)
    return common_state(
        "fifteen",
        hand_lists,
        stock,
        pile,
        options=options or {},
        hand_index=hand_index,
        dealer=hand_index % p,
        current=current,
        phase=phase,
        scores=list(scores or [0] * p),
        turn=turn,
        has_played=list(has_played if has_played is not None else [True] * p),
        deal_seeds=list(range(_cap(options or {}))),
    )


def _cap(options: dict[str, Any]) -> int:
    limit = options.get("hands")
    cap = options.get("max_hands", 100)
    return cap if limit is None else min(limit, cap)


def fifteen_game(**kwargs: Any) -> Game:
    """``Game.from_dict(fifteen_state(...))``."""
    return Game.from_dict(fifteen_state(**kwargs))


__all__ = ["act", "cards", "fifteen_game", "fifteen_state", "legal_texts"]
