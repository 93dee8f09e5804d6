"""What the two side games' environments share (``fifteen_v0``, ``knock_v0``): ``SideGameEnv``
(a ``CardGameEnv``) and ``SideScalars``.

This is the part of the documentation both games share, stated once; each game's own rows (its
options, phases, flag, scales, own observation parts, actions, rewards and rules) are its
environment module's docstring (``continental_env.fifteen.aec``, ``continental_env.knock.aec``).
``<game>`` below is ``fifteen`` or ``knock``.

| | |
|---|---|
| import | ``from continental_env import <game>; env = <game>.env(num_players=4)`` |
| class | ``FifteenEnv`` / ``KnockEnv`` (``raw_env`` of ``continental_env.<game>.aec``), a ``CardGameEnv`` |
| registry | ``pettingzoo.make("aec", "continental/<game>_v0")`` after ``import continental_env.<game>.aec`` (``continental_env.registry``) |
| agents | ``player_0`` .. ``player_{n-1}`` |
| action space | ``Discrete(n)``, the same for every table size |
| observation | ``Dict(observation=Box(float32), action_mask=Box(int8))``; only the acting agent gets a non-zero ``action_mask`` |

## Arguments

``num_players`` and the engine's options by name (each game's table), and:

| argument | default | meaning |
|---|---|---|
| ``max_turns_per_hand`` | 200 | safety net: a hand ends, with no winner, after this many discards |
| ``max_hands`` | 100 | safety net: the game ends after this many hands |
| ``reward`` | ``"chips"`` | ``"chips"`` or ``"win"`` (each game's rewards table) |
| ``render_mode`` | None | ``"ansi"`` returns the table as text, ``"human"`` prints it |
| ``illegal`` | ``"raise"`` | ``env()`` only. ``"raise"``: an illegal action raises ValueError and changes nothing; ``"terminate"``: PettingZoo's TerminateIllegalWrapper, -1 and game over |

## Observation

A float32 vector of count planes (``PLANE``: a 5 x 13 grid of card counts, rows C D H S, the
fifth row holds the jokers in column 0, flattened row by row: index ``suit * 13 + rank`` for
naturals and 52 for the joker) followed by scalars (``SideScalars``), seats relative (``+1`` is
the next player to the left); ``observation_layout`` maps each part's name to its slice and
``plane_slices`` gives the planes, each reshapeable to ``(5, 13)``. In order:

| name | size | content |
|---|---|---|
| ``hand`` | 65 | own hand |
| ``discard_top`` | 65 | the top discard |
| ``discards_seen`` | 65 | every card discarded face up this hand |
| ``known_opp`` | 65 (P-1) | cards each opponent (+1 .. +P-1) is known to hold because they took them |
| ``phase`` | the game's | one-hot of the game's phases |
| the game's flag | P | a flag per relative seat |
| ``dealer`` | P | one-hot relative seat of the dealer |
| ``scores`` | P | the total per relative seat, over the game's scale |
| the game's own | | as its table says |
| ``stock`` | 1 | stock size / 100 |
| ``turn`` | 1 | discards this hand / max_turns_per_hand |
| ``hand_number`` | 1 | hands dealt (knock) or played (fifteen) / max_hands |

The observation never contains hidden information: the stock and opponents' cards not taken
from the discard pile are absent (tested, with positive controls).

## Infos

At a hand's end ``infos`` carry ``hand`` (its number), ``chips`` (that seat's chips of the hand)
and the game's own keys; the seat that ended the hand is given relative, -1 when the stock or the
turn limit ended it (infos never hold None).

## State

``state()`` (``state_space``, ``state_layout``) is the full hidden state for centralised
critics: the parts every game shares (``continental_env.card_game_env``: every hand, the stock's
and the discard pile's composition, the top discard, the discards seen, the known cards, the
seat to act and the dealer), then, seats absolute, ``phase``, the game's flag, ``scores`` (scaled
as in the observation) and the game's own parts (its table), then ``stock_size`` (/ 100),
``turn`` (/ max_turns_per_hand) and ``hand_number`` (/ max_hands).

## Errors, copies and positions

An illegal action raises ``ValueError`` with the engine's reason and changes nothing, on ``env()``
as on ``raw_env``; so does an action outside the action space (``10**6``, ``2.5``). Seeds may be
any integer kind (``int``, ``numpy.int64``). ``pickle`` and ``copy.deepcopy`` of a running
environment keep its game, agents, rewards, flags and agent to act; each game's ``env`` and
``raw_env`` are plain functions that pickle (``functools.partial`` into a spawned process).
Assigning ``env.unwrapped.game`` puts another position behind the table (the observation cache
follows it).
"""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np
from gymnasium.utils import EzPickle

