"""# Continental (``continental_v1``; ``continental_v0`` kept)

A PettingZoo AEC environment for **Continental**, the seven-round contract rummy of
``RULES.md`` Part 1, over the pure engine in ``continental_env.contract.game``.

| | |
|---|---|
| import | ``import continental_env; env = continental_env.env(num_players=4, version=1)`` |
| class | ``continental_env.contract.aec.ContinentalEnv`` (``raw_env``), a ``CardGameEnv`` |
| registry | ``pettingzoo.make("aec", "continental/continental_v1")`` (or ``_v0``) after ``import continental_env.contract.aec`` (``continental_env.registry``) |
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

``continental_v1`` appends to this vector the derived features of ``continental_env.contract.features``
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
plain ``encode_observation``: in one call of the compiled ``_kernels.encode_observation`` when the
kernels are built (the v0 writer the batch core shares, then the v1 features), else with a few
numpy calls; every call of a new position hands out new arrays, which the environment never
changes afterwards. ``env()`` keeps PettingZoo's standard
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

## State

``state()`` (``state_space``, ``state_layout``) is the full hidden state for centralised critics:
the parts every game shares (``continental_env.card_game_env``: every hand, the stock's and the
discard pile's composition, the top discard, the discards seen, the known cards, the seat to act
and the dealer, seats absolute), then:

| name | size | content |
|---|---|---|
| ``table`` | 65 P | cards in the melds each seat (0 .. P-1) laid down or extended |
| ``round`` | 7 | one-hot of the round number |
| ``phase`` | 3 | one-hot draw / claim / play |
| ``contract`` | 2 | trios / 3, runs / 3 |
| ``laid_down`` | P | 1 if that seat has laid down |
| ``scores`` | P | cumulative points per seat / 100 |
| ``claims`` | P | claims per seat this round |
| ``stock_size`` | 1 | stock size / 100 |
| ``turn`` | 1 | turns this round / max_turns_per_round |

## Errors, copies and positions

An action outside the action space (``10**6``, ``2.5``) raises ``ValueError`` with the engine's
message (the value and the range), on ``env()`` as on ``raw_env``; the state is unchanged. Seeds
may be any integer kind (``int``, ``numpy.int64``). ``pickle`` and ``copy.deepcopy`` of a running
environment keep its game, agents, rewards, flags and agent to act; ``continental_env.env`` and
``raw_env`` are plain functions, so ``functools.partial(continental_env.env, ...)`` pickles into
spawned processes. Assigning ``env.unwrapped.game`` puts another position behind the table (the
observation cache follows it).

## Version history

* v0: initial release.
* v1: the observation gains the derived features of ``continental_env.contract.features`` after the v0
  vector (same order, the v0 part unchanged; 1,827 entries instead of 745 at 4 players). They
  read the round's public actions, which the engine now keeps (``state.public_log``, also in the
  state JSON as ``"public_log"``). Actions, masks, rewards and infos are unchanged. The vector
  equals the preview ``continental_v0+features`` observation of ``agents.imitation``, so its
  datasets and models carry over.
"""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np
from gymnasium.utils import EzPickle
from pettingzoo import AECEnv

from continental_env import kernels
from continental_env.card_game_env import (
    PLANE,
    CardGameEnv,
    DirectOrderEnforcingWrapper,
    ExplainedOutOfBoundsWrapper,
    layout_size,
    wrap,
)
from continental_env.cards import NUM_TYPES
from continental_env.contract.actions import num_actions
from continental_env.contract.features import encode_features, feature_layout
from continental_env.contract.game import Game
from continental_env.layout import consecutive_slices
from continental_env.registry import register_envs
from continental_env.rewards import relative_reward
from continental_env.rules import (
    RuleConfig,
    contract_for_round,
    deck_counts,
    points_table,
    resolve_rules,
)

__all__ = [
    "PLANE",
    "REWARD_MODES",
    "VERSIONS",
    "ContinentalEnv",
    "DirectOrderEnforcingWrapper",
    "ExplainedOutOfBoundsWrapper",
    "ObservationEncoder",
    "check_version",
    "encode_observation",
    "env",
    "env_name",
    "env_v0",
    "env_v1",
    "observation_layout",
    "observation_size",
    "raw_env",
]
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
_EMPTY: tuple[()] = ()


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
    return layout_size(layout)


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


