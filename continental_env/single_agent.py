"""A single-learner gymnasium view of each game, for single-agent RL libraries.

``SingleAgentEnv`` is what the three games' learner seats share: the opponent pool, seating,
seeding, ``action_masks()``, ``illegal="raise"|"terminate"``, the opponents' turns inside
``step()`` and the observation (the AEC environment's encoder, ``CardGameEnv.encode``).
``SingleAgentContinental`` (the contract game, below) and ``SingleAgentSideGame`` (the
fifteen-card and knock games, after it) add only how an episode starts and ends.

## The contract game: ``SingleAgentContinental``

One seat is the *learner*; the other seats are played by opponents drawn from a pool, inside
``step()``. The learner sees exactly what the AEC environment would give it: the observation
vector of its ``version`` (``continental_v0`` or ``continental_v1``, built once per state by the
environment's ``ObservationEncoder``; ``encode_observation`` is the reference) and the legal-action
mask (``action_masks()``, the method sb3-contrib's MaskablePPO looks for). Rewards are the
learner's own, from the AEC environment's reward logic (``reward="relative"`` by default: at each
round's end, (mean of the others' points - own points) / 100).

The environment knows nothing of the bots (data flows one way: ``agents`` builds on this
package, never the reverse). An *opponent* is any callable ``opponent(game, seat) -> action id``
that reads only what ``seat`` may see; the caller supplies them, or supplies ``make_opponent`` to
build them from names. ``agents.single_agent.make_env`` is this class with the bots wired in:
names for ``agents.make_agent``, bot objects, and ``"self"`` snapshots.

| argument | default | meaning |
|---|---|---|
| ``num_players`` | 4 | seats at the table |
| ``preset`` | ``"continental"`` | a preset name or a ``RuleConfig`` |
| ``rounds`` | all seven | a round number or a list of them (curriculum on one contract) |
| ``opponents`` | (required) | the pool: opponent callables, names for ``make_opponent``, or ``"self"`` |
| ``reward`` | ``"relative"`` | as ``continental_env.env`` |
| ``round_episodes`` | False | end the gymnasium episode at each round's end (below) |
| ``seed`` | None | seeds the deals, the learner's seat and the opponents' draws |
| ``mask_in_info`` | False | also return the next state's mask as ``info["action_mask"]`` |
| ``make_opponent`` | None | ``make_opponent(name, seed) -> opponent`` for the pool's names |
| ``load_snapshot`` | None | ``load_snapshot(path) -> opponent`` for ``add_snapshot`` |
| ``version`` | 0 | the observation: 0 = ``continental_v0``, 1 = ``continental_v1`` |
| ``illegal`` | ``"raise"`` | an illegal learner action: ``"raise"`` ValueError, nothing changes; ``"terminate"`` ends the episode with reward ``illegal_reward`` and ``info["illegal_action"] = True`` (what checkers that sample unmasked actions need) |
| ``illegal_reward`` | -1.0 | the reward of an illegal action under ``illegal="terminate"`` |

The observation space is ``Box(0, inf)`` of the v0 size for v0 and ``Box(-inf, inf)`` of the v1
size for v1 (the bounds the first models of the v1 observation were trained with, so that they
load with ``MaskablePPO.load(path, env=...)``).

Each game (or round, with ``round_episodes``) the learner takes a uniformly random seat and every
other seat gets an opponent drawn uniformly from the pool (a name is built once per seat, seeded
from the environment's generator). ``"self"`` in the pool stands for a frozen snapshot of the
learner: ``add_snapshot(path)`` registers one (through ``load_snapshot``) and ``"self"`` draws one
of the registered snapshots (the pool's other entries when there is none yet, ``"random"`` if
there are none).

With ``round_episodes=True`` an episode is one round: relative rewards make rounds independent
(what happens in one round does not change what is best in the next), so ending the episode at the
round's end spares the value function predicting later rounds. The next ``reset()`` continues the
same game into its next round with fresh seats and opponents, so all seven contracts are seen. A
round that ends before the learner's first decision in it (an opponent going out at once) is
skipped; ``info["skipped_rounds"]`` counts them.

The learner is never handed an all-zero mask: it is only asked to act when the engine awaits its
seat, and every live state has a legal action. After the episode ends, ``action_masks()`` returns
a mask with the single action 0, which no one uses but keeps maskable samplers well defined.
``mask_in_info`` lets a vectorised trainer read the masks from the step's results instead of a
second round-trip to each worker process (``agents.train``'s ``MasksFromInfo``).

## The fifteen-card and knock games: ``SingleAgentSideGame``

The counterpart of ``SingleAgentContinental`` for the two side games: one seat is the
*learner*, the other seats are played by opponents inside ``step()``. The learner sees what the
AEC environment (``continental_env.fifteen.aec`` / ``continental_env.knock.aec``) would give its
seat: the observation vector and the legal-action mask (``action_masks()``, the method
sb3-contrib's MaskablePPO looks for). Rewards are the learner's own, from the AEC environment's
reward logic (``reward="chips"`` by default: chips won or lost / 10 in the fifteen-card game,
net chips / stake in the knock game, so a game's rewards sum to its result).

An *opponent* is any callable ``opponent(game, seat) -> action id`` that reads only what ``seat``
may see; the caller supplies them, or supplies ``make_opponent(name, seed)`` to build them from
names (``agents.side_single_agent.make_env`` wires in the bots: ``random``, ``greedy``,
``strong``, trained models, and ``"self"`` snapshots). The environment package never imports the
bots.

| argument | default | meaning |
|---|---|---|
| ``game`` | (required) | ``"fifteen"`` or ``"knock"`` |
| ``num_players`` | 4 | seats at the table (fifteen 2-12, knock 2-6) |
| ``opponents`` | (required) | the pool: opponent callables, names for ``make_opponent``, or ``"self"`` |
| ``illegal`` | ``"raise"`` | an illegal learner action: ``"raise"`` ValueError, nothing changes; ``"terminate"`` ends the episode with reward ``illegal_reward`` and ``info["illegal_action"] = True`` |
| ``illegal_reward`` | -1.0 | the reward of an illegal action under ``illegal="terminate"`` |
| ``reward`` | ``"chips"`` | as the AEC environment (``chips`` or ``win``) |
| ``seed`` | None | seeds the deals, the learner's seat and the opponents' draws |
| ``mask_in_info`` | False | also return the next state's mask as ``info["action_mask"]`` |
| ``make_opponent`` | None | ``make_opponent(name, seed) -> opponent`` for the pool's names |
| ``load_snapshot`` | None | ``load_snapshot(path) -> opponent`` for ``add_snapshot`` |
| ``**options`` | | the game's options: fifteen ``target``, ``hands``, ``max_turns_per_hand``, ``max_hands``; knock ``stake``, ``max_turns_per_hand``, ``max_hands`` |

An episode is one game (``hands=1`` makes one-hand games of the fifteen-card game). Each game the
learner takes a uniformly random seat and every other seat an opponent drawn uniformly from the
pool. In the knock game an eliminated learner's episode ends at once: its chips can no longer
change. ``info`` holds ``seat`` at reset and ``score`` (the learner's final chips) and ``winners``
(the seats that won the game; never None) at the end.

The learner is only asked to act when the engine awaits its seat; after the episode ends,
``action_masks()`` returns a mask with the single action 0, which keeps maskable samplers defined.
"""

