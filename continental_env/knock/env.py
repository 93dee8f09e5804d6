"""# Knock Continental (``knock_v0``)

A PettingZoo AEC environment for the **knock game** of ``RULES.md`` Part 3 (seed 002, the
Italian-origin knock rummy "Continental"): 10 cards each, draw one, discard one, and end a hand
by announcing a knock (deadwood at most 5), rummy, color or continental; bonuses in chips, points
that eliminate a player over 100, buy-backs, and a pot for the last player standing. The engine
is ``continental_env.knock.game``.

| | |
|---|---|
| import | ``from continental_env import knock; env = knock.env(num_players=4)`` |
| registry | ``pettingzoo.make("aec", "continental/knock_v0")`` after ``import continental_env.knock.env`` |
| agents | ``player_0`` .. ``player_{n-1}`` (2-6) |
| action space | ``Discrete(220)`` for every table size |
| observation | ``Dict(observation=Box(float32), action_mask=Box(int8))`` |

## Arguments

| argument | default | meaning |
|---|---|---|
| ``num_players`` | 4 | 2-6 (2 decks plus 4 jokers; 5 at 5 players, 6 at 6) |
| ``stake`` | 50 | the ante ``S``, a positive multiple of 5; bonuses 0.2 / 0.4 / 0.8 ``S`` |
| ``max_turns_per_hand`` | 200 | safety net: a hand ends with no announcer after this many discards |
| ``max_hands`` | 100 | safety net: the game ends after this many hands (lowest total wins) |
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
| ``discard_top`` | 65 | the top discard (empty at the start of a hand) |
| ``discards_seen`` | 65 | every card discarded face up this hand |
| ``known_opp`` | 65 (P-1) | cards each opponent (+1 .. +P-1) is known to hold because they took them |
| ``phase`` | 3 | one-hot draw / play / buy |
| ``in_game`` | P | 1 if that relative seat is still in the game |
| ``dealer`` | P | one-hot relative seat of the dealer |
| ``scores`` | P | points per relative seat / 100 |
| ``chips`` | P | net chips per relative seat / stake |
| ``buys`` | P | buy-backs made per relative seat |
| ``pot`` | 1 | the pot / stake |
| ``buy_back`` | 2 | in phase buy: the total a buy-back sets / 100, its cost / stake |
| ``stock`` | 1 | stock size / 100 |
| ``turn`` | 1 | discards this hand / max_turns_per_hand |
| ``hand_number`` | 1 | hands dealt / max_hands |

``env.unwrapped.observation_layout`` maps each name to its slice; ``plane_slices`` gives the
count planes, each reshapeable to ``(5, 13)``. Only the acting agent gets a non-zero
``action_mask``. The observation never contains hidden information: the stock and opponents'
cards not taken from the discard pile are absent (tested, with positive controls).

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

At a hand's end ``infos`` carry ``hand`` (its number), ``points`` (that seat's points in the
hand), ``chips`` (that seat's chips moved by the hand so far) and ``announcer`` (the announcer's
relative seat, or -1 when the stock or the turn limit ended it; infos never hold None). Eliminated seats stay in
``agents`` (they never act again) until the game ends, so that each gets its final reward.

## Errors, copies and positions

An illegal action raises ``ValueError`` with the engine's reason and changes nothing, on ``env()``
as on ``raw_env``; so does an action outside the action space (``10**6``, ``2.5``). Seeds may be
any integer kind (``int``, ``numpy.int64``). ``pickle`` and ``copy.deepcopy`` of a running
environment keep its game, agents, rewards, flags and agent to act. Assigning
``env.unwrapped.game`` puts another position behind the table (the observation cache follows it).

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

import operator
import random
from typing import Any, ClassVar

import numpy as np
from gymnasium import spaces
from gymnasium.utils import EzPickle
from pettingzoo import AECEnv

from continental_env.cards import NUM_TYPES
from continental_env.knock.game import NUM_ACTIONS, Game, buy_cost
from continental_env.layout import consecutive_slices
from continental_env.side_env import SideGameEnv, make_callable, register, wrap

PLANE = 65  # 5 x 13
REWARD_MODES = ("chips", "win")
POINT_SCALE = 100.0
PLANE_NAMES = ("hand", "discard_top", "discards_seen", "known_opp")
PHASE_INDEX = {"draw": 0, "play": 1, "buy": 2}
# What a running environment carries besides its game (kept by pickle and copy.deepcopy).
_POSITION_FIELDS = (
    "agents",
    "rewards",
    "_cumulative_rewards",
    "terminations",
    "truncations",
    "infos",
    "agent_selection",
    "_paid",
)


def observation_layout(num_players: int) -> dict[str, slice]:
    """Names of the observation's parts mapped to their slices (see the module table)."""
    p = num_players
    parts = [
        ("hand", PLANE),
        ("discard_top", PLANE),
        ("discards_seen", PLANE),
        ("known_opp", PLANE * (p - 1)),
        ("phase", 3),
        ("in_game", p),
        ("dealer", p),
        ("scores", p),
        ("chips", p),
        ("buys", p),
        ("pot", 1),
        ("buy_back", 2),
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
    if game.discard:
        obs[layout["discard_top"].start + game.discard[-1]] = 1.0
    base = layout["discards_seen"].start
    obs[base : base + n] = game.seen_discards
    base = layout["known_opp"].start
    for k in range(1, p):
        off = base + PLANE * (k - 1)
        obs[off : off + n] = game.known[(seat + k) % p]
    if game.phase in PHASE_INDEX:
        obs[layout["phase"].start + PHASE_INDEX[game.phase]] = 1.0
    order = [(seat + k) % p for k in range(p)]
    obs[layout["in_game"]] = [1.0 if game.in_game[s] else 0.0 for s in order]
    obs[layout["dealer"].start + (game.dealer - seat) % p] = 1.0
    obs[layout["scores"]] = [game.scores[s] / POINT_SCALE for s in order]
    obs[layout["chips"]] = [game.chips[s] / game.stake for s in order]
    obs[layout["buys"]] = [game.buys[s] for s in order]
    obs[layout["pot"].start] = game.pot / game.stake
    if game.phase == "buy" and game.current == seat:
        start = layout["buy_back"].start
        obs[start] = game.buy_back_total(seat) / POINT_SCALE
        obs[start + 1] = buy_cost(game.stake, game.buys[seat]) / game.stake
    obs[layout["stock"].start] = len(game.stock) / 100.0
    obs[layout["turn"].start] = game.turn / game.max_turns_per_hand
    obs[layout["hand_number"].start] = (game.hand_index + 1) / game.max_hands
    return obs


class raw_env(SideGameEnv, AECEnv, EzPickle):
    """The unwrapped AEC environment; see the module docstring."""

    NUM_ACTIONS = NUM_ACTIONS
    RENDER_MODULE = "continental_env.knock.render"
    metadata: ClassVar[dict[str, Any]] = {
        "render_modes": ["human", "ansi"],
        "name": "knock_v0",
        "is_parallelizable": False,
        "render_fps": 1,
    }

    def encode(self, game: Game, seat: int) -> np.ndarray:
        """This seat's observation (``encode_observation``, looked up when called)."""
        return encode_observation(game, seat, self.observation_layout)

    def __init__(
        self,
        num_players: int = 4,
        stake: int = 50,
        max_turns_per_hand: int = 200,
        max_hands: int = 100,
        reward: str = "chips",
        render_mode: str | None = None,
    ) -> None:
        EzPickle.__init__(
            self, num_players, stake, max_turns_per_hand, max_hands, reward, render_mode
        )
        super().__init__()
        # Validates every option with the engine's own messages.
        Game(num_players, stake, max_turns_per_hand, max_hands)
        if reward not in REWARD_MODES:
            raise ValueError(f"reward={reward!r}: choose one of {REWARD_MODES}")
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(
                f"render_mode={render_mode!r}: choose one of {self.metadata['render_modes']}"
            )
        self.num_players = num_players
        self.options = {
            "stake": stake,
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
        for name in ("scores", "chips"):
            low[self.observation_layout[name]] = -np.inf  # rummy / color points, net chips
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
        self._paid = [0] * num_players  # each seat's net chips already given as rewards
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
        agent to act follow it (chips rewards then count from that position's chips)."""
        if not isinstance(game, Game):
            raise ValueError(f"game must be a knock.Game, not {type(game).__name__}")
        if game.num_players != self.num_players:
            raise ValueError(
                f"game has {game.num_players} players; this environment seats {self.num_players}"
            )
        self._game = game
        self._paid = list(game.chips)
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
        self._paid = [0] * self.num_players  # the ante is paid out with the first step
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
            self._hand_infos(record)
        if self.reward_mode == "chips":
            for seat, a in enumerate(self.possible_agents):
                self.rewards[a] = (game.chips[seat] - self._paid[seat]) / game.stake
            self._paid = list(game.chips)
        if game.is_over:
            if self.reward_mode == "win":
                self._win_rewards()
            self.terminations = {a: True for a in self.agents}
        else:
            self.agent_selection = self.possible_agents[game.actor]
        self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    def _hand_infos(self, record: dict[str, Any]) -> None:
        p = self.num_players
        announcer = record["announcer"]
        for seat, agent in enumerate(self.possible_agents):
            self.infos[agent] = {
                "hand": record["hand"],
                "points": record["points"][seat],
                "chips": record["chips"][seat],
                "announcer": -1 if announcer is None else (announcer - seat) % p,
            }


def env(illegal: str = "raise", **kwargs: Any) -> AECEnv:
    """The environment with PettingZoo's standard wrappers (see the module docstring)."""
    return wrap(raw_env(**kwargs), illegal)


register("continental/knock_v0", "continental_env.knock.env:env")
make_callable(__name__, env)
