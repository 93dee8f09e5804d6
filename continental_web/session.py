"""Games in progress and replays, independent of the web framework.

Everything a page receives is built here by ``seat_state`` from the seat's ``PlayerView``
(``agents.bots.base``): the own hand, the table, the face-up discard, sizes, scores, claims and the
cards a seat is publicly known to hold. Opponents' other cards, the stock order, the deal seeds
and the generator state never reach a response. The log of recent actions is written from public
facts only (the action's text form, the discard top before it, the melds it added), so it cannot
name a card drawn from the stock or a closing card placed face down.

A finished game's record (``record``) holds the seed and every action as text; replaying it
through the engine rebuilds every position, hidden cards included, so a record is offered only
once the game is over. ``Replay`` steps through a record and shows each position from one seat's
view (by default the seat the person played), never from everyone's at once.
"""

from __future__ import annotations

import secrets
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agents import make_agent
from agents.bots.base import PlayerView
from agents.games import game_spec
from agents.registry import offered
from continental_env.cards import NUM_TYPES, card_to_str
from continental_env.game import Game
from continental_env.rules import PRESETS, RuleConfig
from continental_web import fifteen, knock
from continental_web.contract import (
    after_move,
    contract_text,
    describe,
    hand_groups,
    prompt_text,
    round_end,
    round_results,
    round_snapshot,
    second_person,
)
from continental_web.errors import WebError
from continental_web.side import round_number as side_round_number

RECORD_FORMAT = "continental-web-replay"
RECORD_VERSION = 1
LOG_LENGTH = 150  # log lines a response carries (the page scrolls them)
MAX_GAMES = 64  # games kept in memory (see ``SessionStore``)
MAX_PER_CLIENT = 8  # games (and replays) one client address may hold
GAME_TTL = 6 * 3600.0  # seconds a game in progress is kept after its last request
FINISHED_TTL = 1800.0  # the same for a finished game or a replay
MAX_SEED = 2**63 - 1
MAX_REPLAY_ACTIONS = 20_000  # far above the longest game played at the table
REPLAY_TIME_LIMIT = 5.0  # seconds of engine work to check one uploaded record
BOT_NAMES = offered("contract")
# What a player reads for a bot's registry name; a name missing here reads as itself
# (``bot_label``), so a bot registered later appears with a sensible label.
BOT_LABELS: dict[str, tuple[str, str]] = {
    "random": ("Rookie", "plays any legal move at random"),
    "greedy": ("Casual", "the simplest sound play"),
    "strong": ("Expert", "counts the cards seen and plans to win"),
    "search": ("Master", "looks ahead over sampled deals (slower)"),
}

# The games the page can start: the contract game, and each side game with its page's words in a
# module of the same interface (``continental_web.fifteen``, ``continental_web.knock``: ``state``,
# ``log_move``, ``first_line``, ``options``, ``round_results``). Labels, player ranges, engines,
# views and bots come from the game's ``GameSpec`` (``agents.games``).
SIDE_TABLES: dict[str, Any] = {"fifteen": fifteen, "knock": knock}


def _page_games() -> dict[str, dict[str, Any]]:
    """Each game's label and presets with their player ranges, from the specs."""
    out = {}
    for kind, spec_name in (("continental", "contract"), *((k, k) for k in SIDE_TABLES)):
        spec = game_spec(spec_name)
        ranges = spec.player_ranges() if spec.player_ranges else {}
        presets = {n: {"min_players": lo, "max_players": hi} for n, (lo, hi) in ranges.items()}
        out[kind] = {"label": spec.label, "presets": presets}
    return out


GAMES: dict[str, dict[str, Any]] = _page_games()


# ---------------------------------------------------------------------- opponents


def available_bots() -> list[str]:
    """Bot names ``make_agent`` accepts on this installation (``search`` only if it exists)."""
    names = []
    for name in BOT_NAMES:
        try:
            make_agent(name, 0)
        except ValueError:
            continue
        names.append(name)
    return names


