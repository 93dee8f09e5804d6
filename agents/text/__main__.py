"""``python -m agents.text``: print the prompt a text agent is shown at one decision.

A game is dealt from ``--seed`` and ``greedy`` plays every seat for ``--moves`` actions; the
prompt of the seat then to act is printed, each message under its role. ``docs/llm-agents.md``
shows one::

    python -m agents.text --game contract --players 3 --seed 7 --moves 20
"""

from __future__ import annotations

import sys
from collections.abc import Sequence

from agents.cli import ArgumentParser
from agents.games import add_game_arguments, game_arguments, game_spec
from agents.registry import make_agent, text_prompt
from agents.text.prompt import prompt_text


def prompt_after(
    game: str, players: int, seed: int, moves: int, options: dict | None = None
) -> str:
    """The prompt of the seat to act after ``moves`` greedy actions of the game dealt from
    ``seed``; ValueError where the game ends before."""
    spec = game_spec(game)
    options = dict(options or {})
    if spec.rules_options is not None:  # a game whose options are rules: the default preset
        options, _rules = spec.rules_options(options, "continental", None)
    spec.check_options(players, options)
    state = spec.new_game(players, seed, options)
    bots = [make_agent("greedy", seed, game) for _ in range(players)]
    for _ in range(moves):
        if state.is_over:
            raise ValueError(f"--moves {moves}: the game ends before that")
        state.apply(bots[state.actor].act(spec.view(state, state.actor)))
    if state.is_over:
        raise ValueError(f"--moves {moves}: the game ends there, no one is to act")
    return prompt_text(spec.view(state, state.actor), text_prompt(game))


def main(argv: Sequence[str] | None = None) -> int:
    """Command-line entry point."""
    parser = ArgumentParser(prog="python -m agents.text", description=__doc__.split("\n")[0])
    parser.add_argument("--players", type=int, default=3, help="players at the table")
    parser.add_argument("--seed", type=int, default=0, help="seed of the deal")
    parser.add_argument("--moves", type=int, default=0, help="greedy actions before the prompt")
    add_game_arguments(parser)
    args = parser.parse_args(argv)
    try:
        if args.moves < 0:
            raise ValueError(f"--moves {args.moves}: must be 0 or more")
        game, options = game_arguments(args)
        if args.preset:
            options["preset"] = args.preset
        print(prompt_after(game, args.players, args.seed, args.moves, options))
    except ValueError as exc:
        parser.error(str(exc))
    return 0


if __name__ == "__main__":
    sys.exit(main())
