"""The command line of ``continental evaluate``: its parser and the checks made on the arguments
before the first game (``agents.evaluate.harness.main`` runs them)."""

from __future__ import annotations

import argparse
import json
from typing import Any

from agents.cli import (
    ArgumentParser,
    check_output_path,
    check_plot_path,
    parse_names,
    parse_rounds,
)
from agents.evaluate.deals import refuse_oracles
from agents.evaluate.stats import SPRT
from agents.evaluate.variance import ESTIMATORS
from agents.games import add_game_arguments, game_arguments
from agents.text.llm import KEY_VARIABLES, LLMOptions


def parse_sprt(text: str) -> SPRT:
    """``D0,D1`` or ``D0,D1,ALPHA,BETA`` for ``--sprt``; ValueError naming the text."""
    try:
        parts = [float(x) for x in text.split(",")]
    except ValueError:
        raise ValueError(f"--sprt {text!r}: expected numbers D0,D1[,ALPHA,BETA]") from None
    if len(parts) not in (2, 4):
        raise ValueError(f"--sprt {text!r}: expected D0,D1 or D0,D1,ALPHA,BETA")
    try:
        return SPRT(*parts)
    except ValueError as exc:
        raise ValueError(f"--sprt {text!r}: {exc}") from None


def add_llm_arguments(parser: argparse.ArgumentParser) -> None:
    """``--llm-model`` and the other settings of the text agents ``llm:BASE_URL``
    (``llm_arguments`` reads them)."""
    defaults = LLMOptions(model="-")
    group = parser.add_argument_group(
        "text agents (llm:BASE_URL)",
        f"the key is read from ${KEY_VARIABLES[0]}, else ${KEY_VARIABLES[1]} (docs/llm-agents.md)",
    )
    group.add_argument("--llm-model", default=None, metavar="NAME", help="the endpoint's model")
    group.add_argument(
        "--llm-fallback", default=None, metavar="BOT",
        help=f"the bot that plays a reply naming no legal action ({defaults.fallback})",
    )  # fmt: skip
    group.add_argument(
        "--llm-timeout", type=float, default=None, metavar="S",
        help=f"seconds a request may wait ({defaults.timeout:g})",
    )  # fmt: skip
    group.add_argument(
        "--llm-retries", type=int, default=None, metavar="N",
        help=f"further tries of a failed request, with backoff ({defaults.retries})",
    )  # fmt: skip


def llm_arguments(args: argparse.Namespace) -> LLMOptions | None:
    """The text agents' settings of ``add_llm_arguments``' arguments (None: none given);
    ValueError naming a bad one, or a setting given without ``--llm-model``."""
    given = {
        key: value
        for key, value in (
            ("fallback", args.llm_fallback),
            ("timeout", args.llm_timeout),
            ("retries", args.llm_retries),
        )
        if value is not None
    }
    if args.llm_model is None:
        if given:
            raise ValueError(f"--llm-{next(iter(given))} needs --llm-model NAME")
        return None
    return LLMOptions(model=args.llm_model, **given)


def add_checkpoint_arguments(parser: ArgumentParser, deal: str = "deal") -> None:
    """``--checkpoint PATH`` and ``--resume`` (``agents.evaluate.checkpoint``); ``deal``: what
    one line holds, in the help."""
    parser.add_argument(
        "--checkpoint", default=None,
        help=f"append every finished {deal} to this file (JSON lines), for --resume",
    )  # fmt: skip
    parser.add_argument(
        "--resume", action="store_true",
        help="continue from --checkpoint: deals already there are not played again",
    )  # fmt: skip


