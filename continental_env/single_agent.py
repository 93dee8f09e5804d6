"""A single-learner gymnasium view of Continental, for single-agent RL libraries.

One seat is the *learner*; the other seats are played by opponents drawn from a pool, inside
``step()``. The learner sees exactly what the AEC environment would give it: the observation
vector of its ``version`` (``continental_v0`` or ``continental_v1``, built once per state by the
environment's ``ObservationEncoder``; ``encode_observation`` is the reference) and the legal-action
mask (``action_masks()``, the method sb3-contrib's MaskablePPO looks for). Rewards are the
learner's own, from the AEC environment's reward logic (``reward="relative"`` by default: at each
round's end, (mean of the others' points - own points) / 100).

The environment knows nothing of the bots (data flows one way: ``agents`` builds on this
package, never the reverse). An *opponent* is any callable ``opponent(game, seat) -> action id``
that reads only what ``seat`` may see; the caller supplies them, or supplies ``make_opponent`` to
build them from names. ``agents.single_agent.make_env`` is this class with the bots wired in:
names for ``agents.make_agent``, bot objects, and ``"self"`` snapshots.

| argument | default | meaning |
|---|---|---|
| ``num_players`` | 4 | seats at the table |
| ``preset`` | ``"continental"`` | a preset name or a ``RuleConfig`` |
| ``rounds`` | all seven | a round number or a list of them (curriculum on one contract) |
| ``opponents`` | (required) | the pool: opponent callables, names for ``make_opponent``, or ``"self"`` |
| ``reward`` | ``"relative"`` | as ``continental_env.env`` |
| ``round_episodes`` | False | end the gymnasium episode at each round's end (below) |
| ``seed`` | None | seeds the deals, the learner's seat and the opponents' draws |
| ``mask_in_info`` | False | also return the next state's mask as ``info["action_mask"]`` |
| ``make_opponent`` | None | ``make_opponent(name, seed) -> opponent`` for the pool's names |
| ``load_snapshot`` | None | ``load_snapshot(path) -> opponent`` for ``add_snapshot`` |
| ``version`` | 0 | the observation: 0 = ``continental_v0``, 1 = ``continental_v1`` |
| ``illegal`` | ``"raise"`` | an illegal learner action: ``"raise"`` ValueError, nothing changes; ``"terminate"`` ends the episode with reward ``illegal_reward`` and ``info["illegal_action"] = True`` (what checkers that sample unmasked actions need) |
| ``illegal_reward`` | -1.0 | the reward of an illegal action under ``illegal="terminate"`` |

The observation space is ``Box(0, inf)`` of the v0 size for v0 and ``Box(-inf, inf)`` of the v1
size for v1 (the bounds the first models of the v1 observation were trained with, so that they
load with ``MaskablePPO.load(path, env=...)``).

Each game (or round, with ``round_episodes``) the learner takes a uniformly random seat and every
other seat gets an opponent drawn uniformly from the pool (a name is built once per seat, seeded
from the environment's generator). ``"self"`` in the pool stands for a frozen snapshot of the
learner: ``add_snapshot(path)`` registers one (through ``load_snapshot``) and ``"self"`` draws one
of the registered snapshots (the pool's other entries when there is none yet, ``"random"`` if
there are none).

With ``round_episodes=True`` an episode is one round: relative rewards make rounds independent
(what happens in one round does not change what is best in the next), so ending the episode at the
round's end spares the value function predicting later rounds. The next ``reset()`` continues the
same game into its next round with fresh seats and opponents, so all seven contracts are seen. A
round that ends before the learner's first decision in it (an opponent going out at once) is
skipped; ``info["skipped_rounds"]`` counts them.

The learner is never handed an all-zero mask: it is only asked to act when the engine awaits its
seat, and every live state has a legal action. After the episode ends, ``action_masks()`` returns
a mask with the single action 0, which no one uses but keeps maskable samplers well defined.
``mask_in_info`` lets a vectorised trainer read the masks from the step's results instead of a
second round-trip to each worker process (``agents.train``'s ``MasksFromInfo``).
"""

from __future__ import annotations

import operator
import random
from collections.abc import Callable, Sequence
from typing import Any, ClassVar

import gymnasium
import numpy as np
from gymnasium import spaces

from continental_env.aec import ObservationEncoder, raw_env
from continental_env.game import Game
from continental_env.rules import RuleConfig

SELF = "self"
FALLBACK = "random"  # built by make_opponent while a pool of only "self" has no snapshot yet
Opponent = Callable[[Game, int], int]  # (game, seat) -> a legal action id for that seat