def game_bots(game: str) -> list[str]:
    """The bots offered for ``game`` (``fifteen``, ``knock``): its ``GameSpec``'s."""
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


def load_model(path: Path, seed: int) -> Any:
    """The PPO agent in ``path`` (``make_agent("ppo:PATH")``); the probe and the tables use it."""
    return make_agent(f"ppo:{path}", seed)


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
_PROBED: dict[tuple[str, float], str] = {}


def probe_model(name: str, path: str) -> str:
    """In a worker process: ``"ok"`` if the model loads under this installation, else why not."""
    try:
        load_model(Path(path), 0)
    except Exception as exc:  # any failure: the model is not offered
        return model_error(name, Path(path), exc)
    return "ok"


class ModelProbe:
    """Whether each model loads under this installation: tried once with a time limit, in the
    worker process (``continental_web.worker``: an import of torch does not slow the server, and
    a load past the limit is stopped) or, with ``mode="thread"``, in a thread of this process;
    the answer is cached. ``status(name)`` is ``"ok"``, ``"pending"`` or the reason."""

    def __init__(
        self, models: dict[str, Path], time_limit: float = 60.0, mode: str = "process"
    ) -> None:
        if mode not in ("process", "thread"):
            raise ValueError(f"mode {mode!r}: choose process or thread")
        self.models = models
        self.time_limit = time_limit
        self.mode = mode
        self._status: dict[str, str] = {name: "pending" for name in models}
        self._lock = threading.Lock()
        self._done = threading.Event()
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
                result = self._try(name, path)
                with self._lock:
                    self._status[name] = result
        finally:
            self._done.set()

    def _try(self, name: str, path: Path) -> str:
        if self.mode == "thread":
            try:
                load_model(path, 0)
            except Exception as exc:  # any failure: the model is simply not offered
                return model_error(name, path, exc)
            return "ok"
        try:
            key = (str(path.resolve()), path.stat().st_mtime)
        except OSError:
            return f"opponent {name!r} cannot load: the file is unreadable"
        if key not in _PROBED:
            from continental_web import worker

            try:
                _PROBED[key] = worker.run_once(
                    probe_model, name, str(path), timeout=self.time_limit
                )
            except WebError:
                return f"opponent {name!r} did not load within {self.time_limit:g} s"
        return _PROBED[key]

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
        self.bots = available_bots()
        self.models = model_files(models_dir)
        self.probe = ModelProbe(self.models, probe_time_limit, probe_mode)
        if probe:
            self.probe.start()

    def offered_models(self) -> list[str]:
        """The models that loaded under this installation."""
        return [m for m in self.models if self.probe.status(m) == "ok"]

    def pending_models(self) -> list[str]:
        """The models still being tried."""
        return [m for m in self.models if self.probe.status(m) == "pending"]

    def names(self, game: str = "continental") -> list[str]:
        """Every name the start page may send for ``game``."""
        if game in SIDE_TABLES:
            return game_bots(game)
        return [*self.bots, *self.offered_models()]

    def labels(self, game: str = "continental") -> dict[str, dict[str, str]]:
        """What a player reads for each offered name."""
        return {name: self.label(name, game) for name in self.names(game)}

    def label(self, name: str, game: str = "continental") -> dict[str, str]:
        """``{"label", "about"}`` for one bot or model name."""
        if game == "continental" and name in self.models:
            return {"label": "Trained", "about": f"a policy trained by self-play ({name})"}
        return bot_label(name)

    def seat_name(self, name: str, seat: int, game: str = "continental") -> str:
        """A bot's name at the table: its label and seat, e.g. ``Casual (1)``."""
        return f"{self.label(name, game)['label']} ({seat})"

    def check(self, name: Any, kind: str = "continental") -> None:
        """WebError naming why ``name`` cannot play ``kind`` here (400, or 503 while loading)."""
        if kind == "continental" and isinstance(name, str) and name in self.models:
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

    def build(self, name: str, seed: int, game: Any, seat: int, kind: str = "continental") -> Any:
        """The agent for ``name`` at ``seat``; WebError 400 for a name the server does not offer."""
        self.check(name, kind)
        if kind != "continental":
            return make_agent(name, seed, game=kind)
        if name in self.bots:
            return make_agent(name, seed)
        path = self.models[name]
        try:
            agent = load_model(path, seed)
        except Exception as exc:  # the probe loaded it; a file changed since
            raise WebError(400, model_error(name, path, exc)) from None
        from agents.bots.ppo_agent import check_table

        try:
            check_table(agent, game.num_players)  # the model's own table size and observation
        except ValueError as exc:
            text = str(exc).replace(f"ppo:{path}", name).replace(str(path), name)
            raise WebError(400, f"opponent {name!r}: {text}") from None
        return agent


