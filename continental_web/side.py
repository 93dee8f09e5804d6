"""What the fifteen-card and knock pages share: a seat's view as the page's data.

Both games show the same table: the own hand grouped by suit, the discard pile's top, the cards
each seat is known to have taken from the pile, hand sizes and scores, no melds on the table. A
game's module (``continental_web.fifteen``, ``continental_web.knock``) adds its own words: the
prompt, the goal and its seat and page fields. Everything here reads the seat's view alone.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from continental_env.cards import JOKER, NUM_TYPES, card_to_str

SUIT_NAMES = ("clubs", "diamonds", "hearts", "spades")
LOG_LENGTH = 150


def verb(who: str, base: str, third: str) -> str:
    """``base`` for the person (named "you"), ``third`` for anyone else."""
    return base if who.lower() == "you" else third


def hand_groups(hand: Sequence[int]) -> list[dict[str, Any]]:
    """The hand's cards by suit, jokers last (the page's rows)."""
    groups: list[dict[str, Any]] = []
    for suit in range(4):
        cards = [card_to_str(c) for c in range(suit * 13, suit * 13 + 13) for _ in range(hand[c])]
        if cards:
            groups.append({"suit": SUIT_NAMES[suit], "cards": cards})
    if hand[JOKER]:
        groups.append({"suit": "jokers", "cards": ["JK"] * hand[JOKER]})
    return groups


def seat_row(view: Any, s: int, name: str) -> dict[str, Any]:
    """One seat as every seat sees it: hand size, score, dealer, the cards known taken."""
    return {
        "seat": s,
        "name": name,
        "you": s == view.seat,
        "hand_size": view.hand_sizes[s],
        "laid_down": None,
        "claims": None,
        "score": view.scores[s],
        "dealer": s == view.dealer,
        "known": []
        if s == view.seat
        else [card_to_str(c) for c in range(NUM_TYPES) for _ in range(view.known[s][c])],
    }


def side_state(
    game_name: str,
    view: Any,
    names: Sequence[str],
    log: Sequence[str],
    goal: str,
    prompt: str,
    seats: list[dict[str, Any]],
) -> dict[str, Any]:
    """The page's data every side game shares, from ``view`` (its seat's view) alone."""
    seat = view.seat
    actor = None if view.phase == "game_over" else view.current
    return {
        "game": game_name,
        "preset": game_name,
        "num_players": view.num_players,
        "seat": seat,
        "names": list(names),
        "round": view.hand_index + 1,
        "rounds": [],
        "contract": {"trios": 0, "runs": 0, "text": goal},
        "phase": view.phase,
        "current": view.current,
        "asked": None,
        "actor": actor,
        "your_move": actor == seat,
        "dealer": view.dealer,
        "turn": view.turn,
        "prompt": prompt,
        "hand": hand_groups(view.hand),
        "hand_size": view.hand_sizes[seat],
        "table": [],
        "discard_top": card_to_str(view.discard[-1]) if view.discard else None,
        "discard_face_down": False,
        "discard_size": len(view.discard),
        "stock_size": view.stock_size,
        "seats": seats,
        "legal": [{"id": a, "text": view.action_to_str(a)} for a in view.legal_actions],
        "log": list(log[-LOG_LENGTH:]),
        "round_label": "hand",
    }


def round_number(game: Any) -> int:
    """The hand being played (the last one once the game is over), counted from 1."""
    return len(game.hand_history) + (0 if game.is_over else 1)
