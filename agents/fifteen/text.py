"""The fifteen-card game's part of a text agent's prompt (``agents.text.prompt.GamePrompt``): the
hand, the target and whether this is the seat's first turn of the hand, from its
``FifteenView``."""

from __future__ import annotations

from typing import Any

from agents.text.prompt import GamePrompt

INTRO = (
    "Continental's fifteen-card sequence game. The only meld is a sequence: 3, 4 or 5 cards of "
    "one suit in consecutive rank (ace low or high, never around the corner); jokers (JK) are "
    "wild. Each turn: draw from the stock ('draw') or take the up-card ('take'), then discard "
    "one card ('discard C'), or go out ('out C': discard C and lay down the other 15 cards as "
    "sequences of 3+3+3+3+3, 4+4+4+3 or 5+4+3+3). The winner of a hand collects chips from "
    "every opponent; the game ends when a total reaches the target, the highest total winning."
)


def describe(view: Any) -> list[str]:
    """The fifteen-card game's public lines of a seat's view."""
    target = "none" if view.target is None else view.target
    first = "yes" if view.first_turn else "no"
    return [f"Hand: {view.hand_index + 1}. Target: {target}. Your first turn of the hand: {first}."]


PROMPT = GamePrompt(intro=INTRO, scores="chips, higher is better", describe=describe)

__all__ = ["PROMPT", "describe"]
