"""``FifteenView``: what one seat of a fifteen-card game may see, copied out at construction.

Its own hand, the discard pile, the cards every seat is known to hold because it took them from
the pile, hand sizes, scores, the stock's size and who has played this hand. Opponents' other
cards, the stock's order and the generator are not reachable through it (a test checks that no
bot's decision changes when they change).
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from continental_env.cards import NUM_TYPES
from continental_env.fifteen.aec import encode_observation, observation_layout
from continental_env.fifteen.game import Game, action_to_str


@lru_cache(maxsize=16)
def _layout(num_players: int) -> dict[str, slice]:
    return observation_layout(num_players)


class FifteenView:
    """What seat ``seat`` may see of a fifteen-card game."""

    def __init__(self, game: Game, seat: int) -> None:
        self.seat = seat
        self.num_players = game.num_players
        self.phase = game.phase
        self.current = game.current
        self.dealer = game.dealer
        self.hand_index = game.hand_index
        self.target = game.target
        self.hand: list[int] = list(game.hands[seat])  # counts per card type
        self.discard: list[int] = list(game.discard)  # face-up pile, top last
        self.seen_discards: list[int] = list(game.seen_discards)
        self.known: list[list[int]] = [list(k) for k in game.known]
        self.hand_sizes = [game.hand_size(s) for s in range(game.num_players)]
        self.scores: list[int] = list(game.scores)
        self.has_played: list[bool] = list(game.has_played)
        self.stock_size = len(game.stock)
        self.turn = game.turn
        # Legal actions depend only on the actor's own hand and public state.
        # The seat's observation vector of the AEC environment (leak-free, tested there), for
        # trained policies; copied out like the rest.
        self.observation: np.ndarray = encode_observation(game, seat, _layout(game.num_players))
        self.legal_actions: list[int] = list(game.legal_actions()) if game.actor == seat else []

    @property
    def discard_top(self) -> int | None:
        """The up-card (top of the discard pile), or None."""
        return self.discard[-1] if self.discard else None

    @property
    def first_turn(self) -> bool:
        """Whether this is the seat's first turn of the hand."""
        return not self.has_played[self.seat]

    def hand_cards(self) -> list[int]:
        """Sorted card ids of the own hand."""
        return [c for c in range(NUM_TYPES) for _ in range(self.hand[c])]

    def action_to_str(self, action: int) -> str:
        """Text form of an action id."""
        return action_to_str(action)


def view_for(game: Game, seat: int | None = None) -> FifteenView:
    """The view of the seat to act (or of ``seat``)."""
    return FifteenView(game, game.actor if seat is None else seat)
