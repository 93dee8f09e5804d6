"""An evaluation's checkpoint: JSON lines, a header then one finished deal per line.

``CheckpointWriter`` appends every deal as it ends (flushed and fsynced); ``load_checkpoint`` reads
the deals back for ``--resume``, drops a last line cut short by an interruption and refuses a file
written by another evaluation (``checkpoint_header``: everything that decides the games).
"""

from __future__ import annotations

import json
import os
from typing import Any

CHECKPOINT_SCHEMA = "continental-eval-checkpoint/1"


def checkpoint_header(config: dict[str, Any]) -> dict[str, Any]:
    """What a checkpoint must agree on to be resumed: everything that decides the games."""
    keys = ("agents", "lineup", "players", "seed", "game", "options", "preset", "rounds")
    return {"schema": CHECKPOINT_SCHEMA, **{k: config[k] for k in keys if k in config}}


def _check_header(path: str, entry: Any, header: dict[str, Any]) -> None:
    """ValueError naming the differing keys if ``entry`` is another evaluation's header."""
    if entry != header:
        diff = sorted(k for k in set(entry) | set(header) if entry.get(k) != header.get(k))
        raise ValueError(
            f"--checkpoint {path}: it was written by another evaluation "
            f"(differs in {', '.join(diff)}); use a new path or the same arguments"
        )


def load_checkpoint(path: str, header: dict[str, Any]) -> list[dict[str, Any]]:
    """The deals already played in the checkpoint at ``path`` (JSON lines: a header, then one
    line per deal in deal order). A trailing line cut short by an interruption is dropped (and
    cut from the file); ValueError if the file belongs to another evaluation."""
    with open(path, "rb") as fh:
        data = fh.read()
    lines = data.split(b"\n")
    good = 0  # bytes of complete, parseable lines
    results: list[dict[str, Any]] = []
    for i, line in enumerate(lines[:-1]):  # after the last newline: empty, or a line cut short
        try:
            entry = json.loads(line)
        except ValueError:
            break
        if i == 0:
            _check_header(path, entry, header)
        elif entry.get("deal") != len(results):
            raise ValueError(f"--checkpoint {path}: deal {entry.get('deal')} out of order")
        else:
            results.append(entry)
        good += len(line) + 1
    if good == 0:
        raise ValueError(f"--checkpoint {path}: no header line; not an evaluation checkpoint")
    if good < len(data):
        with open(path, "r+b") as fh:
            fh.truncate(good)
    return results


class CheckpointWriter:
    """Appends one deal per line, flushed and fsynced: an interruption loses at most the deal
    being written, which ``load_checkpoint`` drops."""

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
