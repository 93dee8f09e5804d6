"""# Continental (``continental_v1``; ``continental_v0`` kept)

A PettingZoo AEC environment for **Continental**, the seven-round contract rummy of
``RULES.md`` Part 1, over the pure engine in ``continental_env.game``.

| | |
|---|---|
| import | ``import continental_env; env = continental_env.env(num_players=4, version=1)`` |
| registry | ``pettingzoo.make("aec", "continental/continental_v1")`` (or ``_v0``) after ``import continental_env.env`` |
| agents | ``player_0`` .. ``player_{n-1}`` (2-8, as the preset allows) |
| action space | ``Discrete(N)``, N fixed by the number of players (1,631 for 4) |
| observation | ``Dict(observation=Box(float32), action_mask=Box(int8))`` |

## Arguments

| argument | default | meaning |
|---|---|---|
| ``num_players`` | 4 | seats at the table |
| ``preset`` | ``"continental"`` | ``continental``, ``continental_us``, ``continental_es``, or a ``RuleConfig`` |
| ``rounds`` | all seven | a round number or a list of them (e.g. ``rounds=1`` trains one contract) |
| ``reward`` | ``"relative"`` | ``relative``, ``points`` or ``win`` (below) |
| ``render_mode`` | None | ``"ansi"`` (returns the table as text) or ``"human"`` (prints it) |
| ``illegal`` | ``"raise"`` | ``"raise"``: an illegal action raises ValueError and changes nothing; ``"terminate"``: PettingZoo's TerminateIllegalWrapper (-1, game over) |
| ``version`` | 0 | the observation: 1 = ``continental_v1`` (below), 0 = ``continental_v0`` |

Both versions stay available: the registry names ``continental/continental_v1`` and
``continental/continental_v0`` pin one, and models and results of v0 keep their meaning. A bare
``env()`` still gives v0, so existing code sees no change; new training uses v1
(``train.py``'s default). ``env.unwrapped.metadata["name"]`` names the version.

## Observation

``observation`` is a float32 vector of *count planes* followed by scalars. A plane is a 5 x 13
grid of card counts (rows C D H S, the fifth row holds the jokers in column 0), flattened row by
row: index ``suit * 13 + rank`` for naturals and 52 for the joker, so the first 53 entries of a
plane are the engine's count vector. Seats are relative: ``+1`` is the next player to the left.

| name | planes / size | content |
|---|---|---|
| ``hand`` | 1 | own hand |
| ``discard_top`` | 1 | the top card of the discard pile |
| ``discards_seen`` | 1 | every card discarded face up this round |
| ``known_opp`` | P-1 | cards each opponent (+1 .. +P-1) is known to hold from public pick-ups |
| ``table`` | P | cards in the melds each seat (+0 .. +P-1) laid down or extended |
| ``fits`` | 1 | card types that would fit a table meld now |
| ``round`` | 7 | one-hot of the round number |
| ``phase`` | 3 | one-hot draw / claim / play |
| ``contract`` | 2 | trios / 3, runs / 3 |
| ``hand_sizes`` | P | cards per relative seat / 20 |
| ``laid_down`` | P | 1 if that relative seat has laid down |
| ``scores`` | P | cumulative points per relative seat / 100 |
| ``claims`` | P | claims per relative seat this round |
| ``stock`` | 1 | stock size / 100 |
| ``turn`` | 1 | turns this round / max_turns_per_round |

``continental_v1`` appends to this vector the derived features of ``continental_env.features``
(its module docstring has the table, ``feature_layout(P)``): the distance to the contract and the
card types that reduce it (with the discard on offer and from the stock), how each hand card is
used (trios, runs, deadwood, partners, points), the unseen cards, who discarded and who declined
what per relative seat, the opponents' public signals and the last 8 public actions, read from
the engine's ``public_log``. Its named layout is the v0 layout followed by the feature layout,
shifted by the v0 size (745 + 1,082 = 1,827 entries at 4 players).

``env.unwrapped.observation_layout`` (``observation_layout(P, version)``) maps each name to its slice; ``plane_slices`` gives the
count planes, each reshapeable to ``(5, 13)`` for a CNN. Only the acting agent gets a non-zero
``action_mask``. The observation never contains hidden information: the stock, opponents'
unrevealed cards and the penalty cards are absent (tested).

Each position's observation and mask are built once per agent (``last()``, ``observe()`` and
``action_mask()`` share them) by ``ObservationEncoder``, which writes the same vectors as the
plain ``encode_observation`` with a few numpy calls; every call of a new position hands out new
arrays, which the environment never changes afterwards. ``env()`` keeps PettingZoo's standard
wrappers; its outer one is ``DirectOrderEnforcingWrapper``, PettingZoo's
``OrderEnforcingWrapper`` with the attributes an agent loop reads every decision served
directly from the raw environment.

## Actions

Every id has a text form (``env.unwrapped.game.action_to_str``); the layout:

| ids | text |
|---|---|
| 0 .. 5 | ``draw``, ``take``, ``claim``, ``pass``, ``laydown``, ``close`` |
| 6 .. 58 | ``discard C`` |
| 59 + 55m + c | ``layoff C m`` (c = 52: ``layoff JK m``; 53/54: ``layoff JK m low/high``) |
| 59 + 55M + 52m + c | ``swap C m`` (M = 3P meld slots) |
| 59 + 107M + 2(mM + n) + e | ``movejoker m n low/high`` (``continental_us``) |

## Rewards

| mode | when | value |
|---|---|---|
| ``relative`` (default, zero-sum) | each round's end | (mean of the others' points - own points) / 100 |
| ``points`` | each round's end | - own points / 100 |
| ``win`` | the game's end | +1 shared among the lowest totals, -1 shared among the rest |

Rewards reach every agent through ``rewards`` on the step where the round ends; ``infos`` then
carry ``round_points`` (that seat's points), ``round`` and ``closer`` (relative seat, or -1 when
the round ended without one: ``infos`` never hold None, so replay buffers type them as integers).

## Errors, copies and positions

An action outside the action space (``10**6``, ``2.5``) raises ``ValueError`` with the engine's
message (the value and the range), on ``env()`` as on ``raw_env``; the state is unchanged. Seeds
may be any integer kind (``int``, ``numpy.int64``). ``pickle`` and ``copy.deepcopy`` of a running
environment keep its game, agents, rewards, flags and agent to act. Assigning
``env.unwrapped.game`` puts another position behind the table (the observation cache follows it).

## Version history

* v0: initial release.
* v1: the observation gains the derived features of ``continental_env.features`` after the v0
  vector (same order, the v0 part unchanged; 1,827 entries instead of 745 at 4 players). They
  read the round's public actions, which the engine now keeps (``state.public_log``, also in the
  state JSON as ``"public_log"``). Actions, masks, rewards and infos are unchanged. The vector
  equals the preview ``continental_v0+features`` observation of ``agents.imitation``, so its
  datasets and models carry over.
"""

