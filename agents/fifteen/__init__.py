"""Bots for the fifteen-card game (RULES.md Part 2), on the one ``act(view) -> action id`` protocol.

``FifteenView`` is what a seat may see; ``make_agent(name, seed, game="fifteen")`` builds the bots
(``random``: ``agents.bots.random_agent.RandomAgent`` on this view; ``greedy``: ``agents.fifteen.greedy``; ``strong``: ``agents.fifteen.strong``).
"""

from __future__ import annotations

from typing import Any

from agents.fifteen.view import FifteenView, view_for
from agents.registry import make_agent as registry_make_agent
from agents.registry import offered
from agents.side_common import SideEngine

__all__ = ["AGENT_NAMES", "FifteenView", "make_agent", "view_for"]


AGENT_NAMES = offered("fifteen")
ENGINE = SideEngine("fifteen", "fifteen-card game")


def make_agent(name: str, seed: int | None = None) -> Any:
    """A fifteen-card bot by registry name (``agents.registry``): ``random``, ``greedy``, ``strong``, ``ppo:PATH``."""
    return registry_make_agent(name, seed, game="fifteen")


def _spec() -> Any:
    from agents.spec import GameSpec, digest

    return GameSpec(
        name="fifteen",
        unit="chips",
        higher_is_better=True,
        segment="hand",
        new_game=ENGINE.new_game,
        view=FifteenView,
        agent_names=AGENT_NAMES,
        final_scores=lambda game: list(game.scores),
        segments=lambda game: [(str(h["hand"]), list(h["chips"])) for h in game.hand_history],
        deal_number=lambda game: game.hand_index,
        deal_fingerprint=lambda game: digest(*game.hands, game.discard, game.stock),
        check_options=ENGINE.check_options,
        option_types={"target": int, "hands": int, "max_turns_per_hand": int, "max_hands": int},
        terminal="agents.fifteen.play",
        label="Fifteen-card game (sequences, chips)",
        render=ENGINE.render,
        player_ranges=ENGINE.player_ranges,
    )


GAME = _spec()
