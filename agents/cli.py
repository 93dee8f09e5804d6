"""One command line for the project: ``continental COMMAND [options]``.

```
continental play --opponents greedy,strong --seed 1
continental evaluate --agents strong,greedy --players 4 --games 200 --json report.json
continental train --opponents greedy --total-timesteps 2000000
continental bench --games 20
continental web --port 8000
```

Every command is also ``python -m MODULE`` (``agents.play``, ``agents.evaluate``,
``agents.train`` or ``python train.py``, ``continental_env.bench``, ``continental_web``). The commands share their
conventions: ``--seed``, ``--players``, ``--preset``, ``--rounds`` ('all', '1' or '1,2,3') mean
the same everywhere; a bad option is refused before any work with one line naming it (argparse's
``error``, exit status 2).

Adding a command is one ``Command`` entry in ``COMMANDS``: its name, the module whose
``main(argv) -> int`` runs it, and a one-line help. ``main`` forwards the remaining arguments.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from typing import NoReturn


@dataclass(frozen=True)
class Command:
    """A subcommand: ``module.main(argv)`` runs it."""

    name: str
    module: str
    help: str


COMMANDS: dict[str, Command] = {
    c.name: c
    for c in (
        Command("play", "agents.play.contract", "play a game in the terminal against bots"),
        Command("evaluate", "agents.evaluate.harness", "evaluate agents on duplicate deals"),
        Command(
            "leaderboard", "agents.evaluate.leaderboard", "rank agents on the same duplicate deals"
        ),
        Command("train", "agents.train.sb3", "train a MaskablePPO agent"),
        Command(
            "train-rllib",
            "agents.rllib.train",
            "multi-agent self-play on Ray RLlib ([rllib] extra)",
        ),
        Command("bench", "continental_env.bench", "measure the environment's throughput"),
        Command("speed", "agents.speed", "the speed table, this tree against another revision"),
        Command("web", "continental_web", "play against the bots in your browser ([web] extra)"),
    )
}


def register(name: str, module: str, help: str) -> None:
    """Add a subcommand (the same as one more entry in ``COMMANDS``)."""
    if name in COMMANDS:
        raise ValueError(f"command {name!r} is already registered ({COMMANDS[name].module})")
    COMMANDS[name] = Command(name, module, help)


def _usage() -> str:
    width = max(len(name) for name in COMMANDS)
    lines = ["usage: continental COMMAND [options]   (continental COMMAND --help for its options)"]
    lines.append("")
    lines.append("commands:")
    lines += [f"  {c.name:<{width}}  {c.help}" for c in COMMANDS.values()]
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    """Dispatch ``continental COMMAND ...`` to the command's module; returns the exit status."""
    args = list(sys.argv[1:] if argv is None else argv)
    if not args or args[0] in ("-h", "--help", "help"):
        print(_usage())
        return 0 if args else 2
    if args[0] == "--version":
        from continental_env import __version__

        print(f"continental {__version__}")
        return 0
    name, rest = args[0], args[1:]
    command = COMMANDS.get(name)
    if command is None:
        choices = ", ".join(COMMANDS)
        print(f"continental: unknown command {name!r}; choose one of {choices}", file=sys.stderr)
        return 2
    try:
        status = importlib.import_module(command.module).main(rest)
    except ModuleNotFoundError as exc:
        extra = missing_extra(exc.name)
        if extra is None:
            raise
        print(
            f"continental {name}: needs the {exc.name!r} package, part of the [{extra}] extra: "
            f"pip install 'continental-rl[{extra}]'",
            file=sys.stderr,
        )
        return 2
    return 0 if status is None else int(status)


# Optional packages -> the extra that installs them (pyproject.toml's optional-dependencies).
EXTRAS: dict[str, str] = {
    "scipy": "agents",
    "openskill": "agents",
    "tqdm": "agents",
    "matplotlib": "agents",
    "torch": "train",
    "stable_baselines3": "train",
    "sb3_contrib": "train",
    "tensorboard": "train",
    "fastapi": "web",
    "uvicorn": "web",
    "starlette": "web",
    "ray": "rllib",
    "pyspiel": "compare",
}