from __future__ import annotations

import operator
import random
import sys
import types
from collections.abc import Callable
from typing import Any, ClassVar

import numpy as np
from gymnasium import spaces
from gymnasium.utils import EzPickle
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from continental_env.actions import num_actions
from continental_env.cards import NUM_TYPES
from continental_env.features import encode_features, feature_layout
from continental_env.game import Game
from continental_env.layout import consecutive_slices
from continental_env.rewards import relative_reward, win_rewards
from continental_env.rules import RuleConfig, resolve_rules

PLANE = 65  # 5 x 13
# What a running environment carries besides its game (kept by pickle and copy.deepcopy).
_POSITION_FIELDS = (
    "agents",
    "rewards",
    "_cumulative_rewards",
    "terminations",
    "truncations",
    "infos",
    "agent_selection",
)
REWARD_MODES = ("relative", "points", "win")
VERSIONS = (0, 1)  # continental_v0, continental_v1


def env_name(version: int) -> str:
    """The environment's name for an observation version (``continental_v1``)."""
    return f"continental_v{version}"


def check_version(version: Any) -> int:
    """``version`` if it is one of ``VERSIONS``; else ValueError naming it."""
    if type(version) is not int or version not in VERSIONS:
        raise ValueError(f"version={version!r}: choose one of {VERSIONS} (continental_v0, _v1)")
    return version


