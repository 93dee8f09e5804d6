"""Games in progress, independent of the web framework: ``Session`` (one game between a person
and bots), ``new_session`` (the start page's fields, each checked) and ``SessionStore`` (games and
replays by unguessable id, bounded).

What a page receives is built by ``continental_web.view.seat_state`` from the seat's
``PlayerView`` alone; a finished game's record (``Session.record``) is offered only once the game
is over, and ``continental_web.replay`` steps through one. The bots and models a table seats come
from ``continental_web.opponents``. The names of those modules are re-exported here.
"""

from __future__ import annotations

import secrets
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from agents.contract.view import PlayerView
from agents.games import game_spec
from continental_env.rules import RuleConfig
from continental_web.contract import second_person
from continental_web.errors import WebError
from continental_web.games import (
    GAMES,
    MAX_SEED,
    SIDE_TABLES,
    TABLES,
    game_name,
    parse_seed,
    valid_text,
)
from continental_web.opponents import (
    BOT_LABELS,
    BOT_NAMES,
    ModelProbe,
    Opponents,
    available_bots,
    bot_label,
    default_models_dir,
    game_bots,
    load_model,
    model_error,
    model_files,
    probe_model,
)
from continental_web.replay import (
    MAX_REPLAY_ACTIONS,
    RECORD_FORMAT,
    RECORD_VERSION,
    REPLAY_OPTIONS,
    REPLAY_TIME_LIMIT,
    Replay,
    check_record,
    load_record_file,
    record_files,
)
from continental_web.view import LOG_LENGTH, build_state, play_logged, seat_state

# Names this module offered before its parts moved out (opponents, view, replay, games).
__all__ = [
    "BOT_LABELS",
    "BOT_NAMES",
    "FINISHED_TTL",
    "GAMES",
    "GAME_TTL",
    "LOG_LENGTH",
    "MAX_GAMES",
    "MAX_PER_CLIENT",
    "MAX_REPLAY_ACTIONS",
    "MAX_SEED",
    "RECORD_FORMAT",
    "RECORD_VERSION",
    "REPLAY_OPTIONS",
    "REPLAY_TIME_LIMIT",
    "SIDE_TABLES",
    "TABLES",
    "ModelProbe",
    "Opponents",
    "PlayerView",
    "Replay",
    "RuleConfig",
    "Session",
    "SessionStore",
    "WebError",
    "available_bots",
    "bot_label",
    "build_state",
    "check_record",
    "default_models_dir",
    "game_bots",
    "load_model",
    "load_record_file",
    "model_error",
    "model_files",
    "new_session",
    "parse_seed",
    "play_logged",
    "probe_model",
    "record_files",
    "seat_state",
    "second_person",
]

MAX_GAMES = 64  # games kept in memory (see ``SessionStore``)
MAX_PER_CLIENT = 8  # games (and replays) one client address may hold
GAME_TTL = 6 * 3600.0  # seconds a game in progress is kept after its last request
FINISHED_TTL = 1800.0  # the same for a finished game or a replay


# ---------------------------------------------------------------------- a game in progress


@dataclass
class Session:
    """One game between a person and bots: engine, bots, names, log and record."""

    game: Any  # the engine of the game ``kind``
    seat: int
    names: list[str]
    bots: dict[int, Any]
    config: dict[str, Any]
    seed: int
    kind: str = "contract"
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
        action = self.bots[actor].act(game_spec(self.kind).view(game, actor))
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
        rules = TABLES[self.kind].record_fields(self.game, self.config)
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


