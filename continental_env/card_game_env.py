"""What the three games' AEC environments share: ``CardGameEnv`` and the wrapper stack.

A game's environment (``continental_env.contract.aec``, ``fifteen.aec``, ``knock.aec``; the last two
through ``continental_env.side_env.SideGameEnv``) is a subclass that supplies only what is its
own:

| it supplies | what it is |
|---|---|
| ``GAME``, ``GAME_LABEL`` | the engine class (and its name in errors) that ``env.game = ...`` accepts |
| ``RENDER_MODULE`` | a module with ``render_table(game)``, imported when rendering |
| ``REWARD_MODES`` | its ``reward=`` choices; ``win`` is handled here |
| ``new_game(seed)`` | a fresh engine for ``reset`` |
| ``encode(game, seat)`` | one seat's observation vector (public information only) |
| ``before_step(game)`` / ``score_step(game, mark)`` | the reward hook: what to remember before an action, then the rewards and infos it earned |
| ``state_parts(P)`` / ``encode_state_extra`` | its part of the full-information ``state()`` |
| ``on_new_position(game, fresh)`` | optional: per-position bookkeeping of its own (the knock game's chips paid out), with ``EXTRA_POSITION_FIELDS`` to pickle it |

and calls ``CardGameEnv.__init__`` with its table size, reward mode, render mode, action count
and observation layout. Everything else is here: the spaces, ``reset`` and seeding, ``step``
(engine call, rewards, terminations, the next agent), pickling and ``copy.deepcopy`` of a running
environment, the observation cache (one observation and mask per agent and position, shared by
``last()``, ``observe()`` and ``action_mask()``), masks, rendering, ``state()`` /
``state_space``, and ``wrap`` (PettingZoo's standard wrappers, the ``env()`` of each game).

## ``state()``

PettingZoo's optional full-information API, for centralised or privileged critics (MAPPO,
PerfectDou). ``state()`` is a new float32 vector of ``state_space`` (a ``Box``) after
``reset``; ``state_layout`` names its parts. Seats are absolute (``hands`` plane ``s`` is seat
``s``'s hand). Every game starts with the same parts, count planes of 65 (5 x 13, as in the
observation):

| name | size | content |
|---|---|---|
| ``hands`` | 65 P | every seat's hand, seat 0 first |
| ``stock`` | 65 | the stock's composition (counts; its order is not given) |
| ``discard_pile`` | 65 | the discard pile's composition |
| ``discard_top`` | 65 | the pile's top card |
| ``discards_seen`` | 65 | every card discarded face up this round or hand |
| ``known`` | 65 P | cards each seat is publicly known to hold |
| ``actor`` | P | one-hot seat to act (all 0 once the game is over) |
| ``dealer`` | P | one-hot seat of the dealer |

followed by the game's own ``state_parts`` (its environment's docstring has the table). The state
holds hidden information by design; it is never part of an observation (tested both ways).
"""

from __future__ import annotations

import importlib
import operator
import random
from typing import Any, ClassVar

import numpy as np
from gymnasium import spaces
from gymnasium.utils import EzPickle
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers
from pettingzoo.utils.wrappers.order_enforcing import (
    AECOrderEnforcingIterable,
    AECOrderEnforcingIterator,
)

from continental_env import kernels
from continental_env.cards import NUM_TYPES
from continental_env.layout import consecutive_slices
from continental_env.rewards import win_rewards

PLANE = 65  # 5 x 13: rows C D H S, the fifth row holds the jokers in column 0
ILLEGAL_MODES = ("raise", "terminate")
# What a running environment carries besides its game (kept by pickle and copy.deepcopy).
POSITION_FIELDS = (
    "agents",
    "rewards",
    "_cumulative_rewards",
    "terminations",
    "truncations",
    "infos",
    "agent_selection",
)


def state_layout(num_players: int, parts: list[tuple[str, int]]) -> dict[str, slice]:
    """The ``state()`` layout: the shared parts (module docstring), then a game's ``parts``."""
    p = num_players
    shared = [
        ("hands", PLANE * p),
        ("stock", PLANE),
        ("discard_pile", PLANE),
        ("discard_top", PLANE),
        ("discards_seen", PLANE),
        ("known", PLANE * p),
        ("actor", p),
        ("dealer", p),
    ]
    return consecutive_slices(shared + parts)


def layout_size(layout: dict[str, slice]) -> int:
    """Length of the vector a layout describes."""
    return max(sl.stop for sl in layout.values())


