"""# Knock Continental (``knock_v0``)

A PettingZoo AEC environment for the **knock game** of ``RULES.md`` Part 3 (seed 002, the
Italian-origin knock rummy "Continental"): 10 cards each, draw one, discard one, and end a hand
by announcing a knock (deadwood at most 5), rummy, color or continental; bonuses in chips, points
that eliminate a player over 100, buy-backs, and a pot for the last player standing. The engine
is ``continental_env.knock.game``.

``knock.env(num_players=4)`` builds it; the class is ``KnockEnv`` (``raw_env``), the registry id
``continental/knock_v0``, for 2 to 6 players, with ``Discrete(220)`` actions at every table size.
What both side games share (the import and the spaces, the arguments ``max_turns_per_hand``,
``max_hands``, ``reward``, ``render_mode`` and ``illegal``, the count planes and the shared
scalars of the observation and of ``state()``, errors, copies and pickling) is stated once in
``continental_env.side_env``; below is the knock game's own.

## Arguments

| argument | default | meaning |
|---|---|---|
| ``num_players`` | 4 | 2-6 (2 decks plus 4 jokers; 5 at 5 players, 6 at 6) |
| ``stake`` | 50 | the ante ``S``, a positive multiple of 5; bonuses 0.2 / 0.4 / 0.8 ``S`` |

## Observation

The top discard is empty at the start of a hand. The game's phases, flag, scale and own parts
(after ``scores``) are:

| name | size | content |
|---|---|---|
| ``phase`` | 3 | one-hot draw / play / buy |
| ``in_game`` | P | the flag: 1 if that relative seat is still in the game |
| ``scores`` | P | points per relative seat / 100 |
| ``chips`` | P | net chips per relative seat / stake |
| ``buys`` | P | buy-backs made per relative seat |
| ``pot`` | 1 | the pot / stake |
| ``buy_back`` | 2 | in phase buy: the total a buy-back sets / 100, its cost / stake |

## Actions

| ids | text | when legal |
|---|---|---|
| 0 | ``draw`` | start of a turn: draw the top stock card |
| 1 | ``take`` | start of a turn, the discard pile has a card: take its top card |
| 2 | ``knock`` | start of a turn: deadwood, aces counting 1, at most 5 |
| 3 | ``rummy`` | start of a turn: all 10 cards in lays |
| 4 | ``color`` | start of a turn: all 10 cards of one suit (jokers count as it) |
| 5 | ``continental`` | start of a turn: the 10 cards are one lay (10-card straight flush, or 10 of a rank) |
| 6 | ``buy`` | between hands, total over 80, two others still in: buy back |
| 7 | ``pass`` | between hands: do not buy back |
| 8 + c | ``discard C`` | after drawing: discard card type c (0..52) |
| 61 + c | ``rummy C`` | after drawing: discard c, the 10 left are all in lays |
| 114 + c | ``color C`` | after drawing: discard c, the 10 left are of one suit |
| 167 + c | ``continental C`` | after drawing: discard c, the 10 left are one lay |

## Rewards

| mode | when | value |
|---|---|---|
| ``chips`` (default) | every step that moves chips | each seat's change in net chips / stake; the ante (-1) comes with the game's first step, so a game's rewards sum to its net chips / stake, zero-sum |
| ``win`` | the game's end | +1 shared among the pot's winners, -1 shared among the rest |

At a hand's end ``infos`` also carry ``points`` (that seat's points in the hand) and
``announcer`` (the announcer's relative seat, or -1); ``chips`` are the seat's chips moved by the
hand so far. Eliminated seats stay in ``agents`` (they never act again) until the game ends, so
that each gets its final reward.

## State

The game's own parts of ``state()``, seats absolute: ``phase`` (3), ``in_game`` (P), ``scores``
(P, points / 100), then ``chips`` (P, net chips / stake), ``buys`` (P, buy-backs made) and
``pot`` (1, the pot / stake).

## Settled rules (RULES.md Part 3)

Lays of 3+ cards of one rank or of one suit in a row (aces low or high, never around the corner),
jokers wild, a natural in each. Deadwood: J Q K 10 count 10, 2-9 their index, jokers 20, aces 15
(1 in the knocker's hand). At the start of a turn instead of drawing: ``knock`` (deadwood at most
5), ``rummy`` (-10 points), ``color`` (-25), ``continental`` (the game ends, the pot to the
announcer); rummy, color and continental also after drawing, with a discard. Every other player
pays a bonus of 0.2 / 0.4 / 0.8 stakes (knock / rummy / color; a rummy with 3+ jokers adds 0.2 per
joker); the one with the most points in the hand pays it into the pot instead. Totals over 100
are out; over 80, with two others still in, a player may buy back to the second-lowest other total
for 1, 2, 4 ... stakes. Two players left within 10 points split the pot; otherwise the last player
standing wins it. A stock that cannot be re-formed, or ``max_turns_per_hand`` discards, ends a
hand with no announcer; ``max_hands`` ends the game, the lowest total winning.

## Version history

* v0: initial release.
"""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np
from pettingzoo import AECEnv

from continental_env.card_game_env import PLANE as PLANE  # re-exported: side_env.AEC_EXPORTS
from continental_env.card_game_env import CardGameEnv, wrap
from continental_env.knock.game import NUM_ACTIONS, Game, buy_cost
from continental_env.registry import register_envs
from continental_env.side_env import (
    AEC_EXPORTS,
    SIDE_PLANES,
    SideGameEnv,
    SideScalars,
    relative_seat,
)