from __future__ import annotations

import importlib
import operator
import random
from collections.abc import Callable, Sequence
from typing import Any, ClassVar

import gymnasium
import numpy as np
from gymnasium import spaces

from continental_env.contract.aec import raw_env
from continental_env.rules import RuleConfig

SELF = "self"
FALLBACK = "random"  # built by make_opponent while a pool of only "self" has no snapshot yet
GAMES = ("fifteen", "knock")
ILLEGAL_MODES = ("raise", "terminate")
Opponent = Callable[[Any, int], int]  # (game, seat) -> a legal action id for that seat


class RenderModeError(ValueError, TypeError):
    """A ``render_mode`` the environment does not have. Also a TypeError: SB3's ``make_vec_env``
    offers ``render_mode="rgb_array"`` to every id and makes the environment without one when
    that raises a TypeError."""


class SingleAgentEnv(gymnasium.Env):
    """The learner's seat of a table (module docstring); a game's class sets ``_aec`` (the raw
    AEC environment) and ``observation_space`` and says how an episode starts and ends."""

    metadata: ClassVar[dict[str, Any]] = {"render_modes": ["ansi"], "name": "single_v0"}
    _aec: Any
    MAKE_ENV_HINT: ClassVar[str] = "agents.single_agent.make_env"

    def __init__(
        self,
        num_players: int,
        opponents: Sequence[Opponent | str],
        illegal: str,
        illegal_reward: float,
        seed: int | None,
        render_mode: str | None,
        mask_in_info: bool,
        make_opponent: Callable[[str, int], Opponent] | None,
        load_snapshot: Callable[[str], Opponent] | None,
    ) -> None:
        super().__init__()
        if illegal not in ILLEGAL_MODES:
            raise ValueError(f"illegal={illegal!r}: choose 'raise' or 'terminate'")
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise RenderModeError(f"render_mode={render_mode!r}: choose 'ansi' or None")
        self.num_players = num_players
        self.illegal = illegal
        self.illegal_reward = float(illegal_reward)
        self.render_mode = render_mode
        self.mask_in_info = mask_in_info
        self.make_opponent = make_opponent
        self.load_snapshot = load_snapshot
        self.pool: list[Any] = []
        self.set_opponents(opponents)
        self._rng = random.Random(seed)
        self._agents: dict[tuple[str, int], Opponent] = {}  # opponents built by name, per seat
        self._snapshots: list[Opponent] = []
        self.learner = 0
        self.seat_agents: list[Any] = [None] * num_players
        self._episode_open = False
        self.opponent_decisions = 0

    def _init_spaces(self, observation_space: spaces.Space) -> None:
        self.layout = self._aec.observation_layout
        self.num_actions = self._aec.num_actions
        self.observation_space = observation_space
        self.action_space = spaces.Discrete(self.num_actions)

    # ------------------------------------------------------------------ pool

    @property
    def game(self) -> Any:
        """The engine behind the table."""
        return self._aec.game

    def add_snapshot(self, path: str, keep: int = 5) -> int:
        """Register a frozen learner snapshot for ``"self"`` (read by ``load_snapshot``); keeps
        the newest ``keep``."""
        if self.load_snapshot is None:
            raise ValueError(f"add_snapshot needs load_snapshot (e.g. {self.MAKE_ENV_HINT})")
        self._snapshots.append(self.load_snapshot(path))
        del self._snapshots[:-keep]
        return len(self._snapshots)

    def set_opponents(self, opponents: Sequence[Opponent | str]) -> None:
        """Replace the pool from the next deal on."""
        if isinstance(opponents, str):
            raise ValueError(f"opponents={opponents!r}: the pool needs a list of entries")
        if not opponents:
            raise ValueError("opponents: the pool needs at least one entry")
        for entry in opponents:
            if isinstance(entry, str):
                if entry != SELF and self.make_opponent is None:
                    raise ValueError(
                        f"opponent {entry!r} is a name: pass make_opponent to build it "
                        f"({self.MAKE_ENV_HINT} does), or pass opponent callables"
                    )
            elif not callable(entry):
                raise ValueError(f"opponent {entry!r} is neither a name nor a callable")
        self.pool = list(opponents)

    def _opponent(self, entry: Any, seat: int) -> Opponent:
        if not isinstance(entry, str):
            return entry  # an opponent callable
        if entry == SELF:
            if self._snapshots:
                return self._rng.choice(self._snapshots)
            others = [e for e in self.pool if e != SELF]
            if not others and self.make_opponent is None:
                raise ValueError("the pool is only 'self' and no snapshot is registered yet")
            return self._opponent(self._rng.choice(others or [FALLBACK]), seat)
        key = (entry, seat)
        agent = self._agents.get(key)
        if agent is None:
            assert self.make_opponent is not None  # checked by set_opponents
            agent = self.make_opponent(entry, self._rng.getrandbits(32))
            self._agents[key] = agent
        return agent

    def _seat_players(self) -> None:
        """A uniformly random seat for the learner, an opponent from the pool for every other."""
        p = self.num_players
        self.learner = self._rng.randrange(p)
        self.seat_agents = [
            None if s == self.learner else self._opponent(self._rng.choice(self.pool), s)
            for s in range(p)
        ]

    def _reseed(self, seed: Any) -> int | None:
        """``seed`` as an int (any integer kind; ValueError otherwise); a new seed restarts the
        generator and the opponents built from it (same seed, same game)."""
        if seed is None:
            return None
        try:
            seed = operator.index(seed)
        except TypeError:
            raise ValueError(f"seed {seed!r} is not an integer") from None
        self._rng = random.Random(seed)
        self._agents = {}
        return seed

    # ------------------------------------------------------------------ gymnasium API

    def action_masks(self) -> np.ndarray:
        """Boolean mask of the learner's legal actions (never all False)."""
        mask = np.zeros(self.num_actions, dtype=bool)
        game = self.game
        if self._episode_open and game.actor == self.learner:
            mask[game.legal_actions()] = True
        else:
            mask[0] = True
        return mask

    def render(self) -> str | None:
        return importlib.import_module(self._aec.RENDER_MODULE).render_table(self.game)

    # ------------------------------------------------------------------ internals

    def _legal_move(self, action: Any) -> int | None:
        """The action as an id if it is legal now, else None."""
        try:
            move = operator.index(action)
        except TypeError:
            return None
        if isinstance(action, bool) or not 0 <= move < self.num_actions:
            return None
        return move if self.game.is_legal(move) else None

    def _refuse(self, action: Any) -> tuple[np.ndarray, float, bool, bool, dict[str, Any]]:
        """An illegal learner action: ValueError naming it (``raise``, nothing changes), or the
        episode ends with ``illegal_reward`` (``terminate``)."""
        try:
            move = operator.index(action)
        except TypeError:
            move = -1
        if self.illegal == "raise":
            if isinstance(action, bool) or not 0 <= move < self.num_actions:
                raise ValueError(f"action {action!r} is not in Discrete({self.num_actions})")
            self.game.apply(move)  # raises ValueError with the engine's reason
            raise AssertionError(f"the engine accepted the illegal action {move}")
        self._episode_open = False
        self._on_illegal_end()
        info = {"illegal_action": True, "action": int(move), "seat": self.learner}
        return self._observe(), self.illegal_reward, True, False, self._with_mask(info)

    def _on_illegal_end(self) -> None:
        """What a game does when ``illegal="terminate"`` ends an episode."""

    def _with_mask(self, info: dict[str, Any]) -> dict[str, Any]:
        if self.mask_in_info:
            info["action_mask"] = self.action_masks()
        return info

    def _observe(self) -> np.ndarray:
        return self._aec.encode(self.game, self.learner)

    def _stop(self) -> bool:
        """Whether the opponents stop playing: the learner's episode cannot go on."""
        return self.game.is_over

    def _play_opponents(self, stop_at_round_end: bool = False) -> float:
        """Opponents act until the learner is asked (or ``_stop``, or with ``stop_at_round_end``
        a round ends); returns the learner's rewards meanwhile."""
        aec = self._aec
        game = self.game
        learner_agent = aec.possible_agents[self.learner]
        rounds_before = self._rounds_played()
        reward = 0.0
        while not self._stop():
            seat = game.actor
            if seat == self.learner:
                break
            legal = game.legal_actions()
            action = legal[0] if len(legal) == 1 else self.seat_agents[seat](game, seat)
            aec.step(action)
            self.opponent_decisions += 1
            reward += aec.rewards[learner_agent]
            if stop_at_round_end and self._rounds_played() > rounds_before:
                break
        return reward

    def _rounds_played(self) -> int:
        return 0