_PHASE_INDEX = {"draw": 0, "claim": 1, "play": 2}


def observation_layout(num_players: int, version: int = 0) -> dict[str, slice]:
    """Names of the observation's parts mapped to their slices (see the module tables): the v0
    parts, and for ``version=1`` the features of ``feature_layout`` after them."""
    out = _v0_layout(num_players)
    if check_version(version) == 1:
        base = out["turn"].stop
        for name, sl in feature_layout(num_players).items():
            out[name] = slice(base + sl.start, base + sl.stop)
    return out


def observation_size(layout: dict[str, slice]) -> int:
    """Length of the vector a layout describes."""
    return max(sl.stop for sl in layout.values())


def _v0_layout(num_players: int) -> dict[str, slice]:
    p = num_players
    parts = [
        ("hand", PLANE),
        ("discard_top", PLANE),
        ("discards_seen", PLANE),
        ("known_opp", PLANE * (p - 1)),
        ("table", PLANE * p),
        ("fits", PLANE),
        ("round", 7),
        ("phase", 3),
        ("contract", 2),
        ("hand_sizes", p),
        ("laid_down", p),
        ("scores", p),
        ("claims", p),
        ("stock", 1),
        ("turn", 1),
    ]
    return consecutive_slices(parts)


class raw_env(AECEnv, EzPickle):
    """The unwrapped AEC environment; see the module docstring."""

    metadata: ClassVar[dict[str, Any]] = {
        "render_modes": ["human", "ansi"],
        "name": "continental_v0",
        "is_parallelizable": False,
        "render_fps": 1,
    }

    def __init__(
        self,
        num_players: int = 4,
        preset: str | RuleConfig = "continental",
        rounds: int | list[int] | tuple[int, ...] | None = None,
        reward: str = "relative",
        render_mode: str | None = None,
        version: int = 0,
    ) -> None:
        EzPickle.__init__(self, num_players, preset, rounds, reward, render_mode, version)
        super().__init__()
        self.version = check_version(version)
        self.metadata = {**self.metadata, "name": env_name(version)}
        rules = resolve_rules(preset)
        if rounds is not None:
            rules = rules.with_rounds(rounds)
        rules.check_players(num_players)
        if reward not in REWARD_MODES:
            raise ValueError(f"reward={reward!r}: choose one of {REWARD_MODES}")
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(
                f"render_mode={render_mode!r}: choose one of {self.metadata['render_modes']}"
            )
        self.rules = rules
        self.num_players = num_players
        self.reward_mode = reward
        self.render_mode = render_mode
        self.possible_agents = [f"player_{i}" for i in range(num_players)]
        self.agent_name_mapping = {a: i for i, a in enumerate(self.possible_agents)}
        self.observation_layout = observation_layout(num_players, version)
        self.obs_size = observation_size(self.observation_layout)
        self.plane_slices = {
            name: self.observation_layout[name]
            for name in ("hand", "discard_top", "discards_seen", "known_opp", "table", "fits")
        }
        self.num_actions = num_actions(num_players)
        self.action_spaces = {a: spaces.Discrete(self.num_actions) for a in self.possible_agents}
        # One space object per agent, the same object on every call.
        # Scores go negative with a one_turn_bonus (continental_us: -10); the rest (the v1
        # features too) is >= 0.
        low = np.zeros(self.obs_size, dtype=np.float32)
        low[self.observation_layout["scores"]] = -np.inf
        self.observation_spaces = {
            a: spaces.Dict(
                {
                    "observation": spaces.Box(low, np.inf, dtype=np.float32),
                    "action_mask": spaces.Box(0, 1, shape=(self.num_actions,), dtype=np.int8),
                }
            )
            for a in self.possible_agents
        }
        self._seeder = random.Random()
        self._game: Game | None = None
        self._obs_cache: dict[str, dict[str, np.ndarray]] = {}
        self._obs_game: Game | None = None  # the cache belongs to this game object ...
        self._obs_moves = -1  # ... at this move count
        self._encoder = ObservationEncoder(num_players, version)

    # ------------------------------------------------------------------ the engine

    @property
    def game(self) -> Game | None:
        """The engine behind the table (None before the first ``reset``)."""
        return self._game

    @game.setter
    def game(self, game: Game) -> None:
        """Put another position behind the table (a test scenario, a loaded state).

        The observation cache is dropped and, once the environment has been reset, the agent to
        act follows the new game.
        """
        if not isinstance(game, Game):
            raise ValueError(f"game must be a continental_env.game.Game, not {type(game).__name__}")
        if game.num_players != self.num_players:
            raise ValueError(
                f"game has {game.num_players} players; this environment seats {self.num_players}"
            )
        self._game = game
        self._obs_cache = {}
        self._obs_game = None
        self._obs_moves = -1
        if self.agents and game.actor is not None:
            self.agent_selection = self.possible_agents[game.actor]

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
                **{name: getattr(self, name) for name in _POSITION_FIELDS},
            }
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        EzPickle.__setstate__(self, state)
        position = state.get("position")
        if position is None:
            return
        self._game = position["game"]
        self._seeder.setstate(position["seeder"])
        for name in _POSITION_FIELDS:
            setattr(self, name, position[name])

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
        self._game = Game.new(self.rules, self.num_players, seed=self._seeder.getrandbits(64))
        self.agents = self.possible_agents[:]
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos = {a: {} for a in self.agents}
        self.agent_selection = self.possible_agents[self.game.actor]
        self._obs_cache = {}
        self._obs_game = None
        self._obs_moves = -1

    def step(self, action: int) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        game = self._game
        rounds_before = len(game.round_history)
        game.apply(action)  # raises ValueError, state unchanged, if illegal
        history = game.round_history
        self._cumulative_rewards[agent] = 0.0
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self.infos = {a: {} for a in self.agents}
        scored = len(history) > rounds_before
        for result in history[rounds_before:]:
            self._round_rewards(result)
        if game.is_over:
            if self.reward_mode == "win":
                self._win_rewards()
                scored = True
            self.terminations = dict.fromkeys(self.agents, True)
        else:
            self.agent_selection = self.possible_agents[game.actor]
        if scored:  # otherwise every reward is 0.0 and the sums stay as they are
            self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    def _round_rewards(self, result: dict[str, Any]) -> None:
        points = result["points"]
        p = self.num_players
        closer = result["closer"]
        for seat, agent in enumerate(self.possible_agents):
            self.infos[agent] = {
                "round": result["round"],
                "round_points": points[seat],
                "closer": -1 if closer is None else (closer - seat) % p,
            }
            if self.reward_mode == "relative":
                self.rewards[agent] += relative_reward(points, seat)
            elif self.reward_mode == "points":
                self.rewards[agent] += -points[seat] / 100.0

    def _win_rewards(self) -> None:
        shares = win_rewards(self.num_players, self.game.winners())
        for seat, agent in enumerate(self.possible_agents):
            self.rewards[agent] += shares[seat]

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
            cached = {
                "observation": self._encoder.encode(game, seat),
                "action_mask": self._mask(seat),
            }
            self._obs_cache[agent] = cached
        return cached

    def _mask(self, seat: int) -> np.ndarray:
        """A new int8 mask: 1 at the legal ids of the seat to act, all 0 for the others."""
        mask = bytearray(self.num_actions)
        game = self._game
        if game.actor == seat:
            for action in game._legal_ids():  # the cached list, read only
                mask[action] = 1
        return np.frombuffer(mask, dtype=np.int8)

    def action_mask(self, agent: str | None = None) -> np.ndarray:
        """The action mask of an agent (default: the one to act), from the observation cache."""
        return self.observe(agent or self.agent_selection)["action_mask"]

    # ------------------------------------------------------------------ rendering

    def render(self) -> str | None:
        if self.render_mode is None:
            import gymnasium

            gymnasium.logger.warn("You are calling render without specifying any render mode.")
            return None
        from continental_env.render import render_table

        text = render_table(self.game)
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def close(self) -> None:
        pass