from continental_env.card_game_env import PLANE, CardGameEnv
from continental_env.cards import NUM_TYPES
from continental_env.layout import consecutive_slices

SIDE_PLANES = ("hand", "discard_top", "discards_seen", "known_opp")
# What each side game's ``aec`` module offers besides its env class: the factories, its action
# count, the observation's encoder and layout, the reward modes, the scale of its chip rewards
# (``chip_scale``), and ``CARD_ACTION_BLOCKS``, the names of its game module's card-indexed
# action blocks (each NUM_TYPES ids from its base): what a relabelling of the suits moves
# (``agents.train.side_single_agent.suit_permutation``).
AEC_EXPORTS = (
    "CARD_ACTION_BLOCKS",
    "NUM_ACTIONS",
    "PLANE",
    "REWARD_MODES",
    "chip_scale",
    "encode_observation",
    "env",
    "observation_layout",
    "raw_env",
)


def side_planes(num_players: int) -> list[tuple[str, int]]:
    """The count planes that open the fifteen-card and knock observations (their tables)."""
    return [
        ("hand", PLANE),
        ("discard_top", PLANE),
        ("discards_seen", PLANE),
        ("known_opp", PLANE * (num_players - 1)),
    ]


def encode_side_planes(
    obs: np.ndarray, game: Any, seat: int, layout: dict[str, slice], show_top: bool
) -> list[int]:
    """Write ``side_planes`` of ``seat`` into ``obs`` (the top discard only with ``show_top``);
    returns the other seats in relative order (``+0`` .. ``+P-1``), which the scalars follow."""
    st = game.state  # the declared fields, read without the Game properties' indirection
    p = game.num_players
    n = NUM_TYPES
    base = layout["hand"].start
    obs[base : base + n] = st.hands[seat]
    if show_top and st.discard:
        obs[layout["discard_top"].start + st.discard[-1]] = 1.0
    base = layout["discards_seen"].start
    obs[base : base + n] = st.seen_discards
    base = layout["known_opp"].start
    for k in range(1, p):
        off = base + PLANE * (k - 1)
        obs[off : off + n] = st.known[(seat + k) % p]
    return [(seat + k) % p for k in range(p)]


def relative_seat(seat: int | None, viewer: int, num_players: int) -> int:
    """``seat`` as ``viewer`` sees it (``+1``: the next to the left); -1 for nobody (None)."""
    return -1 if seat is None else (seat - viewer) % num_players


class SideScalars:
    """The scalars both side games put in their observation and ``state()``, with each game's
    scales: the phase one-hot (``phases``, in order), a per-seat flag named ``flag``, the
    dealer (observation only), the scores (divided by ``score_scale``), then the game's own
    parts, then the stock size, the turn and the hand number (``hand_index + hand_offset`` over
    ``max_hands``). Their layouts are the tables of each game's environment docstring."""

    def __init__(
        self, phases: tuple[str, ...], flag: str, score_scale: float, hand_offset: int
    ) -> None:
        self.phase_index = {phase: k for k, phase in enumerate(phases)}
        self.flag = flag
        self.score_scale = score_scale
        self.hand_offset = hand_offset

    def observation_layout(self, num_players: int, own: list[tuple[str, int]]) -> dict[str, slice]:
        """The observation's layout: ``side_planes``, the shared scalars and the game's ``own``."""
        p = num_players
        head = [("phase", len(self.phase_index)), (self.flag, p), ("dealer", p), ("scores", p)]
        tail = [("stock", 1), ("turn", 1), ("hand_number", 1)]
        return consecutive_slices([*side_planes(p), *head, *own, *tail])

    def state_parts(self, num_players: int, own: list[tuple[str, int]]) -> list[tuple[str, int]]:
        """The game's part of ``state()``: the shared scalars and its ``own``."""
        p = num_players
        head = [("phase", len(self.phase_index)), (self.flag, p), ("scores", p)]
        return [*head, *own, ("stock_size", 1), ("turn", 1), ("hand_number", 1)]

    def encode(
        self, game: Any, seat: int, layout: dict[str, slice], show_top: bool
    ) -> tuple[np.ndarray, list[int]]:
        """A new observation of ``seat`` with the count planes (the top discard only with
        ``show_top``) and the shared scalars but the flag written; returns it and the seats in
        relative order (``+0`` .. ``+P-1``), in which the game writes its flag."""
        st = game.state  # the declared fields, read without the Game properties' indirection
        p = game.num_players
        obs = np.zeros(layout["hand_number"].stop, dtype=np.float32)
        order = encode_side_planes(obs, game, seat, layout, show_top)
        phase = self.phase_index.get(st.phase)
        if phase is not None:
            obs[layout["phase"].start + phase] = 1.0
        obs[layout["dealer"].start + (st.dealer - seat) % p] = 1.0
        scale = self.score_scale
        obs[layout["scores"]] = [st.scores[s] / scale for s in order]
        obs[layout["stock"].start] = len(st.stock) / 100.0
        obs[layout["turn"].start] = st.turn / game.max_turns_per_hand
        obs[layout["hand_number"].start] = (st.hand_index + self.hand_offset) / game.max_hands
        return obs, order

    def encode_state(
        self, game: Any, vector: np.ndarray, layout: dict[str, slice], flags: list[Any]
    ) -> None:
        """Write the shared scalars into a ``state()`` vector (seats absolute; ``flags``: each
        seat's flag, seat 0 first)."""
        st = game.state
        phase = self.phase_index.get(st.phase)
        if phase is not None:
            vector[layout["phase"].start + phase] = 1.0
        vector[layout[self.flag]] = flags
        vector[layout["scores"]] = [score / self.score_scale for score in st.scores]
        vector[layout["stock_size"].start] = len(st.stock) / 100.0
        vector[layout["turn"].start] = st.turn / game.max_turns_per_hand
        vector[layout["hand_number"].start] = (st.hand_index + self.hand_offset) / game.max_hands