def new_session(
    opponents_offer: Opponents,
    game: Any = "contract",
    preset: Any = None,
    opponents: Any = ("greedy",),
    seed: Any = None,
    seat: Any = 0,
    rounds: Any = None,
    name: Any = "you",
    hands: Any = None,
) -> Session:
    """A new game from the start page's fields, each checked; WebError 400 naming a bad one.

    ``game`` is a table's name (``continental``, the contract game's old name, is read too);
    ``preset`` and ``rounds`` are the contract game's fields, ``hands`` the fifteen-card game's
    (the game's table module says which it takes: ``FIELDS``)."""
    kind = game_name(game)
    table = TABLES[kind]
    if not isinstance(opponents, list | tuple) or not opponents:
        raise WebError(400, "opponents must be a non-empty list of names")
    players = len(opponents) + 1
    options, setup = table.start_options(preset, rounds, hands, players)
    seed = _check_common(seed, seat, players, name)
    engine = game_spec(kind).new_game(players, seed, options)
    names, bots = _seat(opponents_offer, kind, engine, opponents, seat, name, seed)
    config = {"game": kind, "opponents": list(opponents), "seat": seat, **setup}
    session = Session(engine, seat, names, bots, config, seed, kind=kind)
    session.log.append(second_person(table.first_line(engine, names)))
    return session


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


def _check_common(seed: Any, seat: Any, players: int, name: Any) -> int:
    """The seed (drawn when empty), seat and name fields; WebError 400 naming a bad one."""
    seed = parse_seed(seed)
    if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < players:
        raise WebError(400, f"seat {seat!r} must be an integer in 0..{players - 1}")
    if not isinstance(name, str) or not 1 <= len(name.strip()) <= 20:
        raise WebError(400, "name must be 1..20 characters")
    if not valid_text(name):
        raise WebError(400, f"name {name!r} is not valid text (it holds a lone surrogate)")
    return seed


class SessionStore:
    """Games and replays by unguessable id; one lock for the dictionaries, one per game.

    Bounded three ways: a game in progress is dropped ``ttl`` seconds after its last request (a
    finished game or a replay ``finished_ttl``), one client address holds at most ``per_client``
    games, and at most ``max_games`` are kept in all. A game is *in play* while it is not over
    and had a request in the last ``min_idle`` seconds; such a game is never dropped to make
    room. Starting a game past a cap drops a finished game first, then the least recently used
    idle one; when every game under the cap is in play the new one is refused instead (429 for
    the address's cap: every tab of one browser is one address; 503 for the total).
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

    def _in_play(self, item: Any, now: float) -> bool:
        """A game not over with a request in the last ``min_idle`` seconds (never dropped)."""
        return (
            isinstance(item, Session)
            and not item.game.is_over
            and now - item.touched < self.min_idle
        )

    def _droppable(self, table: dict[str, Any], keys: list[str], now: float) -> list[str]:
        """The entries among ``keys`` that may make room, first to go first: finished games and
        replays, then games idle for ``min_idle``, each least recently used first."""

        def rank(key: str) -> tuple[bool, float]:
            item = table[key]
            return (isinstance(item, Session) and not item.game.is_over, item.touched)

        return sorted((k for k in keys if not self._in_play(table[k], now)), key=rank)

    def _make_room(self, table: dict[str, Any], client: str, now: float) -> None:
        """Drop expired entries, then make room under the client's cap and the total, never
        dropping a game in play (WebError 429 or 503 instead, nothing dropped)."""
        for key in [k for k, v in table.items() if self._expired(v, now)]:
            del table[key]
        mine = [k for k, v in table.items() if v.client == client]
        over = len(mine) - self.per_client + 1
        if over > 0:
            victims = self._droppable(table, mine, now)
            if len(victims) < over:
                raise WebError(
                    429,
                    f"{len(mine) - len(victims)} games in play from your address, the most it "
                    f"may hold: finish one (or leave one untouched for {self.min_idle / 60:g} "
                    "minutes) before starting another",
                )
            for key in victims[:over]:
                del table[key]
        if len(table) < self.max_games:
            return
        victims = self._droppable(table, list(table), now)
        if not victims:
            raise WebError(503, "the server is full of games in play; try again later")
        del table[victims[0]]

    def add(self, session: Session, client: str = "") -> str:
        """Store a session under a fresh id (WebError 429 or 503 when the games it would
        displace are all in play)."""
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