# ---------------------------------------------------------------------- describing moves


def play_logged(
    game: Any,
    action: int,
    names: Sequence[str],
    log: list[str],
    ends: list[dict[str, Any]] | None = None,
) -> None:
    """Apply ``action`` (ValueError if illegal, game unchanged) and append its description.

    With ``ends``, a round's (or hand's) end appends what was shown when it was counted:
    ``round_end``.
    """
    before = len(log)
    side = _side_table(game)
    if side is not None:
        log.extend(side.log_move(game, action, names, ends))
    else:
        line = describe(game, action, names) if game.is_legal(action) else ""
        melds_before, round_before = len(game.state.table), game.state.round_index
        seen = round_snapshot(game, action) if ends is not None else None
        game.apply(action)
        log.append(line)
        log.extend(after_move(game, melds_before, round_before, names))
        if seen is not None and ends is not None and game.state.round_index != round_before:
            ends.append(round_end(game, *seen))
    log[before:] = [second_person(x) for x in log[before:]]


def _side_table(game: Any) -> Any:
    """The page module of a side game's engine, None for the contract game."""
    for module in SIDE_TABLES.values():
        if isinstance(game, module.Game):
            return module
    return None


# ---------------------------------------------------------------------- what a seat sees


def seat_state(
    view: PlayerView,
    names: Sequence[str],
    log: Sequence[str],
    extra: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """Everything the page shows for ``view.seat``, built from the view alone."""
    me = view.seat
    trios, runs = view.contract
    p = view.num_players
    seats = []
    for s in range(p):
        known = [card_to_str(c) for c in range(NUM_TYPES) for _ in range(view.known[s][c])]
        seats.append(
            {
                "seat": s,
                "name": names[s],
                "you": s == me,
                "hand_size": view.hand_sizes[s],
                "laid_down": view.laid_down[s],
                "claims": view.claims[s],
                "score": view.scores[s],
                "dealer": s == view.dealer,
                "known": known if s != me else [],
            }
        )
    table = [
        {
            "index": m,
            "owner": meld.owner,
            "owner_name": names[meld.owner],
            "kind": meld.kind,
            "cards": [card_to_str(c) for c in meld.cards],
        }
        for m, meld in enumerate(view.table)
    ]
    actor = (
        None
        if view.phase == "game_over"
        else (view.asked if view.phase == "claim" else view.current)
    )
    legal = [{"id": a, "text": view.action_to_str(a)} for a in view.legal_actions]
    state: dict[str, Any] = {
        "game": "continental",
        "preset": view.rules.name,
        "num_players": p,
        "seat": me,
        "names": list(names),
        "round": view.round,
        "round_number": None,
        "rounds": list(view.rules.rounds),
        "contract": {"trios": trios, "runs": runs, "text": contract_text(trios, runs)},
        "phase": view.phase,
        "current": view.current,
        "asked": view.asked,
        "actor": actor,
        "your_move": actor == me,
        "dealer": view.dealer,
        "turn": view.turn,
        "prompt": prompt_text(view, names),
        "hand": hand_groups(view),
        "hand_size": view.hand_size,
        "table": table,
        "discard_top": card_to_str(view.discard[-1]) if view.discard else None,
        "discard_face_down": False,
        "discard_size": len(view.discard),
        "stock_size": view.stock_size,
        "seats": seats,
        "legal": legal,
        "log": list(log[-LOG_LENGTH:]),
    }
    if extra:
        state.update(extra)
    return state


# ---------------------------------------------------------------------- a game in progress


@dataclass
class Session:
    """One game between a person and bots: engine, bots, names, log and record."""

    game: Game
    seat: int
    names: list[str]
    bots: dict[int, Any]
    config: dict[str, Any]
    seed: int
    kind: str = "continental"
    log: list[str] = field(default_factory=list)
    actions: list[str] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)
    created: int = 0
    client: str = ""  # the address that started it (``SessionStore``'s per-client cap)
    touched: float = 0.0  # time.monotonic() of its last request

    def __post_init__(self) -> None:
        self.config.setdefault("round_ends", [])

    def state(self) -> dict[str, Any]:
        """The page's data for the person's seat."""
        return build_state(self.game, self.seat, self.names, self.log, self.config, self.seed)

    def move(self, text: Any) -> dict[str, Any]:
        """Play the person's move given as text; WebError 400/409 naming it if refused."""
        game = self.game
        if not isinstance(text, str) or not text.strip() or len(text) > 64:
            raise WebError(400, f"malformed move {text!r}: expected an action text such as 'draw'")
        if game.is_over:
            raise WebError(409, f"move {text!r} refused: the game is over")
        try:
            action = game.action_from_str(text)
        except ValueError as exc:
            raise WebError(400, f"malformed move {text!r}: {exc}") from None
        if game.actor != self.seat:
            raise WebError(
                409, f"move {text!r} refused: it is {self.names[game.actor]}'s move, not yours"
            )
        if not game.is_legal(action):
            try:
                game.apply(action)  # raises with the engine's reason and changes nothing
            except ValueError as exc:
                raise WebError(409, f"move {text!r} refused: {exc}") from None
            raise AssertionError("an illegal action was applied")  # pragma: no cover
        self._play(action)
        return self.state()

    def advance(self) -> dict[str, Any]:
        """Let the bot to act make one move; WebError 409 if the person is to act."""
        game = self.game
        if game.is_over:
            raise WebError(409, "no bot to move: the game is over")
        actor = game.actor
        if actor == self.seat:
            raise WebError(409, "no bot to move: it is your move")
        if self.kind in SIDE_TABLES:
            view = game_spec(self.kind).view(game, actor)
        else:
            view = PlayerView(game, actor)
        action = self.bots[actor].act(view)
        self._play(action)
        return self.state()

    def _play(self, action: int) -> None:
        text = self.game.action_to_str(action)
        play_logged(self.game, action, self.names, self.log, self.config["round_ends"])
        self.actions.append(text)
        del self.log[:-LOG_LENGTH]

    def record(self) -> dict[str, Any]:
        """The finished game as a replay file; WebError 409 while it is still being played."""
        if not self.game.is_over:
            raise WebError(
                409,
                "the replay is offered once the game is over (it holds the seed and every move, "
                "so it would reveal the hidden cards)",
            )
        if self.kind in SIDE_TABLES:
            rules: dict[str, Any] = {"options": SIDE_TABLES[self.kind].options(self.game)}
        else:
            rules = {"preset": self.config["preset"], "rules": self.game.rules.to_dict()}
        return {
            "format": RECORD_FORMAT,
            "version": RECORD_VERSION,
            "game": self.kind,
            **rules,
            "num_players": self.game.num_players,
            "seed": str(self.seed),  # a string: a page's JSON numbers are exact only below 2**53
            "seat": self.seat,
            "names": list(self.names),
            "opponents": list(self.config["opponents"]),
            "actions": list(self.actions),
            "scores": list(self.game.scores),
        }


