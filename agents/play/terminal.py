"""Play Continental in the terminal against bots: ``continental play`` or ``python -m agents.play``.

```
continental play --opponents greedy,strong --seed 1 --preset continental
continental play --game fifteen --opponents greedy,greedy,random --seed 1
```

``--game`` chooses the game (``agents.games``); the fifteen-card game is
``agents.fifteen.play`` with its own options (``--target``, ``--hands``).

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
import re
import sys
from collections.abc import Callable, Sequence

from agents import make_agent
from agents.bots.base import PlayerView
from agents.bots.ppo_agent import check_table
from agents.cli import ArgumentParser, parse_names, parse_rounds
from agents.games import DEFAULT_GAME, game_names, game_spec
from continental_env.cards import format_cards
from continental_env.game import CLAIM, TAKE, Game
from continental_env.render import render_table
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

QUIT_WORDS = ("quit", "exit", "q")
MENU_NUMBER = re.compile(r"[0-9]{1,6}")  # ASCII digits only: "²" or a 5,000-digit number is text


class HumanGame:
    """One game between a person (reading lines from ``input_fn``) and bots."""

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
        players = len(opponents) + 1
        if not opponents:
            raise ValueError("choose at least one opponent")
        if not 0 <= seat < players:
            raise ValueError(f"--seat {seat} is out of range 0..{players - 1}")
        self.game = Game.new(rules, players, seed=seed)
        self.seat = seat
        self.input_fn = input_fn
        self.output = output
        bot_names = list(opponents)
        self.names: list[str] = []
        self.bots: dict[int, object] = {}
        for s in range(players):
            if s == seat:
                self.names.append(name)
                continue
            bot = bot_names.pop(0)
            self.names.append(f"{bot}_{s}")
            agent = make_agent(bot, None if seed is None else seed * 1000 + s)
            check_table(agent, players)  # a model trained for another table size is refused
            self.bots[s] = agent
        self.events: list[str] = []

    # ------------------------------------------------------------------ the loop

    def run(self) -> int:
        """Play until the game ends or the person quits; returns a process exit code."""
        try:
            return self._loop()
        except KeyboardInterrupt:  # Ctrl-C while the bots move
            self.output("\nBye (game left unfinished).")
            return 0

    def _loop(self) -> int:
        game = self.game
        self.output(f"Continental ({game.rules.name}), {game.num_players} players. Type 'help'.")
        show_table = True
        while not game.is_over:
            actor = game.actor
            if actor != self.seat:
                bot = self.bots[actor]
                action = bot.act(PlayerView(game, actor))  # type: ignore[attr-defined]
                self._apply_and_log(actor, action)
                show_table = True
                continue
            if show_table:
                self._show_turn()
                show_table = False
            try:
                line = self.input_fn(self._prompt())
            except (EOFError, KeyboardInterrupt):
                self.output("\nBye (game left unfinished).")
                return 0
            outcome = self._handle(line)
            if outcome == "quit":
                self.output("Bye (game left unfinished).")
                return 0
            if outcome == "moved":
                show_table = True
        self._flush_events()
        self._show_final()
        return 0

    def _prompt(self) -> str:
        game = self.game
        if game.state.phase == "claim":
            top = format_cards(game.state.discard[-1:])
            return f"[claim {top}] {self.names[self.seat]}> "
        return f"[{game.state.phase}] {self.names[self.seat]}> "

    def _handle(self, line: str) -> str:
        """Act on one input line: 'quit', 'moved' or 'again'."""
        game = self.game
        text = line.strip()
        word = text.lower()
        if not text:
            self.output("Type a move, its number, or 'help'.")
            return "again"
        if word in QUIT_WORDS:
            return "quit"
        if word in ("help", "h", "?"):
            self.output(HELP)
            return "again"
        if word in ("table", "t"):
            self._show_turn()
            return "again"
        legal = game.legal_actions()
        if text.isascii() and text.isdigit():
            if not MENU_NUMBER.fullmatch(text):
                self.output(f"No move number {text[:12]}...: choose 0..{len(legal) - 1}.")
                return "again"
            index = int(text)
            if not 0 <= index < len(legal):
                self.output(f"No move number {index}: choose 0..{len(legal) - 1}.")
                return "again"
            action = legal[index]
        else:
            try:
                action = game.action_from_str(text)
            except ValueError as exc:
                self.output(f"Could not read that move: {exc}")
                return "again"
        if not game.is_legal(action):
            try:
                game.apply(action)  # raises with the engine's explanation, changes nothing
            except ValueError as exc:
                self.output(f"Not legal now: {exc}")
                return "again"
        self._apply_and_log(self.seat, action)
        return "moved"

    # ------------------------------------------------------------------ output

    def _apply_and_log(self, seat: int, action: int) -> None:
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

    def _flush_events(self) -> None:
        if self.events:
            self.output("Since your last move:")
            for e in self.events:
                self.output("  " + e)
            self.events = []

    def _show_turn(self) -> None:
        game = self.game
        self._flush_events()
        self.output("")
        self.output(render_table(game, seat=self.seat, names=self.names))
        self.output("")
        if game.state.phase == "claim":
            top = format_cards(game.state.discard[-1:])
            self.output(
                f"{self.names[game.state.current]} declined {top}. Claim it (you also take a penalty "
                "card and discard nothing) or pass?"
            )
        self.output("Your moves:")
        entries = [f"{i:>3}) {game.action_to_str(a)}" for i, a in enumerate(game.legal_actions())]
        width = max(len(e) for e in entries) + 2
        per_row = max(1, 96 // width)
        for i in range(0, len(entries), per_row):
            self.output("".join(e.ljust(width) for e in entries[i : i + per_row]).rstrip())

    def _show_final(self) -> None:
        game = self.game
        self.output("")
        self.output(render_table(game, seat=None, names=self.names))
        self.output("")
        ranking = sorted(range(game.num_players), key=lambda s: game.state.scores[s])
        self.output("Game over. Final scores (lowest wins):")
        for s in ranking:
            self.output(f"  {self.names[s]:<12} {game.state.scores[s]:>5}")
        winners = " and ".join(self.names[s] for s in game.winners())
        self.output(f"Winner: {winners}")


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
    parser.add_argument("--seed", type=int, default=None)
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
