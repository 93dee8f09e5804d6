"""The environment of ``continental train-rllib``: the project's AEC game through RLlib's
``PettingZooEnv``, with the observation renamed for RLlib's action-masking RLModule and the
frozen seats (snapshots, bots) played inside the environment, and the roles a seat can take."""

from __future__ import annotations

from typing import Any

import numpy as np

from agents.bots.ppo_agent import NumpyPolicy

ENV_ID = "continental_rllib"
LEARNER = "learner"  # the RLModule every learner seat maps to
SELF = "self"
SNAPSHOTS = "snapshots"
BOTS = ("random", "greedy", "strong")
ROLES = (SELF, SNAPSHOTS, *BOTS)


def make_aec_env(config: dict[str, Any]) -> Any:
    """The project's AEC environment with the observation renamed for RLlib's masking module."""
    from continental_env import env as continental_aec

    return RLlibObservation(
        continental_aec(
            num_players=config["players"],
            preset=config["preset"],
            rounds=config["rounds"],
            reward=config.get("reward", "relative"),
        )
    )


def _observation_wrapper_base() -> type:
    from pettingzoo.utils.wrappers import BaseWrapper

    return BaseWrapper


class RLlibObservation(_observation_wrapper_base()):  # type: ignore[misc]
    """``{"observation", "action_mask" int8}`` -> ``{"observations", "action_mask" float32}``.

    RLlib's action-masking RLModule reads the two keys by these names and takes ``log`` of the
    mask, which needs a float tensor. The values are the environment's own.
    """

    def __init__(self, env: Any) -> None:
        super().__init__(env)
        from gymnasium import spaces

        self._spaces: dict[str, Any] = {}
        for agent in env.possible_agents:
            inner = env.observation_space(agent)
            self._spaces[agent] = spaces.Dict(
                {
                    "observations": inner["observation"],
                    "action_mask": spaces.Box(
                        0.0, 1.0, shape=inner["action_mask"].shape, dtype=np.float32
                    ),
                }
            )

    def observation_space(self, agent: str) -> Any:
        return self._spaces[agent]

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        obs = self.env.observe(agent)
        return {
            "observations": obs["observation"],
            "action_mask": obs["action_mask"].astype(np.float32),
        }


def _pettingzoo_env_base() -> type:
    try:
        from ray.rllib.env.wrappers.pettingzoo_env import PettingZooEnv
    except ImportError:  # the module stays importable (for --help and the checks) without ray
        return object
    return PettingZooEnv


