"""The opponents the server offers: the registry's bots and the shipped PPO models.

A model is offered at the table of the game it was trained for, read from the environment its
metadata records (``continental_v0``/``_v1``: the contract game; ``fifteen_v0``/``_v1`` and
``knock_v0``/``_v1``: the side games; a model without metadata is the contract game's), and
never at another game's table.
It is tried once under this installation, for that game (``ModelProbe``, in a worker process
with a time limit), before it is offered; a reason it does not load names the model, never the
server's path.
"""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path
from typing import Any

from agents import make_agent
from agents.bots.ppo_agent import ENV_ALIASES, ENVS, read_zip_metadata
from agents.games import game_spec
from agents.registry import DEFAULT_GAME, offered
from agents.side_features import FEATURE_ENVS, V0_ENVS
from continental_web.errors import WebError
from continental_web.games import SIDE_TABLES, TABLES

BOT_NAMES = offered(DEFAULT_GAME)  # the contract game's
# What a player reads for a bot's registry name; a name missing here reads as itself
# (``bot_label``), so a bot registered later appears with a sensible label.
BOT_LABELS: dict[str, tuple[str, str]] = {
    "random": ("Rookie", "plays any legal move at random"),
    "greedy": ("Casual", "the simplest sound play"),
    "strong": ("Expert", "counts the cards seen and plans to win"),
    "search": ("Master", "a trained network checked by looking ahead over sampled deals (slower)"),
}


def available_bots(game: str = DEFAULT_GAME) -> list[str]:
    """The bots offered for ``game`` (its ``GameSpec``'s) that ``make_agent`` builds on this
    installation (``search`` only if it exists)."""
    names = []
    for name in game_bots(game):
        try:
            make_agent(name, 0, game=game)
        except ValueError:
            continue
        names.append(name)
    return names


def game_bots(game: str) -> list[str]:
    """The bots offered for ``game``: its ``GameSpec``'s."""
    return list(game_spec(game).agent_names)


def bot_label(name: str) -> dict[str, str]:
    """``{"label", "about"}`` a player reads for the bot or model ``name``."""
    if name in BOT_LABELS:
        label, about = BOT_LABELS[name]
    elif name.startswith("search:"):
        label, about = "Master", f"looks ahead over {name[7:]} sampled deals"
    else:
        label = name.replace("_", " ").replace(":", " ").strip().capitalize() or "Bot"
        about = f"the {name} bot"
    return {"label": label, "about": about}


def model_files(models_dir: Path | None) -> dict[str, Path]:
    """Shipped PPO models by name (file stem), a numpy export (``.npz``, no torch needed)
    preferred over the ``.zip`` of the same name; the page only ever sees the names."""
    if models_dir is None or not models_dir.is_dir():
        return {}
    out: dict[str, Path] = {}
    for path in sorted(models_dir.glob("*.zip")) + sorted(models_dir.glob("*.npz")):
        out[path.stem] = path  # the .npz, listed last, wins
    return dict(sorted(out.items()))


def default_models_dir() -> Path:
    """``agents/models`` of the installed ``agents`` package."""
    import agents

    return Path(agents.__file__).resolve().parent / "models"


def load_model(path: Path, seed: int, game: str = DEFAULT_GAME) -> Any:
    """The PPO agent in ``path`` for the table ``game`` (``make_agent("ppo:PATH", game=...)``,
    which refuses a model of another game); the probe and the tables use it."""
    return make_agent(f"ppo:{path}", seed, game=game)


def model_metadata(path: Path) -> dict[str, Any] | None:
    """What the model file at ``path`` records it was trained for (``model_metadata`` of
    ``agents.bots.ppo_agent``, ``side_metadata`` of the side games); None when it records nothing
    or cannot be read (the probe then says why it does not load)."""
    try:
        if path.suffix == ".npz":
            import numpy as np

            with np.load(path, allow_pickle=False) as data:
                meta = json.loads(str(data["meta"])) if "meta" in data.files else None
        else:
            meta = read_zip_metadata(path)
    except Exception:  # a truncated or foreign file: not this function's to explain
        return None
    return meta if isinstance(meta, dict) else None