def put_counts(vector: np.ndarray, start: int, cards: list[int]) -> None:
    """Add one to ``vector[start + c]`` for each card id ``c`` of ``cards`` (a pile, a stock)."""
    np.add.at(vector, start + np.asarray(cards, dtype=np.intp), 1.0)


class CardGameEnv(AECEnv, EzPickle):
    """The base of the games' ``raw_env`` classes; see the module docstring."""

    metadata: ClassVar[dict[str, Any]] = {
        "render_modes": ["human", "ansi"],
        "name": "card_game_v0",
        "is_parallelizable": False,
        "render_fps": 1,
    }
    GAME: ClassVar[type]
    GAME_LABEL: ClassVar[str]
    RENDER_MODULE: ClassVar[str]
    REWARD_MODES: ClassVar[tuple[str, ...]]
    EXTRA_POSITION_FIELDS: ClassVar[tuple[str, ...]] = ()  # a game's own per-position fields

    def __init__(
        self,
        num_players: int,
        reward: str,
        render_mode: str | None,
        num_actions: int,
        observation_layout: dict[str, slice],
        plane_names: tuple[str, ...],
        unbounded: tuple[str, ...] = (),
    ) -> None:
        """Called by a game's ``__init__`` after ``EzPickle.__init__`` with its own arguments and
        after it has checked its options; ``unbounded`` names the observation parts that may go
        negative (scores, chips)."""
        AECEnv.__init__(self)
        if reward not in self.REWARD_MODES:
            raise ValueError(f"reward={reward!r}: choose one of {self.REWARD_MODES}")
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(
                f"render_mode={render_mode!r}: choose one of {self.metadata['render_modes']}"
            )
        self.num_players = num_players
        self.reward_mode = reward
        self.render_mode = render_mode
        self.possible_agents = [f"player_{i}" for i in range(num_players)]
        self.agent_name_mapping = {a: i for i, a in enumerate(self.possible_agents)}
        self.observation_layout = observation_layout
        self.obs_size = layout_size(observation_layout)
        self.plane_slices = {name: observation_layout[name] for name in plane_names}
        self.num_actions = num_actions
        # One space object per agent, the same object on every call.
        self.action_spaces = {a: spaces.Discrete(num_actions) for a in self.possible_agents}
        low = np.zeros(self.obs_size, dtype=np.float32)
        for name in unbounded:
            low[observation_layout[name]] = -np.inf
        self.observation_spaces = {
            a: spaces.Dict(
                {
                    "observation": spaces.Box(low, np.inf, dtype=np.float32),
                    "action_mask": spaces.Box(0, 1, shape=(num_actions,), dtype=np.int8),
                }
            )
            for a in self.possible_agents
        }
        self.state_layout = state_layout(num_players, self.state_parts(num_players))
        state_low = np.zeros(layout_size(self.state_layout), dtype=np.float32)
        for name in unbounded:
            if name in self.state_layout:
                state_low[self.state_layout[name]] = -np.inf
        self.state_space = spaces.Box(state_low, np.inf, dtype=np.float32)
        self._seeder = random.Random()
        self._game: Any = None
        self._obs_cache: dict[str, dict[str, np.ndarray]] = {}
        self._obs_game: Any = None  # the cache belongs to this game object ...
        self._obs_moves = -1  # ... at this move count

    # ------------------------------------------------------------------ a game's hooks

    def new_game(self, seed: int) -> Any:
        """A fresh engine for ``reset``, dealt from ``seed``."""
        raise NotImplementedError

    def encode(self, game: Any, seat: int) -> np.ndarray:
        """A new observation vector of ``seat`` (public information only)."""
        raise NotImplementedError

    def before_step(self, game: Any) -> Any:
        """What ``score_step`` needs to know of the position before an action (a history length)."""
        return None

    def score_step(self, game: Any, mark: Any) -> bool:
        """Add the action's rewards to ``self.rewards`` and its ``infos``; True if any reward was
        written (``mark`` is what ``before_step`` returned). ``win`` rewards are added here."""
        return False

    def on_new_position(self, game: Any, fresh: bool) -> None:
        """A new game is behind the table (``fresh``: from ``reset``; else assigned)."""

    def state_parts(self, num_players: int) -> list[tuple[str, int]]:
        """The game's own ``(name, size)`` parts of ``state()``, after the shared ones."""
        return []

    def encode_state_extra(self, game: Any, vector: np.ndarray) -> None:
        """Write the game's ``state_parts`` into ``vector`` (at ``self.state_layout``)."""

    # ------------------------------------------------------------------ the engine

    @property
    def game(self) -> Any:
        """The engine behind the table (None before the first ``reset``)."""
        return self._game

    @game.setter
    def game(self, game: Any) -> None:
        """Put another position behind the table (a test scenario, a loaded state).

        The observation cache is dropped and, once the environment has been reset, the agent to
        act follows the new game.
        """
        if not isinstance(game, self.GAME):
            raise ValueError(f"game must be a {self.GAME_LABEL}, not {type(game).__name__}")
        if game.num_players != self.num_players:
            raise ValueError(
                f"game has {game.num_players} players; this environment seats {self.num_players}"
            )
        self._game = game
        self.on_new_position(game, fresh=False)
        self._drop_cache()
        if self.agents and game.actor is not None:
            self.agent_selection = self.possible_agents[game.actor]

    def _drop_cache(self) -> None:
        self._obs_cache = {}
        self._obs_game = None
        self._obs_moves = -1

    # ------------------------------------------------------------------ pickling

    def __getstate__(self) -> dict[str, Any]:
        """The constructor arguments (EzPickle) plus the position: the game, the agents, the
        rewards and flags, the agent to act and the reset seeder, so that ``pickle`` and
        ``copy.deepcopy`` of a running environment continue the same game."""
        state = EzPickle.__getstate__(self)
        if self._game is not None:
            state["position"] = {
                "game": self._game,
                "seeder": self._seeder.getstate(),
                **{name: getattr(self, name) for name in self._position_fields()},
            }
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        EzPickle.__setstate__(self, state)
        position = state.get("position")
        if position is None:
            return
        self._game = position["game"]
        self._seeder.setstate(position["seeder"])
        for name in self._position_fields():
            setattr(self, name, position[name])

    def _position_fields(self) -> tuple[str, ...]:
        return POSITION_FIELDS + self.EXTRA_POSITION_FIELDS

    # ------------------------------------------------------------------ spaces

    def observation_space(self, agent: str) -> spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self.action_spaces[agent]

    # ------------------------------------------------------------------ episode

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        if seed is not None:
            try:
                seed = operator.index(seed)  # any integer kind: int, numpy integers
            except TypeError:
                raise ValueError(f"seed {seed!r} is not an integer") from None
            self._seeder = random.Random(seed)
        self._game = self.new_game(self._seeder.getrandbits(64))
        self.on_new_position(self._game, fresh=True)
        self.agents = self.possible_agents[:]
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos = {a: {} for a in self.agents}
        self.agent_selection = self.possible_agents[self._game.actor]
        self._drop_cache()

    def step(self, action: int) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        game = self._game
        mark = self.before_step(game)
        game.apply(action)  # raises ValueError, state unchanged, if illegal
        self._cumulative_rewards[agent] = 0.0
        self.rewards = dict.fromkeys(self.agents, 0.0)
        infos: dict[str, dict[str, Any]] = {}
        for name in self.agents:  # a loop, not a comprehension: no function object per step
            infos[name] = {}
        self.infos = infos
        scored = self.score_step(game, mark)
        if game.is_over:
            if self.reward_mode == "win":
                shares = win_rewards(self.num_players, game.winners())
                for seat, name in enumerate(self.possible_agents):
                    self.rewards[name] += shares[seat]
                scored = True
            self.terminations = dict.fromkeys(self.agents, True)
        else:
            self.agent_selection = self.possible_agents[game.actor]
        if scored:  # otherwise every reward is 0.0 and the sums stay as they are
            self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    # ------------------------------------------------------------------ observations

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        game = self._game
        if self._obs_moves != game.moves or self._obs_game is not game:
            self._obs_cache = {}
            self._obs_game = game
            self._obs_moves = game.moves
        cached = self._obs_cache.get(agent)
        if cached is None:
            seat = self.agent_name_mapping[agent]
            cached = {"observation": self.encode(game, seat), "action_mask": self._mask(seat)}
            self._obs_cache[agent] = cached
        return cached

    def _mask(self, seat: int) -> np.ndarray:
        """A new int8 mask: 1 at the legal ids of the seat to act, all 0 for the others."""
        mask = np.zeros(self.num_actions, dtype=np.int8)
        game = self._game
        if game.actor == seat:
            legal = game._legal_ids()  # the engine's cached list, only read here (no copy)
            native = kernels.native
            if native is not None:
                native.mark_ids(mask, legal)  # one C loop over the ids
            else:
                mask[legal] = 1
        return mask

    def action_mask(self, agent: str | None = None) -> np.ndarray:
        """The action mask of an agent (default: the one to act), from the observation cache."""
        return self.observe(agent or self.agent_selection)["action_mask"]

    # ------------------------------------------------------------------ full state

    def state(self) -> np.ndarray:
        """The full hidden state as a new float32 vector (module docstring, ``state_layout``)."""
        game = self._game
        if game is None:
            raise RuntimeError("state() needs a position: call reset() first")
        layout = self.state_layout
        vector = np.zeros(self.state_space.shape, dtype=np.float32)
        p = self.num_players
        n = NUM_TYPES
        base = layout["hands"].start
        known = layout["known"].start
        for seat in range(p):
            vector[base + PLANE * seat : base + PLANE * seat + n] = game.hands[seat]
            vector[known + PLANE * seat : known + PLANE * seat + n] = game.known[seat]
        put_counts(vector, layout["stock"].start, game.stock)
        put_counts(vector, layout["discard_pile"].start, game.discard)
        if game.discard:
            vector[layout["discard_top"].start + game.discard[-1]] = 1.0
        start = layout["discards_seen"].start
        vector[start : start + n] = game.seen_discards
        if game.actor is not None:
            vector[layout["actor"].start + game.actor] = 1.0
        vector[layout["dealer"].start + game.dealer] = 1.0
        self.encode_state_extra(game, vector)
        return vector

    # ------------------------------------------------------------------ rendering

    def render(self) -> str | None:
        if self.render_mode is None:
            import gymnasium

            gymnasium.logger.warn("You are calling render without specifying any render mode.")
            return None
        text = importlib.import_module(self.RENDER_MODULE).render_table(self.game)
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def close(self) -> None:
        pass