class SideGameEnv(CardGameEnv):
    """The base of the two side games' envs (``FifteenEnv``, ``KnockEnv``): the options are the
    engine's own keyword options, checked by building an undealt ``GAME``, and pickled with the
    table by name (``EzPickle``); a deal is ``GAME.new``; the count planes are ``SIDE_PLANES``;
    ``score_step`` writes each ended hand's ``hand_info`` into the infos, then, under
    ``chips``, the game's ``chip_rewards``. A game supplies ``encode``, those two and its
    ``state()`` part."""

    NUM_ACTIONS: ClassVar[int]

    def __init__(
        self,
        num_players: int,
        options: dict[str, Any],
        reward: str,
        render_mode: str | None,
        observation_layout: dict[str, slice],
        unbounded: tuple[str, ...],
    ) -> None:
        """Called by a game's ``__init__`` with its arguments, the options by name."""
        EzPickle.__init__(
            self, num_players=num_players, **options, reward=reward, render_mode=render_mode
        )
        # Validates every option with the engine's own messages.
        self.GAME(num_players, **options)
        self.options = options
        super().__init__(
            num_players,
            reward,
            render_mode,
            num_actions=self.NUM_ACTIONS,
            observation_layout=observation_layout,
            plane_names=SIDE_PLANES,
            unbounded=unbounded,
        )

    def new_game(self, seed: int) -> Any:
        return self.GAME.new(self.num_players, seed=seed, **self.options)

    def before_step(self, game: Any) -> int:
        return len(game.hand_history)

    def score_step(self, game: Any, mark: int) -> bool:
        records = game.hand_history[mark:]
        for record in records:
            for seat, agent in enumerate(self.possible_agents):
                self.infos[agent] = self.hand_info(record, seat)
        return self.reward_mode == "chips" and self.chip_rewards(game, records)

    def hand_info(self, record: dict[str, Any], seat: int) -> dict[str, Any]:
        """The ``infos`` entry of ``seat`` at the end of the hand ``record`` (never a None)."""
        raise NotImplementedError

    def final_score(self, game: Any, seat: int) -> float:
        """The seat's result in chips (the ``chips`` rewards sum to it over a game)."""
        return float(game.scores[seat])

    def seat_out(self, game: Any, seat: int) -> bool:
        """Whether the seat has left a game still going (its result is final)."""
        return False

    def chip_rewards(self, game: Any, records: list[dict[str, Any]]) -> bool:
        """Add the ``chips`` rewards of the step that ended ``records`` (maybe none) to
        ``self.rewards``; True if any was written."""
        raise NotImplementedError


__all__ = [
    "AEC_EXPORTS",
    "SIDE_PLANES",
    "SideGameEnv",
    "SideScalars",
    "encode_side_planes",
    "relative_seat",
    "side_planes",
]