class SingleAgentContinental(SingleAgentEnv):
    """The learner's seat of a Continental table; see the module docstring."""

    metadata: ClassVar[dict[str, Any]] = {"render_modes": ["ansi"], "name": "continental_single_v0"}

    def __init__(
        self,
        num_players: int = 4,
        preset: str | RuleConfig = "continental",
        rounds: int | Sequence[int] | None = None,
        opponents: Sequence[Opponent | str] = (),
        reward: str = "relative",
        round_episodes: bool = False,
        seed: int | None = None,
        render_mode: str | None = None,
        mask_in_info: bool = False,
        make_opponent: Callable[[str, int], Opponent] | None = None,
        load_snapshot: Callable[[str], Opponent] | None = None,
        version: int = 0,
        illegal: str = "raise",
        illegal_reward: float = -1.0,
    ) -> None:
        super().__init__(
            num_players, opponents, illegal, illegal_reward, seed, render_mode, mask_in_info,
            make_opponent, load_snapshot,
        )  # fmt: skip
        rounds_arg = list(rounds) if isinstance(rounds, (list, tuple)) else rounds
        self._aec = raw_env(
            num_players=num_players, preset=preset, rounds=rounds_arg, reward=reward,
            version=version,
        )  # fmt: skip
        self.version = version
        self.round_episodes = round_episodes
        # v0: Box(0, inf); v1: Box(-inf, inf), the bounds the first models of the v1
        # observation were trained with (so that they load with MaskablePPO.load(path, env=...)).
        low = 0.0 if version == 0 else -np.inf
        self._init_spaces(spaces.Box(low, np.inf, shape=(self._aec.obs_size,), dtype=np.float32))
        self._game_running = False
        self._skipped = 0

    def reset(
        self, *, seed: int | None = None, options: dict | None = None
    ) -> tuple[np.ndarray, dict[str, Any]]:
        seed = self._reseed(seed)
        super().reset(seed=seed)
        if seed is not None:
            self._game_running = False
        self._skipped = 0
        if not self._game_running or self.game.is_over:
            self._new_game()
        self._seat_players()
        while True:
            rounds_before = self._rounds_played()
            self._play_opponents(stop_at_round_end=True)
            if self.game.is_over:
                self._new_game()
                self._seat_players()
            elif self._rounds_played() == rounds_before:
                break
            self._skipped += 1  # a round ended before the learner's first decision in it
            if self._skipped > 100:
                raise RuntimeError("the learner never got to act")
        self._episode_open = True
        info = {"seat": self.learner, "skipped_rounds": self._skipped}
        return self._observe(), self._with_mask(info)

    def step(self, action: int) -> tuple[np.ndarray, float, bool, bool, dict[str, Any]]:
        if not self._episode_open:
            raise RuntimeError("step() after the episode ended; call reset()")
        move = self._legal_move(action)
        if move is None:
            return self._refuse(action)
        aec = self._aec
        agent = aec.possible_agents[self.learner]
        rounds_before = self._rounds_played()
        aec.step(move)
        reward = aec.rewards[agent]
        if not self.game.is_over and not self._round_over(rounds_before):
            reward += self._play_opponents(stop_at_round_end=self.round_episodes)
        game = self.game
        info: dict[str, Any] = {}
        terminated = game.is_over or self._round_over(rounds_before)
        if terminated:
            self._episode_open = False
            info["round_points"] = [r["points"][self.learner] for r in game.state.round_history]
            info["score"] = game.state.scores[self.learner]
        return self._observe(), float(reward), terminated, False, self._with_mask(info)

    def _on_illegal_end(self) -> None:
        self._game_running = False  # the next reset deals a new game

    def _new_game(self) -> None:
        self._aec.reset(seed=self._rng.getrandbits(64))
        self._game_running = True

    def _rounds_played(self) -> int:
        return len(self.game.state.round_history)

    def _round_over(self, rounds_before: int) -> bool:
        return self.round_episodes and self._rounds_played() > rounds_before


