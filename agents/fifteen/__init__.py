"""Bots for the fifteen-card game (RULES.md Part 2), on the one ``act(view) -> action id`` protocol.

``FifteenView`` is what a seat may see; ``make_agent(name, seed, game="fifteen")`` builds the bots
(``random``: ``agents.bots.random_agent.RandomAgent`` on this view; ``greedy``: ``agents.fifteen.greedy``; ``strong``: ``agents.fifteen.strong``).
"""

from __future__ import annotations

from typing import Any

from agents.fifteen.view import FifteenView, view_for
from agents.registry import make_agent as registry_make_agent
from agents.registry import offered

__all__ = ["AGENT_NAMES", "FifteenView", "make_agent", "view_for"]


AGENT_NAMES = offered("fifteen")


def make_agent(name: str, seed: int | None = None) -> Any:
    """A fifteen-card bot by registry name (``agents.registry``): ``random``, ``greedy``, ``strong``, ``ppo:PATH``."""
    return registry_make_agent(name, seed, game="fifteen")


def _new_game(players: int, seed: int | None, options: dict[str, Any]) -> Any:
    from continental_env.fifteen.game import Game

    return Game.new(num_players=players, seed=seed, **options)


def _check(players: int, options: dict[str, Any]) -> None:
    from continental_env.fifteen.game import Game

    try:
        Game(players, **options)
    except TypeError as exc:  # an unknown option name
        raise ValueError(f"bad options for the fifteen-card game: {exc}") from None


def _render(game: Any, seat: int | None, names: Any) -> str:
    from continental_env.fifteen.render import render_table

    return render_table(game, seat=seat, names=names)


def _players() -> dict[str, tuple[int, int]]:
    from continental_env.fifteen.game import MAX_PLAYERS, MIN_PLAYERS

    return {"fifteen": (MIN_PLAYERS, MAX_PLAYERS)}


def _spec() -> Any:
    from agents.spec import GameSpec, digest

    return GameSpec(
        name="fifteen",
        unit="chips",
        higher_is_better=True,
        segment="hand",
        new_game=_new_game,
        view=FifteenView,
        agent_names=AGENT_NAMES,
        final_scores=lambda game: list(game.scores),
        segments=lambda game: [(str(h["hand"]), list(h["chips"])) for h in game.hand_history],
        deal_number=lambda game: game.hand_index,
        deal_fingerprint=lambda game: digest(*game.hands, game.discard, game.stock),
        check_options=_check,
        option_types={"target": int, "hands": int, "max_turns_per_hand": int, "max_hands": int},
        terminal="agents.fifteen.play",
        label="Fifteen-card game (sequences, chips)",
        render=_render,
        player_ranges=_players,
    )


GAME = _spec()