def build_state(
    game: Any,
    seat: int,
    names: Sequence[str],
    log: Sequence[str],
    config: dict[str, Any],
    seed: int | None,
) -> dict[str, Any]:
    """``seat_state`` of the live game plus the finished rounds (and the seed once it is over).

    ``config`` is the game's setup; its ``round_ends`` (``play_logged``) are shown as
    ``round_ends``: each finished round's counted hands, points and final table.
    """
    ends = list(config.get("round_ends", []))
    config = {k: v for k, v in config.items() if k != "round_ends"}
    side = _side_table(game)
    if side is not None:
        extra: dict[str, Any] = {
            "config": dict(config),
            "rounds_played": side.round_results(game),
            "round_number": side_round_number(game),
            "game_over": game.is_over,
            "round_ends": ends,
        }
        if game.is_over:
            extra["winners"] = game.winners()
            extra["seed"] = None if seed is None else str(seed)
        return side.state(game, seat, names, log, extra)
    view = PlayerView(game, seat)
    extra: dict[str, Any] = {
        "config": dict(config),
        "rounds_played": round_results(game),
        "round_number": game.state.round_index + 1 if not game.is_over else len(game.rules.rounds),
        "game_over": game.is_over,
        "round_ends": ends,
    }
    if game.is_over:
        extra["winners"] = game.winners()
        extra["seed"] = None if seed is None else str(seed)
    state = seat_state(view, names, log, extra)
    if game.is_over and game.state.round_history[-1]["closer"] is not None:
        # The last round was closed: the top of the pile is the closing card, face down.
        state["discard_top"] = None
        state["discard_face_down"] = True
    return state