def model_table(path: Path) -> str | None:
    """The table (``contract``, ``fifteen``, ``knock``) of the game the model at ``path`` was
    trained for, from the environment its metadata records; a model recording none is the
    contract game's (as ``ppo:PATH`` reads it); None for an environment no table plays."""
    env = (model_metadata(path) or {}).get("env")
    if env is None:
        return DEFAULT_GAME
    env = ENV_ALIASES.get(env, env)
    if env in ENVS:
        return DEFAULT_GAME
    for game in SIDE_TABLES:
        if env == V0_ENVS.get(game) or FEATURE_ENVS.get(env, ("",))[0] == game:
            return game
    return None


def model_error(name: str, path: Path, exc: BaseException) -> str:
    """A one-line reason a model does not load, naming the model, never the server's path."""
    if isinstance(exc, ImportError):
        return (
            f"opponent {name!r} cannot load on this installation: it needs torch and sb3-contrib "
            f"(the [train] extra) or a numpy export of the model ({exc.name or 'a module'} is missing)"
        )
    text = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
    for secret in (f"ppo:{path}", str(path), str(path.parent)):
        text = text.replace(secret, name)
    return f"opponent {name!r} cannot load: {text}"


# Probe answers by (file, modification time): a server tries each model file once.
_PROBED: dict[tuple[str, float, str], str] = {}


def probe_model(name: str, path: str, game: str = DEFAULT_GAME) -> str:
    """In a worker process: ``"ok"`` if the model loads under this installation for the table
    ``game``, else why not."""
    try:
        load_model(Path(path), 0, game)
    except Exception as exc:  # any failure: the model is not offered
        return model_error(name, Path(path), exc)
    return "ok"