class ContinentalEnv(CardGameEnv):
    """The unwrapped AEC environment of the contract game (``raw_env``); see the module docstring.

    What the game supplies to ``CardGameEnv``: its encoder (``ObservationEncoder``), the
    ``relative`` and ``points`` rewards at each round's end, and its part of ``state()``.
    """

    metadata: ClassVar[dict[str, Any]] = {**CardGameEnv.metadata, "name": "continental_v0"}
    GAME = Game
    GAME_LABEL = "continental_env.contract.game.Game"
    RENDER_MODULE = "continental_env.contract.render"
    REWARD_MODES = REWARD_MODES

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
        self.version = check_version(version)
        self.metadata = {**self.metadata, "name": env_name(version)}
        rules = resolve_rules(preset)
        if rounds is not None:
            rules = rules.with_rounds(rounds)
        rules.check_players(num_players)
        self.rules = rules
        # Scores go negative with a one_turn_bonus (continental_us: -10); the rest (the v1
        # features too) is >= 0.
        super().__init__(
            num_players,
            reward,
            render_mode,
            num_actions=num_actions(num_players),
            observation_layout=observation_layout(num_players, version),
            plane_names=("hand", "discard_top", "discards_seen", "known_opp", "table", "fits"),
            unbounded=("scores",),
        )
        self._encoder = ObservationEncoder(num_players, version)

    def new_game(self, seed: int) -> Game:
        return Game.new(self.rules, self.num_players, seed=seed)

    def encode(self, game: Game, seat: int) -> np.ndarray:
        return self._encoder.encode(game, seat)

    def before_step(self, game: Game) -> int:
        return len(game.round_history)

    def score_step(self, game: Game, mark: int) -> bool:
        """Each round the action ended: its rewards (``relative``, ``points``) and infos."""
        history = game.round_history
        if len(history) == mark:  # most actions end no round
            return False
        for result in history[mark:]:
            self._round_rewards(result)
        return True

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

    def state_parts(self, num_players: int) -> list[tuple[str, int]]:
        p = num_players
        return [
            ("table", PLANE * p),
            ("round", 7),
            ("phase", 3),
            ("contract", 2),
            ("laid_down", p),
            ("scores", p),
            ("claims", p),
            ("stock_size", 1),
            ("turn", 1),
        ]

    def encode_state_extra(self, game: Game, vector: np.ndarray) -> None:
        layout = self.state_layout
        base = layout["table"].start
        for meld in game.table:
            off = base + PLANE * meld.owner
            for c in meld.cards:
                vector[off + c] += 1.0
        vector[layout["round"].start + game.round - 1] = 1.0
        phase = _PHASE_INDEX.get(game.phase)
        if phase is not None:
            vector[layout["phase"].start + phase] = 1.0
        trios, runs = game.contract
        vector[layout["contract"]] = (trios / 3.0, runs / 3.0)
        vector[layout["laid_down"]] = [1.0 if down else 0.0 for down in game.laid_down]
        vector[layout["scores"]] = [score / 100.0 for score in game.scores]
        vector[layout["claims"]] = game.claims
        vector[layout["stock_size"].start] = len(game.stock) / 100.0
        vector[layout["turn"].start] = game.turn / game.rules.max_turns_per_round