# ---------------------------------------------------------------------- the wrapper stack


class _ReadsRawPosition:
    """The attributes an agent loop reads every decision (``agent_iter``, ``last``, ``step``),
    read from the raw environment in one step instead of down the wrappers' ``__getattr__``
    chain (the wrappers in between keep no such attributes, so the values are the same).

    A wrapper whose ``_defer_until_reset`` is True raises AttributeError for them until it has
    seen a reset, which hands the read to its ``__getattr__`` and so keeps PettingZoo's
    "cannot be accessed before reset" error.
    """

    _raw: Any
    _defer_until_reset: ClassVar[bool] = False
    _has_reset: bool

    def _position(self, name: str) -> Any:
        if self._defer_until_reset and not self._has_reset:
            raise AttributeError(name)
        return self._raw

    @property
    def agents(self) -> list[str]:
        return self._position("agents").agents

    @property
    def rewards(self) -> dict[str, float]:
        return self._position("rewards").rewards

    @property
    def _cumulative_rewards(self) -> dict[str, float]:
        return self._position("_cumulative_rewards")._cumulative_rewards

    @property
    def terminations(self) -> dict[str, bool]:
        return self._position("terminations").terminations

    @property
    def truncations(self) -> dict[str, bool]:
        return self._position("truncations").truncations

    @property
    def infos(self) -> dict[str, dict[str, Any]]:
        return self._position("infos").infos

    @property
    def agent_selection(self) -> str:
        return self._position("agent_selection").agent_selection