def encode_observation(game: Game, seat: int, layout: dict[str, slice]) -> np.ndarray:
    """The observation vector of ``seat`` (see the module docstring); public information only.

    Built from scratch: the reference for ``ObservationEncoder``, which the environment uses.
    A ``continental_v1`` layout (``observation_layout(P, 1)``) adds the features after the v0
    part.
    """
    p = game.num_players
    size = observation_size(layout)
    obs = np.zeros(size, dtype=np.float32)
    n = NUM_TYPES

    def put(base: int, counts: list[int]) -> None:
        obs[base : base + n] = counts

    put(layout["hand"].start, game.hands[seat])
    if game.discard and game.phase != "game_over":
        obs[layout["discard_top"].start + game.discard[-1]] = 1.0
    put(layout["discards_seen"].start, game.seen_discards)
    base = layout["known_opp"].start
    for k in range(1, p):
        put(base + PLANE * (k - 1), game.known[(seat + k) % p])
    base = layout["table"].start
    for meld in game.table:
        rel = (meld.owner - seat) % p
        off = base + PLANE * rel
        for c in meld.cards:
            obs[off + c] += 1.0
    put(layout["fits"].start, game.fitting_counts())
    obs[layout["round"].start + game.round - 1] = 1.0
    phase = _PHASE_INDEX.get(game.phase)
    if phase is not None:
        obs[layout["phase"].start + phase] = 1.0
    trios, runs = game.contract
    c0 = layout["contract"].start
    obs[c0] = trios / 3.0
    obs[c0 + 1] = runs / 3.0
    order = [(seat + k) % p for k in range(p)]
    obs[layout["hand_sizes"]] = [game.hand_sizes[s] / 20.0 for s in order]
    obs[layout["laid_down"]] = [1.0 if game.laid_down[s] else 0.0 for s in order]
    obs[layout["scores"]] = [game.scores[s] / 100.0 for s in order]
    obs[layout["claims"]] = [game.claims[s] for s in order]
    obs[layout["stock"].start] = len(game.stock) / 100.0
    obs[layout["turn"].start] = game.turn / game.rules.max_turns_per_round
    if "distance" in layout:
        obs[layout["turn"].stop :] = encode_features(game, seat, feature_layout(p))
    return obs