class ContinentalMultiAgentEnv(_pettingzoo_env_base()):  # type: ignore[misc]
    """RLlib's ``PettingZooEnv`` over the game, with frozen seats played inside the environment.

    ``config``: ``players``, ``preset``, ``rounds``, ``reward``, ``opponents`` (roles, see the
    module docstring), ``seed``. RLlib sees only the learner's seats: it gets their observations,
    their rewards (the environment's per-round relative rewards, summed until the seat acts
    again) and picks their actions; snapshots and bots act here, between those steps.
    """

    def __init__(self, config: dict[str, Any] | None = None) -> None:
        worker = int(getattr(config, "worker_index", 0))
        vector = int(getattr(config, "vector_index", 0))
        config = dict(config or {})
        self.settings = config
        super().__init__(make_aec_env(config))
        self.roles: list[str] = list(config.get("opponents", [SELF]))
        ContinentalMultiAgentEnv._instances += 1
        self._seed = int(config.get("seed", 0)) * 1_000_003 + worker * 10_007 + vector * 101
        self._seed += ContinentalMultiAgentEnv._instances  # several sub-environments per runner
        self.rng = np.random.default_rng(self._seed)
        self._first_reset = True
        self.pool: list[NumpyPolicy] = []
        self._bots: dict[str, Any] = {}
        self.seat_roles: list[str] = []
        self.seat_policy: dict[int, Any] = {}
        self.learner_seats: set[str] = set()

    _instances = 0

    # ------------------------------------------------------------------ the pool

    def set_pool(self, snapshots: list[tuple[list[tuple[np.ndarray, np.ndarray]], str]]) -> int:
        """Replace the frozen snapshots: ``[(weights, activation), ...]``; returns the pool size."""
        self.pool = [
            NumpyPolicy(
                w, activation=a, name=f"snapshot{i}", deterministic=False, seed=self._seed + i
            )
            for i, (w, a) in enumerate(snapshots)
        ]
        return len(self.pool)

    def _bot(self, name: str) -> Any:
        if name not in self._bots:
            from agents.train.single_agent import opponent

            self._bots[name] = opponent(name, int(self.rng.integers(2**31)))
        return self._bots[name]

    # ------------------------------------------------------------------ episodes

    def _assign_seats(self) -> None:
        players = self.env.unwrapped.num_players
        learner = int(self.rng.integers(players))
        self.seat_roles = [SELF] * players
        self.seat_policy = {}
        for seat in range(players):
            if seat == learner:
                continue
            role = self.roles[int(self.rng.integers(len(self.roles)))]
            if role == SNAPSHOTS and not self.pool:
                role = SELF  # no frozen learner yet: the learner plays the seat
            self.seat_roles[seat] = role
            if role == SNAPSHOTS:
                self.seat_policy[seat] = self.pool[int(self.rng.integers(len(self.pool)))]
            elif role != SELF:
                self.seat_policy[seat] = self._bot(role)
        agents = self.env.possible_agents
        self.learner_seats = {agents[s] for s in range(players) if self.seat_roles[s] == SELF}

    def reset(self, *, seed: int | None = None, options: dict | None = None) -> tuple[dict, dict]:
        if seed is None and self._first_reset:
            seed = self._seed
        if seed is not None:
            self.rng = np.random.default_rng(seed)
        self._first_reset = False
        self.env.reset(seed=seed, options=options)
        self._assign_seats()
        obs, _, _, _, infos = self._advance()
        return obs, infos

    def step(self, action_dict: dict[str, int]) -> tuple[dict, dict, dict, dict, dict]:
        self.env.step(int(action_dict[self.env.agent_selection]))
        return self._advance()

    def _advance(self) -> tuple[dict, dict, dict, dict, dict]:
        """Play frozen seats until a learner seat must act or the game ends; RLlib's dicts."""
        obs: dict[str, Any] = {}
        rew: dict[str, float] = {}
        term: dict[str, bool] = {}
        trunc: dict[str, bool] = {}
        infos: dict[str, dict] = {}
        env = self.env
        truncated_any = False
        while env.agents:
            agent = env.agent_selection
            o, r, te, tr, info = env.last()
            mine = agent in self.learner_seats
            if te or tr:
                truncated_any |= bool(tr)
                if mine:
                    obs[agent], rew[agent], term[agent], trunc[agent] = (
                        o,
                        float(r),
                        bool(te),
                        bool(tr),
                    )
                    infos[agent] = dict(info)
                env.step(None)
                continue
            if mine:
                obs[agent], rew[agent], term[agent], trunc[agent] = o, float(r), False, False
                infos[agent] = dict(info)
                break
            seat = env.unwrapped.agent_name_mapping[agent]
            env.step(self._frozen_action(seat, o))
        done = not env.agents
        if done:
            result = self.game_result()
            for agent in infos:
                infos[agent]["game"] = result
        term["__all__"] = done and not truncated_any
        trunc["__all__"] = done and truncated_any
        return obs, rew, term, trunc, infos

    def _frozen_action(self, seat: int, obs: dict[str, np.ndarray]) -> int:
        policy = self.seat_policy[seat]
        if isinstance(policy, NumpyPolicy):
            legal = np.flatnonzero(obs["action_mask"]).tolist()
            return policy.act_from_observation(obs["observations"], legal)
        return int(policy(self.env.unwrapped.game, seat))

    def game_result(self) -> dict[str, Any]:
        """Points of the finished game by role: the learner's seats against each opponent kind."""
        game = self.env.unwrapped.game
        rounds = max(1, len(game.round_history))
        scores = list(game.scores)
        by_role: dict[str, list[int]] = {}
        for seat, role in enumerate(self.seat_roles):
            by_role.setdefault(role, []).append(scores[seat])
        mean = {role: float(np.mean(v)) for role, v in by_role.items()}
        margins = {
            role: (mean[role] - mean[SELF]) / rounds for role in mean if role != SELF
        }  # positive: that kind of seat lost more points per round than the learner
        return {"rounds": rounds, "learner_points": mean[SELF], "margin_per_round": margins}
