"""``SideEngine``: the ``GameSpec`` of a side game (``agents.fifteen.GAME``, ``agents.knock.GAME``).

The hooks that reach a side game's engine (a new game, the option check, the text table, the
table sizes, the chips of each hand, the final totals) and what both specs share, the bots
offered included (``agents.registry.offered``); a game adds its view, its label, which totals
rank a game and its deal's digest. Apart from ``agents.side_common`` (which the
bots import) so that the bots never import the spec and the registry behind it.
"""

from __future__ import annotations

import importlib
import operator
from collections.abc import Callable, Sequence
from typing import Any

from agents.registry import offered
from agents.spec import GameSpec


class SideEngine:
    """The ``GameSpec`` of side game ``game`` (``continental_env.<game>``): the hooks that reach
    its engine (a new game, the option check, the text table, the table sizes, the hands' chips,
    the final ``totals``: the name of the game's list that ranks it), its modules imported when a
    hook is first called, and ``spec`` for the rest."""

    def __init__(self, game: str, totals: str) -> None:
        self.game = game
        self.totals = totals

    def _module(self, part: str) -> Any:
        return importlib.import_module(f"continental_env.{self.game}.{part}")

    def new_game(self, players: int, seed: int | None, options: dict[str, Any]) -> Any:
        return self._module("game").Game.new(num_players=players, seed=seed, **options)

    def check_options(self, players: int, options: dict[str, Any]) -> None:
        """ValueError naming an option the game does not know or refuses."""
        self._module("game").Game(players, **options)

    def render(self, game: Any, seat: int | None, names: Sequence[str]) -> str:
        return self._module("render").render_table(game, seat=seat, names=names)

    def player_ranges(self) -> dict[str, tuple[int, int]]:
        module = self._module("game")
        return {self.game: (module.MIN_PLAYERS, module.MAX_PLAYERS)}

    def final_scores(self, game: Any) -> list[float]:
        """Each seat's final total: the game's ``totals`` list."""
        return list(getattr(game, self.totals))

    @staticmethod
    def segments(game: Any) -> list[tuple[str, list[int]]]:
        """Each finished hand's number and the chips it moved per seat."""
        return [(str(h["hand"]), list(h["chips"])) for h in game.hand_history]

    def spec(
        self, view: Callable[[Any, int], Any], label: str, deal_fingerprint: Callable[[Any], str]
    ) -> GameSpec:
        """The game's ``GameSpec``: chips per hand, higher better, the options its engine's
        ``Setup`` names (all ints), the bots offered for it (``agents.registry.offered``), its
        terminal game in ``agents.<game>.play``; ``view``, ``label`` and the deal's digest are
        the game's."""
        options = self._module("state").Setup.OPTIONS
        return GameSpec(
            name=self.game,
            unit="chips",
            higher_is_better=True,
            segment="hand",
            new_game=self.new_game,
            view=view,
            agent_names=offered(self.game),
            final_scores=self.final_scores,
            segments=self.segments,
            deal_number=operator.attrgetter("hand_index"),
            deal_fingerprint=deal_fingerprint,
            check_options=self.check_options,
            option_types=dict.fromkeys(options, int),
            terminal=f"agents.play.{self.game}",
            label=label,
            render=self.render,
            player_ranges=self.player_ranges,
        )


__all__ = ["SideEngine"]