def new_session(
    opponents_offer: Opponents,
    game: Any = "continental",
    preset: Any = "continental",
    opponents: Any = ("greedy",),
    seed: Any = None,
    seat: Any = 0,
    rounds: Any = None,
    name: Any = "you",
    hands: Any = None,
) -> Session:
    """A new game from the start page's fields, each checked; WebError 400 naming a bad one."""
    if not isinstance(game, str) or game not in GAMES:
        raise WebError(400, f"unknown game {game!r}; choose one of {', '.join(GAMES)}")
    if game == "fifteen":
        return _new_side(opponents_offer, game, opponents, seed, seat, name, hands)
    if game == "knock":
        if hands is not None or rounds is not None:
            raise WebError(400, "the knock game plays until one player is left: no rounds or hands")
        return _new_side(opponents_offer, game, opponents, seed, seat, name)
    if hands is not None:
        raise WebError(400, "hands is a field of the fifteen-card game; use rounds")
    if not isinstance(preset, str) or preset not in PRESETS:
        raise WebError(400, f"unknown preset {preset!r}; choose one of {', '.join(PRESETS)}")
    rules: RuleConfig = PRESETS[preset]
    if not isinstance(opponents, list | tuple) or not opponents:
        raise WebError(400, "opponents must be a non-empty list of names")
    players = len(opponents) + 1
    if not rules.min_players <= players <= rules.max_players:
        raise WebError(
            400,
            f"{players} players: preset {preset!r} allows {rules.min_players}..{rules.max_players}",
        )
    seed = _check_common(seed, seat, players, name)
    if rounds is not None:
        rules = rules.with_rounds(tuple(_checked_rounds(rounds)))
    g = Game.new(rules, players, seed=seed)
    names, bots = _seat(opponents_offer, "continental", g, opponents, seat, name, seed)
    config = {
        "game": game,
        "preset": preset,
        "opponents": list(opponents),
        "seat": seat,
        "rounds": list(rules.rounds),
    }
    session = Session(g, seat, names, bots, config, seed)
    session.log.append(
        second_person(
            f"Round {g.state.round} dealt; {names[g.state.dealer]} deals, "
            f"{names[g.state.current]} plays first"
        )
    )
    return session