class ModelProbe:
    """Whether each model loads under this installation: tried once with a time limit, in the
    worker process (``continental_web.worker``: an import of torch does not slow the server, and
    a load past the limit is stopped) or, with ``mode="thread"``, in a thread of this process;
    the answer is cached. ``status(name)`` is ``"ok"``, ``"pending"`` or the reason. ``games``:
    the table each model is tried for (``model_table``; the contract game's when not given)."""

    def __init__(
        self,
        models: dict[str, Path],
        time_limit: float = 60.0,
        mode: str = "process",
        games: dict[str, str | None] | None = None,
    ) -> None:
        if mode not in ("process", "thread"):
            raise ValueError(f"mode {mode!r}: choose process or thread")
        self.models = models
        self.games = {name: (games or {}).get(name, DEFAULT_GAME) for name in models}
        self.time_limit = time_limit
        self.mode = mode
        self._status: dict[str, str] = {name: "pending" for name in models}
        self._lock = threading.Lock()
        self._done = threading.Event()
        self._stop = threading.Event()  # the server is stopping: try no further model
        self._started = 0.0
        self._thread: threading.Thread | None = None

    def start(self) -> None:
        """Begin probing in a daemon thread (once)."""
        with self._lock:
            if self._thread is not None:
                return
            self._started = time.monotonic()
            self._thread = threading.Thread(target=self._run, name="model-probe", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        try:
            for name, path in self.models.items():
                if self._stop.is_set():
                    break
                result = self._try(name, path)
                with self._lock:
                    self._status[name] = result
        finally:
            self._done.set()

    def _try(self, name: str, path: Path) -> str:
        game = self.games[name]
        if game is None:
            return f"opponent {name!r} was trained for a game no table here plays"
        if self.mode == "thread":
            try:
                load_model(path, 0, game)
            except Exception as exc:  # any failure: the model is simply not offered
                return model_error(name, path, exc)
            return "ok"
        try:
            key = (str(path.resolve()), path.stat().st_mtime, game)
        except OSError:
            return f"opponent {name!r} cannot load: the file is unreadable"
        if key not in _PROBED:
            from continental_web import worker

            try:
                _PROBED[key] = worker.run_once(
                    probe_model,
                    name,
                    str(path),
                    game,
                    timeout=self.time_limit,
                    cancelled=self._stop.is_set,
                )
            except WebError:
                return f"opponent {name!r} did not load within {self.time_limit:g} s"
        return _PROBED[key]

    def stop(self) -> None:
        """Try no further model, and start no worker process for one (the server is stopping;
        ``continental_web.worker.stop_all`` ends the one running)."""
        self._stop.set()

    def status(self, name: str) -> str:
        """``ok``, ``pending`` (still loading, within the time limit) or why it is not offered."""
        with self._lock:
            state = self._status.get(name, f"no model named {name!r}")
            late = self._thread is not None and time.monotonic() - self._started > self.time_limit
        if state == "pending" and late:
            return f"opponent {name!r} did not load within {self.time_limit:.0f} s"
        return state

    def wait(self, timeout: float | None = None) -> bool:
        """Block until every model was tried (for tests and the load script)."""
        return self._done.wait(timeout)


class Opponents:
    """The opponent names the server offers, and how to build each one."""

    def __init__(
        self,
        models_dir: Path | None = None,
        probe: bool = True,
        probe_time_limit: float = 60.0,
        probe_mode: str = "process",
    ) -> None:
        # Each game's offered bots that do not build here (``search`` without its kernel): the
        # rest, read from the game's spec when asked, are offered (a bot registered later too).
        self.missing = {g: set(game_bots(g)) - set(available_bots(g)) for g in TABLES}
        self.bots = self.table_bots(DEFAULT_GAME)  # the contract game's, as before
        self.models = model_files(models_dir)
        # The table of each model's game (None: a game no table plays), from its metadata.
        self.games = {name: model_table(path) for name, path in self.models.items()}
        self.probe = ModelProbe(self.models, probe_time_limit, probe_mode, self.games)
        if probe:
            self.probe.start()

    def offered_models(self, game: str = DEFAULT_GAME) -> list[str]:
        """The models of ``game`` that loaded under this installation."""
        return [m for m in self.models if self.games[m] == game and self.probe.status(m) == "ok"]

    def pending_models(self) -> list[str]:
        """The models still being tried."""
        return [m for m in self.models if self.probe.status(m) == "pending"]

    def table_bots(self, game: str) -> list[str]:
        """The bots offered at ``game``'s table: its spec's, less those that do not build."""
        return [name for name in game_bots(game) if name not in self.missing[game]]

    def names(self, game: str = DEFAULT_GAME) -> list[str]:
        """Every name the start page may send for ``game``."""
        return [*self.table_bots(game), *self.offered_models(game)]

    def labels(self, game: str = DEFAULT_GAME) -> dict[str, dict[str, str]]:
        """What a player reads for each offered name."""
        return {name: self.label(name, game) for name in self.names(game)}

    def label(self, name: str, game: str = DEFAULT_GAME) -> dict[str, str]:
        """``{"label", "about"}`` for one bot or model name."""
        if self.games.get(name) == game:  # a model of this table's game
            return {"label": "Trained", "about": TABLES[game].MODEL_ABOUT.format(name=name)}
        return bot_label(name)

    def seat_name(self, name: str, seat: int, game: str = DEFAULT_GAME) -> str:
        """A bot's name at the table: its label and seat, e.g. ``Casual (1)``."""
        return f"{self.label(name, game)['label']} ({seat})"

    def check(self, name: Any, kind: str = DEFAULT_GAME) -> None:
        """WebError naming why ``name`` cannot play ``kind`` here (400, or 503 while loading)."""
        if isinstance(name, str) and self.games.get(name, "") == kind:
            state = self.probe.status(name)
            if state == "pending":
                raise WebError(503, f"opponent {name!r} is still loading; try again in a moment")
            if state != "ok":
                raise WebError(400, state)
        offered = self.names(kind)
        if not isinstance(name, str) or name not in offered:
            raise WebError(
                400,
                f"unknown opponent {str(name)[:40]!r} for {kind}; choose one of {', '.join(offered)}",
            )

    def build(self, name: str, seed: int, game: Any, seat: int, kind: str = DEFAULT_GAME) -> Any:
        """The agent for ``name`` at ``seat``; WebError 400 for a name the server does not offer."""
        self.check(name, kind)
        if name in self.table_bots(kind):
            return make_agent(name, seed, game=kind)
        path = self.models[name]  # a model of this table's game (``check``)
        try:
            agent = load_model(path, seed, kind)
        except Exception as exc:  # the probe loaded it; a file changed since
            raise WebError(400, model_error(name, path, exc)) from None
        from agents.bots.ppo_agent import check_table

        try:
            check_table(agent, game.num_players)  # the model's own table size and observation
        except ValueError as exc:
            text = str(exc).replace(f"ppo:{path}", name).replace(str(path), name)
            raise WebError(400, f"opponent {name!r}: {text}") from None
        return agent
