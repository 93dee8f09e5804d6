"""``FifteenView``: what one seat of a fifteen-card game may see, copied out at construction.

Its own hand, the discard pile, the cards every seat is known to hold because it took them from
the pile, hand sizes, scores, the stock's size and who has played this hand. Opponents' other
cards, the stock's order and the generator are not reachable through it (a test checks that no
bot's decision changes when they change).
"""

from __future__ import annotations

from agents.side_common import SideView
from continental_env.fifteen.aec import encode_observation, observation_layout
from continental_env.fifteen.game import Game, action_to_str


class FifteenView(SideView):
    """What seat ``seat`` may see of a fifteen-card game (``SideView``'s fields and these)."""

    ENCODE = staticmethod(encode_observation)
    LAYOUT = staticmethod(observation_layout)
    TO_STR = staticmethod(action_to_str)
    OWN = ("target", "has_played")
    target: int | None
    has_played: list[bool]

    @property
    def first_turn(self) -> bool:
        """Whether this is the seat's first turn of the hand."""
        return not self.has_played[self.seat]


def view_for(game: Game, seat: int | None = None) -> FifteenView:
    """The view of the seat to act (or of ``seat``)."""
    return FifteenView(game, game.actor if seat is None else seat)
