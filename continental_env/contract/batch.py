"""Many contract games stepped in one call: ``BatchGame`` (imported as ``continental_env.batch``).

``BatchGame(num_games=N, ...)`` holds N independent games ("lanes"). ``reset()`` and
``step(actions)`` take and return whole arrays, one row per lane, as envpool and pgx do::

    from continental_env.batch import BatchGame
    b = BatchGame(num_games=1024, num_players=4, preset="continental", seed=0, observation="v0")
    obs, mask, actor = b.reset()       # (N, obs_dim) float32, (N, num_actions) bool, (N,) int64
    obs, mask, actor, rewards, done = b.step(actions)   # rewards (N, P) float32, done (N,) bool
    b.game(i)                          # lane i as a reference-engine Game

* ``obs`` is the observation of the seat to act (``actor``), the same vector the AEC env gives
  that seat (``continental_v0`` or ``continental_v1``); ``mask`` its legal actions.
* ``rewards[i, s]`` is what seat ``s`` earned by lane ``i``'s action, in the AEC env's ``reward``
  mode (``relative``, ``points``: at a round's end; ``win``: at the game's end).
* ``done[i]``: lane ``i``'s game ended with this action. That lane has already started its next
  game, and ``obs``/``mask``/``actor`` show the new game's first position; the finished game's
  scores are in ``final_scores[i]`` (0 in lanes where no game ended; ``round_points`` holds the
  points of a round that ended, ``round_end`` which lanes).
* ``step(actions, active=...)`` steps only the lanes where ``active`` is true (the others report
  nothing and show their position): how a learner's seat waits while opponents move.
* An illegal action (or one out of range) in any lane raises one ``ValueError`` naming the lane,
  in the engine's words (``Game.refusal``), and no lane changes.
* Lane ``i``'s ``g``-th game is ``Game.new(rules, P, seed=lane_game_seed(seed, i, g))``: the same
  ``seed`` deals the same cards in a lane whatever ``num_games`` is.
* ``random_legal(rng)``: one uniformly random legal action per lane, for random play.
* ``hidden_hands()``: privileged, the other seats' hands (for a critic in training, never for a
  decision).
* ``bot_actions(bots)``: each lane's seat to act decides by a rule-based bot (``BOT_NAMES``:
  ``greedy``, ``strong@v1``, ``strong@v2``), changing nothing; ``play_out(bots)`` plays every
  lane's round out with the bots at every seat and returns the points each seat scored (the
  rollout of a search: load sampled worlds into lanes, then one call). The bots run in C
  (``continental_env/_bots_c.h``, reading only the seat's view) on the compiled core only;
  ``agents.contract.batch_bots`` plays the same bots on either backend, the Python ones on the
  reference.

Two backends step the lanes, with identical results (``tests/test_batch.py`` and
``scripts/batch_lockstep.py`` run them in lockstep): the compiled core
(``continental_env/_batch.c``, built by pip like the kernels: the rules, the legal mask, both
observations and the lay-down's arrangement in C; the v1 features and the arrangement come from
the same C as the engine's kernels, ``_features_c.h`` and ``_laydown_c.h``) and the reference
(one ``Game`` per lane, the engine itself, the readable definition). ``backend="auto"`` takes
the compiled core when it is built, else the reference (with one warning).
"""

from __future__ import annotations

import operator
import random
import warnings
from collections.abc import Sequence
from typing import Any

import numpy as np

from continental_env.cards import NUM_TYPES
from continental_env.contract.aec import (
    ObservationEncoder,
    check_version,
    observation_layout,
    observation_size,
)
from continental_env.contract.game import Game
from continental_env.contract.public_log import PublicLog
from continental_env.contract.state import Phase, Setup, State
from continental_env.melds import RUN, TRIO, Meld
from continental_env.melds.contract import has_contract
from continental_env.rewards import POINTS_SCALE, win_rewards
from continental_env.rules import RuleConfig, points_table, resolve_rules

