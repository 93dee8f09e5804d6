"""``KnockView``: what one seat of a knock game may see, copied out at construction.

Its own hand, the discard pile, the cards every seat is known to hold because it took them from
the pile, hand sizes, points, chips, the pot, buy-backs, who is still in and the stock's size.
Opponents' other cards, the stock's order and the generator are not reachable through it (a test
checks that no bot's decision changes when they change).
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from continental_env.cards import NUM_TYPES
from continental_env.knock.aec import encode_observation, observation_layout
from continental_env.knock.game import Game, action_to_str, buy_cost


@lru_cache(maxsize=16)
def _layout(num_players: int) -> dict[str, slice]:
    return observation_layout(num_players)


class KnockView:
    """What seat ``seat`` may see of a knock game."""

    def __init__(self, game: Game, seat: int) -> None:
        self.seat = seat
        self.num_players = game.num_players
        self.phase = game.phase
        self.current = game.current
        self.dealer = game.dealer
        self.hand_index = game.hand_index
        self.stake = game.stake
        self.hand: list[int] = list(game.hands[seat])  # counts per card type
        self.discard: list[int] = list(game.discard)  # face-up pile, top last
        self.seen_discards: list[int] = list(game.seen_discards)
        self.known: list[list[int]] = [list(k) for k in game.known]
        self.hand_sizes = [game.hand_size(s) for s in range(game.num_players)]
        self.scores: list[int] = list(game.scores)
        self.in_game: list[bool] = list(game.in_game)
        self.chips: list[int] = list(game.chips)
        self.pot = game.pot
        self.buys: list[int] = list(game.buys)
        self.stock_size = len(game.stock)
        self.turn = game.turn
        mine = game.actor == seat
        # Legal actions depend only on the actor's own hand and public state.
        # The seat's observation vector of the AEC environment (leak-free, tested there), for
        # trained policies; copied out like the rest.
        self.observation: np.ndarray = encode_observation(game, seat, _layout(game.num_players))
        self.legal_actions: list[int] = list(game.legal_actions()) if mine else []
        self.buy_back_total = game.buy_back_total(seat) if mine and game.phase == "buy" else None
        self.buy_cost = buy_cost(game.stake, game.buys[seat])

    @property
    def discard_top(self) -> int | None:
        """The top discard, or None."""
        return self.discard[-1] if self.discard else None

    @property
    def players_in(self) -> int:
        """How many players are still in the game."""
        return sum(self.in_game)

    def hand_cards(self) -> list[int]:
        """Sorted card ids of the own hand."""
        return [c for c in range(NUM_TYPES) for _ in range(self.hand[c])]

    def action_to_str(self, action: int) -> str:
        """Text form of an action id."""
        return action_to_str(action)


def view_for(game: Game, seat: int | None = None) -> KnockView:
    """The view of the seat to act (or of ``seat``)."""
    return KnockView(game, game.actor if seat is None else seat)
