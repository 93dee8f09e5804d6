"""An evaluation's checkpoint: JSON lines, a header then one finished deal per line.

``CheckpointWriter`` appends every deal as it ends (flushed and fsynced); ``read_checkpoint``
reads the deals back for ``--resume``. Each deal line carries its deal number, so the deals may
come in any order (a deal played again after damage is appended at the end). A last line cut
short by an interruption is dropped (and cut from the file); an empty file, or one whose header
was cut short, holds no deals and is started again (``appending`` says which). A damaged line in the middle (not
JSON: a disk or copy fault) is skipped and said, one line each (``Resumed.notes``): the intact
deals before and after it are kept and only the deals it held are played again, so no finished
deal is lost; the damaged line stays in the file as it was. A file written by another evaluation
(``checkpoint_header``: everything that decides the games), a first line that is not a header,
and a JSON line that is not a deal are refused with one line naming the file, the line and why.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

CHECKPOINT_SCHEMA = "continental-eval-checkpoint/1"
# Keys every recorded game has (``agents.evaluate.deals.play_game``).
GAME_KEYS = ("closers", "scores", "segment_scores", "segments", "decisions", "fingerprints")


def checkpoint_header(config: dict[str, Any]) -> dict[str, Any]:
    """What a checkpoint must agree on to be resumed: everything that decides the games."""
    # "llm": the text agents' model and settings (a report with a text agent only).
    keys = ("agents", "lineup", "players", "seed", "game", "options", "preset", "rounds", "llm")
    return {"schema": CHECKPOINT_SCHEMA, **{k: config[k] for k in keys if k in config}}


@dataclass
class Resumed:
    """What a checkpoint holds: its deals by deal number, and one note per damaged line."""

    deals: dict[int, dict[str, Any]] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)


def _check_header(path: str, entry: Any, header: dict[str, Any]) -> None:
    """ValueError naming the differing keys if ``entry`` is another evaluation's header."""
    if not isinstance(entry, dict):
        raise ValueError(
            f"--checkpoint {path} line 1: a JSON {_kind(entry)}, not an evaluation checkpoint's "
            "header; use a new path"
        )
    if entry != header:
        diff = sorted(k for k in set(entry) | set(header) if entry.get(k) != header.get(k))
        raise ValueError(
            f"--checkpoint {path}: it was written by another evaluation "
            f"(differs in {', '.join(diff)}); use a new path or the same arguments"
        )


def _kind(value: Any) -> str:
    """How a JSON value is named in a message: ``list``, ``string``, ``object``..."""
    names = {dict: "object", list: "list", str: "string", bool: "boolean", type(None): "null"}
    return names.get(type(value), "number")


def _not_a_deal(entry: Any, players: int) -> str | None:
    """Why a JSON line is not a deal of this evaluation (None if it is one)."""
    if not isinstance(entry, dict):
        return f"a JSON {_kind(entry)}"
    deal = entry.get("deal")
    if not isinstance(deal, int) or isinstance(deal, bool) or deal < 0:
        return f"its 'deal' is {deal!r}, not a deal number"
    games = entry.get("games")
    if not isinstance(games, list) or len(games) != players:
        found = len(games) if isinstance(games, list) else repr(games)
        return f"deal {deal} has {found} games, not one per rotation ({players})"
    for k, game in enumerate(games):
        if not isinstance(game, dict) or any(key not in game for key in GAME_KEYS):
            return f"deal {deal}'s game {k} lacks the keys {', '.join(GAME_KEYS)}"
        scores = game["scores"]
        if not isinstance(scores, list) or len(scores) != players:
            return f"deal {deal}'s game {k} has no score for each of the {players} seats"
    return None


