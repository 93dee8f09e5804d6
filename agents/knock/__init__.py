"""Bots for the knock game (RULES.md Part 3), on the one ``act(view) -> action id`` protocol.

``KnockView`` is what a seat may see; ``make_agent(name, seed, game="knock")`` builds the bots
(``random``: ``agents.bots.random_agent.RandomAgent`` on this view; ``greedy``: ``agents.knock.greedy``; ``strong``: ``agents.knock.strong``).
"""

from __future__ import annotations

from typing import Any

from agents.knock.view import KnockView, view_for

__all__ = ["AGENT_NAMES", "KnockView", "make_agent", "view_for"]


AGENT_NAMES = ("random", "greedy", "strong")


def make_agent(name: str, seed: int | None = None) -> Any:
    """A knock bot by name: ``random``, ``greedy``, ``strong`` or ``ppo:PATH`` (a trained model)."""
    if name.startswith("ppo:"):
        from agents.train.side_single_agent import load_policy

        return load_policy("knock", name[4:], seed)
    if name == "random":
        from agents.bots.random_agent import RandomAgent

        return RandomAgent(seed)
    if name == "greedy":
        from agents.knock.greedy import KnockGreedyAgent

        return KnockGreedyAgent(seed)
    if name == "strong":
        from agents.knock.strong import KnockStrongAgent

        return KnockStrongAgent(seed)
    raise ValueError(
        f"unknown agent {name!r} for the knock game; choose one of {', '.join(AGENT_NAMES)}"
    )


def _new_game(players: int, seed: int | None, options: dict[str, Any]) -> Any:
    from continental_env.knock.game import Game

    return Game.new(num_players=players, seed=seed, **options)


def _check(players: int, options: dict[str, Any]) -> None:
    from continental_env.knock.game import Game

    try:
        Game(players, **options)
    except TypeError as exc:  # an unknown option name
        raise ValueError(f"bad options for the knock game: {exc}") from None


def _fingerprint(game: Any) -> str:
    """A digest of the deal: the ten cards each seat was dealt (the tens of seats that are out
    lie at the bottom of the stock, in seat order) and the stock above them."""
    from agents.games import digest
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
    from agents.games import GameSpec

    return GameSpec(
        name="knock",
        unit="chips",
        higher_is_better=True,
        segment="hand",
        new_game=_new_game,
        view=KnockView,
        make_agent=make_agent,
        agent_names=AGENT_NAMES,
        final_scores=lambda game: list(game.chips),
        segments=_segments,
        deal_number=lambda game: game.hand_index,
        deal_fingerprint=_fingerprint,
        check_options=_check,
        option_types={"stake": int, "max_turns_per_hand": int, "max_hands": int},
        terminal="agents.knock.play",
    )


GAME = _spec()
