"""Bots for the knock game (RULES.md Part 3), on the one ``act(view) -> action id`` protocol.

``KnockView`` is what a seat may see; ``make_agent(name, seed, game="knock")`` builds the bots
(``random``: ``agents.bots.random_agent.RandomAgent`` on this view; ``greedy``: ``agents.knock.greedy``; ``strong``: ``agents.knock.strong``).
"""

from __future__ import annotations

from typing import Any

from agents.knock.view import KnockView, view_for
from agents.registry import make_agent as registry_make_agent
from agents.registry import offered
from agents.side_common import SideEngine

__all__ = ["AGENT_NAMES", "KnockView", "make_agent", "view_for"]


AGENT_NAMES = offered("knock")
ENGINE = SideEngine("knock", "knock game")


def make_agent(name: str, seed: int | None = None) -> Any:
    """A knock bot by registry name (``agents.registry``): ``random``, ``greedy``, ``strong``, ``ppo:PATH``."""
    return registry_make_agent(name, seed, game="knock")


def _fingerprint(game: Any) -> str:
    """A digest of the deal: the ten cards each seat was dealt (the tens of seats that are out
    lie at the bottom of the stock, in seat order) and the stock above them."""
    from agents.spec import digest
    from continental_env.cards import to_counts
    from continental_env.knock.game import HAND_SIZE

    tens = []
    bottom = 0
    for seat in range(game.num_players):
        if game.in_game[seat]:
            tens.append(game.hands[seat])
        else:
            tens.append(to_counts(game.stock[bottom : bottom + HAND_SIZE]))
            bottom += HAND_SIZE
    return digest(*tens, game.stock[bottom:])


def _segments(game: Any) -> list[tuple[str, list[int]]]:
    return [(str(h["hand"]), list(h["chips"])) for h in game.hand_history]


def _spec() -> Any:
    from agents.spec import GameSpec

    return GameSpec(
        name="knock",
        unit="chips",
        higher_is_better=True,
        segment="hand",
        new_game=ENGINE.new_game,
        view=KnockView,
        agent_names=AGENT_NAMES,
        final_scores=lambda game: list(game.chips),
        segments=_segments,
        deal_number=lambda game: game.hand_index,
        deal_fingerprint=_fingerprint,
        check_options=ENGINE.check_options,
        option_types={"stake": int, "max_turns_per_hand": int, "max_hands": int},
        terminal="agents.knock.play",
        label="Knock game (knock rummy, chips and a pot)",
        render=ENGINE.render,
        player_ranges=ENGINE.player_ranges,
    )


GAME = _spec()
