"""Replays: a finished game's record, checked, and stepped through from one seat's view.

A finished game's record (``Session.record``) holds the seed and every action as text; replaying
it through the engine rebuilds every position, hidden cards included, so a record is offered only
once the game is over. ``Replay`` steps through a record and shows each position from one seat's
view (by default the seat the person played), never from everyone's at once.
"""

from __future__ import annotations

import threading
import time
from pathlib import Path
from typing import Any

from agents.games import game_spec
from continental_web.errors import WebError
from continental_web.games import GAMES, SIDE_TABLES, TABLES, game_name, parse_seed, valid_text
from continental_web.view import build_state, play_logged

RECORD_FORMAT = "continental-web-replay"
RECORD_VERSION = 1
MAX_REPLAY_ACTIONS = 20_000  # far above the longest game played at the table
REPLAY_TIME_LIMIT = 5.0  # seconds of engine work to check one uploaded record

# The engine options a side game's record may carry (each table module's ``RECORD_OPTIONS``).
REPLAY_OPTIONS: dict[str, dict[str, tuple[int, int, bool]]] = {
    name: table.RECORD_OPTIONS for name, table in SIDE_TABLES.items()
}


def _record_fields(record: Any) -> tuple[str, int, int, list[str], list[str], int]:
    """A record's game, table size, seed, names, move texts and seat, each checked; WebError
    naming the first bad one."""
    if not isinstance(record, dict) or record.get("format") != RECORD_FORMAT:
        raise WebError(400, f'not a replay file: expected "format": "{RECORD_FORMAT}"')
    if record.get("version") != RECORD_VERSION:
        shown = str(record.get("version"))[:20]
        raise WebError(400, f"replay version {shown} is not {RECORD_VERSION}")
    try:
        kind = game_name(record.get("game", "contract"))  # an old file's "continental" too
    except WebError:
        raise WebError(400, f"replay of an unknown game {str(record.get('game'))[:30]!r}") from None
    players = record.get("num_players")
    if isinstance(players, bool) or not isinstance(players, int):
        raise WebError(400, "malformed replay file: num_players and seed must be integers")
    presets = GAMES[kind]["presets"]
    limits = presets.get(record.get("preset"), next(iter(presets.values())))
    if not limits["min_players"] <= players <= limits["max_players"]:
        raise WebError(400, f"malformed replay file: {players} players")
    try:
        seed = parse_seed(record.get("seed"), draw=False)
    except WebError:
        raise WebError(
            400, "malformed replay file: num_players and seed must be integers"
        ) from None
    names, actions, seat = record.get("names"), record.get("actions"), record.get("seat", 0)
    _check_record_lists(names, actions, players)
    if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < players:
        raise WebError(400, f"malformed replay file: seat {str(seat)[:20]}")
    return kind, players, seed, names, actions, seat


def _check_record_lists(names: Any, actions: Any, players: int) -> None:
    """A record's names (one string per seat) and move texts (bounded); WebError otherwise."""
    if (
        not isinstance(names, list)
        or len(names) != players
        or not all(isinstance(n, str) for n in names)
    ):
        raise WebError(400, "malformed replay file: names must list one string per seat")
    bad = next((n for n in names if not valid_text(n)), None)
    if bad is not None:
        raise WebError(400, f"malformed replay file: name {bad[:20]!r} is not valid text")
    if not isinstance(actions, list) or not all(
        isinstance(a, str) and len(a) <= 64 for a in actions
    ):
        raise WebError(400, "malformed replay file: actions must be a list of action texts")
    if len(actions) > MAX_REPLAY_ACTIONS:
        raise WebError(
            413, f"replay of {len(actions)} moves: at most {MAX_REPLAY_ACTIONS} are replayed"
        )


def _replay_moves(game: Any, actions: list[str], time_limit: float) -> tuple[list[int], list[int]]:
    """Play every move of a record on ``game`` (each legal where it is played, within
    ``time_limit`` seconds of engine work, the game over at the end): the action ids and the
    final scores; WebError naming the first problem."""
    deadline = time.monotonic() + time_limit
    ids: list[int] = []
    for i, text in enumerate(actions):
        if game.is_over:
            raise WebError(400, f"replay move {i} {text[:64]!r} refused: the game is over")
        try:
            action = game.action_from_str(text)
            game.apply(action)
        except ValueError as exc:
            raise WebError(400, f"replay move {i} {text!r} refused: {exc}") from None
        ids.append(action)
        if not i % 64 and time.monotonic() > deadline:
            raise WebError(
                413, f"replay refused: checking it took over {time_limit:g} s (move {i})"
            )
    if not game.is_over:
        raise WebError(
            400,
            f"replay refused: the record stops after {len(actions)} moves, before the game "
            "is over (a record is offered only for a finished game)",
        )
    return ids, list(game.scores)