__all__ = [
    "BACKENDS",
    "BOT_NAMES",
    "BatchGame",
    "lane_game_seed",
    "raw_from_state",
    "state_from_raw",
]

BACKENDS = ("auto", "compiled", "reference")
# The compiled core's bots, by their kind number (0, 1, 2) in ``_batch.Core.bot_actions``.
BOT_NAMES = ("greedy", "strong@v1", "strong@v2")
REWARD_MODES = ("relative", "points", "win")
_MASK64 = (1 << 64) - 1


def _mix(x: int) -> int:
    """splitmix64's finaliser (Steele, Lea and Flood 2014): a bijection of 64-bit ints."""
    x = (x + 0x9E3779B97F4A7C15) & _MASK64
    x = ((x ^ (x >> 30)) * 0xBF58476D1CE4E5B9) & _MASK64
    x = ((x ^ (x >> 27)) * 0x94D049BB133111EB) & _MASK64
    return x ^ (x >> 31)


def lane_game_seed(seed: int, lane: int, game: int) -> int:
    """The seed of lane ``lane``'s ``game``-th game (0-based) in a batch seeded ``seed``."""
    seed, lane, game = (operator.index(v) for v in (seed, lane, game))  # numpy ints too
    return _mix(_mix(_mix(seed & _MASK64) ^ lane) ^ game)


# ----------------------------------------------------------------------------- raw positions
# The compiled core reads and writes a lane as a dict of the engine's internal values, keyed by
# the ``State`` field names (cards as ids, melds as Meld slots, the phase as its string, the log
# as (seat, kind index, card) items); these two functions convert between that and a ``State``.

_MELD_KINDS = (TRIO, RUN)


def state_from_raw(raw: dict[str, Any], setup: Setup) -> State:
    """The ``State`` of a raw lane dict (the compiled core's ``export``)."""
    rng = random.Random()
    rng.setstate(raw["rng"])
    seeds = list(raw["deal_seeds"])
    log = PublicLog.restore(
        PublicLog.key_for(raw["round_index"], seeds),
        [tuple(item) for item in raw["public_log"]],
        setup.num_players,
    )
    table = [
        Meld(owner, kind, list(cards), start, rank, suit)
        for owner, kind, cards, start, rank, suit in raw["table"]
    ]
    return State(
        round=raw["round"],
        round_index=raw["round_index"],
        dealer=raw["dealer"],
        current=raw["current"],
        phase=Phase(raw["phase"]),
        asked=raw["asked"],
        claim_queue=list(raw["claim_queue"]),
        hands=[list(h) for h in raw["hands"]],
        hand_sizes=list(raw["hand_sizes"]),
        stock=list(raw["stock"]),
        discard=list(raw["discard"]),
        table=table,
        laid_down=[bool(v) for v in raw["laid_down"]],
        laid_down_turn=list(raw["laid_down_turn"]),
        scores=list(raw["scores"]),
        turn=raw["turn"],
        claims=list(raw["claims"]),
        known=[list(k) for k in raw["known"]],
        seen_discards=list(raw["seen_discards"]),
        round_history=[dict(r, points=list(r["points"])) for r in raw["round_history"]],
        last_action=list(raw["last_action"]),
        moves=raw["moves"],
        joker_moved=bool(raw["joker_moved"]),
        jokers_owed=raw["jokers_owed"],
        rng=rng,
        deal_seeds=seeds,
        public_log=log,
    )