def _checked_rounds(rounds: Any) -> list[int]:
    """The start page's rounds: 1 to 7 of them, each 1..7; WebError 400 otherwise."""
    if (
        not isinstance(rounds, list)
        or not 1 <= len(rounds) <= 7
        or any(isinstance(r, bool) or not isinstance(r, int) or not 1 <= r <= 7 for r in rounds)
    ):
        raise WebError(400, f"rounds {str(rounds)[:40]} must list 1 to 7 rounds, each 1..7")
    return rounds


def _seat(
    offer: Opponents, kind: str, game: Any, opponents: Any, seat: int, name: str, seed: int
) -> tuple[list[str], dict[int, Any]]:
    """The names at the table and the bots, in seat order around the person's ``seat``."""
    names: list[str] = []
    bots: dict[int, Any] = {}
    queue = list(opponents)
    for s in range(game.num_players):
        if s == seat:
            names.append(name.strip())
            continue
        bot = queue.pop(0)
        bots[s] = offer.build(bot, seed * 1000 + s, game, s, kind=kind)
        names.append(offer.seat_name(bot, s, kind))
    return names, bots


def parse_seed(seed: Any, draw: bool = True) -> int:
    """A seed given as an integer or a string of digits (a page sends strings: its numbers are
    exact only below 2**53); empty draws one when ``draw``. WebError 400 naming a bad one."""
    if draw and (seed is None or seed == ""):
        return secrets.randbelow(MAX_SEED)
    if isinstance(seed, str) and seed.isascii() and seed.isdigit() and len(seed) <= 19:
        seed = int(seed)
    if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed <= MAX_SEED:
        shown = repr(seed)[:30]
        raise WebError(400, f"seed {shown} must be a whole number in 0..{MAX_SEED} (or empty)")
    return seed


def _check_common(seed: Any, seat: Any, players: int, name: Any) -> int:
    """The seed (drawn when empty), seat and name fields; WebError 400 naming a bad one."""
    seed = parse_seed(seed)
    if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < players:
        raise WebError(400, f"seat {seat!r} must be an integer in 0..{players - 1}")
    if not isinstance(name, str) or not 1 <= len(name.strip()) <= 20:
        raise WebError(400, "name must be 1..20 characters")
    return seed


def _new_side(
    offer: Opponents,
    kind: str,
    opponents: Any,
    seed: Any,
    seat: Any,
    name: Any,
    hands: Any = None,
) -> Session:
    """A side game from the start page's fields, each checked; WebError 400 naming a bad one."""
    if not isinstance(opponents, list | tuple) or not opponents:
        raise WebError(400, "opponents must be a non-empty list of names")
    players = len(opponents) + 1
    limits = GAMES[kind]["presets"][kind]
    if not limits["min_players"] <= players <= limits["max_players"]:
        raise WebError(
            400,
            f"{players} players: the {SIDE_TABLES[kind].TITLE} allows "
            f"{limits['min_players']}..{limits['max_players']}",
        )
    seed = _check_common(seed, seat, players, name)
    config: dict[str, Any] = {"game": kind, "preset": kind, "opponents": list(opponents)}
    config["seat"] = seat
    options = SIDE_TABLES[kind].game_options(hands, config)
    g = game_spec(kind).new_game(players, seed, options)
    names, bots = _seat(offer, kind, g, opponents, seat, name, seed)
    session = Session(g, seat, names, bots, config, seed, kind=kind)
    session.log.append(second_person(SIDE_TABLES[kind].first_line(g, names)))
    return session