__all__ = [*AEC_EXPORTS, "KnockEnv"]
REWARD_MODES = ("chips", "win")
POINT_SCALE = 100.0
# ``side_env.AEC_EXPORTS`` says what these blocks are for.
CARD_ACTION_BLOCKS = ("DISCARD_BASE", "RUMMY_BASE", "COLOR_BASE", "CONTINENTAL_BASE")
PLANE_NAMES = SIDE_PLANES
# The phase one-hot, who is still in, points / 100, hands dealt / max_hands.
SCALARS = SideScalars(("draw", "play", "buy"), "in_game", POINT_SCALE, hand_offset=1)


def chip_scale(game: Game) -> float:
    """What the ``chips`` rewards divide net chips by: the stake."""
    return float(game.stake)


def observation_layout(num_players: int) -> dict[str, slice]:
    """Names of the observation's parts mapped to their slices (see the module table)."""
    p = num_players
    own = [("chips", p), ("buys", p), ("pot", 1), ("buy_back", 2)]
    return SCALARS.observation_layout(p, own)


def encode_observation(game: Game, seat: int, layout: dict[str, slice]) -> np.ndarray:
    """The observation vector of ``seat`` (see the module docstring); public information only."""
    st = game.state  # the declared fields, read without the Game properties' indirection
    obs, order = SCALARS.encode(game, seat, layout, show_top=True)
    obs[layout["in_game"]] = [1.0 if st.in_game[s] else 0.0 for s in order]
    obs[layout["chips"]] = [st.chips[s] / game.stake for s in order]
    obs[layout["buys"]] = [st.buys[s] for s in order]
    obs[layout["pot"].start] = st.pot / game.stake
    if st.phase == "buy" and st.current == seat:
        start = layout["buy_back"].start
        obs[start] = game.buy_back_total(seat) / POINT_SCALE
        obs[start + 1] = buy_cost(game.stake, st.buys[seat]) / game.stake
    return obs


class KnockEnv(SideGameEnv):
    """The unwrapped AEC environment of the knock game (``raw_env``); see the module docstring.

    What the game supplies to ``SideGameEnv``: its encoder, the ``chips`` rewards (each step's
    change in net chips, which ``_paid`` tracks), the hand infos and its part of ``state()``.
    """

    metadata: ClassVar[dict[str, Any]] = {**CardGameEnv.metadata, "name": "knock_v0"}
    GAME = Game
    GAME_LABEL = "knock.Game"
    RENDER_MODULE = "continental_env.knock.render"
    REWARD_MODES = REWARD_MODES
    EXTRA_POSITION_FIELDS = ("_paid",)
    NUM_ACTIONS = NUM_ACTIONS

    def __init__(
        self,
        num_players: int = 4,
        stake: int = 50,
        max_turns_per_hand: int = 200,
        max_hands: int = 100,
        reward: str = "chips",
        render_mode: str | None = None,
    ) -> None:
        options = {"stake": stake, "max_turns_per_hand": max_turns_per_hand, "max_hands": max_hands}
        unbounded = ("scores", "chips")  # rummy / color points, net chips
        layout = observation_layout(num_players)
        super().__init__(num_players, options, reward, render_mode, layout, unbounded)
        self._paid = [0] * num_players  # each seat's net chips already given as rewards

    def encode(self, game: Game, seat: int) -> np.ndarray:
        """This seat's observation (``encode_observation``, looked up when called)."""
        return encode_observation(game, seat, self.observation_layout)

    def on_new_position(self, game: Game, fresh: bool) -> None:
        # Fresh: the ante is paid out with the first step; assigned: chips count from here.
        self._paid = [0] * self.num_players if fresh else list(game.chips)

    def hand_info(self, record: dict[str, Any], seat: int) -> dict[str, Any]:
        """The hand's number, the seat's points and chips in it, the announcer's relative seat."""
        return {
            "hand": record["hand"],
            "points": record["points"][seat],
            "chips": record["chips"][seat],
            "announcer": relative_seat(record["announcer"], seat, self.num_players),
        }

    def final_score(self, game: Game, seat: int) -> float:
        """The seat's net chips."""
        return float(game.chips[seat])

    def seat_out(self, game: Game, seat: int) -> bool:
        """An eliminated seat is out: its chips can no longer change."""
        return not game.in_game[seat]

    def chip_rewards(self, game: Game, records: list[dict[str, Any]]) -> bool:
        """Every seat's change in net chips / stake (every step: antes, bonuses, buy-backs)."""
        for seat, agent in enumerate(self.possible_agents):
            self.rewards[agent] = (game.chips[seat] - self._paid[seat]) / game.stake
        self._paid = list(game.chips)
        return True

    def state_parts(self, num_players: int) -> list[tuple[str, int]]:
        p = num_players
        return SCALARS.state_parts(p, own=[("chips", p), ("buys", p), ("pot", 1)])

    def encode_state_extra(self, game: Game, vector: np.ndarray) -> None:
        layout = self.state_layout
        SCALARS.encode_state(game, vector, layout, game.in_game)
        vector[layout["chips"]] = [chips / game.stake for chips in game.chips]
        vector[layout["buys"]] = game.buys
        vector[layout["pot"].start] = game.pot / game.stake


raw_env = KnockEnv


def env(illegal: str = "raise", **kwargs: Any) -> AECEnv:
    """The environment with PettingZoo's standard wrappers (see the module docstring)."""
    return wrap(KnockEnv(**kwargs), illegal)


register_envs()