class ExplainedOutOfBoundsWrapper(_ReadsRawPosition, wrappers.AssertOutOfBoundsWrapper):
    """PettingZoo's ``AssertOutOfBoundsWrapper`` with the engine's explanation.

    An action outside the action space (``10**6``, ``-1``, ``2.5``, ``None`` for a live agent)
    raises ``ValueError`` with the engine's message, which names the value and the range, instead
    of a bare ``AssertionError``; the state is unchanged. In-range actions go through the standard
    wrapper unchanged.
    """

    def __init__(self, env: AECEnv) -> None:
        super().__init__(env)
        self._raw = env.unwrapped
        # Each agent's number of actions (the spaces are Discrete from 0 and never change).
        self._sizes = {a: int(env.action_space(a).n) for a in env.possible_agents}

    def step(self, action: Any) -> None:
        raw = self._raw
        agent = raw.agent_selection
        size = self._sizes[agent]
        if type(action) is int and 0 <= action < size:
            self.env.step(action)  # the common case: a plain int in range
            return
        # The one integer check on the way down: any integer kind (numpy's too) becomes a plain
        # int here, so the engine's own check is a no-op on it.
        index = _index_or_none(action)
        if index is not None and 0 <= index < size:
            self.env.step(index)
            return
        done = raw.terminations[agent] or raw.truncations[agent]
        if action is None and done:
            self.env.step(action)
            return
        if done:
            raise ValueError(f"{agent} is done: step(None) is the only action, not {action!r}")
        # Never a legal id: the engine's words for it (which name the value and the range).
        raise ValueError(raw.game.refusal(action))


