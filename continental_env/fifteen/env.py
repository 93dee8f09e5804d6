"""# Fifteen-card Continental (``fifteen_v0``)

A PettingZoo AEC environment for the **fifteen-card game** of ``RULES.md`` Part 2 (seed 001,
"Continental Rummy"): 15 cards each, draw one, discard one, and go out by laying down all 15 as
sequences of one suit in one of three shapes. The engine is ``continental_env.fifteen.game``.

| | |
|---|---|
| import | ``from continental_env import fifteen; env = fifteen.env(num_players=4)`` |
| registry | ``pettingzoo.make("aec", "continental/fifteen_v0")`` after ``import continental_env.fifteen.env`` |
| agents | ``player_0`` .. ``player_{n-1}`` (2-12) |
| action space | ``Discrete(109)`` for every table size |
| observation | ``Dict(observation=Box(float32), action_mask=Box(int8))`` |

## Arguments

| argument | default | meaning |
|---|---|---|
| ``num_players`` | 4 | 2-12 (2 decks + 2 jokers up to 5 players, 3 + 3 up to 8, 4 + 4 up to 12) |
| ``target`` | 50 | the game ends after the hand in which a total reaches it (``None``: no target) |
| ``hands`` | None | the game ends after this many hands (``hands=1``: one-hand episodes) |
| ``max_turns_per_hand`` | 200 | safety net: a hand ends with no winner after this many discards |
| ``max_hands`` | 100 | safety net: the game ends after this many hands |
| ``reward`` | ``"chips"`` | ``chips`` or ``win`` (below) |
| ``render_mode`` | None | ``"ansi"`` (returns the table as text) or ``"human"`` (prints it) |
| ``illegal`` | ``"raise"`` | ``"raise"``: an illegal action raises ValueError and changes nothing; ``"terminate"``: PettingZoo's TerminateIllegalWrapper (-1, game over) |

## Observation

``observation`` is a float32 vector of *count planes* followed by scalars. A plane is a 5 x 13
grid of card counts (rows C D H S, the fifth row holds the jokers in column 0), flattened row by
row: index ``suit * 13 + rank`` for naturals and 52 for the joker. Seats are relative: ``+1`` is
the next player to the left.

| name | size | content |
|---|---|---|
| ``hand`` | 65 | own hand |
| ``discard_top`` | 65 | the up-card (top of the discard pile) |
| ``discards_seen`` | 65 | every card turned up or discarded face up this hand |
| ``known_opp`` | 65 (P-1) | cards each opponent (+1 .. +P-1) is known to hold because they took them |
| ``phase`` | 2 | one-hot draw / play |
| ``first_turn`` | P | 1 if that relative seat has not completed a turn this hand (7 / 10 bonus) |
| ``dealer`` | P | one-hot relative seat of the dealer |
| ``scores`` | P | chips per relative seat / 50 |
| ``stock`` | 1 | stock size / 100 |
| ``turn`` | 1 | discards this hand / max_turns_per_hand |
| ``hand_number`` | 1 | hands played / max_hands |

``env.unwrapped.observation_layout`` maps each name to its slice; ``plane_slices`` gives the
count planes, each reshapeable to ``(5, 13)``. Only the acting agent gets a non-zero
``action_mask``. The observation never contains hidden information: the stock and opponents'
cards not taken from the discard pile are absent (tested, with positive controls).

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

At a hand's end ``infos`` carry ``hand`` (its number), ``chips`` (that seat's net chips) and
``winner`` (the winner's relative seat, or -1 when the stock or the turn limit ended it;
infos never hold None).

## Errors, copies and positions

An illegal action raises ``ValueError`` with the engine's reason and changes nothing, on ``env()``
as on ``raw_env``; so does an action outside the action space (``10**6``, ``2.5``). Seeds may be
any integer kind (``int``, ``numpy.int64``). ``pickle`` and ``copy.deepcopy`` of a running
environment keep its game, agents, rewards, flags and agent to act. Assigning
``env.unwrapped.game`` puts another position behind the table (the observation cache follows it).

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

import operator
import random
from typing import Any, ClassVar

import numpy as np
from gymnasium import spaces
from gymnasium.utils import EzPickle
from pettingzoo import AECEnv

from continental_env.cards import NUM_TYPES
from continental_env.fifteen.game import NUM_ACTIONS, Game
from continental_env.layout import consecutive_slices
from continental_env.side_env import SideGameEnv, make_callable, register, wrap

PLANE = 65  # 5 x 13
REWARD_MODES = ("chips", "win")
CHIP_SCALE = 10.0
SCORE_SCALE = 50.0
PLANE_NAMES = ("hand", "discard_top", "discards_seen", "known_opp")
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


def observation_layout(num_players: int) -> dict[str, slice]:
    """Names of the observation's parts mapped to their slices (see the module table)."""
    p = num_players
    parts = [
        ("hand", PLANE),
        ("discard_top", PLANE),
        ("discards_seen", PLANE),
        ("known_opp", PLANE * (p - 1)),
        ("phase", 2),
        ("first_turn", p),
        ("dealer", p),
        ("scores", p),
        ("stock", 1),
        ("turn", 1),
        ("hand_number", 1),
    ]
    return consecutive_slices(parts)


