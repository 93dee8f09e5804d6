"""The learner's seat of N contract tables as one vector environment, on ``BatchGame``.

``BatchLearnerVecEnv`` is a gymnasium (1.x) ``VectorEnv``; ``BatchLearnerSB3VecEnv`` the same
tables as a Stable-Baselines3 ``VecEnv`` (what sb3-contrib's ``MaskablePPO`` trains on). Both
read and step the games only through ``BatchGame``'s public arrays, so they run on whichever core
``BatchGame`` runs (``backend``)::

    from continental_env.contract.batch_vec import BatchLearnerVecEnv
    envs = BatchLearnerVecEnv(num_envs=64, num_players=4, opponent="random", backend="reference")
    obs, infos = envs.reset(seed=0)                  # (64, obs_dim) float32
    masks = envs.action_masks()                      # (64, num_actions) bool
    obs, rewards, terminated, truncated, infos = envs.step(actions)

* Lane ``i``'s learner sits at ``learner_seat`` (an int: every lane the same seat), by default
  ``i % num_players``, so that every seat is learned. The learner is only asked to act at its
  own turn: after ``reset`` and after every ``step`` each lane awaits the learner, its row of
  ``obs`` is the learner's observation (the AEC environment's, ``continental_v0`` or ``_v1``)
  and its row of ``action_masks()`` the learner's legal actions (never all False).
* Every other seat is played by ``opponent``: ``"random"`` (uniform over the legal actions, from
  a numpy generator seeded by ``reset(seed=...)``), a bot the compiled core decides in C
  (``BatchGame.BOT_NAMES``: ``"greedy"``, ``"strong@v1"``, ``"strong@v2"``), a callable
  ``policy(obs (K, obs_dim) float32, mask (K, num_actions) bool) -> actions (K,)`` (the learner's
  own frozen or live policy), or a *pool*: a list of these and ``"self"``, from which every other
  seat of a lane draws its player uniformly at each new game, as the single-learner environment
  does. ``"self"`` stands for a frozen snapshot of the learner: ``add_snapshot(path)`` registers
  one through ``load_snapshot(path) -> policy`` (the five newest are kept) and ``"self"`` draws
  one of them (the pool's other entries while there is none; ``"random"`` if there are none).
  The opponents decide in batches: while some lanes await an opponent, one call per kind of
  player decides for all of its lanes and ``BatchGame.step(actions, active=...)`` steps them.
* ``rewards[i]`` is the learner's reward column of ``BatchGame`` (``reward="relative"``,
  ``"points"`` or ``"win"``), summed from the learner's action to its next decision (a round may
  end on an opponent's action). An episode is a game; with ``round_episodes=True`` a round.
  Rewards that fall before the learner's first decision of a game (an opponent ending round 1
  before the learner ever acts) are added to its first step, so a game's rewards add up to its
  result. With ``round_episodes``, a round that ends before the learner's first decision in it
  is skipped (its rewards are not the learner's doing), as ``SingleAgentContinental`` does.
  ``infos["skipped_episodes"]`` (with ``seat``, the reset infos of each new episode) counts the
  rounds (games) that ended before the learner's first decision in them.
* Episodes end by ``terminated`` only (every game ends: the rules cap a round's turns), never
  ``truncated``. Autoreset is gymnasium's *same-step* mode (``metadata["autoreset_mode"]`` is
  ``AutoresetMode.SAME_STEP``), the semantics of SB3's ``VecEnv``: the step that ends a lane's
  episode already returns the next episode's first observation, and ``infos["final_obs"]`` /
  ``infos["final_info"]`` (with the ``_final_obs`` / ``_final_info`` masks) hold the ended one's.
  ``BatchGame`` deals a finished game's successor at once and keeps no terminal position, so
  ``final_obs`` is the learner's last observation in the ended episode (the one it last acted
  on); with no truncation it is never bootstrapped from. ``final_info`` holds ``seat``,
  ``round_points`` (the table's points of the round that ended the episode) and, when the game
  ended, ``final_scores``.
* ``reset(seed=s)`` deals lane ``i``'s ``g``-th game as ``BatchGame(seed=s)`` does
  (``Game.new(rules, P, seed=lane_game_seed(s, i, g))``) and seeds the random opponent from
  ``s``; ``reset()`` without a seed draws the next seed from the environment's generator.

``BatchLearnerSB3VecEnv`` wraps a ``BatchLearnerVecEnv``: ``reset()``, ``step_async`` /
``step_wait`` (``infos[i]["terminal_observation"]`` at an episode's end), ``seed(s)`` (used at
the next ``reset``), ``env_method("action_masks")`` (one row per lane, so sb3-contrib's
``get_action_masks`` works), ``get_attr`` / ``set_attr`` (the tables' shared attributes;
``learner_seat`` per lane) and ``env_is_wrapped`` (False: no gymnasium wrapper is inside; put
SB3's ``VecMonitor`` around it for episode statistics).
"""