def raw_from_state(state: State) -> dict[str, Any]:
    """The raw lane dict of a ``State`` (what the compiled core's ``load`` reads)."""
    return {
        "round": state.round,
        "round_index": state.round_index,
        "dealer": state.dealer,
        "current": state.current,
        "phase": str(state.phase.value),
        "asked": state.asked,
        "claim_queue": list(state.claim_queue),
        "hands": [list(h) for h in state.hands],
        "hand_sizes": list(state.hand_sizes),
        "stock": list(state.stock),
        "discard": list(state.discard),
        "table": [(m.owner, m.kind, list(m.cards), m.start, m.rank, m.suit) for m in state.table],
        "laid_down": list(state.laid_down),
        "laid_down_turn": list(state.laid_down_turn),
        "scores": list(state.scores),
        "turn": state.turn,
        "claims": list(state.claims),
        "known": [list(k) for k in state.known],
        "seen_discards": list(state.seen_discards),
        "round_history": [dict(r, points=list(r["points"])) for r in state.round_history],
        "last_action": list(state.last_action),
        "moves": state.moves,
        "joker_moved": state.joker_moved,
        "jokers_owed": state.jokers_owed,
        "rng": state.rng.getstate(),
        "deal_seeds": list(state.deal_seeds),
        "public_log": [tuple(item) for item in state.public_log.items],
    }


def rules_tuple(rules: RuleConfig, num_players: int) -> tuple[int, ...]:
    """The rules as the compiled core reads them (``_batch.Core``'s ``rules``)."""
    cap = rules.max_claims_per_round
    return (
        rules.min_run,
        int(rules.ace_wraparound),
        0 if rules.joker_rule == "swap" else 1,
        int(rules.swap_run_jokers_only),
        int(rules.swapped_joker_laid_off),
        int(rules.discard_restriction),
        rules.one_turn_bonus,
        int(rules.claims_after_laydown),
        -1 if cap is None else cap,
        rules.max_turns_per_round,
        rules.jokers_per_deck,
        *points_table(rules),
        len(rules.rounds),
        *rules.rounds,
        *(rules.decks(num_players, r) for r in rules.rounds),
    )


# ----------------------------------------------------------------------------- the reference


class ReferenceCore:
    """The lanes as ``Game`` objects: the compiled core's interface, on the engine itself."""

    def __init__(self, num_games: int, setup: Setup, seed: int, version: int) -> None:
        self.num_games = num_games
        self.num_players = setup.num_players
        self.num_actions = setup.num_actions
        self.setup = setup
        self.seed = seed
        self.games: list[Game] = []
        self.game_index = [0] * num_games
        self._encoder = ObservationEncoder(setup.num_players, version)

    def _new(self, lane: int) -> Game:
        seed = lane_game_seed(self.seed, lane, self.game_index[lane])
        return Game.new(self.setup.rules, self.num_players, seed=seed)

    def reset_all(self) -> None:
        self.game_index = [0] * self.num_games
        self.games = [self._new(i) for i in range(self.num_games)]

    def write(self, obs: np.ndarray, mask: np.ndarray, actor: np.ndarray) -> None:
        encode = self._encoder.encode
        mask[:] = False
        for i, game in enumerate(self.games):
            seat = game.actor
            actor[i] = seat
            obs[i] = encode(game, seat)
            mask[i, game._legal_ids()] = True

    def step(
        self, actions: np.ndarray, obs, mask, actor, round_points, round_end, done, final,
        active: np.ndarray | None = None,
    ):  # fmt: skip
        lanes = range(self.num_games) if active is None else np.flatnonzero(active).tolist()
        for i in lanes:
            if not self.games[i].is_legal(int(actions[i])):
                return i
        round_points[:] = 0
        round_end[:] = False
        done[:] = False
        final[:] = 0
        for i in lanes:
            game = self.games[i]
            mark = len(game.round_history)
            game.apply(int(actions[i]))
            if len(game.round_history) > mark:
                round_end[i] = True
                round_points[i] = game.round_history[-1]["points"]
            if game.is_over:
                done[i] = True
                final[i] = game.scores
                self.game_index[i] += 1
                self.games[i] = self._new(i)
        self.write(obs, mask, actor)
        return -1

    def hidden_hands(self, out: np.ndarray) -> None:
        p = self.num_players
        rows = out.reshape(self.num_games, p - 1, -1)
        for i, game in enumerate(self.games):
            seat = game.actor
            if seat is None:
                rows[i] = 0
                continue
            for j in range(1, p):
                rows[i, j - 1] = game.state.hands[(seat + j) % p]

    def sample_legal(self, uniform: np.ndarray, out: np.ndarray) -> None:
        for i, game in enumerate(self.games):
            legal = game._legal_ids()
            out[i] = legal[int(uniform[i] * len(legal))]

    def export(self, lane: int) -> dict[str, Any]:
        raw = raw_from_state(self.games[lane].state)
        raw["game_index"] = self.game_index[lane]
        return raw

    def load(self, lane: int, raw: dict[str, Any]) -> None:
        self.games[lane] = Game.from_state(self.setup, state_from_raw(raw, self.setup))
        self.game_index[lane] = raw.get("game_index", self.game_index[lane])


