"""``KnockView``: what one seat of a knock game may see, copied out at construction.

Its own hand, the discard pile, the cards every seat is known to hold because it took them from
the pile, hand sizes, points, chips, the pot, buy-backs, who is still in and the stock's size.
Opponents' other cards, the stock's order and the generator are not reachable through it (a test
checks that no bot's decision changes when they change).
"""

from __future__ import annotations

from agents.side_common import SideView
from continental_env.knock.aec import encode_observation, observation_layout
from continental_env.knock.game import Game, action_to_str, buy_cost


class KnockView(SideView):
    """What seat ``seat`` may see of a knock game (``SideView``'s fields and these)."""

    ENCODE = staticmethod(encode_observation)
    LAYOUT = staticmethod(observation_layout)
    TO_STR = staticmethod(action_to_str)
    OWN = ("stake", "in_game", "chips", "pot", "buys")
    stake: int
    in_game: list[bool]
    chips: list[int]
    pot: int
    buys: list[int]

    def __init__(self, game: Game, seat: int) -> None:
        super().__init__(game, seat)
        mine = game.actor == seat
        self.buy_back_total = game.buy_back_total(seat) if mine and game.phase == "buy" else None
        self.buy_cost = buy_cost(game.stake, game.buys[seat])

    @property
    def players_in(self) -> int:
        """How many players are still in the game."""
        return sum(self.in_game)


def view_for(game: Game, seat: int | None = None) -> KnockView:
    """The view of the seat to act (or of ``seat``)."""
    return KnockView(game, game.actor if seat is None else seat)