from __future__ import annotations

import functools
import importlib.util
import operator
from collections.abc import Callable, Sequence
from typing import Any, ClassVar

import gymnasium
import numpy as np
from gymnasium import spaces
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

from continental_env.contract.aec import check_version, observation_layout, observation_size
from continental_env.contract.batch import BOT_NAMES, BatchGame
from continental_env.contract.batch import _whole as _count
from continental_env.rules import RuleConfig

__all__ = ["BatchLearnerVecEnv", "OpponentPolicy"]
if importlib.util.find_spec("stable_baselines3") is not None:  # the [train] extra
    __all__ += ["BatchLearnerSB3VecEnv"]  # noqa: F822 (built by the module __getattr__)

# policy(obs (K, obs_dim) float32, mask (K, num_actions) bool) -> actions (K,) integer ids
OpponentPolicy = Callable[[np.ndarray, np.ndarray], Any]
RANDOM = "random"
SELF = "self"  # in a pool: a frozen snapshot of the learner (``add_snapshot``)
KEEP_SNAPSHOTS = 5
MAX_SKIPS = 100  # a lane whose learner never gets to act: an engine defect, not an endless loop


def _random_policy(rng: np.random.Generator) -> OpponentPolicy:
    """Uniform over each row's legal actions (the argmax of iid uniforms over the legal ids)."""

    def policy(obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        return np.where(mask, rng.random(mask.shape), -1.0).argmax(axis=1)

    return policy


class BatchLearnerVecEnv(VectorEnv):
    """The learner's seat of ``num_envs`` contract tables (see the module docstring)."""

    metadata: ClassVar[dict[str, Any]] = {
        "autoreset_mode": AutoresetMode.SAME_STEP,
        "render_modes": [],
    }

    def __init__(
        self,
        num_envs: int,
        num_players: int = 4,
        preset: str | RuleConfig = "continental",
        rounds: int | Sequence[int] | None = None,
        opponent: str | OpponentPolicy = RANDOM,
        learner_seat: int | None = None,
        reward: str = "relative",
        round_episodes: bool = False,
        observation: str = "v0",
        backend: str = "auto",
        load_snapshot: Callable[[str], OpponentPolicy] | None = None,
    ) -> None:
        self.num_envs = _count("num_envs", num_envs, 1)
        if learner_seat is None:
            seats = np.arange(self.num_envs) % num_players
        else:
            seat = _count("learner_seat", learner_seat, 0)
            if seat >= num_players:
                raise ValueError(
                    f"learner_seat={seat} is not a seat of a {num_players}-player table "
                    f"(0..{num_players - 1})"
                )
            seats = np.full(self.num_envs, seat)
        self._options = {
            "num_players": num_players, "preset": preset, "rounds": rounds, "reward": reward,
            "observation": observation, "backend": backend,
        }  # fmt: skip
        # A batch built now checks every option at once (one error naming the bad one).
        self.batch = BatchGame(self.num_envs, seed=0, **self._options)
        self.num_players = num_players
        self.num_actions = self.batch.num_actions
        self.load_snapshot = load_snapshot
        self._snapshots: list[OpponentPolicy] = []
        # Who plays each seat of each lane in this game: an index into ``self._players``.
        self._players: list[str | OpponentPolicy] = []
        self._seat_player = np.zeros((self.num_envs, num_players), dtype=np.int64)
        self.opponent = opponent  # checked by the property
        self._learner_seat = seats.astype(np.int64)
        self.round_episodes = bool(round_episodes)
        self.reward = reward
        self.observation = observation
        version = check_version(int(observation[1]))
        size = observation_size(observation_layout(num_players, version))
        # The bounds of SingleAgentContinental's spaces (v1 features may be negative).
        low = 0.0 if version == 0 else -np.inf
        self.single_observation_space = spaces.Box(low, np.inf, shape=(size,), dtype=np.float32)
        self.single_action_space = spaces.Discrete(self.num_actions)
        self.observation_space = batch_space(self.single_observation_space, self.num_envs)
        self.action_space = batch_space(self.single_action_space, self.num_envs)
        self._lanes = np.arange(self.num_envs)
        self._obs: np.ndarray | None = None
        self._mask: np.ndarray | None = None
        self._carry = np.zeros(self.num_envs, dtype=np.float64)
        self._opponent_rng = np.random.default_rng(0)

    @property
    def opponent(self) -> str | OpponentPolicy:
        """Who plays the other seats: ``"random"`` or a ``policy(obs, mask) -> actions``; a new
        one plays from the next opponent decision on."""
        return self._opponent

    @opponent.setter
    def opponent(self, opponent: str | OpponentPolicy | Sequence[str | OpponentPolicy]) -> None:
        pool = isinstance(opponent, (list, tuple))
        entries = list(opponent) if pool else [opponent]
        if pool and not entries:
            raise ValueError("opponent=[]: a pool needs at least one entry")
        for entry in entries:
            if isinstance(entry, str):
                ok = entry in (RANDOM, *BOT_NAMES) or (pool and entry == SELF)
            else:
                ok = callable(entry)
            if not ok:
                raise ValueError(
                    f"opponent={entry!r}: choose 'random', a compiled bot "
                    f"({', '.join(BOT_NAMES)}), a callable policy(obs, mask) -> actions, or a "
                    "list of these and 'self'"
                )
        compiled = any(isinstance(e, str) and e in BOT_NAMES for e in entries)
        if compiled and self.batch.backend != "compiled":
            raise ValueError(
                f"opponent={opponent!r}: the compiled bots need the compiled core "
                f"(this batch runs backend={self.batch.backend!r})"
            )
        self._opponent = opponent
        self._pool = entries
        if getattr(self, "_obs", None) is not None:  # a game in play: its seats draw anew
            self._draw_players(np.ones(self.num_envs, dtype=bool))

    def add_snapshot(self, path: str, keep: int = KEEP_SNAPSHOTS) -> int:
        """Register a frozen learner snapshot for ``"self"`` (read by ``load_snapshot``), from the
        next game of each lane on; keeps the ``keep`` newest and returns how many are kept."""
        if self.load_snapshot is None:
            raise ValueError("add_snapshot needs load_snapshot(path) -> policy at construction")
        self._snapshots.append(self.load_snapshot(path))
        del self._snapshots[:-keep]
        return len(self._snapshots)

    @property
    def learner_seat(self) -> np.ndarray:
        """The learner's seat at each table (a copy: the seats are fixed at construction)."""
        return self._learner_seat.copy()

    # ------------------------------------------------------------------ gymnasium API

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[np.ndarray, dict[str, Any]]:
        """Deal every lane a new game and play the opponents up to the learner's turn."""
        if seed is not None:
            seed = _count("seed", seed, 0)
        super().reset(seed=seed)
        deal_seed = int(self.np_random.integers(1 << 63)) if seed is None else seed
        self.batch = BatchGame(self.num_envs, seed=deal_seed, **self._options)
        self._opponent_rng = np.random.default_rng(self.np_random.integers(1 << 63))
        obs, mask, actor = self.batch.reset()
        self._carry[:] = 0.0
        self._players = []
        self._draw_players(np.ones(self.num_envs, dtype=bool))
        ended = np.ones(self.num_envs, dtype=bool)  # every lane is between episodes
        obs, mask, _, _, _, skipped = self._play_opponents(obs, mask, actor, ended)
        self._obs, self._mask = obs, mask
        return obs, self._reset_infos(skipped, ended)

    def step(
        self, actions: Any
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        """The learner's action in every lane, then the opponents' up to its next turn."""
        if self._obs is None or self._mask is None:
            raise RuntimeError("call reset() before step()")
        acts = np.asarray(actions)
        if acts.shape != (self.num_envs,) or acts.dtype.kind not in "iu":
            raise ValueError(
                f"actions of shape {acts.shape} and dtype {acts.dtype}: expected integer "
                f"action ids of shape ({self.num_envs},), one per lane"
            )
        last_obs = self._obs
        obs, mask, actor, rewards, done = self.batch.step(acts)  # ValueError, no lane changed
        self._draw_players(done)
        total = rewards[self._lanes, self._learner_seat].astype(np.float64) + self._carry
        self._carry[:] = 0.0
        ended = done | (self.round_episodes & self.batch.round_end)
        final = {i: self._final_info(i, done[i]) for i in np.flatnonzero(ended)}
        obs, mask, more, ended, final2, skipped = self._play_opponents(obs, mask, actor, ended)
        total += more
        final.update(final2)
        self._obs, self._mask = obs, mask
        infos = self._reset_infos(skipped, ended)
        for i, info in sorted(final.items()):
            infos = self._add_info(infos, {"final_obs": last_obs[i], "final_info": info}, i)
        zeros = np.zeros(self.num_envs, dtype=bool)
        return obs, total.astype(np.float32), ended, zeros, infos

    def action_masks(self) -> np.ndarray:
        """The learner's legal actions, one row per lane (num_envs, num_actions) bool."""
        if self._mask is None:
            raise RuntimeError("call reset() before action_masks()")
        return self._mask.copy()

    def close_extras(self, **kwargs: Any) -> None:
        self._obs = self._mask = None

    # ------------------------------------------------------------------ internals

    def _final_info(self, lane: int, game_over: bool) -> dict[str, Any]:
        info: dict[str, Any] = {
            "seat": int(self._learner_seat[lane]),
            "round_points": self.batch.round_points[lane].copy(),
        }
        if game_over:
            info["final_scores"] = self.batch.final_scores[lane].copy()
        return info

    def _reset_infos(self, skipped: np.ndarray, ended: np.ndarray) -> dict[str, Any]:
        """The new episodes' reset infos: every lane after ``reset``, the ended lanes after
        ``step`` (gymnasium's same-step autoreset merges them into the step's infos)."""
        return {
            "seat": self._learner_seat.copy(),
            "_seat": ended.copy(),
            "skipped_episodes": skipped,
            "_skipped_episodes": ended.copy(),
        }

    def _draw_players(self, lanes: np.ndarray) -> None:
        """Each other seat of ``lanes`` (their new games) draws its player from the pool."""
        if not lanes.any():
            return
        if len(self._pool) == 1 and self._pool[0] != SELF:  # one player for every seat
            self._players = [self._pool[0]]
            self._seat_player[:] = 0
            return
        index = {id(p): k for k, p in enumerate(self._players)}
        rng = self._opponent_rng
        for lane in np.flatnonzero(lanes):
            for seat in range(self.num_players):
                if seat == self._learner_seat[lane]:
                    continue
                player = self._pool[rng.integers(len(self._pool))]
                if player == SELF:
                    others = [e for e in self._pool if e != SELF] or [RANDOM]
                    choices = self._snapshots or others
                    player = choices[rng.integers(len(choices))]
                k = index.get(id(player))
                if k is None:
                    k = index[id(player)] = len(self._players)
                    self._players.append(player)
                self._seat_player[lane, seat] = k

    def _decide_lanes(
        self, obs: np.ndarray, mask: np.ndarray, actor: np.ndarray, waiting: np.ndarray
    ) -> np.ndarray:
        """The waiting lanes' actions (0 elsewhere), one call per player that acts in them."""
        acts = np.zeros(self.num_envs, dtype=np.int64)
        who = self._seat_player[self._lanes, actor]
        for k in np.unique(who[waiting]):
            lanes = waiting & (who == k)
            player = self._players[k]
            if isinstance(player, str) and player in BOT_NAMES:
                acts[lanes] = self.batch.bot_actions(player, active=lanes)[lanes]
            else:
                acts[lanes] = self._decide(obs[lanes], mask[lanes], player)
        return acts

    def _decide(
        self, obs: np.ndarray, mask: np.ndarray, policy: str | OpponentPolicy
    ) -> np.ndarray:
        if isinstance(policy, str):
            policy = _random_policy(self._opponent_rng)
        acts = np.asarray(policy(obs, mask))
        if acts.shape != (len(obs),) or acts.dtype.kind not in "iu":
            raise ValueError(
                f"opponent returned actions of shape {acts.shape} and dtype {acts.dtype}: "
                f"expected integer action ids of shape ({len(obs)},), one per row"
            )
        return acts

    def _play_opponents(
        self, obs: np.ndarray, mask: np.ndarray, actor: np.ndarray, ended: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, dict[int, dict], np.ndarray]:
        """Opponents act, in batches, until every lane awaits its learner.

        ``ended`` marks the lanes whose episode is over (their next one starts at the learner's
        next decision). Returns obs, mask, the rewards of the running episodes, ``ended`` with
        the episodes that ended meanwhile, their final infos and the episodes skipped per lane.
        """
        n = self.num_envs
        total = np.zeros(n, dtype=np.float64)
        skipped = np.zeros(n, dtype=np.int64)
        ended = ended.copy()
        final: dict[int, dict] = {}
        waiting = actor != self._learner_seat
        while waiting.any():
            try:
                acts = self._decide_lanes(obs, mask, actor, waiting)
                obs, mask, actor, rewards, done = self.batch.step(acts, active=waiting)
                self._draw_players(done)
            except ValueError as error:
                self._obs = self._mask = None  # the learner's action is in: no way back
                raise ValueError(f"opponent: {error}; call reset()") from None
            mine = rewards[self._lanes, self._learner_seat].astype(np.float64)
            running = waiting & ~ended
            total[running] += mine[running]
            between = waiting & ended
            if self.round_episodes:
                skipped[between & self.batch.round_end] += 1  # rewards of a skipped round
            else:
                self._carry[between] += mine[between]  # before the learner's first decision
                over = between & done  # a whole game without a learner decision
                self._carry[over] = 0.0
                skipped[over] += 1
            newly = running & (done | (self.round_episodes & self.batch.round_end))
            for i in np.flatnonzero(newly):
                final[int(i)] = self._final_info(int(i), bool(done[i]))
            ended |= newly
            if skipped.max(initial=0) > MAX_SKIPS:
                lane = int(skipped.argmax())
                raise RuntimeError(f"lane {lane}: the learner never got to act")
            waiting = actor != self._learner_seat
        return obs, mask, total, ended, final, skipped


class _SB3Tables:
    """The methods of ``BatchLearnerSB3VecEnv``: SB3 (the [train] extra) is imported only when
    the class is first asked for, so the gymnasium environment needs neither SB3 nor torch."""

    num_envs: int
    reset_infos: list[dict[str, Any]]
    _get_indices: Callable[[Any], Any]

    LANE_ATTRS: ClassVar[tuple[str, ...]] = ("learner_seat",)

    def __init__(self, num_envs: int, **kwargs: Any) -> None:
        self.env = BatchLearnerVecEnv(num_envs, **kwargs)
        self.render_mode = None
        self._seed: int | None = None
        self._actions: np.ndarray | None = None
        super().__init__(  # type: ignore[call-arg]  # VecEnv's, after this class in the MRO
            self.env.num_envs, self.env.single_observation_space, self.env.single_action_space
        )

    def reset(self) -> np.ndarray:
        obs, infos = self.env.reset(seed=self._seed)
        self._seed = None
        self.reset_infos = [self._lane_info(infos, i) for i in range(self.num_envs)]
        return obs

    def seed(self, seed: int | None = None) -> list[int | None]:
        """One seed for the whole batch (each lane derives its deals from it), used by the next
        ``reset()``."""
        if seed is not None:
            seed = _count("seed", seed, 0)
        self._seed = seed
        return [seed] * self.num_envs

    def step_async(self, actions: np.ndarray) -> None:
        self._actions = actions

    def step_wait(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, list[dict[str, Any]]]:
        if self._actions is None:
            raise RuntimeError("step_wait() without step_async()")
        actions, self._actions = self._actions, None
        obs, rewards, terminated, truncated, infos = self.env.step(actions)
        dones = terminated | truncated
        out: list[dict[str, Any]] = [{} for _ in range(self.num_envs)]
        for i in np.flatnonzero(dones):
            out[i] = {
                key: value[i]
                for key, value in infos["final_info"].items()
                if not key.startswith("_") and infos["final_info"][f"_{key}"][i]
            }
            out[i]["terminal_observation"] = infos["final_obs"][i]
            out[i]["TimeLimit.truncated"] = bool(truncated[i])
            self.reset_infos[i] = self._lane_info(infos, i)
        return obs, rewards, dones, out

    def close(self) -> None:
        self.env.close()

    def action_masks(self) -> np.ndarray:
        """The learner's legal actions, one row per lane (num_envs, num_actions) bool."""
        return self.env.action_masks()

    def get_attr(self, attr_name: str, indices: Any = None) -> list[Any]:
        lanes = self._indices(indices)
        if attr_name in self.LANE_ATTRS:
            values = getattr(self.env, attr_name)
            return [values[i].item() for i in lanes]
        return [getattr(self.env, attr_name)] * len(lanes)

    def set_attr(self, attr_name: str, value: Any, indices: Any = None) -> None:
        self._whole_batch("set_attr", attr_name, indices)
        setattr(self.env, attr_name, value)

    def env_method(
        self, method_name: str, *method_args: Any, indices: Any = None, **method_kwargs: Any
    ) -> list[Any]:
        lanes = self._indices(indices)
        if method_name == "action_masks":
            masks = self.env.action_masks()
            return [masks[i] for i in lanes]
        self._whole_batch("env_method", method_name, indices)
        result = getattr(self.env, method_name)(*method_args, **method_kwargs)
        return [result] * len(lanes)

    def env_is_wrapped(
        self, wrapper_class: type[gymnasium.Wrapper], indices: Any = None
    ) -> list[bool]:
        return [False] * len(self._indices(indices))

    # ------------------------------------------------------------------ internals

    def _indices(self, indices: Any) -> list[int]:
        lanes = list(self._get_indices(indices))
        for i in lanes:
            if not 0 <= operator.index(i) < self.num_envs:
                raise ValueError(f"index {i} is out of range 0..{self.num_envs - 1}")
        return [operator.index(i) for i in lanes]

    def _whole_batch(self, call: str, name: str, indices: Any) -> None:
        """The tables share one core: a shared attribute or method is the whole batch's."""
        if indices is not None and sorted(set(self._indices(indices))) != list(
            range(self.num_envs)
        ):
            raise ValueError(
                f"{call}({name!r}, indices={indices!r}): the lanes share one batch; "
                "pass indices=None (all lanes)"
            )

    @staticmethod
    def _lane_info(infos: dict[str, Any], lane: int) -> dict[str, Any]:
        return {
            key: value[lane].item()
            for key, value in infos.items()
            if not key.startswith("_")
            and key not in ("final_obs", "final_info")
            and infos[f"_{key}"][lane]
        }


@functools.cache
def _sb3_class() -> type:
    from stable_baselines3.common.vec_env import VecEnv

    cls = type("BatchLearnerSB3VecEnv", (_SB3Tables, VecEnv), {"__module__": __name__})
    cls.__doc__ = "``BatchLearnerVecEnv`` as a Stable-Baselines3 ``VecEnv`` (module docstring)."
    return cls


def __getattr__(name: str) -> Any:
    if name == "BatchLearnerSB3VecEnv":
        return _sb3_class()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