def _compiled_module() -> Any:
    """``continental_env._batch``, or None when it was not built (or the kernels are off)."""
    from continental_env import kernels

    if kernels.compiled is None:
        return None  # CONTINENTAL_KERNELS=0, or no compiler: the references run everywhere
    try:
        from continental_env import _batch
    except ImportError:
        return None
    return _batch


def _compiled_core(module: Any, num_games: int, setup: Setup, seed: int, version: int) -> Any:
    rules = setup.rules

    def slow_contract(counts: tuple, trios: int, runs: int) -> bool:
        # has_contract's rare fallback (a full arrangement search): the core's one call back
        return has_contract(counts, trios, runs, rules)

    # The lay-down's arrangement is chosen in C (_laydown_c.h): no lay-down callback (None).
    return module.Core(
        num_games, setup.num_players, rules_tuple(rules, setup.num_players), seed, None,
        slow_contract, version,
    )  # fmt: skip


# ----------------------------------------------------------------------------- the API


def _whole(name: str, value: Any, low: int) -> int:
    """``value`` as an int of at least ``low``; one-line ValueError naming it otherwise."""
    if isinstance(value, bool):
        raise ValueError(f"{name}={value!r} must be an integer, not a bool")
    try:
        number = operator.index(value)
    except TypeError:
        raise ValueError(f"{name}={value!r} must be an integer") from None
    if number < low:
        raise ValueError(f"{name}={number} must be at least {low}")
    return number