class SingleAgentSideGame(SingleAgentEnv):
    """The learner's seat of a fifteen-card or knock table; see the module docstring."""

    metadata: ClassVar[dict[str, Any]] = {"render_modes": ["ansi"], "name": "side_single_v0"}
    MAKE_ENV_HINT = "agents.side_single_agent.make_env"

    def __init__(
        self,
        game: str,
        num_players: int = 4,
        opponents: Sequence[Opponent | str] = (),
        illegal: str = "raise",
        illegal_reward: float = -1.0,
        reward: str = "chips",
        seed: int | None = None,
        render_mode: str | None = None,
        mask_in_info: bool = False,
        make_opponent: Callable[[str, int], Opponent] | None = None,
        load_snapshot: Callable[[str], Opponent] | None = None,
        **options: Any,
    ) -> None:
        if game not in GAMES:
            raise ValueError(f"game={game!r}: choose one of {', '.join(GAMES)}")
        super().__init__(
            num_players, opponents, illegal, illegal_reward, seed, render_mode, mask_in_info,
            make_opponent, load_snapshot,
        )  # fmt: skip
        module = importlib.import_module(f"continental_env.{game}.aec")
        self._aec = module.raw_env(num_players=num_players, reward=reward, **options)
        self.game_name = game
        self.options = dict(options)
        agent0 = self._aec.possible_agents[0]
        self._init_spaces(self._aec.observation_space(agent0)["observation"])
        self._reward = 0.0  # the learner's rewards before its first decision (the knock ante)

    def reset(
        self, *, seed: int | None = None, options: dict | None = None
    ) -> tuple[np.ndarray, dict[str, Any]]:
        seed = self._reseed(seed)
        super().reset(seed=seed)
        for _attempt in range(100):
            self._aec.reset(seed=self._rng.getrandbits(64))
            self._seat_players()
            self._reward = self._play_opponents()
            if not self._stop():
                break
        else:
            raise RuntimeError("the learner never got to act in 100 games")
        self._episode_open = True
        return self._observe(), self._with_mask({"seat": self.learner})

    def step(self, action: Any) -> tuple[np.ndarray, float, bool, bool, dict[str, Any]]:
        if not self._episode_open:
            raise RuntimeError("step() after the episode ended; call reset()")
        move = self._legal_move(action)
        if move is None:
            return self._refuse(action)
        aec = self._aec
        aec.step(move)
        reward = self._reward + aec.rewards[aec.possible_agents[self.learner]]
        self._reward = 0.0
        reward += self._play_opponents()
        info: dict[str, Any] = {}
        terminated = self._stop()
        if terminated:
            self._episode_open = False
            game = self.game
            info["score"] = self._score()
            info["winners"] = list(game.winners()) if game.is_over else []
        return self._observe(), float(reward), terminated, False, self._with_mask(info)

    def _score(self) -> float:
        return self._aec.final_score(self.game, self.learner)

    def _stop(self) -> bool:
        """The game is over or the learner is out (the knock game: its chips are final)."""
        game = self.game
        return game.is_over or self._aec.seat_out(game, self.learner)


def make_env(**kwargs: Any) -> SingleAgentContinental:
    """A ``SingleAgentContinental`` (keyword arguments as its constructor)."""
    return SingleAgentContinental(**kwargs)