class SingleAgentContinental(gymnasium.Env):
    """The learner's seat of a Continental table; see the module docstring."""

    metadata: ClassVar[dict[str, Any]] = {"render_modes": ["ansi"], "name": "continental_single_v0"}

    def __init__(
        self,
        num_players: int = 4,
        preset: str | RuleConfig = "continental",
        rounds: int | Sequence[int] | None = None,
        opponents: Sequence[Opponent | str] = (),
        reward: str = "relative",
        round_episodes: bool = False,
        seed: int | None = None,
        render_mode: str | None = None,
        mask_in_info: bool = False,
        make_opponent: Callable[[str, int], Opponent] | None = None,
        load_snapshot: Callable[[str], Opponent] | None = None,
        version: int = 0,
        illegal: str = "raise",
        illegal_reward: float = -1.0,
    ) -> None:
        super().__init__()
        if illegal not in ("raise", "terminate"):
            raise ValueError(f"illegal={illegal!r}: choose 'raise' or 'terminate'")
        self.illegal = illegal
        self.illegal_reward = float(illegal_reward)
        rounds_arg = list(rounds) if isinstance(rounds, (list, tuple)) else rounds
        self._aec = raw_env(
            num_players=num_players, preset=preset, rounds=rounds_arg, reward=reward,
            version=version,
        )  # fmt: skip
        self.version = version
        self._encoder = ObservationEncoder(num_players, version)
        self.make_opponent = make_opponent
        self.load_snapshot = load_snapshot
        self.num_players = num_players
        self.pool: list[Any] = []
        self.set_opponents(opponents)
        self.round_episodes = round_episodes
        self.render_mode = render_mode
        self.mask_in_info = mask_in_info
        self.layout = self._aec.observation_layout
        self.num_actions = self._aec.num_actions
        low = 0.0 if version == 0 else -np.inf
        self.observation_space = spaces.Box(
            low, np.inf, shape=(self._aec.obs_size,), dtype=np.float32
        )
        self.action_space = spaces.Discrete(self.num_actions)
        self._rng = random.Random(seed)
        self._agents: dict[tuple[str, int], Opponent] = {}  # opponents built by name, per seat
        self._snapshots: list[Opponent] = []
        self.learner = 0
        self.seat_agents: list[Any] = [None] * num_players
        self._game_running = False
        self._episode_open = False
        self._skipped = 0
        self.opponent_decisions = 0

    # ------------------------------------------------------------------ pool

    @property
    def game(self) -> Any:
        """The engine behind the table."""
        return self._aec.game

    def add_snapshot(self, path: str, keep: int = 5) -> int:
        """Register a frozen learner snapshot for ``"self"`` (read by ``load_snapshot``); keeps
        the newest ``keep``."""
        if self.load_snapshot is None:
            raise ValueError("add_snapshot needs load_snapshot (e.g. agents.single_agent.make_env)")
        self._snapshots.append(self.load_snapshot(path))
        del self._snapshots[:-keep]
        return len(self._snapshots)

    def set_opponents(self, opponents: Sequence[Opponent | str]) -> None:
        """Replace the pool from the next deal on."""
        if not opponents:
            raise ValueError("opponents: the pool needs at least one entry")
        for entry in opponents:
            if isinstance(entry, str):
                if entry != SELF and self.make_opponent is None:
                    raise ValueError(
                        f"opponent {entry!r} is a name: pass make_opponent to build it "
                        "(agents.single_agent.make_env does), or pass opponent callables"
                    )
            elif not callable(entry):
                raise ValueError(f"opponent {entry!r} is neither a name nor a callable")
        self.pool = list(opponents)

    def _opponent(self, entry: Any, seat: int) -> Opponent:
        if not isinstance(entry, str):
            return entry  # an opponent callable
        if entry == SELF:
            if self._snapshots:
                return self._rng.choice(self._snapshots)
            others = [e for e in self.pool if e != SELF]
            if not others and self.make_opponent is None:
                raise ValueError("the pool is only 'self' and no snapshot is registered yet")
            return self._opponent(self._rng.choice(others or [FALLBACK]), seat)
        key = (entry, seat)
        agent = self._agents.get(key)
        if agent is None:
            assert self.make_opponent is not None  # checked by set_opponents
            agent = self.make_opponent(entry, self._rng.getrandbits(32))
            self._agents[key] = agent
        return agent

    def _seat_players(self) -> None:
        p = self.num_players
        self.learner = self._rng.randrange(p)
        self.seat_agents = [
            None if s == self.learner else self._opponent(self._rng.choice(self.pool), s)
            for s in range(p)
        ]

    # ------------------------------------------------------------------ gymnasium API

    def reset(
        self, *, seed: int | None = None, options: dict | None = None
    ) -> tuple[np.ndarray, dict[str, Any]]:
        if seed is not None:
            try:
                seed = operator.index(seed)  # any integer kind: int, numpy integers
            except TypeError:
                raise ValueError(f"seed {seed!r} is not an integer") from None
        super().reset(seed=seed)
        if seed is not None:
            self._rng = random.Random(seed)
            self._agents = {}  # opponents are rebuilt from the new generator: same seed, same game
            self._game_running = False
        self._skipped = 0
        if not self._game_running or self.game.is_over:
            self._new_game()
        self._seat_players()
        while True:
            rounds_before = len(self.game.state.round_history)
            self._play_opponents(stop_at_round_end=True)
            if self.game.is_over:
                self._new_game()
                self._seat_players()
            elif len(self.game.state.round_history) == rounds_before:
                break
            self._skipped += 1  # a round ended before the learner's first decision in it
            if self._skipped > 100:
                raise RuntimeError("the learner never got to act")
        self._episode_open = True
        info = {"seat": self.learner, "skipped_rounds": self._skipped}
        return self._observe(), self._with_mask(info)

    def step(self, action: int) -> tuple[np.ndarray, float, bool, bool, dict[str, Any]]:
        if not self._episode_open:
            raise RuntimeError("step() after the episode ended; call reset()")
        aec = self._aec
        agent = aec.possible_agents[self.learner]
        rounds_before = len(self.game.state.round_history)
        if self.illegal == "terminate" and not self._legal(action):
            self._episode_open = False
            self._game_running = False  # the next reset deals a new game
            info = {"illegal_action": True, "seat": self.learner}
            return self._observe(), self.illegal_reward, True, False, self._with_mask(info)
        aec.step(int(action))  # raises ValueError on an illegal action
        reward = aec.rewards[agent]
        if not self.game.is_over and not self._round_over(rounds_before):
            reward += self._play_opponents(stop_at_round_end=self.round_episodes)
        game = self.game
        info: dict[str, Any] = {}
        terminated = game.is_over or (self.round_episodes and self._round_over(rounds_before))
        if terminated:
            self._episode_open = False
            info["round_points"] = [r["points"][self.learner] for r in game.state.round_history]
            info["score"] = game.state.scores[self.learner]
        return self._observe(), float(reward), terminated, False, self._with_mask(info)

    def _legal(self, action: Any) -> bool:
        try:
            move = operator.index(action)
        except TypeError:
            return False
        return 0 <= move < self.num_actions and move in self.game.legal_actions()

    def _new_game(self) -> None:
        self._aec.reset(seed=self._rng.getrandbits(64))
        self._game_running = True

    def _round_over(self, rounds_before: int) -> bool:
        return self.round_episodes and len(self.game.state.round_history) > rounds_before

    def action_masks(self) -> np.ndarray:
        """Boolean mask of the learner's legal actions (never all False)."""
        mask = np.zeros(self.num_actions, dtype=bool)
        game = self.game
        if self._episode_open and game.actor == self.learner:
            mask[game.legal_actions()] = True
        else:
            mask[0] = True
        return mask

    def _with_mask(self, info: dict[str, Any]) -> dict[str, Any]:
        if self.mask_in_info:
            info["action_mask"] = self.action_masks()
        return info

    def render(self) -> str | None:
        from continental_env.render import render_table

        return render_table(self.game)

    # ------------------------------------------------------------------ internals

    def _observe(self) -> np.ndarray:
        return self._encoder.encode(self.game, self.learner)

    def _play_opponents(self, stop_at_round_end: bool = False) -> float:
        """Opponents act until the learner is asked (or the game, or the round, ends)."""
        aec = self._aec
        game = self.game
        learner_agent = aec.possible_agents[self.learner]
        rounds_before = len(game.state.round_history)
        reward = 0.0
        while not game.is_over:
            seat = game.actor
            if seat == self.learner:
                break
            legal = game.legal_actions()
            action = legal[0] if len(legal) == 1 else self.seat_agents[seat](game, seat)
            aec.step(action)
            self.opponent_decisions += 1
            reward += aec.rewards[learner_agent]
            if stop_at_round_end and len(game.state.round_history) > rounds_before:
                break
        return reward


def make_env(**kwargs: Any) -> SingleAgentContinental:
    """A ``SingleAgentContinental`` (keyword arguments as its constructor)."""
    return SingleAgentContinental(**kwargs)
