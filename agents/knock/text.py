"""The knock game's part of a text agent's prompt (``agents.text.prompt.GamePrompt``): the hand,
the pot, the stake, the chips, who is still in and the buy-back price, from the seat's
``KnockView``."""

from __future__ import annotations

from typing import Any

from agents.text.prompt import GamePrompt, per_seat

INTRO = (
    "Continental's knock rummy. A lay is 3 or more cards of one rank, or 3 or more of one suit "
    "in sequence (ace low or high); jokers (JK) are wild. Deadwood is the points of the cards "
    "left out of lays (J Q K 10: 10, 2-9: their value, joker: 20, ace: 15). At the start of a "
    "turn a player may end the hand ('knock' with deadwood of 5 or less, 'rummy', 'color', "
    "'continental'); otherwise draw ('draw' or 'take'), then discard ('discard C') or "
    "discard and announce ('rummy C', 'color C', 'continental C'). Hand points add up; over "
    "100 a player is out (over 80 one may 'buy' back in or 'pass'). The last player in wins "
    "the pot: the score that counts is net chips, higher is better."
)


def describe(view: Any) -> list[str]:
    """The knock game's public lines of a seat's view."""
    lines = [
        f"Hand: {view.hand_index + 1}. Stake: {view.stake}. Pot: {view.pot}.",
        f"Chips: {per_seat(view, view.chips)}",
        f"Still in: {per_seat(view, ['yes' if i else 'no' for i in view.in_game])}",
    ]
    if view.buy_back_total is not None:
        lines.append(
            f"Buying back costs you {view.buy_cost} chips and sets your points to "
            f"{view.buy_back_total}."
        )
    return lines


PROMPT = GamePrompt(
    intro=INTRO, scores="points this game, lower is better; over 100 is out", describe=describe
)

__all__ = ["PROMPT", "describe"]