def encode_observation(game: Game, seat: int, layout: dict[str, slice]) -> np.ndarray:
    """The observation vector of ``seat`` (see the module docstring); public information only."""
    p = game.num_players
    obs = np.zeros(layout["hand_number"].stop, dtype=np.float32)
    n = NUM_TYPES
    base = layout["hand"].start
    obs[base : base + n] = game.hands[seat]
    if game.discard and not game.is_over:
        obs[layout["discard_top"].start + game.discard[-1]] = 1.0
    base = layout["discards_seen"].start
    obs[base : base + n] = game.seen_discards
    base = layout["known_opp"].start
    for k in range(1, p):
        off = base + PLANE * (k - 1)
        obs[off : off + n] = game.known[(seat + k) % p]
    if game.phase == "draw":
        obs[layout["phase"].start] = 1.0
    elif game.phase == "play":
        obs[layout["phase"].start + 1] = 1.0
    order = [(seat + k) % p for k in range(p)]
    obs[layout["first_turn"]] = [0.0 if game.has_played[s] else 1.0 for s in order]
    obs[layout["dealer"].start + (game.dealer - seat) % p] = 1.0
    obs[layout["scores"]] = [game.scores[s] / SCORE_SCALE for s in order]
    obs[layout["stock"].start] = len(game.stock) / 100.0
    obs[layout["turn"].start] = game.turn / game.max_turns_per_hand
    obs[layout["hand_number"].start] = game.hand_index / game.max_hands
    return obs


