"""Play Continental in the terminal against bots: ``continental play`` or ``python -m agents.play``.

```
continental play --opponents greedy,strong --seed 1 --preset continental
continental play --game fifteen --opponents greedy,greedy,random --seed 1
```

``--game`` chooses the game (``agents.games``); the fifteen-card game is
``agents.play.fifteen`` with its own options (``--target``, ``--hands``).

You sit in seat 0 (``--seat``) and the bots fill the other seats in the order given. At each of
your decisions the table is drawn from your seat (other hands hidden, cards they are known to
have picked up shown), what the bots did since your last move is listed, and your legal moves are
numbered with their text form. Type a move as text (``draw``, ``take``, ``claim``, ``pass``,
``laydown``, ``layoff 9S 2``, ``layoff JK 3 high``, ``swap 7H 1``, ``discard 7H``, ``close``) or
its number from the menu. ``help`` lists the commands, ``table`` redraws the table, ``quit`` (or
end of input, Ctrl-D, or Ctrl-C at any time, also while the bots move) leaves. A bad move gets a
message and a new prompt; the game is unchanged. A bot that cannot be built (an unknown name, a
missing model, a model trained for another table size) is a one-line error before the game.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable, Sequence
from typing import Any

from agents.bots.ppo_agent import check_table
from agents.cli import ArgumentParser, parse_names, parse_rounds
from agents.games import DEFAULT_GAME, game_names, game_spec
from agents.play.table import TerminalTable
from continental_env.cards import format_cards
from continental_env.contract.game import CLAIM, TAKE, Game
from continental_env.rules import RuleConfig, resolve_rules

HELP = """Commands:
  <number>          the move with that number in the menu
  draw | take       draw from the stock / take the top discard
  claim | pass      claim the declined discard (plus a penalty card) or not
  laydown           lay down the contract (best arrangement chosen for you)
  layoff C M        lay card C off on table meld M (a joker on a run: layoff JK M low|high)
  swap C M          put natural C in place of a joker of meld M, taking the joker
  discard C         discard card C and end your turn
  close             place your last card face down and end the round
  table             draw the table again
  help              this text
  quit              leave the game
Cards: rank A23456789TJQK then suit CDHS, e.g. 7H TS AC; the joker is JK."""


class HumanGame(TerminalTable):
    """One contract game between a person (reading lines from ``input_fn``) and bots."""

    GAME = "contract"
    HELP = HELP

    def __init__(
        self,
        opponents: Sequence[str],
        seed: int | None = None,
        preset: str | RuleConfig = "continental",
        rounds: Sequence[int] | None = None,
        seat: int = 0,
        name: str = "you",
        input_fn: Callable[[str], str] = input,
        output: Callable[[str], None] = print,
    ) -> None:
        rules = resolve_rules(preset)
        if rounds:
            rules = rules.with_rounds(tuple(rounds))
        self.rules = rules
        super().__init__(opponents, seed, seat, name, input_fn=input_fn, output=output)

    def new_game(self, players: int, seed: int | None, options: dict[str, Any]) -> Game:
        return Game.new(self.rules, players, seed=seed)

    def check_bot(self, agent: Any, players: int) -> None:
        check_table(agent, players)  # a model trained for another table size is refused

    def title(self) -> str:
        game = self.game
        return f"Continental ({game.rules.name}), {game.num_players} players. Type 'help'."

    def prompt(self) -> str:
        game = self.game
        if game.state.phase == "claim":
            top = format_cards(game.state.discard[-1:])
            return f"[claim {top}] {self.names[self.seat]}> "
        return f"[{game.state.phase}] {self.names[self.seat]}> "

    def turn_notes(self) -> list[str]:
        game = self.game
        if game.state.phase != "claim":
            return []
        top = format_cards(game.state.discard[-1:])
        return [
            f"{self.names[game.state.current]} declined {top}. Claim it (you also take a penalty "
            "card and discard nothing) or pass?"
        ]

    def final_lines(self) -> list[str]:
        game = self.game
        ranking = sorted(range(game.num_players), key=lambda s: game.state.scores[s])
        lines = ["Game over. Final scores (lowest wins):"]
        lines += [f"  {self.names[s]:<12} {game.state.scores[s]:>5}" for s in ranking]
        winners = " and ".join(self.names[s] for s in game.winners())
        return [*lines, f"Winner: {winners}"]

    def log_move(self, seat: int, action: int) -> None:
        game = self.game
        who = self.names[seat]
        text = game.action_to_str(action)
        top = format_cards(game.state.discard[-1:])
        melds_before = len(game.state.table)
        round_before = game.state.round_index
        game.apply(action)
        if game.state.round_index != round_before or game.is_over:
            if text == "close":
                self.events.append(f"{who}: closes")
            self._log_round_end()
            return
        if text == "pass":
            return  # declining a claim is silent at a real table too
        if action == TAKE:
            text = f"takes {top} from the discard pile"
        elif action == CLAIM:
            text = f"claims {top} (and takes a penalty card)"
        elif text == "draw":
            text = "draws from the stock"
        elif text == "laydown":
            new = game.state.table[melds_before:]
            text = "lays down " + "  ".join(format_cards(m.cards) for m in new)
        self.events.append(f"{who}: {text}")

    def _log_round_end(self) -> None:
        last = self.game.state.round_history[-1]
        closer = last["closer"]
        closed = "nobody closed" if closer is None else f"{self.names[closer]} closed"
        points = ", ".join(f"{n} {p}" for n, p in zip(self.names, last["points"], strict=True))
        self.events.append(f"== Round {last['round']} over: {closed}. Points: {points}")


def main(argv: Sequence[str] | None = None) -> int:
    """Command-line entry point; ``--game`` hands the other games to their own terminal game."""
    chooser = ArgumentParser(prog="continental play", add_help=False)
    chooser.add_argument("--game", default=DEFAULT_GAME)
    known, rest = chooser.parse_known_args(argv)
    if known.game != DEFAULT_GAME:
        try:
            spec = game_spec(known.game)
        except ValueError as exc:
            chooser.error(str(exc))
        if not spec.terminal:
            chooser.error(f"--game {known.game}: this game has no terminal game")
        return importlib.import_module(spec.terminal).main(rest)
    parser = ArgumentParser(
        prog="continental play", description="Play Continental in the terminal against bots."
    )
    parser.add_argument(
        "--game",
        default=DEFAULT_GAME,
        help=f"which game: {', '.join(game_names())} (the others have their own options)",
    )
    parser.add_argument(
        "--opponents",
        default="greedy,strong",
        help="comma-separated bots: random, greedy, strong or ppo:PATH (one per other seat)",
    )
    parser.add_argument(
        "--seed", type=int, default=None, help="seed of the deal and the bots (None: a random one)"
    )
    parser.add_argument("--preset", default="continental")
    parser.add_argument("--rounds", default=None, help="rounds to play, e.g. '1' or '1,2'")
    parser.add_argument(
        "--seat", type=int, default=0, help="your seat (seat 0 deals the first round)"
    )
    parser.add_argument("--name", default="you")
    args = parser.parse_args(argv)
    try:
        opponents = parse_names(args.opponents, "--opponents")
        rounds = parse_rounds(args.rounds)
        session = HumanGame(
            opponents, seed=args.seed, preset=args.preset, rounds=rounds, seat=args.seat,
            name=args.name,
        )  # fmt: skip
    except ValueError as exc:
        parser.error(str(exc))
    return session.run()


if __name__ == "__main__":
    sys.exit(main())
