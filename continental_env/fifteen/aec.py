"""# Fifteen-card Continental (``fifteen_v0``)

A PettingZoo AEC environment for the **fifteen-card game** of ``RULES.md`` Part 2 (seed 001,
"Continental Rummy"): 15 cards each, draw one, discard one, and go out by laying down all 15 as
sequences of one suit in one of three shapes. The engine is ``continental_env.fifteen.game``.

``fifteen.env(num_players=4)`` builds it: ``FifteenEnv`` (``raw_env``), registered as
``continental/fifteen_v0``; 2-12 players and 109 actions (``Discrete(109)``) whatever the table
size. Its shared part (import, spaces, the arguments ``max_turns_per_hand``, ``max_hands``,
``reward``, ``render_mode`` and ``illegal``, the count planes, the shared scalars, infos,
``state()``, errors, copies, pickling) is ``continental_env.side_env``'s docstring; the
fifteen-card game's own follows.

## Arguments

| argument | default | meaning |
|---|---|---|
| ``num_players`` | 4 | 2-12 (2 decks + 2 jokers up to 5 players, 3 + 3 up to 8, 4 + 4 up to 12) |
| ``target`` | 50 | the game ends after the hand in which a total reaches it (``None``: no target) |
| ``hands`` | None | the game ends after this many hands (``hands=1``: one-hand episodes) |

## Observation

``discard_top`` is the up-card (none once the game is over) and ``discards_seen`` counts it
too. Two phases, the first-turn flag, scores in chips / 50 and no parts of its own:

| name | size | content |
|---|---|---|
| ``phase`` | 2 | one-hot draw / play |
| ``first_turn`` | P | 1 if that relative seat has not completed a turn this hand (7 / 10 bonus) |
| ``scores`` | P | chips per relative seat / 50 |

## Actions

| ids | text | when legal |
|---|---|---|
| 0 | ``draw`` | start of a turn: draw the top stock card |
| 1 | ``take`` | start of a turn, the discard pile has a card: take the up-card |
| 2 | ``out`` | start of the player's first turn of the hand: the 15 cards dealt go out |
| 3 + c | ``discard C`` | after drawing: discard card type c (0..52) |
| 56 + c | ``out C`` | after drawing: discard c, the other 15 go out |

## Rewards

| mode | when | value |
|---|---|---|
| ``chips`` (default, zero-sum) | each hand's end | net chips won or lost in the hand / 10 |
| ``win`` | the game's end | +1 shared among the highest totals, -1 shared among the rest |

A hand's ``infos`` add ``winner``: the relative seat that went out, or -1.

## State

``state()`` adds, seats absolute, ``phase`` (2), ``first_turn`` (P: that seat has not completed a
turn this hand) and ``scores`` (P, chips / 50) to the shared parts.

## Settled rules (RULES.md Part 2)

Sequences of 3-5 cards of one suit, aces low (``A 2 3``) or high (``Q K A``) but never around the
corner (``K A 2``); jokers wild, a natural in every sequence; going out only as 3+3+3+3+3,
4+4+4+3 or 5+4+3+3, offered only when the cards really go out. The winner collects from each
opponent 1, plus 2 per joker laid down, plus 7 for going out on their first turn after drawing or
10 without drawing, plus 10 with no joker, plus 10 when every natural is of one suit. A stock
that cannot be re-formed, or ``max_turns_per_hand`` discards, ends a hand with no winner; the
game ends at ``target``, after ``hands`` hands or after ``max_hands`` hands.

## Version history

* v0: initial release.
"""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np
from pettingzoo import AECEnv

from continental_env.card_game_env import PLANE as PLANE  # re-exported: side_env.AEC_EXPORTS
from continental_env.card_game_env import CardGameEnv, wrap
from continental_env.fifteen.game import NUM_ACTIONS, Game
from continental_env.registry import register_envs
from continental_env.side_env import (
    AEC_EXPORTS,
    SIDE_PLANES,
    SideGameEnv,
    SideScalars,
    relative_seat,
)

