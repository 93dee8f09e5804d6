"""The prompt of a text agent: what one seat may see, in words, from its view alone.

``messages(view, game)`` gives the chat messages of one decision: a system message saying which
game is played, from which seat, and how to answer; a user message with the seat's hand, the
discard pile, the stock's size, every seat's hand size, the cards each seat is publicly known to
hold, the scores, the game's own public lines (``GamePrompt.describe``: the contract game's table,
contract and the round's public log) and the legal actions as a numbered menu of their texts.

Everything is read from the seat's view (``agents.bots.view.View``), never from the game, so the
prompt shows exactly what the seat may see (``tests/test_llm_agent.py`` swaps hidden cards and
checks the prompt is unchanged).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from continental_env.cards import format_cards, from_counts


@dataclass(frozen=True)
class GamePrompt:
    """A game's part of the prompt (``agents.<game>.text.PROMPT``)."""

    intro: str  # which game is played and what wins it, in a sentence or two
    scores: str  # what the scores count and which way is better: "points, lower is better"
    # The game's own public lines of a view (its table, its log ...); None: the shared part only.
    describe: Callable[[Any], list[str]] | None = None


# A game without a prompt part of its own: the shared lines only.
GENERIC = GamePrompt(intro="a card game", scores="scores")

ANSWER = "Reply with exactly one of the legal actions, copied as written, and nothing else."


def legal_texts(view: Any) -> list[str]:
    """The texts of the seat's legal actions, in the order of ``view.legal_actions``."""
    return [view.action_to_str(a) for a in view.legal_actions]


def cards(counts_or_cards: list[int], counts: bool = False) -> str:
    """Cards in words (``7H TS JK``), or ``none``; ``counts``: the list holds counts per type."""
    listed = from_counts(counts_or_cards) if counts else sorted(counts_or_cards)
    return format_cards(listed) if listed else "none"


def seat_name(view: Any, seat: int) -> str:
    """``seat 2``, or ``seat 2 (you)`` for the view's own seat."""
    return f"seat {seat} (you)" if seat == view.seat else f"seat {seat}"


def per_seat(view: Any, values: list[Any]) -> str:
    """``seat 0: 8, seat 1 (you): 7``."""
    return ", ".join(f"{seat_name(view, s)}: {v}" for s, v in enumerate(values))


def system_message(view: Any, game: GamePrompt) -> str:
    """Which game, which seat, how to answer."""
    return (
        f"You are playing {game.intro} You are seat {view.seat} of {view.num_players} "
        f"(seats are numbered from 0). Each time it is your turn you are shown what your seat "
        f"can see and the legal actions. {ANSWER}"
    )


def user_message(view: Any, game: GamePrompt) -> str:
    """What the seat sees now, and the legal actions as a numbered menu."""
    hand = view.hand_cards()
    top = view.discard_top
    pile = f"{len(view.discard)} cards, top {cards([top])}" if top is not None else "empty"
    lines = [
        f"Phase: {view.phase}. Turn: {view.turn}. Seat to act: {view.current}. "
        f"Dealer: seat {view.dealer}.",
        f"Your hand ({len(hand)} cards): {cards(hand)}",
        f"Discard pile: {pile}",
        f"Stock: {view.stock_size} cards",
        f"Cards in hand: {per_seat(view, view.hand_sizes)}",
    ]
    known = [(s, k) for s, k in enumerate(view.known) if s != view.seat and any(k)]
    if known:
        shown = "; ".join(f"{seat_name(view, s)}: {cards(k, counts=True)}" for s, k in known)
        lines.append(f"Cards others are known to hold (taken in view of all): {shown}")
    lines.append(f"Scores ({game.scores}): {per_seat(view, view.scores)}")
    if game.describe is not None:
        lines += game.describe(view)
    lines.append("Legal actions (reply with one of them, exactly as written):")
    lines += [f"{i}. {text}" for i, text in enumerate(legal_texts(view), 1)]
    return "\n".join(lines)


def messages(view: Any, game: GamePrompt = GENERIC) -> list[dict[str, str]]:
    """The chat messages of one decision (OpenAI's ``messages``: system, then user)."""
    return [
        {"role": "system", "content": system_message(view, game)},
        {"role": "user", "content": user_message(view, game)},
    ]


def prompt_text(view: Any, game: GamePrompt = GENERIC) -> str:
    """The messages as one text, each under its role (as ``docs/llm-agents.md`` shows them)."""
    return "\n\n".join(f"[{m['role']}]\n{m['content']}" for m in messages(view, game))


__all__ = ["ANSWER", "GENERIC", "GamePrompt", "legal_texts", "messages", "prompt_text"]
