"""A single-learner gymnasium view of the fifteen-card and knock games.

The counterpart of ``continental_env.single_agent`` for the two side games: one seat is the
*learner*, the other seats are played by opponents inside ``step()``. The learner sees what the
AEC environment (``continental_env.fifteen.env`` / ``continental_env.knock.env``) would give its
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

SELF = "self"
FALLBACK = "random"
GAMES = ("fifteen", "knock")
ILLEGAL_MODES = ("raise", "terminate")
Opponent = Callable[[Any, int], int]  # (game, seat) -> a legal action id for that seat


class SingleAgentSideGame(gymnasium.Env):
    """The learner's seat of a fifteen-card or knock table; see the module docstring."""

    metadata: ClassVar[dict[str, Any]] = {"render_modes": ["ansi"], "name": "side_single_v0"}

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
        super().__init__()
        if game not in GAMES:
            raise ValueError(f"game={game!r}: choose one of {', '.join(GAMES)}")
        if illegal not in ILLEGAL_MODES:
            raise ValueError(f"illegal={illegal!r}: choose 'raise' or 'terminate'")
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode={render_mode!r}: choose 'ansi' or None")
        module = importlib.import_module(f"continental_env.{game}.aec")
        self._aec = module.raw_env(num_players=num_players, reward=reward, **options)
        self.game_name = game
        self.options = dict(options)
        self.num_players = num_players
        self.illegal = illegal
        self.illegal_reward = float(illegal_reward)
        self.make_opponent = make_opponent
        self.load_snapshot = load_snapshot
        self.render_mode = render_mode
        self.mask_in_info = mask_in_info
        self.pool: list[Any] = []
        self.set_opponents(opponents)
        self.layout = self._aec.observation_layout
        self.num_actions = self._aec.num_actions
        agent0 = self._aec.possible_agents[0]
        self.observation_space = self._aec.observation_space(agent0)["observation"]
        self.action_space = spaces.Discrete(self.num_actions)
        self._rng = random.Random(seed)
        self._agents: dict[tuple[str, int], Opponent] = {}
        self._snapshots: list[Opponent] = []
        self.learner = 0
        self.seat_agents: list[Any] = [None] * num_players
        self._episode_open = False
        self.opponent_decisions = 0

    # ------------------------------------------------------------------ pool

    @property
    def game(self) -> Any:
        """The engine behind the table."""
        return self._aec.game

    def add_snapshot(self, path: str, keep: int = 5) -> int:
        """Register a frozen learner snapshot for ``"self"``; keeps the newest ``keep``."""
        if self.load_snapshot is None:
            raise ValueError("add_snapshot needs load_snapshot (agents.side_single_agent.make_env)")
        self._snapshots.append(self.load_snapshot(path))
        del self._snapshots[:-keep]
        return len(self._snapshots)

    def set_opponents(self, opponents: Sequence[Opponent | str]) -> None:
        """Replace the pool from the next game on."""
        if isinstance(opponents, str) or not opponents:
            raise ValueError(f"opponents={opponents!r}: the pool needs a list of entries")
        for entry in opponents:
            if isinstance(entry, str):
                if entry != SELF and self.make_opponent is None:
                    raise ValueError(
                        f"opponent {entry!r} is a name: pass make_opponent to build it "
                        "(agents.side_single_agent.make_env does), or pass opponent callables"
                    )
            elif not callable(entry):
                raise ValueError(f"opponent {entry!r} is neither a name nor a callable")
        self.pool = list(opponents)

    def _opponent(self, entry: Any, seat: int) -> Opponent:
        if not isinstance(entry, str):
            return entry
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

    # ------------------------------------------------------------------ gymnasium API

    def reset(
        self, *, seed: int | None = None, options: dict | None = None
    ) -> tuple[np.ndarray, dict[str, Any]]:
        if seed is not None:
            try:
                seed = operator.index(seed)
            except TypeError:
                raise ValueError(f"seed {seed!r} is not an integer") from None
            self._rng = random.Random(seed)
            self._agents = {}  # opponents are rebuilt from the new generator: same seed, same game
        super().reset(seed=seed)
        for _attempt in range(100):
            self._aec.reset(seed=self._rng.getrandbits(64))
            self.learner = self._rng.randrange(self.num_players)
            self.seat_agents = [
                None if s == self.learner else self._opponent(self._rng.choice(self.pool), s)
                for s in range(self.num_players)
            ]
            self._reward = self._play_opponents()
            if not self._learner_done():
                break
        else:
            raise RuntimeError("the learner never got to act in 100 games")
        self._episode_open = True
        return self._observe(), self._with_mask({"seat": self.learner})

    def step(self, action: Any) -> tuple[np.ndarray, float, bool, bool, dict[str, Any]]:
        if not self._episode_open:
            raise RuntimeError("step() after the episode ended; call reset()")
        aec = self._aec
        agent = aec.possible_agents[self.learner]
        try:
            move = operator.index(action)
        except TypeError:
            move = -1
        inside = 0 <= move < self.num_actions and not isinstance(action, (bool, float))
        if not (inside and self.game.is_legal(move)):
            if self.illegal == "raise":
                if not inside:
                    raise ValueError(f"action {action!r} is not in Discrete({self.num_actions})")
                self.game.apply(move)  # raises ValueError with the engine's reason
                raise AssertionError(f"the engine accepted the illegal action {move}")
            self._episode_open = False
            info = {"illegal_action": True, "action": int(move), "seat": self.learner}
            return self._observe(), self.illegal_reward, True, False, self._with_mask(info)
        aec.step(move)
        reward = self._reward + aec.rewards[agent]
        self._reward = 0.0
        reward += self._play_opponents()
        info: dict[str, Any] = {}
        terminated = self._learner_done()
        if terminated:
            self._episode_open = False
            game = self.game
            info["score"] = self._score()
            info["winners"] = list(game.winners()) if game.is_over else []
        return self._observe(), float(reward), terminated, False, self._with_mask(info)

    def action_masks(self) -> np.ndarray:
        """Boolean mask of the learner's legal actions (never all False)."""
        mask = np.zeros(self.num_actions, dtype=bool)
        game = self.game
        if self._episode_open and not game.is_over and game.actor == self.learner:
            mask[game.legal_actions()] = True
        else:
            mask[0] = True
        return mask

    def render(self) -> str | None:
        module = importlib.import_module(f"continental_env.{self.game_name}.render")
        return module.render_table(self.game)

    # ------------------------------------------------------------------ internals

    def _score(self) -> float:
        game = self.game
        if self.game_name == "knock":
            return float(game.chips[self.learner])
        return float(game.scores[self.learner])

    def _learner_done(self) -> bool:
        game = self.game
        if game.is_over:
            return True
        return self.game_name == "knock" and not game.in_game[self.learner]

    def _with_mask(self, info: dict[str, Any]) -> dict[str, Any]:
        if self.mask_in_info:
            info["action_mask"] = self.action_masks()
        return info

    def _observe(self) -> np.ndarray:
        return self._aec.encode(self.game, self.learner)

    def _play_opponents(self) -> float:
        """Opponents act until the learner is asked, or its game ends; the learner's rewards."""
        aec = self._aec
        game = self.game
        learner_agent = aec.possible_agents[self.learner]
        reward = 0.0
        while not self._learner_done():
            seat = game.actor
            if seat == self.learner:
                break
            legal = game.legal_actions()
            action = legal[0] if len(legal) == 1 else self.seat_agents[seat](game, seat)
            aec.step(action)
            self.opponent_decisions += 1
            reward += aec.rewards[learner_agent]
        return reward


def make_env(**kwargs: Any) -> SingleAgentSideGame:
    """A ``SingleAgentSideGame`` (keyword arguments as its constructor)."""
    return SingleAgentSideGame(**kwargs)