def build_parser() -> ArgumentParser:
    """The parser of ``continental evaluate``."""
    parser = ArgumentParser(
        prog="continental evaluate",
        description="Evaluate bots on duplicate deals (the first agent is the candidate).",
    )
    parser.add_argument(
        "--agents", default="strong,greedy",
        help="comma-separated names: registry names, ppo:PATH, installed bots' names, "
        "package.module:Name of a bot of your own (docs/own-bot.md), or llm:BASE_URL of a "
        "chat endpoint (docs/llm-agents.md)",
    )  # fmt: skip
    parser.add_argument("--players", type=int, default=4, help="players at each table")
    parser.add_argument(
        "--games", type=int, default=100,
        help="number of deals; each is replayed with the candidate in every seat (x players games)",
    )  # fmt: skip
    parser.add_argument(
        "--seed",
        type=int,
        default=0,
        help="seed of the deals (fix it before a decisive run; never reuse it for another)",
    )
    parser.add_argument("--jobs", type=int, default=1, help="worker processes")
    add_game_arguments(parser)
    parser.add_argument(
        "--rounds", default=None, help="contract game: rounds to play, e.g. '1' or '1,2,3'"
    )
    parser.add_argument("--json", default=None, help="write the report here")
    parser.add_argument("--plot", default=None, help="write a PNG plot here")
    parser.add_argument("--no-progress", action="store_true", help="hide the progress bar")
    add_checkpoint_arguments(parser)
    parser.add_argument(
        "--sprt", default=None, metavar="D0,D1[,ALPHA,BETA]",
        help="screening: stop once a sequential test decides between a gain of D0 and of D1 "
        "points/game over the first opponent (e.g. 0,5); --games is then the most deals",
    )  # fmt: skip
    parser.add_argument(
        "--mixed", default=None, metavar="NAMES",
        help="also play the candidate at a table of these agents (e.g. search,ppo:PATH,strong)",
    )  # fmt: skip
    parser.add_argument(
        "--allow-oracle", action="store_true",
        help="allow diagnostic agents that read the hidden state (names with 'oracle')",
    )  # fmt: skip
    parser.add_argument(
        "--variance", default=None, choices=ESTIMATORS,
        help="also report each paired difference with control variates at chance events "
        "(aivat: the stock's draws against a frozen value; the plain figure still decides)",
    )  # fmt: skip
    parser.add_argument(
        "--from-json", default=None, help="print and plot a saved report instead of playing"
    )
    add_llm_arguments(parser)
    return parser


def read_saved(path: str) -> dict[str, Any]:
    """The report saved at ``path`` (``--from-json``); ValueError if it cannot be read."""
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError) as exc:
        raise ValueError(f"--from-json {path}: cannot be read ({exc})") from None


def evaluate_arguments(args: argparse.Namespace) -> dict[str, Any]:
    """The keyword arguments of ``evaluate`` for these arguments; ValueError naming a bad one."""
    agents = parse_names(args.agents, "--agents")
    rounds = parse_rounds(args.rounds)
    if args.jobs < 1:
        raise ValueError(f"--jobs {args.jobs}: must be at least 1")
    game, options = game_arguments(args)
    sprt = parse_sprt(args.sprt) if args.sprt else None
    mixed = parse_names(args.mixed, "--mixed") if args.mixed else None
    if args.resume and not args.checkpoint:
        raise ValueError("--resume needs --checkpoint PATH")
    if args.checkpoint:
        check_output_path(args.checkpoint, "--checkpoint")
    refuse_oracles(list(agents) + list(mixed or ()), args.allow_oracle, game)
    llm = llm_arguments(args)
    return {
        "agents": agents,
        "players": args.players,
        "games": args.games,
        "seed": args.seed,
        "jobs": args.jobs,
        "preset": args.preset or "continental",
        "rounds": rounds,
        "progress": not args.no_progress,
        "game": game,
        "options": options,
        "checkpoint": args.checkpoint,
        "resume": args.resume,
        "sprt": sprt,
        "mixed": mixed,
        "allow_oracle": args.allow_oracle,
        "llm": llm,
        "variance": args.variance,
    }


def check_outputs(args: argparse.Namespace) -> None:
    """Every output path is checked before the first game, so no report is lost at the end."""
    if args.json:
        check_output_path(args.json, "--json")
    if args.plot:
        check_plot_path(args.plot)