def missing_extra(module: str | None) -> str | None:
    """The extra that installs ``module`` (a top-level or dotted name), or None if none does."""
    if not module:
        return None
    return EXTRAS.get(module.split(".")[0])


# ----------------------------------------------------------------------------- shared conventions


def parse_rounds(text: str | None, flag: str = "--rounds") -> list[int] | None:
    """``None``, ``''`` or ``'all'`` -> None (every round); ``'1'`` -> [1]; ``'1,2'`` -> [1, 2]."""
    if text is None or text.strip() in ("", "all"):
        return None
    parts = text.replace(",", " ").split()
    if not all(p.isascii() and p.isdigit() and len(p) <= 2 for p in parts):
        raise ValueError(f"{flag} {text!r}: give 'all', a round number or a list such as '1,2,3'")
    return [int(p) for p in parts]


def parse_names(text: str, flag: str) -> list[str]:
    """A comma-separated list of names, empty entries dropped; ValueError if none is left."""
    names = [n.strip() for n in text.split(",") if n.strip()]
    if not names:
        raise ValueError(f"{flag} {text!r}: give at least one name")
    return names


def check_output_path(path: str, flag: str) -> None:
    """Refuse, before any work, a file path the command could not write at its end.

    Creates the missing parent directories (as the command would) and writes a probe file there.
    """
    if os.path.isdir(path):
        raise ValueError(f"{flag} {path}: is a directory, give a file name")
    parent = os.path.dirname(os.path.abspath(path))
    try:
        os.makedirs(parent, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=parent, prefix=".write-check-"):
            pass
        if os.path.exists(path) and not os.access(path, os.W_OK):
            raise PermissionError(f"{path} is read-only")
    except OSError as exc:
        reason = exc.strerror or str(exc)
        raise ValueError(f"{flag} {path}: cannot be written ({reason})") from None


def check_plot_path(path: str, flag: str = "--plot") -> None:
    """Refuse, before any work, a plot path whose extension matplotlib cannot write."""
    from matplotlib.backend_bases import FigureCanvasBase

    kinds = FigureCanvasBase.get_supported_filetypes()
    extension = os.path.splitext(path)[1].lstrip(".").lower()
    if extension not in kinds:
        choices = ", ".join(f".{k}" for k in sorted(kinds))
        raise ValueError(
            f"{flag} {path}: matplotlib cannot write {extension or 'no extension'!r}; use one of {choices}"
        )
    check_output_path(path, flag)


def write_json_atomic(path: str, data: object) -> None:
    """Write ``data`` as indented JSON to ``path`` all at once: a temporary file beside it, then
    a rename, so an interrupted write never leaves half a report."""
    import json

    parent = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(dir=parent, prefix=".tmp-", suffix=".json")
    try:
        # mkstemp makes the file private (0600); a report gets the mode a plain open would give.
        umask = os.umask(0)
        os.umask(umask)
        os.fchmod(fd, 0o666 & ~umask)
        with os.fdopen(fd, "w") as fh:
            json.dump(data, fh, indent=2)
            fh.write("\n")
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


class ArgumentParser(argparse.ArgumentParser):
    """argparse with one-line errors: ``PROG: error: MESSAGE (PROG --help lists the options)``.

    argparse's own ``error`` prints the whole usage first, which for ``train`` is twenty lines
    above the one that matters. Exit status 2, as argparse. ``--help`` shows every option's
    default (``ArgumentDefaultsHelpFormatter``) unless a command chooses another formatter.
    """

    def __init__(self, *args: object, **kwargs: object) -> None:
        kwargs.setdefault("formatter_class", argparse.ArgumentDefaultsHelpFormatter)
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]

    def error(self, message: str) -> NoReturn:
        first = message.splitlines()[0] if message else "bad arguments"
        self.exit(2, f"{self.prog}: error: {first} ({self.prog} --help lists the options)\n")


if __name__ == "__main__":
    sys.exit(main())