class ObservationEncoder:
    """``encode_observation`` with a few numpy calls per vector: the same vectors, faster.

    The planes that change nearly every decision (``hand``, ``discard_top``, ``discards_seen``,
    ``known_opp``, adjacent in the layout) are written together: their count lists joined into
    one ``bytearray`` (a count is a small integer) and copied into the planes in one strided
    cast. ``table`` and ``fits`` change only when the table does, so each seat keeps its last
    vector and a copy of what they were built from, and rewrites them only when that differs.
    The scalars are one list, one slice assignment. For ``version=1`` the features
    (``encode_features``, whose hand analysis is cached by hand) follow. Each call returns a new
    array, so an
    observation a caller holds never changes afterwards; only contents are compared, so a reset,
    a clone or an assigned game is encoded like any other position.
    """

    def __init__(self, num_players: int, version: int = 0) -> None:
        p = num_players
        self.num_players = p
        self.version = check_version(version)
        self.layout = observation_layout(p, version)
        self._features = feature_layout(p) if version == 1 else None
        lay = _v0_layout(p)
        self._vectors = [np.zeros(lay["turn"].stop, dtype=np.float32) for _ in range(p)]
        # Per seat: the table's melds and the fitting counts last written (None: not yet).
        self._seen: list[list[Any]] = [[None, None] for _ in range(p)]
        self._front = p + 2  # hand, discard_top, discards_seen, known_opp: planes 0 .. p + 1
        assert lay["known_opp"].stop == self._front * PLANE
        self._table = lay["table"]
        self._fits = lay["fits"]
        self._scalars = lay["round"].start
        self._others = [[(seat + k) % p for k in range(1, p)] for seat in range(p)]
        self._orders = [[seat, *others] for seat, others in enumerate(self._others)]

    def encode(self, game: Game, seat: int) -> np.ndarray:
        """The observation vector of ``seat``, equal to ``encode_observation``'s."""
        p = self.num_players
        st = game.state  # read the position's fields directly (no property per read)
        obs = self._vectors[seat]
        seen = self._seen[seat]
        top = [0] * NUM_TYPES
        phase = st.phase
        discard = st.discard
        if discard and phase != "game_over":
            top[discard[-1]] = 1
        counts = st.hands[seat] + top + st.seen_discards
        known = st.known
        for other in self._others[seat]:
            counts += known[other]
        front = self._front
        obs[: front * PLANE].reshape(front, PLANE)[:, :NUM_TYPES] = np.frombuffer(
            bytearray(counts), dtype=np.uint8
        ).reshape(front, NUM_TYPES)
        fits = game.fitting_counts()
        if seen[0] != fits:
            obs[self._fits][:NUM_TYPES] = fits
            seen[0] = fits.copy()
        table = st.table
        if seen[1] is None or len(seen[1]) != len(table) or seen[1] != _meld_key(table):
            planes = [0] * (PLANE * p)
            for meld in table:
                off = PLANE * ((meld.owner - seat) % p)
                for c in meld.cards:
                    planes[off + c] += 1
            obs[self._table] = planes
            seen[1] = _meld_key(table)
        # The scalars in the layout's order: round, phase, contract, then per relative seat the
        # hand sizes, lay-downs, scores and claims, then stock and turn.
        scalars = [0.0] * 12
        scalars[st.round - 1] = 1.0
        phase_index = _PHASE_INDEX.get(phase)
        if phase_index is not None:
            scalars[7 + phase_index] = 1.0
        trios, runs = game.contract
        scalars[10] = trios / 3.0
        scalars[11] = runs / 3.0
        order = self._orders[seat]
        sizes = st.hand_sizes
        down = st.laid_down
        scores = st.scores
        claims = st.claims
        scalars += [sizes[s] / 20.0 for s in order]
        scalars += [1.0 if down[s] else 0.0 for s in order]
        scalars += [scores[s] / 100.0 for s in order]
        scalars += [claims[s] for s in order]
        scalars.append(len(st.stock) / 100.0)
        scalars.append(st.turn / game.rules.max_turns_per_round)
        obs[self._scalars :] = scalars
        if self._features is None:
            return obs.copy()
        return np.concatenate((obs, encode_features(game, seat, self._features)))


