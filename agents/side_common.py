"""What the two side games' bot packages share (``agents.fifteen``, ``agents.knock``).

``SideView`` is what both side games' views copy out of a game for one seat;
``agents.fifteen.view.FifteenView`` and ``agents.knock.view.KnockView`` derive from it and add
their game's public fields. ``SideEngine`` holds the ``GameSpec`` hooks that reach a side
game's engine (a new game, the option check, the text table, the table sizes).

The view holds public information only: the seat's own hand, the discard pile, the cards every
seat is known to hold because it took them from the pile, hand sizes, totals, the stock's
size, the turn, the seat's AEC observation (leak-free, tested there) and, for the seat to act,
its legal actions.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Sequence
from typing import Any, ClassVar

import numpy as np

from continental_env.cards import NUM_TYPES


class SideView:
    """What seat ``seat`` may see of a side game. A subclass sets ``ENCODE`` (its env's
    ``encode_observation``), ``LAYOUT`` (its observation layout by table size) and ``TO_STR``
    (its ``action_to_str``)."""

    ENCODE: ClassVar[Callable[[Any, int, dict[str, slice]], np.ndarray]]
    LAYOUT: ClassVar[Callable[[int], dict[str, slice]]]
    TO_STR: ClassVar[Callable[[int], str]]

    def __init__(self, game: Any, seat: int) -> None:
        self.seat = seat
        self.num_players = game.num_players
        self.phase = game.phase
        self.current = game.current
        self.dealer = game.dealer
        self.hand_index = game.hand_index
        self.hand: list[int] = list(game.hands[seat])  # counts per card type
        self.discard: list[int] = list(game.discard)  # face-up pile, top last
        self.seen_discards: list[int] = list(game.seen_discards)
        self.known: list[list[int]] = [list(k) for k in game.known]
        self.hand_sizes = [game.hand_size(s) for s in range(game.num_players)]
        self.scores: list[int] = list(game.scores)
        self.stock_size = len(game.stock)
        self.turn = game.turn
        # The seat's observation vector of the AEC environment (leak-free, tested there), for
        # trained policies; copied out like the rest.
        self.observation: np.ndarray = self.ENCODE(game, seat, self.LAYOUT(game.num_players))
        # Legal actions depend only on the actor's own hand and public state.
        self.legal_actions: list[int] = list(game.legal_actions()) if game.actor == seat else []

    @property
    def discard_top(self) -> int | None:
        """The top of the discard pile, or None."""
        return self.discard[-1] if self.discard else None

    def hand_cards(self) -> list[int]:
        """Sorted card ids of the own hand."""
        return [c for c in range(NUM_TYPES) for _ in range(self.hand[c])]

    def action_to_str(self, action: int) -> str:
        """Text form of an action id."""
        return self.TO_STR(action)


class SideEngine:
    """The ``GameSpec`` hooks of side game ``game`` (``continental_env.<game>``), its modules
    imported when a hook is first called; ``words`` names the game in messages."""

    def __init__(self, game: str, words: str) -> None:
        self.game = game
        self.words = words

    def _module(self, part: str) -> Any:
        return importlib.import_module(f"continental_env.{self.game}.{part}")

    def new_game(self, players: int, seed: int | None, options: dict[str, Any]) -> Any:
        return self._module("game").Game.new(num_players=players, seed=seed, **options)

    def check_options(self, players: int, options: dict[str, Any]) -> None:
        try:
            self._module("game").Game(players, **options)
        except TypeError as exc:  # an unknown option name
            raise ValueError(f"bad options for the {self.words}: {exc}") from None

    def render(self, game: Any, seat: int | None, names: Sequence[str]) -> str:
        return self._module("render").render_table(game, seat=seat, names=names)

    def player_ranges(self) -> dict[str, tuple[int, int]]:
        module = self._module("game")
        return {self.game: (module.MIN_PLAYERS, module.MAX_PLAYERS)}


__all__ = ["SideEngine", "SideView"]