def _index_or_none(action: Any) -> int | None:
    """The integer an action value stands for (``operator.index``), or None for a non-integer."""
    try:
        return operator.index(action)
    except TypeError:
        return None


class DirectOrderEnforcingWrapper(_ReadsRawPosition, wrappers.OrderEnforcingWrapper):
    """PettingZoo's ``OrderEnforcingWrapper``, its checks unchanged, with the attributes an agent
    loop reads every decision read from the raw environment directly (after the first reset;
    before it, the standard error), instead of two ``__getattr__`` hops per read.

    After the first reset, ``last()``, ``observe()``, ``step()`` and ``agent_iter()`` also skip
    the hops that only pass a call on: ``observe`` goes to the first environment down the stack
    that defines its own (the raw one, or a wrapper such as ``TerminateIllegalWrapper``), and
    ``last()`` reads the rewards and flags from the raw environment, where every wrapper here
    reads them too. Before the first reset each keeps PettingZoo's error.
    """

    _defer_until_reset = True

    def __init__(self, env: AECEnv) -> None:
        super().__init__(env)
        self._raw = env.unwrapped
        # The first environment down the stack whose observe() is its own: the wrappers above
        # it (BaseWrapper.observe) only pass the call on.
        inner = env
        while (
            isinstance(inner, wrappers.BaseWrapper)
            and type(inner).observe is wrappers.BaseWrapper.observe
        ):
            inner = inner.env
        self._observer = inner

    def __str__(self) -> str:
        return str(self.env)

    def last(self, observe: bool = True) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        if not self._has_reset:
            return super().last(observe)  # PettingZoo's error
        raw = self._raw
        agent = raw.agent_selection
        assert agent is not None
        observation = self._observer.observe(agent) if observe else None
        return (
            observation,
            raw._cumulative_rewards[agent],
            raw.terminations[agent],
            raw.truncations[agent],
            raw.infos[agent],
        )

    def observe(self, agent: str) -> Any:
        if not self._has_reset:
            return super().observe(agent)  # PettingZoo's error
        return self._observer.observe(agent)

    def step(self, action: Any) -> None:
        if self._has_reset and self._raw.agents:
            self._has_updated = True
            self.env.step(action)
            return
        super().step(action)  # PettingZoo's error or warning

    def agent_iter(self, max_iter: int = 2**63) -> AECOrderEnforcingIterable:
        if not self._has_reset:
            return super().agent_iter(max_iter)  # PettingZoo's error
        return _DirectIterable(self, max_iter)


class _DirectIterable(AECOrderEnforcingIterable):
    """``agent_iter()`` of ``DirectOrderEnforcingWrapper``: PettingZoo's iterator, reading the
    agents from the raw environment."""

    def __iter__(self) -> AECOrderEnforcingIterator:
        return _DirectIterator(self.env, self.max_iter)


class _DirectIterator(AECOrderEnforcingIterator):
    """PettingZoo's ``AECOrderEnforcingIterator`` (the same checks, in the same order) with the
    agents read from the raw environment in one step."""

    def __init__(self, env: DirectOrderEnforcingWrapper, max_iter: int) -> None:
        super().__init__(env, max_iter)
        self._raw = env._raw

    def __next__(self) -> str:
        raw = self._raw
        if not raw.agents or self.iters_til_term <= 0:
            raise StopIteration
        self.iters_til_term -= 1
        agent = raw.agent_selection
        env = self.env
        assert env._has_updated, "need to call step() or reset() in a loop over `agent_iter`"
        env._has_updated = False
        return agent


def wrap(environment: AECEnv, illegal: str = "raise") -> AECEnv:
    """PettingZoo's standard wrappers around a raw environment: the ``env()`` of every game.

    ``illegal="raise"``: an illegal action raises ValueError and changes nothing;
    ``"terminate"``: PettingZoo's ``TerminateIllegalWrapper`` (-1, game over).
    """
    if illegal == "terminate":
        environment = wrappers.TerminateIllegalWrapper(environment, illegal_reward=-1)
    elif illegal != "raise":
        raise ValueError(f"illegal={illegal!r}: choose 'raise' or 'terminate'")
    environment = ExplainedOutOfBoundsWrapper(environment)
    return DirectOrderEnforcingWrapper(environment)