class BatchGame:
    """N contract games stepped together (see the module docstring)."""

    def __init__(
        self,
        num_games: int,
        num_players: int = 4,
        preset: str | RuleConfig = "continental",
        seed: int = 0,
        observation: str = "v0",
        reward: str = "relative",
        rounds: int | Sequence[int] | None = None,
        backend: str = "auto",
    ) -> None:
        self.num_games = _whole("num_games", num_games, 1)
        rules = resolve_rules(preset)
        if rounds is not None:
            rules = rules.with_rounds(rounds)
        rules.check_players(num_players)
        if observation not in ("v0", "v1"):
            raise ValueError(f"observation={observation!r}: choose 'v0' or 'v1'")
        if reward not in REWARD_MODES:
            raise ValueError(f"reward={reward!r}: choose one of {', '.join(REWARD_MODES)}")
        if backend not in BACKENDS:
            raise ValueError(f"backend={backend!r}: choose one of {', '.join(BACKENDS)}")
        self.seed = _whole("seed", seed, -(1 << 63)) & _MASK64
        self.setup = Setup.of(rules, num_players)
        self.num_players = num_players
        self.num_actions = self.setup.num_actions
        self.observation = observation
        self.reward = reward
        version = check_version(int(observation[1]))
        self.observation_layout = observation_layout(num_players, version)
        self.obs_dim = observation_size(self.observation_layout)
        self.backend = self._pick_backend(backend, version)
        if self.backend == "compiled":
            self._core = _compiled_core(
                _compiled_module(), self.num_games, self.setup, self.seed, version
            )
        else:
            self._core = ReferenceCore(self.num_games, self.setup, self.seed, version)
        n, p = self.num_games, num_players
        self.round_points = np.zeros((n, p), dtype=np.int32)
        self.round_end = np.zeros(n, dtype=bool)
        self.final_scores = np.zeros((n, p), dtype=np.int32)
        self._started = False

    @staticmethod
    def _pick_backend(backend: str, version: int) -> str:
        module = _compiled_module()
        if backend == "reference":
            return backend
        if backend == "compiled":
            if module is None:
                raise RuntimeError("backend='compiled': continental_env._batch is not built here")
            return backend
        if module is not None:
            return "compiled"
        if module is None:
            warnings.warn(
                "continental_env: the compiled batch core is unavailable; BatchGame runs the "
                "reference engine per lane (same results, slower)",
                RuntimeWarning,
                stacklevel=3,
            )
        return "reference"

    # ------------------------------------------------------------------ stepping

    def _outputs(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        obs = np.empty((self.num_games, self.obs_dim), dtype=np.float32)
        mask = np.empty((self.num_games, self.num_actions), dtype=bool)
        actor = np.empty(self.num_games, dtype=np.int64)
        return obs, mask, actor

    def reset(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Every lane starts its first game: (obs, mask, actor)."""
        self._core.reset_all()
        obs, mask, actor = self._outputs()
        self._core.write(obs, mask, actor)
        self._started = True
        return obs, mask, actor

    def step(
        self, actions: Any, active: Any = None
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """Apply one action per lane: (obs, mask, actor, rewards, done); see the module docstring.

        ``active`` (a bool array, one per lane) steps only those lanes: the others' actions are
        ignored, they stay as they are and report nothing (no reward, not done, no round end),
        and their ``obs``/``mask``/``actor`` rows show their current position.
        """
        if not self._started:
            raise RuntimeError("call reset() before step()")
        acts = self._check_actions(actions)
        lanes = self._check_active(active)
        obs, mask, actor = self._outputs()
        done = np.zeros(self.num_games, dtype=bool)
        outputs = (obs, mask, actor, self.round_points, self.round_end, done, self.final_scores)
        if lanes is None:  # the compiled core's step takes ``active`` only when it is given
            bad = self._core.step(acts, *outputs)
        else:
            bad = self._core.step(acts, *outputs, lanes)
        if bad >= 0:
            reason = self.game(bad).refusal(int(acts[bad]))
            raise ValueError(f"lane {bad}: {reason}")
        return obs, mask, actor, self._rewards(done), done

    def random_legal(self, rng: np.random.Generator) -> np.ndarray:
        """A uniformly random legal action per lane, drawn from ``rng`` (the k-th legal id of
        each lane, k = floor(u * count) for one uniform u per lane): random play for
        benchmarks and opponents, without building a probability row per lane."""
        if not self._started:
            raise RuntimeError("call reset() before random_legal()")
        return self._core_sample(rng.random(self.num_games))

    def hidden_hands(self) -> np.ndarray:
        """Privileged: every other seat's hand as card counts, (lanes, players - 1, 53) float32,
        the seats in order after each lane's actor (row 0 the next seat); zeros in a lane
        holding a finished game. No observation shows these: they are for a critic during
        training (``agents.train.selfplay --privileged-critic``), never for a decision."""
        if not self._started:
            raise RuntimeError("call reset() before hidden_hands()")
        p = self.num_players
        out = np.empty((self.num_games, (p - 1) * NUM_TYPES), dtype=np.float32)
        self._core.hidden_hands(out)
        return out.reshape(self.num_games, p - 1, NUM_TYPES)

    def bot_kinds(self, bots: str | Sequence[str] | Sequence[Sequence[str]]) -> np.ndarray:
        """The bot of every seat as the core's kind numbers (``BOT_NAMES`` index, int8): from
        one name (every seat), one name per seat, or one row of names per lane; an integer
        array of kind numbers (what this returns, computed once for many calls) as it is."""
        if isinstance(bots, np.ndarray) and bots.dtype.kind in "iu":
            ok = bots.shape in ((self.num_players,), (self.num_games, self.num_players))
            if not ok or bots.min(initial=0) < 0 or bots.max(initial=0) >= len(BOT_NAMES):
                raise ValueError(
                    f"bot kinds of shape {bots.shape}: expected ({self.num_players},) or "
                    f"({self.num_games}, {self.num_players}) numbers in 0..{len(BOT_NAMES) - 1}"
                )
            return np.ascontiguousarray(bots, dtype=np.int8)
        rows = self._bot_rows(bots)
        index = {name: k for k, name in enumerate(BOT_NAMES)}
        unknown = [name for row in rows for name in row if name not in index]
        if unknown:
            raise ValueError(f"bot {unknown[0]!r}: choose one of {', '.join(BOT_NAMES)}")
        kinds = np.array([[index[n] for n in row] for row in rows], dtype=np.int8)
        return kinds[0] if len(rows) == 1 else kinds

    def _bot_rows(self, bots: str | Sequence[str] | Sequence[Sequence[str]]) -> list[list]:
        if isinstance(bots, str):
            return [[bots] * self.num_players]
        rows = [list(bots)] if all(isinstance(b, str) for b in bots) else [list(r) for r in bots]
        shape = (len(rows), *{len(r) for r in rows})
        if len(shape) != 2 or shape[1] != self.num_players or shape[0] not in (1, self.num_games):
            raise ValueError(
                f"bots of shape {shape}: expected one name, {self.num_players} names (one per "
                f"seat) or {self.num_games} rows of {self.num_players}"
            )
        return rows

    def _compiled_bots(self, what: str) -> None:
        if not self._started:
            raise RuntimeError(f"call reset() before {what}()")
        if self.backend != "compiled":
            raise RuntimeError(
                f"{what}: the bots run on the compiled core only (this batch runs "
                f"backend={self.backend!r}); agents.contract.batch_bots plays them on any backend"
            )

    def bot_actions(self, bots: str | Sequence[str], active: Any = None) -> np.ndarray:
        """Each lane's action by the bot of its seat to act (``bot_kinds``), as int64 ids (-1 for
        a lane not in ``active``); no lane changes. The compiled backend only."""
        self._compiled_bots("bot_actions")
        kinds = self.bot_kinds(bots)
        lanes = self._check_active(active)
        out = np.full(self.num_games, -1, dtype=np.int64)
        if lanes is None:
            self._core.bot_actions(kinds, out)
        else:
            self._core.bot_actions(kinds, out, lanes)
        return out

    def play_out(
        self,
        bots: str | Sequence[str],
        active: Any = None,
        until_round_end: bool = True,
        restart: bool = True,
    ) -> np.ndarray:
        """Play every lane (or those in ``active``) with the bots at every seat (``bot_kinds``)
        until its round ends (``until_round_end``) or its game ends; the points each seat
        scored meanwhile, int64 of shape (N, P). A lane whose game ends starts its next game,
        as in ``step``, unless ``restart`` is False: then it stays over (``export`` and
        ``game`` show how it ended) and later calls leave it as it is. The compiled backend
        only; the GIL is released while it runs."""
        self._compiled_bots("play_out")
        kinds = self.bot_kinds(bots)
        lanes = self._check_active(active)
        points = np.zeros((self.num_games, self.num_players), dtype=np.int64)
        self._core.play_out(kinds, lanes, bool(until_round_end), points, bool(restart))
        return points

    def _core_sample(self, uniform: np.ndarray) -> np.ndarray:
        out = np.empty(self.num_games, dtype=np.int64)
        self._core.sample_legal(np.ascontiguousarray(uniform, dtype=np.float64), out)
        return out

    def _check_actions(self, actions: Any) -> np.ndarray:
        acts = np.asarray(actions)
        if acts.shape != (self.num_games,):
            raise ValueError(
                f"actions of shape {acts.shape}: expected ({self.num_games},), one per lane"
            )
        if acts.dtype.kind not in "iu":
            raise ValueError(f"actions of dtype {acts.dtype}: expected integer action ids")
        return np.ascontiguousarray(acts, dtype=np.int64)

    def _check_active(self, active: Any) -> np.ndarray | None:
        if active is None:
            return None
        lanes = np.asarray(active)
        if lanes.shape != (self.num_games,) or lanes.dtype != np.bool_:
            raise ValueError(
                f"active of shape {lanes.shape} and dtype {lanes.dtype}: expected a bool array "
                f"of shape ({self.num_games},), one per lane"
            )
        return np.ascontiguousarray(lanes)

    def win_rewards(self, done: np.ndarray) -> np.ndarray:
        """(lanes, players) float32: the win reward of every game in ``done`` (the lowest total
        wins; the winners share +1, the others -1) from ``final_scores``, 0 in other lanes."""
        p = self.num_players
        rewards = np.zeros((self.num_games, p), dtype=np.float32)
        for i in np.flatnonzero(done):
            scores = self.final_scores[i]
            rewards[i] = win_rewards(p, np.flatnonzero(scores == scores.min()).tolist())
        return rewards

    def _rewards(self, done: np.ndarray) -> np.ndarray:
        if self.reward == "win":
            return self.win_rewards(done)
        p = self.num_players
        rewards = np.zeros((self.num_games, p), dtype=np.float32)
        lanes = np.flatnonzero(self.round_end)
        if lanes.size:
            points = self.round_points[lanes].astype(np.float64)
            if self.reward == "points":
                rewards[lanes] = -points / POINTS_SCALE
            else:
                others = (points.sum(axis=1, keepdims=True) - points) / (p - 1)
                rewards[lanes] = (others - points) / POINTS_SCALE
        return rewards

    # ------------------------------------------------------------------ lanes as games

    def _lane(self, lane: Any) -> int:
        i = _whole("lane", lane, 0)
        if i >= self.num_games:
            raise ValueError(f"lane {i} is out of range 0..{self.num_games - 1}")
        if not self._started:
            raise RuntimeError("call reset() before reading a lane")
        return i

    def game(self, lane: int) -> Game:
        """Lane ``lane``'s position as a reference-engine ``Game`` (a copy: changing it changes
        no lane)."""
        raw = self._core.export(self._lane(lane))
        return Game.from_state(self.setup, state_from_raw(raw, self.setup))

    def export(self, lane: int) -> dict[str, Any]:
        """Lane ``lane``'s position as the engine's raw values (``raw_from_state``'s dict: hands
        as counts, stock, discard, table, round history, ...), without building a ``Game``."""
        return self._core.export(self._lane(lane))

    def load(self, lane: int, raw: dict[str, Any]) -> None:
        """Put raw values (``export``'s, or ``raw_from_state``'s with ``game_index``) on lane
        ``lane``; every value is bounds-checked and a bad one leaves the lane as it was."""
        self._core.load(self._lane(lane), raw)

    def game_index(self, lane: int) -> int:
        """How many games lane ``lane`` has finished (its current game's ``g``)."""
        return int(self._core.export(self._lane(lane))["game_index"])

    def set_game(self, lane: int, game: Game, game_index: int | None = None) -> None:
        """Put a copy of ``game``'s position on lane ``lane`` (same rules and table size).

        ``game_index``: how many games the lane has finished from now on (its next game is dealt
        from ``lane_game_seed(seed, lane, game_index + 1)``); left out, the lane's count stays.
        A saved batch is restored with each lane's ``game`` and ``game_index``.
        """
        i = self._lane(lane)
        if game_index is not None:
            game_index = _whole("game_index", game_index, 0)
        if game.setup != self.setup:
            raise ValueError("set_game: the game's rules or table size differ from the batch's")
        if game.is_over:
            raise ValueError("set_game: the game is over; a lane holds a game in play")
        raw = raw_from_state(game.state)
        raw["game_index"] = self.game_index(i) if game_index is None else game_index
        self._core.load(i, raw)