__all__ = [*AEC_EXPORTS, "FifteenEnv", "CHIP_SCALE"]
REWARD_MODES = ("chips", "win")
CHIP_SCALE = 10.0
# ``side_env.AEC_EXPORTS`` says what these blocks are for.
CARD_ACTION_BLOCKS = ("DISCARD_BASE", "OUT_BASE")
PLANE_NAMES = SIDE_PLANES
# The phase one-hot, the first-turn flags, scores in chips / 50, hands played / max_hands.
SCALARS = SideScalars(("draw", "play"), "first_turn", score_scale=50.0, hand_offset=0)


def chip_scale(game: Game) -> float:
    """What the ``chips`` rewards divide net chips by."""
    return CHIP_SCALE


def observation_layout(num_players: int) -> dict[str, slice]:
    """Names of the observation's parts mapped to their slices (see the module table)."""
    return SCALARS.observation_layout(num_players, own=[])


def encode_observation(game: Game, seat: int, layout: dict[str, slice]) -> np.ndarray:
    """The observation vector of ``seat`` (see the module docstring); public information only."""
    played = game.state.has_played
    obs, order = SCALARS.encode(game, seat, layout, show_top=not game.is_over)
    obs[layout["first_turn"]] = [0.0 if played[s] else 1.0 for s in order]
    return obs


class FifteenEnv(SideGameEnv):
    """The unwrapped AEC environment of the fifteen-card game (``raw_env``); see the module
    docstring.

    What the game supplies to ``SideGameEnv``: its encoder, the ``chips`` rewards at each hand's
    end, the hand infos and its part of ``state()``.
    """

    metadata: ClassVar[dict[str, Any]] = {**CardGameEnv.metadata, "name": "fifteen_v0"}
    GAME = Game
    GAME_LABEL = "fifteen.Game"
    RENDER_MODULE = "continental_env.fifteen.render"
    REWARD_MODES = REWARD_MODES
    NUM_ACTIONS = NUM_ACTIONS

    def __init__(
        self,
        num_players: int = 4,
        target: int | None = 50,
        hands: int | None = None,
        max_turns_per_hand: int = 200,
        max_hands: int = 100,
        reward: str = "chips",
        render_mode: str | None = None,
    ) -> None:
        options = {"target": target, "hands": hands}
        options.update(max_turns_per_hand=max_turns_per_hand, max_hands=max_hands)
        layout = observation_layout(num_players)
        super().__init__(num_players, options, reward, render_mode, layout, ("scores",))

    def encode(self, game: Game, seat: int) -> np.ndarray:
        """This seat's observation (``encode_observation``, looked up when called)."""
        return encode_observation(game, seat, self.observation_layout)

    def hand_info(self, record: dict[str, Any], seat: int) -> dict[str, Any]:
        """The hand's number, the seat's net chips and the winner's relative seat (or -1)."""
        winner = relative_seat(record["winner"], seat, self.num_players)
        return {"hand": record["hand"], "chips": record["chips"][seat], "winner": winner}

    def chip_rewards(self, game: Game, records: list[dict[str, Any]]) -> bool:
        """Each ended hand's net chips / 10."""
        for record in records:
            for seat, agent in enumerate(self.possible_agents):
                self.rewards[agent] += record["chips"][seat] / CHIP_SCALE
        return bool(records)

    def state_parts(self, num_players: int) -> list[tuple[str, int]]:
        return SCALARS.state_parts(num_players, own=[])

    def encode_state_extra(self, game: Game, vector: np.ndarray) -> None:
        first_turn = [not played for played in game.has_played]
        SCALARS.encode_state(game, vector, self.state_layout, first_turn)


raw_env = FifteenEnv


def env(illegal: str = "raise", **kwargs: Any) -> AECEnv:
    """The environment with PettingZoo's standard wrappers (see the module docstring)."""
    return wrap(FifteenEnv(**kwargs), illegal)


register_envs()