def _meld_key(table: list[Any]) -> list[tuple[int, tuple[int, ...]]]:
    """What the table planes depend on: each meld's owner and cards."""
    return [(m.owner, tuple(m.cards)) for m in table]


def _raw_attribute(name: str, after_reset: bool) -> property:
    """A wrapper property that reads ``name`` from the raw environment in one step.

    With ``after_reset``, it defers to the wrapper's ``__getattr__`` (by raising
    AttributeError) until the wrapper has seen a reset, so OrderEnforcingWrapper's error stays.
    """
    if after_reset:

        def get(self: Any) -> Any:
            if not self._has_reset:
                raise AttributeError(name)
            return getattr(self._raw, name)

    else:

        def get(self: Any) -> Any:
            return getattr(self._raw, name)

    return property(get, doc=f"The raw environment's ``{name}``.")


# What an agent loop reads every decision (``agent_iter``, ``last``, ``step``): the position's
# attributes.
_LOOP_ATTRIBUTES = _POSITION_FIELDS


def _reads_raw_attributes(after_reset: bool) -> Callable[[type], type]:
    """Class decorator: the loop's attributes become ``_raw_attribute`` properties."""

    def install(cls: type) -> type:
        for name in _LOOP_ATTRIBUTES:
            setattr(cls, name, _raw_attribute(name, after_reset))
        return cls

    return install


