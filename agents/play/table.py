"""The terminal table: one person against bots, for any game with a ``GameSpec``.

``TerminalTable`` holds what every game's terminal play shares: seating the person and the bots
(built by the registry through the spec), the loop that lets the bots move and reads the person's
lines, the menu of numbered moves, the events since the person's last move, and leaving on
``quit``, end of input or Ctrl-C. A game's terminal module subclasses it with its words only:

| hook | what |
|---|---|
| ``GAME`` | the registered game (``agents.games``) |
| ``HELP`` | the ``help`` text |
| ``title()`` | the first line |
| ``prompt()`` | the input prompt |
| ``log_move(seat, action)`` | apply the move and append what the others should read |
| ``turn_notes()`` | lines above the menu (a question the move answers) |
| ``final_lines()`` | the result once the game is over |

``SideTerminalTable`` adds what the two side games share: a move logged as ``name: draws from
the stock``, ``takes 7H`` or ``discards 7H`` (``move_words``), a hand's end by the game's
``log_hand_end(record)`` (``chips_line`` writes the chips it moved), the final standings
(``standings``), and the command line's words (``DESCRIPTION``, ``OPTIONS``).

``table_main`` is the command line both side games share: ``--opponents``, ``--seed``,
``--seat``, ``--name`` and the game's own ``OPTIONS``.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import Any, ClassVar

from agents.cli import ArgumentParser, parse_names
from agents.games import game_spec
from continental_env.cards import format_cards

QUIT_WORDS = ("quit", "exit", "q")
MENU_NUMBER = re.compile(r"[0-9]{1,6}")  # ASCII digits only: "²" or a 5,000-digit number is text
BYE = "Bye (game left unfinished)."


class TerminalTable:
    """One game between a person (reading lines from ``input_fn``) and bots."""

    GAME = "contract"
    HELP = ""

    def __init__(
        self,
        opponents: Sequence[str],
        seed: int | None = None,
        seat: int = 0,
        name: str = "you",
        options: dict[str, Any] | None = None,
        input_fn: Callable[[str], str] = input,
        output: Callable[[str], None] = print,
    ) -> None:
        if not opponents:
            raise ValueError("choose at least one opponent")
        players = len(opponents) + 1
        if not 0 <= seat < players:
            raise ValueError(f"--seat {seat} is out of range 0..{players - 1}")
        self.spec = game_spec(self.GAME)
        self.game = self.new_game(players, seed, options or {})
        self.seat = seat
        self.input_fn = input_fn
        self.output = output
        bot_names = list(opponents)
        self.names: list[str] = []
        self.bots: dict[int, Any] = {}
        for s in range(players):
            if s == seat:
                self.names.append(name)
                continue
            bot = bot_names.pop(0)
            self.names.append(f"{bot}_{s}")
            agent = self.spec.make_agent(bot, None if seed is None else seed * 1000 + s)
            self.check_bot(agent, players)
            self.bots[s] = agent
        self.events: list[str] = []

    # ------------------------------------------------------------------ the game's hooks

    def new_game(self, players: int, seed: int | None, options: dict[str, Any]) -> Any:
        """The engine for this table (the spec's ``new_game``)."""
        return self.spec.new_game(players, seed, options)

    def check_bot(self, agent: Any, players: int) -> None:
        """ValueError if ``agent`` cannot play at this table (every bot can, unless overridden)."""

    def title(self) -> str:
        raise NotImplementedError

    def prompt(self) -> str:
        return f"[{self.game.phase}] {self.names[self.seat]}> "

    def log_move(self, seat: int, action: int) -> None:
        raise NotImplementedError

    def turn_notes(self) -> list[str]:
        return []

    def final_lines(self) -> list[str]:
        raise NotImplementedError

    # ------------------------------------------------------------------ the loop

    def run(self) -> int:
        """Play until the game ends or the person quits; returns a process exit code."""
        try:
            return self._loop()
        except KeyboardInterrupt:  # Ctrl-C while the bots move
            self.output("\n" + BYE)
            return 0

    def _loop(self) -> int:
        game = self.game
        self.output(self.title())
        show_table = True
        while not game.is_over:
            actor = game.actor
            if actor != self.seat:
                self.log_move(actor, self.bots[actor].act(self.spec.view(game, actor)))
                show_table = True
                continue
            if show_table:
                self._show_turn()
                show_table = False
            try:
                line = self.input_fn(self.prompt())
            except (EOFError, KeyboardInterrupt):
                self.output("\n" + BYE)
                return 0
            outcome = self._handle(line)
            if outcome == "quit":
                self.output(BYE)
                return 0
            if outcome == "moved":
                show_table = True
        self._flush_events()
        for line in ["", self.render(None), "", *self.final_lines()]:
            self.output(line)
        return 0

    def _handle(self, line: str) -> str:
        """Act on one input line: 'quit', 'moved' or 'again'."""
        text = line.strip()
        word = text.lower()
        if not text:
            self.output("Type a move, its number, or 'help'.")
            return "again"
        if word in QUIT_WORDS:
            return "quit"
        if word in ("help", "h", "?"):
            self.output(self.HELP)
            return "again"
        if word in ("table", "t"):
            self._show_turn()
            return "again"
        action = self._read_move(text)
        if action is None:
            return "again"
        self.log_move(self.seat, action)
        return "moved"

    def _read_move(self, text: str) -> int | None:
        """The legal action ``text`` names (a menu number or a move's text), or None after a
        one-line message; the game is unchanged either way."""
        game = self.game
        legal = game.legal_actions()
        if text.isascii() and text.isdigit():
            if not MENU_NUMBER.fullmatch(text):
                self.output(f"No move number {text[:12]}...: choose 0..{len(legal) - 1}.")
                return None
            if not 0 <= int(text) < len(legal):
                self.output(f"No move number {int(text)}: choose 0..{len(legal) - 1}.")
                return None
            return legal[int(text)]
        try:
            action = game.action_from_str(text)
        except ValueError as exc:
            self.output(f"Could not read that move: {exc}")
            return None
        if not game.is_legal(action):
            try:
                game.apply(action)  # raises with the engine's explanation, changes nothing
            except ValueError as exc:
                self.output(f"Not legal now: {exc}")
                return None
        return action

    # ------------------------------------------------------------------ output

    def render(self, seat: int | None) -> str:
        """The table drawn from ``seat`` (None: every hand shown)."""
        return self.spec.render(self.game, seat, self.names)

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
        self.output(self.render(self.seat))
        self.output("")
        for line in self.turn_notes():
            self.output(line)
        self.output("Your moves:")
        entries = [f"{i:>3}) {game.action_to_str(a)}" for i, a in enumerate(game.legal_actions())]
        width = max(len(e) for e in entries) + 2
        per_row = max(1, 96 // width)
        for i in range(0, len(entries), per_row):
            self.output("".join(e.ljust(width) for e in entries[i : i + per_row]).rstrip())


class SideTerminalTable(TerminalTable):
    """The terminal table of a side game (module docstring): a game defines ``log_hand_end``
    and may add its own words to ``move_words``."""

    DESCRIPTION = ""  # the command line's description
    # The game's own command-line options, each ``(flag, type, default, help)``; the table gets
    # them as ``options`` by their names without the dashes.
    OPTIONS: ClassVar[tuple[tuple[str, type, Any, str], ...]] = ()

    def log_move(self, seat: int, action: int) -> None:
        game = self.game
        top = format_cards(game.discard[-1:])
        hands_before = len(game.hand_history)
        text = game.action_to_str(action)
        game.apply(action)
        if len(game.hand_history) > hands_before:
            self.log_hand_end(game.hand_history[-1])
        else:
            self.events.append(f"{self.names[seat]}: {self.move_words(text, top)}")

    def move_words(self, text: str, top: str) -> str:
        """A move that did not end the hand, for the events (``top``: the discard before it)."""
        if text == "take":
            return f"takes {top}"
        if text == "draw":
            return "draws from the stock"
        return text.replace("discard", "discards")

    def log_hand_end(self, record: dict[str, Any]) -> None:
        """Append to the events how the hand of ``record`` (``hand_history``) ended."""
        raise NotImplementedError

    def chips_line(self, label: str, chips: Sequence[int]) -> str:
        """An event line: ``label`` and each seat's name with the chips a hand moved."""
        moved = ", ".join(f"{n} {c:+d}" for n, c in zip(self.names, chips, strict=True))
        return f"   {label}: {moved}"

    def standings(
        self, heading: str, totals: Sequence[int], row: Callable[[int], str], winners: str
    ) -> list[str]:
        """The final lines: ``heading``, one line per seat, highest ``totals`` first (its name,
        then ``row(seat)``), and ``winners`` followed by the game's winners."""
        game = self.game
        lines = [heading]
        for s in sorted(range(game.num_players), key=lambda s: -totals[s]):
            lines.append(f"  {self.names[s]:<12} {row(s)}")
        return [*lines, winners + " and ".join(self.names[s] for s in game.winners())]


def table_main(
    table: type[SideTerminalTable],
    argv: Sequence[str] | None,
    opponents: str = "greedy,greedy,greedy",
) -> int:
    """A side game's terminal command line: seat the bots ``--opponents`` names, then play."""
    game = table.GAME
    parser = ArgumentParser(prog=f"continental play --game {game}", description=table.DESCRIPTION)
    parser.add_argument("--opponents", default=opponents, help="comma-separated bot names")
    parser.add_argument(
        "--seed", type=int, default=None, help="seed of the deal and the bots (None: a random one)"
    )
    parser.add_argument("--seat", type=int, default=0, help="your seat (seat 0 deals first)")
    parser.add_argument("--name", default="you")
    for flag, kind, default, text in table.OPTIONS:
        parser.add_argument(flag, type=kind, default=default, help=text)
    args = parser.parse_args(argv)
    options = {flag.lstrip("-"): getattr(args, flag.lstrip("-")) for flag, *_ in table.OPTIONS}
    try:
        names = parse_names(args.opponents, "--opponents")
        session = table(names, seed=args.seed, seat=args.seat, name=args.name, options=options)
    except ValueError as exc:
        parser.error(str(exc))
    return session.run()
