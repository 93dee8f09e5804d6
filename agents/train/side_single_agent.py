"""The fifteen-card and knock single-learner environments with the bots wired in.

``make_env(game="knock", opponents=["greedy", "self"])`` is
``continental_env.single_agent.SingleAgentSideGame`` (with ``features=True``,
``SideFeatureGame``: the ``fifteen_v1`` / ``knock_v1`` observation of ``agents.side_features``;
``features="v2"``: ``knock_v2``)
whose pool may hold bot names
(``make_agent(name, seed, game=...)``: ``random``, ``greedy``, ``strong``, ``ppo:PATH``), bot
objects and ``"self"`` (frozen learner snapshots, ``.npz``). Everything here pickles, so
``make_env`` works as a ``SubprocVecEnv`` factory.

Trained side-game policies play as bots through ``agents.bots.side_policy`` (``SidePolicyAgent``,
``load_policy``, ``side_metadata``; importable from here too).
"""

from __future__ import annotations

import functools
import importlib
from typing import Any

import numpy as np
from gymnasium import spaces

from agents.bots.side_policy import SIDE_ENVS, SidePolicyAgent, load_policy, side_metadata
from agents.train.single_agent import ignore_stop_signals, opponent_pool
from continental_env.single_agent import SingleAgentSideGame

__all__ = [
    "SIDE_ENVS",
    "SideFeatureGame",
    "SidePolicyAgent",
    "SideSeatAgent",
    "load_policy",
    "make_env",
    "make_worker_env",
    "opponent",
    "side_metadata",
    "snapshot",
    "teacher_decisions",
]


class SideSeatAgent:
    """A side-game bot as an opponent callable ``(game, seat) -> action id``, on its seat's view."""

    def __init__(self, agent: Any, game: str) -> None:
        self.agent = agent
        self.game = game
        self.name: str = getattr(agent, "name", type(agent).__name__)

    def __call__(self, state: Any, seat: int) -> int:
        from agents.games import game_spec

        return self.agent.act(game_spec(self.game).view(state, seat))

    def __repr__(self) -> str:
        return f"SideSeatAgent({self.game}, {self.name})"


def opponent(game: str, name: str, seed: int | None = None) -> SideSeatAgent:
    """An opponent callable for a ``make_agent`` name of a side game."""
    from agents import make_agent

    return SideSeatAgent(make_agent(name, seed, game=game), game)


def snapshot(game: str, path: str) -> SideSeatAgent:
    """An opponent callable for a frozen learner snapshot (``.npz``)."""
    return SideSeatAgent(load_policy(game, path), game)


class SideFeatureGame(SingleAgentSideGame):
    """``SingleAgentSideGame`` observing ``fifteen_v1`` / ``knock_v1`` (``version=2``:
    ``knock_v2``): the v0 vector followed by the features of the learner's view
    (``agents.side_features``)."""

    def __init__(self, game: str, version: int = 1, **kwargs: Any) -> None:
        from agents.side_features import env_name, feature_size, feature_version

        self.version = feature_version(version)
        if self.version == 0:
            raise ValueError(f"version={version!r}: a feature observation is v1 or v2")
        env_name(game, self.version)  # a game without this version fails here, before any game
        super().__init__(game, **kwargs)
        size = self.observation_space.shape[0] + feature_size(game, self.version)
        self.observation_space = spaces.Box(-np.inf, np.inf, shape=(size,), dtype=np.float32)

    def _observe(self) -> np.ndarray:
        from agents.games import game_spec
        from agents.side_features import observation

        view = game_spec(self.game_name).view(self.game, self.learner)
        return observation(view, self.game_name, self.version)


def make_env(
    game: str, opponents: Any = ("greedy",), features: bool | int | str = False, **kwargs: Any
) -> SingleAgentSideGame:
    """A ``SingleAgentSideGame`` (``SideFeatureGame`` with ``features``: True or ``"v1"`` for
    ``*_v1``, ``"v2"`` for ``knock_v2``) whose pool may hold bot names, bot objects and ``"self"``.

    Names are checked here, before any game (a bad name fails now, with its reason).
    """
    from agents import make_agent
    from agents.side_features import feature_version

    version = feature_version(features)
    pool = opponent_pool(
        opponents,
        lambda name: make_agent(name, 0, game=game),
        functools.partial(SideSeatAgent, game=game),
    )
    extra = {"version": version} if version else {}
    cls = SideFeatureGame if version else SingleAgentSideGame
    return cls(
        game=game,
        **extra,
        opponents=pool,
        make_opponent=functools.partial(opponent, game),
        load_snapshot=functools.partial(snapshot, game),
        **kwargs,
    )