def read_checkpoint(
    path: str,
    header: dict[str, Any],
    not_a_deal: Callable[[Any, int], str | None] | None = None,
) -> Resumed:
    """The deals already played in the checkpoint at ``path`` (the module docstring says what is
    kept, dropped and refused); ValueError naming the file, the line and why. ``not_a_deal``:
    why a JSON line is not one of this run's deals, given the line and the header's players
    (default: an evaluation's deal; the leaderboard's deals hold every table's games)."""
    not_a_deal = not_a_deal or _not_a_deal
    with open(path, "rb") as fh:
        data = fh.read()
    lines = data.split(b"\n")
    players = int(header.get("players", 0))
    resumed = Resumed()
    damaged: list[tuple[int, str, int]] = []  # (line number, why, deals read before it)
    for i, line in enumerate(lines[:-1]):  # after the last newline: empty, or a line cut short
        try:
            entry = json.loads(line)
        except ValueError as exc:
            if i == 0:
                raise ValueError(
                    f"--checkpoint {path} line 1: not JSON ({_reason(exc)}); not an evaluation "
                    "checkpoint's header"
                ) from None
            damaged.append((i + 1, _reason(exc), len(resumed.deals)))
            continue
        if i == 0:
            _check_header(path, entry, header)
            continue
        why = not_a_deal(entry, players)
        if why is not None:
            raise ValueError(
                f"--checkpoint {path} line {i + 1}: not a deal ({why}); remove that line, "
                "or give a new path to start over"
            )
        resumed.deals.setdefault(entry["deal"], entry)
    if lines[-1]:  # a last line cut short by an interruption (even the header): cut it off
        with open(path, "r+b") as fh:
            fh.truncate(len(data) - len(lines[-1]))
    missing = _missing(resumed.deals)
    for number, why, before in damaged:
        after = len(resumed.deals) - before
        resumed.notes.append(
            f"--checkpoint {path} line {number}: damaged, skipped ({why}); the {after} intact "
            f"deals after it are kept and only the deals not in the file are played"
            + (f" ({_numbers(missing)} among them)" if missing else "")
        )
    return resumed


def _reason(exc: ValueError) -> str:
    """The first line of a JSON error, short."""
    return (str(exc).splitlines() or ["unreadable"])[0][:80]


def _missing(deals: dict[int, Any]) -> list[int]:
    """Deal numbers below the highest one recorded that the file lacks."""
    top = max(deals, default=-1)
    return [d for d in range(top + 1) if d not in deals]


def _numbers(missing: list[int]) -> str:
    shown = ", ".join(map(str, missing[:10])) + (" ..." if len(missing) > 10 else "")
    return f"deal {shown}" if len(missing) == 1 else f"deals {shown}"


def appending(path: str) -> bool:
    """Whether a writer resuming at ``path`` appends (the file holds a header, which
    ``read_checkpoint`` has checked) rather than starting the file afresh."""
    return os.path.exists(path) and os.path.getsize(path) > 0


def record_to(
    path: str | None, header: dict[str, Any], resume: bool
) -> tuple[str, dict[str, Any], bool] | None:
    """A ``CheckpointWriter``'s arguments for a run writing to ``path`` (None: no checkpoint):
    a resumed file keeps what it holds (even only a header); any other run starts it afresh."""
    if not path:
        return None
    return path, header, not (resume and appending(path))


def holds_deals(path: str) -> bool:
    """Whether the file at ``path`` holds a line after its first: a deal (or a damaged one)."""
    if not os.path.exists(path):
        return False
    with open(path, "rb") as fh:
        return fh.read().count(b"\n") >= 2


def load_checkpoint(path: str, header: dict[str, Any]) -> list[dict[str, Any]]:
    """The deals of ``read_checkpoint`` in deal order (a damaged line's deal is absent)."""
    deals = read_checkpoint(path, header).deals
    return [deals[d] for d in sorted(deals)]


class CheckpointWriter:
    """Appends one deal per line, flushed and fsynced: an interruption loses at most the deal
    being written, which ``read_checkpoint`` drops."""

    def __init__(self, path: str, header: dict[str, Any], fresh: bool) -> None:
        self.fh = open(path, "w" if fresh else "a")  # noqa: SIM115 (closed by close())
        if fresh:
            self.write(header)

    def write(self, entry: dict[str, Any]) -> None:
        self.fh.write(json.dumps(entry, separators=(",", ":")) + "\n")
        self.fh.flush()
        os.fsync(self.fh.fileno())

    def close(self) -> None:
        self.fh.close()