@_reads_raw_attributes(after_reset=False)
class ExplainedOutOfBoundsWrapper(wrappers.AssertOutOfBoundsWrapper):
    """PettingZoo's ``AssertOutOfBoundsWrapper`` with the engine's explanation.

    An action outside the action space (``10**6``, ``-1``, ``2.5``, ``None`` for a live agent)
    raises ``ValueError`` with the engine's message, which names the value and the range, instead
    of a bare ``AssertionError``; the state is unchanged. In-range actions go through the standard
    wrapper unchanged.

    The attributes an agent loop reads every decision (``agent_selection``, ``agents``, the
    reward, termination, truncation and info dicts) are properties that read the raw
    environment directly instead of going down the wrappers' ``__getattr__`` chain; the wrappers
    in between keep no such attributes of their own, so the values are the same.
    """

    def __init__(self, env: AECEnv) -> None:
        super().__init__(env)
        self._raw = env.unwrapped
        # Each agent's number of actions (the spaces are Discrete from 0 and never change).
        self._sizes = {a: int(env.action_space(a).n) for a in env.possible_agents}

    def step(self, action: Any) -> None:
        raw = self._raw
        agent = raw.agent_selection
        if type(action) is int and 0 <= action < self._sizes[agent]:
            self.env.step(action)  # the common case: a plain int in range
            return
        space = raw.action_space(agent)
        if action is not None and space.contains(action):
            self.env.step(action)
            return
        done = raw.terminations[agent] or raw.truncations[agent]
        if action is None and done:
            self.env.step(action)
            return
        if done:
            raise ValueError(f"{agent} is done: step(None) is the only action, not {action!r}")
        try:
            index = operator.index(action)
        except TypeError:
            index = -1
        if not 0 <= index < space.n:
            # Never a legal id: the engine refuses it with its message, changing nothing.
            raw.game.apply(action)
        self.env.step(index)  # an integer kind the space does not recognise, in range


@_reads_raw_attributes(after_reset=True)
class DirectOrderEnforcingWrapper(wrappers.OrderEnforcingWrapper):
    """PettingZoo's ``OrderEnforcingWrapper``, its checks unchanged, with the attributes an agent
    loop reads every decision as properties that read the raw environment directly (after the
    first reset; before it, the standard error), instead of two ``__getattr__`` hops per read.
    """

    def __init__(self, env: AECEnv) -> None:
        super().__init__(env)
        self._raw = env.unwrapped

    def __str__(self) -> str:
        return str(self.env)


def env(illegal: str = "raise", **kwargs: Any) -> AECEnv:
    """The environment with PettingZoo's standard wrappers (see the module docstring)."""
    environment: AECEnv = raw_env(**kwargs)
    if illegal == "terminate":
        environment = wrappers.TerminateIllegalWrapper(environment, illegal_reward=-1)
    elif illegal != "raise":
        raise ValueError(f"illegal={illegal!r}: choose 'raise' or 'terminate'")
    environment = ExplainedOutOfBoundsWrapper(environment)
    environment = DirectOrderEnforcingWrapper(environment)
    return environment


def env_v0(**kwargs: Any) -> AECEnv:
    """``continental_v0``: ``env(version=0, ...)``."""
    return env(version=0, **kwargs)


def env_v1(**kwargs: Any) -> AECEnv:
    """``continental_v1``: ``env(version=1, ...)``."""
    return env(version=1, **kwargs)


def _register() -> None:
    try:
        from pettingzoo import aec_registry, register
    except ImportError:  # an older PettingZoo without a registry
        return
    for version in VERSIONS:
        name = f"continental/{env_name(version)}"
        if name not in aec_registry:
            register("aec", name, entry_point=f"continental_env.env:env_v{version}")


_register()


class _CallableModule(types.ModuleType):
    """``import continental_env.env`` rebinds ``continental_env.env`` to this module (Python
    sets a package attribute per imported submodule); calling it keeps working."""

    def __call__(self, **kwargs: Any) -> AECEnv:
        return env(**kwargs)


sys.modules[__name__].__class__ = _CallableModule