raw_env = ContinentalEnv


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
    """``encode_observation``, faster: the same vectors.

    With the compiled kernels (``continental_env.kernels.native``), one call of
    ``_kernels.encode_observation`` writes the whole vector from the engine's lists
    (``continental_env/_obs_c.h``, the batch core's v0 writer, then the features). Without
    them, numpy: the planes that change nearly every decision (``hand``, ``discard_top``, ``discards_seen``,
    ``known_opp``, adjacent in the layout) are written together: their count lists joined into
    one ``bytearray`` (a count is a small integer) and copied into the planes in one strided
    cast. ``table`` and ``fits`` change only when the table does, so each seat keeps its last
    vector and a copy of what they were built from, and rewrites them only when that differs.
    The scalars are one list, one slice assignment. For ``version=1`` the features
    (``encode_features``) follow. Each call returns a new
    array, so an observation a caller holds never changes afterwards; only contents are
    compared, so a reset, a clone or an assigned game is encoded like any other position.
    """

    def __init__(self, num_players: int, version: int = 0) -> None:
        p = num_players
        self.num_players = p
        self.version = check_version(version)
        self.layout = observation_layout(p, version)
        self._features = version == 1
        self._size = observation_size(self.layout)
        # The kernel's arguments fixed through a round, keyed by (rules, round); see
        # _encode_native.
        self._fixed: tuple[Any, ...] = (None, 0)
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
        native = kernels.native
        if native is not None:
            return self._encode_native(native, game, seat)
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
        self._update_table(obs, seen, st.table, seat)
        obs[self._scalars :] = self._scalar_list(game, st, phase, seat)
        if not self._features:
            return obs.copy()
        # No layout argument: the features' own, which the kernel takes without comparing.
        return np.concatenate((obs, encode_features(game, seat)))

    def _encode_native(self, native: Any, game: Game, seat: int) -> np.ndarray:
        """The whole vector in one kernel call (``_kernels.encode_observation``, the v0 writer
        the batch core shares), read from the engine's lists; a new array each call. The
        arguments are ``features._kernel_arguments``' (then the v0 fields), read here straight
        from ``game.state`` with what stays fixed through a round kept per encoder."""
        st = game.state
        rules = game.rules
        round_number = st.round
        fixed = self._fixed
        if fixed[0] is not rules or fixed[1] != round_number:
            trios, runs = contract_for_round(round_number)
            fixed = self._fixed = (
                rules, round_number, trios, runs, rules.min_run, rules.ace_wraparound,
                deck_counts(rules, self.num_players, round_number), points_table(rules),
                rules.max_turns_per_round,
            )  # fmt: skip
        phase = st.phase
        live = phase != "game_over"
        # v0, or no log of this round: no totals, no history
        discarded = declined = takes = discards = items = None
        if live and self._features:
            # features._log_for, read here directly: the engine's log, if it is this round's
            record = st.public_log
            i = st.round_index
            seeds = st.deal_seeds
            if record.key == (i, seeds[i] if i < len(seeds) else -1):
                discarded = record.discarded
                declined = record.declined
                takes = record.takes
                discards = record.discards
                items = record.items
        laid_down = st.laid_down
        table = st.table
        if table:
            cards = [meld.cards for meld in table]
            owners = [meld.owner for meld in table]
        else:
            cards = owners = _EMPTY  # the kernel only reads them
        fits = game._fits  # game.fitting_counts(), its cache read directly when it is set
        if fits is None:
            fits = game.fitting_counts()
        out = np.empty(self._size, dtype=np.float32)
        native.encode_observation(
            out, self.version, self.num_players, seat, fixed[2], fixed[3], fixed[4], fixed[5],
            live, laid_down[seat], st.hands[seat], fixed[6], st.discard, cards, st.known,
            st.hand_sizes, laid_down, st.claims, fixed[7], discarded, declined, takes, discards,
            items, st.seen_discards, owners, fits, round_number, _PHASE_INDEX.get(phase, -1),
            st.scores, len(st.stock), st.turn, fixed[8],
        )  # fmt: skip
        return out

    def _update_table(self, obs: np.ndarray, seen: list[Any], table: list[Any], seat: int) -> None:
        """Rewrite ``seat``'s table planes when the melds differ from those last written."""
        if seen[1] is None or len(seen[1]) != len(table) or seen[1] != _meld_key(table):
            p = self.num_players
            planes = [0] * (PLANE * p)
            for meld in table:
                off = PLANE * ((meld.owner - seat) % p)
                for c in meld.cards:
                    planes[off + c] += 1
            obs[self._table] = planes
            seen[1] = _meld_key(table)

    def _scalar_list(self, game: Game, st: Any, phase: str, seat: int) -> list[float]:
        """The scalars in the layout's order: round, phase, contract, then per relative seat the
        hand sizes, lay-downs, scores and claims, then stock and turn."""
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
        return scalars


def _meld_key(table: list[Any]) -> list[tuple[int, tuple[int, ...]]]:
    """What the table planes depend on: each meld's owner and cards."""
    return [(m.owner, tuple(m.cards)) for m in table]


def env(illegal: str = "raise", **kwargs: Any) -> AECEnv:
    """The environment with PettingZoo's standard wrappers (see the module docstring)."""
    return wrap(ContinentalEnv(**kwargs), illegal)


def env_v0(**kwargs: Any) -> AECEnv:
    """``continental_v0``: ``env(version=0, ...)``."""
    return env(version=0, **kwargs)


def env_v1(**kwargs: Any) -> AECEnv:
    """``continental_v1``: ``env(version=1, ...)``."""
    return env(version=1, **kwargs)


register_envs()