class Replay:
    """A recorded game replayed through the engine, shown step by step from one seat.

    A record is checked before anything is kept: bounded options and rules, at most
    ``MAX_REPLAY_ACTIONS`` moves, each legal where it is played, within ``time_limit`` seconds
    of engine work, and the game over at its end (a record of an unfinished game would show
    hands still in play).
    """

    def __init__(
        self,
        record: Any,
        time_limit: float = REPLAY_TIME_LIMIT,
        checked: tuple[list[int], list[int]] | None = None,
    ) -> None:
        """``checked``: the action ids and final scores of this record, already checked
        (``check_record`` in a worker process); the moves are then not replayed here."""
        kind, players, seed, names, actions, seat = _record_fields(record)
        options = TABLES[kind].replay_options(record)
        try:
            self.start = game_spec(kind).new_game(players, seed, options)
        except (TypeError, ValueError) as exc:
            raise WebError(400, f"malformed replay file: {str(exc)[:200]}") from None
        self.names = [str(n)[:40] for n in names]
        self.seat = seat
        self.kind = kind
        self.preset = str(record.get("preset") or kind)[:40]
        self.lock = threading.Lock()
        self.client = ""
        self.touched = 0.0
        self._cursor = self.start.clone()
        self._cursor_log: list[str] = ["Dealt"]
        self._cursor_ends: list[dict[str, Any]] = []
        self._cursor_step = 0
        if checked is None:
            checked = _replay_moves(self.start.clone(), actions, time_limit)
        self.ids, self.final_scores = list(checked[0]), list(checked[1])

    @property
    def steps(self) -> int:
        """Number of moves in the record."""
        return len(self.ids)

    def frame(self, step: Any, seat: Any = None) -> dict[str, Any]:
        """The position after ``step`` moves, from ``seat``'s view (default the recorded seat)."""
        seat = self.seat if seat is None else seat
        if isinstance(step, bool) or not isinstance(step, int) or not 0 <= step <= self.steps:
            raise WebError(400, f"step {step!r} must be in 0..{self.steps}")
        if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < len(self.names):
            raise WebError(400, f"seat {seat!r} must be in 0..{len(self.names) - 1}")
        with self.lock:
            if step < self._cursor_step:
                self._cursor = self.start.clone()
                self._cursor_log = ["Dealt"]
                self._cursor_ends = []
                self._cursor_step = 0
            while self._cursor_step < step:
                play_logged(
                    self._cursor,
                    self.ids[self._cursor_step],
                    self.names,
                    self._cursor_log,
                    self._cursor_ends,
                )
                self._cursor_step += 1
            game = self._cursor
            config = {"game": self.kind, "preset": self.preset, "round_ends": self._cursor_ends}
            state = build_state(game, seat, self.names, self._cursor_log, config, None)
            following = self._next_text(step)
        state["legal"] = []  # a replay is watched, not played
        state["your_move"] = False
        state["replay"] = {
            "step": step,
            "steps": self.steps,
            "seat": seat,
            "recorded_seat": self.seat,
            "next": following,
            "final_scores": self.final_scores,
        }
        return state

    def _next_text(self, step: int) -> str | None:
        """Who moves next, without naming a hidden card (the move itself shows on the next step)."""
        if step >= self.steps:
            return None
        actor = self._cursor.actor
        return None if actor is None else f"{self.names[actor]} to move"


def load_record_file(results_dir: Path | None, name: Any) -> dict[str, Any]:
    """A replay file from ``results_dir`` chosen by its listed name, never by a path."""
    import json

    files = record_files(results_dir)
    if not isinstance(name, str) or name not in files:
        raise WebError(400, f"no replay file named {name!r} in the results folder")
    try:
        return json.loads((results_dir / name).read_text(encoding="utf-8"))  # type: ignore[operator]
    except (OSError, ValueError, RecursionError) as exc:
        why = "not JSON" if isinstance(exc, ValueError | RecursionError) else "unreadable"
        raise WebError(400, f"cannot read replay file {name!r}: {why}") from None


def record_files(results_dir: Path | None) -> list[str]:
    """Names of the replay files in ``results_dir`` (JSON files with the replay format tag)."""
    if results_dir is None or not results_dir.is_dir():
        return []
    names = []
    for path in sorted(results_dir.glob("*.json")):
        try:
            head = path.read_text(encoding="utf-8")[:200]
        except OSError:
            continue
        if RECORD_FORMAT in head:
            names.append(path.name)
    return names


def check_record(record: Any, time_limit: float) -> tuple[list[int], list[int]]:
    """In a worker process: a record's action ids and final scores, or the WebError refusing it."""
    replay = Replay(record, time_limit=time_limit)
    return replay.ids, replay.final_scores