def make_worker_env(**kwargs: Any) -> SingleAgentSideGame:
    """``make_env`` for a worker process (``agents.train.single_agent.ignore_stop_signals``)."""
    ignore_stop_signals()
    return make_env(**kwargs)


def teacher_decisions(
    game: str, options: dict[str, Any], task: tuple[str, int, Any, int, int, int]
) -> dict[str, Any]:
    """A teacher bot's decisions in one side game, for ``train.py --bc-teacher`` (the contract
    game's ``teacher_decisions`` shape): observations, legal actions, actions and each decision's
    return (the seat's chips from that decision to the game's end, in the AEC rewards' scale).
    The task's last field is the observation: 0 = v0, 1 or 2 = the feature observation of that
    version (``*_v1``, ``knock_v2``)."""
    from agents import make_agent
    from agents.games import game_spec
    from agents.side_features import observation

    teacher, players, _preset, game_seed, agent_seed, version = task
    spec = game_spec(game)
    module = importlib.import_module(f"continental_env.{game}.aec")
    layout = module.observation_layout(players)
    state = spec.new_game(players, game_seed, dict(options))
    bots = [make_agent(teacher, agent_seed + s, game=game) for s in range(players)]
    obs, legal, actions, seats, before = [], [], [], [], []
    while not state.is_over:
        seat = state.actor
        choices = state.legal_actions()
        view = spec.view(state, seat)
        action = bots[seat].act(view)
        if len(choices) > 1:  # forced moves teach nothing
            if version:
                obs.append(observation(view, game, version))
            else:
                obs.append(module.encode_observation(state, seat, layout))
            legal.append(np.array(choices, dtype=np.int16))
            actions.append(action)
            seats.append(seat)
            before.append(spec.final_scores(state)[seat])
        state.apply(action)
    final = spec.final_scores(state)
    scale = module.chip_scale(state)  # the AEC rewards' scale
    returns = [(final[s] - b) / scale for s, b in zip(seats, before, strict=True)]
    return {
        "obs": np.array(obs, dtype=np.float32),
        "legal": legal,
        "actions": np.array(actions, dtype=np.int64),
        "returns": np.array(returns, dtype=np.float32),
    }


def suit_permutation(
    game: str, num_players: int, perm: tuple[int, ...], features: bool | int | str = False
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Index arrays that relabel the suits of a side-game decision: suit ``s`` becomes
    ``perm[s]``. Returns ``(obs_src, action_src, action_dst)``: the relabelled observation is
    ``obs[..., obs_src]``, a legal mask ``mask[..., action_src]`` and an action id
    ``action_dst[action]``.

    Both games are symmetric in the suits (sequences and runs are of one suit, a color is any
    suit, payments and deadwood never name one), so a decision with its suits relabelled is as
    good a decision; ``train.py --bc-augment-suits`` imitates the teacher under random relabelings.
    With ``features`` the observation is the feature one of that version (True: v1;
    ``agents.side_features``), whose card-indexed planes move with the cards.
    """
    from agents.side_features import feature_version
    from continental_env.cards import JOKER, NUM_RANKS

    version = feature_version(features)

    if sorted(perm) != [0, 1, 2, 3]:
        raise ValueError(f"perm={perm!r}: a permutation of the suits 0, 1, 2, 3")
    env = importlib.import_module(f"continental_env.{game}.env")
    rules = importlib.import_module(f"continental_env.{game}.game")
    layout = env.observation_layout(num_players)
    card_map = np.arange(JOKER)
    for suit in range(4):
        card_map[suit * NUM_RANKS : (suit + 1) * NUM_RANKS] = perm[suit] * NUM_RANKS + np.arange(
            NUM_RANKS
        )
    v0_size = max(s.stop for s in layout.values())
    extra = 0
    if version:
        from agents.side_features import feature_planes, feature_size

        extra = feature_size(game, version)
    obs_src = np.arange(v0_size + extra)
    for name in env.PLANE_NAMES:
        part = layout[name]
        for base in range(part.start, part.stop, env.PLANE):
            obs_src[base + card_map] = base + np.arange(JOKER)
    if version:
        from continental_env.cards import NUM_TYPES

        for i in range(len(feature_planes(game, version))):
            base = v0_size + i * NUM_TYPES
            obs_src[base + card_map] = base + np.arange(JOKER)
    action_dst = np.arange(env.NUM_ACTIONS)
    for block in env.CARD_ACTION_BLOCKS:  # the game's own card-indexed action blocks
        base = getattr(rules, block)
        action_dst[base + np.arange(JOKER)] = base + card_map
    action_src = np.argsort(action_dst)
    return obs_src, action_src, action_dst