class SessionStore:
    """Games and replays by unguessable id; one lock for the dictionaries, one per game.

    Bounded three ways: a game in progress is dropped ``ttl`` seconds after its last request (a
    finished game or a replay ``finished_ttl``), one client address holds at most ``per_client``
    games (starting one more drops that client's least recently used), and at most ``max_games``
    are kept in all. When the store is full, a finished game (then the least recently used game
    idle for ``min_idle`` seconds) makes room; if every game is in active play, a new one is
    refused (503) rather than evicting someone's game.
    """

    def __init__(
        self,
        max_games: int = MAX_GAMES,
        per_client: int = MAX_PER_CLIENT,
        ttl: float = GAME_TTL,
        finished_ttl: float = FINISHED_TTL,
        min_idle: float = 600.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.max_games = max_games
        self.per_client = per_client
        self.ttl = ttl
        self.finished_ttl = finished_ttl
        self.min_idle = min_idle
        self.clock = clock
        self._games: dict[str, Session] = {}
        self._replays: dict[str, Replay] = {}
        self._lock = threading.Lock()
        self._counter = 0

    def _expired(self, item: Any, now: float) -> bool:
        over = isinstance(item, Replay) or item.game.is_over
        return now - item.touched > (self.finished_ttl if over else self.ttl)

    def _make_room(self, table: dict[str, Any], client: str, now: float) -> None:
        """Drop expired entries, the client's oldest beyond its cap, then one for the total."""
        for key in [k for k, v in table.items() if self._expired(v, now)]:
            del table[key]
        mine = sorted((v.touched, k) for k, v in table.items() if v.client == client)
        while len(mine) >= self.per_client:
            del table[mine.pop(0)[1]]
        if len(table) < self.max_games:
            return

        def rank(key: str) -> tuple[bool, float]:
            item = table[key]
            active = not (isinstance(item, Replay) or item.game.is_over)
            return (active, item.touched)

        victim = min(table, key=rank)
        item = table[victim]
        if (
            isinstance(item, Session)
            and not item.game.is_over
            and now - item.touched < self.min_idle
        ):
            raise WebError(503, "the server is full of games in play; try again later")
        del table[victim]

    def add(self, session: Session, client: str = "") -> str:
        """Store a session under a fresh id (WebError 503 if every stored game is in play)."""
        with self._lock:
            now = self.clock()
            self._make_room(self._games, client, now)
            self._counter += 1
            session.created = self._counter
            session.client = client
            session.touched = now
            game_id = secrets.token_urlsafe(16)
            self._games[game_id] = session
            return game_id

    def get(self, game_id: str) -> Session:
        """The session for an id (its clock restarts); WebError 404 if there is none."""
        with self._lock:
            session = self._games.get(game_id)
            now = self.clock()
            if session is not None and self._expired(session, now):
                del self._games[game_id]
                session = None
            if session is not None:
                session.touched = now
        if session is None:
            raise WebError(
                404,
                "no such game: it ended and was dropped, it was left idle too long, or the "
                "server restarted",
            )
        return session

    def run(self, game_id: str, fn: Callable[[Session], Any]) -> Any:
        """Call ``fn(session)`` holding that game's lock."""
        session = self.get(game_id)
        with session.lock:
            return fn(session)

    def add_replay(self, replay: Replay, client: str = "") -> str:
        """Store a replay under a fresh id."""
        with self._lock:
            now = self.clock()
            self._make_room(self._replays, client, now)
            replay.client = client
            replay.touched = now
            replay_id = secrets.token_urlsafe(16)
            self._replays[replay_id] = replay
            return replay_id

    def get_replay(self, replay_id: str) -> Replay:
        """The replay for an id; WebError 404 if there is none."""
        with self._lock:
            replay = self._replays.get(replay_id)
            now = self.clock()
            if replay is not None and self._expired(replay, now):
                del self._replays[replay_id]
                replay = None
            if replay is not None:
                replay.touched = now
        if replay is None:
            raise WebError(404, "no such replay: it was dropped after a while; open it again")
        return replay


# ---------------------------------------------------------------------- replays


# The engine options a record may carry: only what the table itself creates, so that a record
# cannot ask for a huge game (a 10**7-hand knock game, 100,000 decks).
REPLAY_OPTIONS: dict[str, dict[str, tuple[int, int, bool]]] = {  # name: (low, high, may be None)
    "fifteen": {
        "target": (1, 1000, True),
        "hands": (1, 20, True),
        "max_turns_per_hand": (1, 200, False),
        "max_hands": (1, 100, False),
    },
    "knock": {
        "stake": (1, 1000, False),
        "max_turns_per_hand": (1, 200, False),
        "max_hands": (1, 100, False),
    },
}


def _replay_options(kind: str, opts: Any) -> dict[str, Any]:
    """The record's engine options, each checked against ``REPLAY_OPTIONS``."""
    allowed = REPLAY_OPTIONS[kind]
    if not isinstance(opts, dict) or not set(opts) <= set(allowed):
        raise WebError(
            400, f"malformed replay file: options must be a dict with keys among {sorted(allowed)}"
        )
    for key, value in opts.items():
        low, high, may_be_none = allowed[key]
        if value is None and may_be_none:
            continue
        if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
            raise WebError(
                400,
                f"malformed replay file: option {key} {str(value)[:20]} is not in {low}..{high}",
            )
    return dict(opts)


def _replay_rules(record: dict[str, Any]) -> RuleConfig:
    """The record's contract rules: a preset's, playing a chosen list of its rounds."""
    preset = record.get("preset")
    if not isinstance(preset, str) or preset not in PRESETS:
        raise WebError(400, f"replay of an unknown preset {str(preset)[:30]!r}")
    raw = record.get("rules")
    try:
        rules = RuleConfig.from_dict(raw)
    except (KeyError, TypeError, ValueError) as exc:
        raise WebError(400, f"malformed replay file: {str(exc)[:200]}") from None
    rounds = list(rules.rounds)
    if not 1 <= len(rounds) <= 7 or PRESETS[preset].with_rounds(tuple(rounds)) != rules:
        raise WebError(
            400,
            f"malformed replay file: the rules are not those of the preset {preset!r} "
            "(a record holds a preset's rules, with 1 to 7 of its rounds)",
        )
    return rules


def _record_fields(record: Any) -> tuple[str, int, int, list[str], list[str], int]:
    """A record's game, table size, seed, names, move texts and seat, each checked; WebError
    naming the first bad one."""
    if not isinstance(record, dict) or record.get("format") != RECORD_FORMAT:
        raise WebError(400, f'not a replay file: expected "format": "{RECORD_FORMAT}"')
    if record.get("version") != RECORD_VERSION:
        shown = str(record.get("version"))[:20]
        raise WebError(400, f"replay version {shown} is not {RECORD_VERSION}")
    kind = record.get("game", "continental")
    if not isinstance(kind, str) or kind not in GAMES:
        raise WebError(400, f"replay of an unknown game {str(kind)[:30]!r}")
    players = record.get("num_players")
    if isinstance(players, bool) or not isinstance(players, int):
        raise WebError(400, "malformed replay file: num_players and seed must be integers")
    limits = next(iter(GAMES[kind]["presets"].values()))
    if kind == "continental":
        limits = GAMES[kind]["presets"].get(record.get("preset"), limits)
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
        rules = None
        try:
            if kind in SIDE_TABLES:
                opts = _replay_options(kind, record.get("options"))
                self.start = game_spec(kind).new_game(players, seed, opts)
            else:
                rules = _replay_rules(record)
                self.start = Game.new(rules, players, seed=seed)
        except (TypeError, ValueError) as exc:
            raise WebError(400, f"malformed replay file: {str(exc)[:200]}") from None
        self.names = [str(n)[:40] for n in names]
        self.seat = seat
        self.kind = kind
        self.preset = str(record.get("preset") or (rules.name if rules else kind))[:40]
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