class raw_env(SideGameEnv, AECEnv, EzPickle):
    """The unwrapped AEC environment; see the module docstring."""

    NUM_ACTIONS = NUM_ACTIONS
    RENDER_MODULE = "continental_env.fifteen.render"
    metadata: ClassVar[dict[str, Any]] = {
        "render_modes": ["human", "ansi"],
        "name": "fifteen_v0",
        "is_parallelizable": False,
        "render_fps": 1,
    }

    def encode(self, game: Game, seat: int) -> np.ndarray:
        """This seat's observation (``encode_observation``, looked up when called)."""
        return encode_observation(game, seat, self.observation_layout)

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
        EzPickle.__init__(
            self, num_players, target, hands, max_turns_per_hand, max_hands, reward, render_mode
        )
        super().__init__()
        # Validates every option with the engine's own messages.
        Game(num_players, target, hands, max_turns_per_hand, max_hands)
        if reward not in REWARD_MODES:
            raise ValueError(f"reward={reward!r}: choose one of {REWARD_MODES}")
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(
                f"render_mode={render_mode!r}: choose one of {self.metadata['render_modes']}"
            )
        self.num_players = num_players
        self.options = {
            "target": target,
            "hands": hands,
            "max_turns_per_hand": max_turns_per_hand,
            "max_hands": max_hands,
        }
        self.reward_mode = reward
        self.render_mode = render_mode
        self.possible_agents = [f"player_{i}" for i in range(num_players)]
        self.agent_name_mapping = {a: i for i, a in enumerate(self.possible_agents)}
        self.observation_layout = observation_layout(num_players)
        self.obs_size = self.observation_layout["hand_number"].stop
        self.plane_slices = {name: self.observation_layout[name] for name in PLANE_NAMES}
        self.num_actions = NUM_ACTIONS
        self.action_spaces = {a: spaces.Discrete(NUM_ACTIONS) for a in self.possible_agents}
        low = np.zeros(self.obs_size, dtype=np.float32)
        low[self.observation_layout["scores"]] = -np.inf  # chips go negative
        self.observation_spaces = {
            a: spaces.Dict(
                {
                    "observation": spaces.Box(low, np.inf, dtype=np.float32),
                    "action_mask": spaces.Box(0, 1, shape=(NUM_ACTIONS,), dtype=np.int8),
                }
            )
            for a in self.possible_agents
        }
        self._seeder = random.Random()
        self._game: Game | None = None
        self._obs_cache: dict[str, dict[str, np.ndarray]] = {}
        self._obs_game: Game | None = None  # the cache belongs to this game object ...
        self._obs_moves = -1  # ... at this move count

    @property
    def game(self) -> Game | None:
        """The engine behind the table (None before the first ``reset``)."""
        return self._game

    @game.setter
    def game(self, game: Game) -> None:
        """Put another position behind the table; the observation cache and, once reset, the
        agent to act follow it."""
        if not isinstance(game, Game):
            raise ValueError(f"game must be a fifteen.Game, not {type(game).__name__}")
        if game.num_players != self.num_players:
            raise ValueError(
                f"game has {game.num_players} players; this environment seats {self.num_players}"
            )
        self._game = game
        self._obs_cache = {}
        self._obs_game = None
        if self.agents and game.actor is not None:
            self.agent_selection = self.possible_agents[game.actor]

    def __getstate__(self) -> dict[str, Any]:
        """The constructor arguments (EzPickle) plus the running position, so that ``pickle`` and
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
        self._game = Game.new(self.num_players, seed=self._seeder.getrandbits(64), **self.options)
        self.agents = self.possible_agents[:]
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos = {a: {} for a in self.agents}
        self.agent_selection = self.possible_agents[self._game.actor]
        self._obs_cache = {}
        self._obs_game = None
        self._obs_moves = -1

    def step(self, action: int) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        game = self.game
        hands_before = len(game.hand_history)
        game.apply(action)  # raises ValueError, state unchanged, if illegal
        self._cumulative_rewards[agent] = 0.0
        self.rewards = {a: 0.0 for a in self.agents}
        self.infos = {a: {} for a in self.agents}
        for record in game.hand_history[hands_before:]:
            self._hand_rewards(record)
        if game.is_over:
            if self.reward_mode == "win":
                self._win_rewards()
            self.terminations = {a: True for a in self.agents}
        else:
            self.agent_selection = self.possible_agents[game.actor]
        self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    def _hand_rewards(self, record: dict[str, Any]) -> None:
        p = self.num_players
        winner = record["winner"]
        for seat, agent in enumerate(self.possible_agents):
            chips = record["chips"][seat]
            self.infos[agent] = {
                "hand": record["hand"],
                "chips": chips,
                "winner": -1 if winner is None else (winner - seat) % p,
            }
            if self.reward_mode == "chips":
                self.rewards[agent] += chips / CHIP_SCALE


def env(illegal: str = "raise", **kwargs: Any) -> AECEnv:
    """The environment with PettingZoo's standard wrappers (see the module docstring)."""
    return wrap(raw_env(**kwargs), illegal)


register("continental/fifteen_v0", "continental_env.fifteen.env:env")
make_callable(__name__, env)
