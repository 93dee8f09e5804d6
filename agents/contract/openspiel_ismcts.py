"""``openspiel-ismcts``: OpenSpiel's information-set MCTS (``open_spiel.python.algorithms.ismcts``)
at the project's table, an outside anchor for the project's own search.

``make_agent("openspiel-ismcts", seed)`` searches ``DEFAULT_SIMS`` simulations per decision;
``openspiel-ismcts:N`` searches ``N``; ``openspiel-ismcts:N:points`` values a new leaf by the
hands as they stand instead of a random playout (``HandPointsEvaluator``). It needs the
``[openspiel]`` extra.

At each decision with more than one legal action the bot builds an OpenSpiel state of
``continental_contract`` (``continental_env.openspiel``) for its information set: a world
sampled from the seat's view alone (``agents.contract.sampler``; the live game behind the view
is never read), ending with the current round (the reward is the round's relative points / 100,
as the search bots value a round). OpenSpiel's ``ISMCTSBot`` then runs ``N`` simulations, each
in a world freshly resampled from the same view, with OpenSpiel's random-rollout evaluator
(one uniformly random playout to the round's end; or, with ``points``, the round's relative
reward were it scored now) and UCT constant ``UCT_C``; the move is the most visited. Every random choice comes from the bot's own generator.
"""

from __future__ import annotations

import random
from typing import Any

from agents.contract.sampler import PublicInfo, sample_world
from agents.contract.view import PlayerView
from continental_env.contract.game import LAYDOWN

# The fewest simulations that search (the first only expands the root); a 4-player game against
# strong@v1 then costs 8.0 CPU s, search@v5's 5.86 (docs/openspiel.md).
DEFAULT_SIMS = 2
EVALUATORS = ("rollout", "points")
UCT_C = 1.0  # the returns are round points / 100: a round's spread is about one unit


def _openspiel() -> tuple[Any, Any, Any, Any]:
    """pyspiel, the game module and OpenSpiel's ISMCTS and MCTS modules, or ImportError
    naming the extra."""
    try:
        import pyspiel
        from open_spiel.python.algorithms import ismcts, mcts

        import continental_env.openspiel as game_module
    except ImportError as exc:
        raise ImportError(
            f"openspiel-ismcts needs OpenSpiel ({exc}); "
            "install it with pip install 'continental-rl[openspiel]'"
        ) from None
    return pyspiel, game_module, ismcts, mcts


def hand_point_values(state: Any) -> list[float]:
    """The returns so far plus the round's relative reward were every hand scored now."""
    g = state.engine
    n = g.num_players
    pts = [g.hand_points(seat) for seat in range(n)]
    total = sum(pts)
    return [
        r + ((total - p) / (n - 1) - p) / 100 for r, p in zip(state.returns(), pts, strict=True)
    ]


class HandPointsEvaluator:
    """An OpenSpiel MCTS evaluator (``evaluate``, ``prior``) with no playout: a leaf is worth
    the relative points of the hands as they stand (``hand_point_values``); uniform priors."""

    def evaluate(self, state: Any) -> Any:
        import numpy as np

        return np.array(state.returns() if state.is_terminal() else hand_point_values(state))

    def prior(self, state: Any) -> list[tuple[int, float]]:
        legal = state.legal_actions()
        return [(a, 1.0 / len(legal)) for a in legal]


class OpenSpielISMCTSAgent:
    """OpenSpiel's ``ISMCTSBot`` over worlds sampled from the seat's view."""

    def __init__(
        self,
        seed: int | random.Random | None = None,
        sims: int = DEFAULT_SIMS,
        evaluator: str = "rollout",
    ) -> None:
        if evaluator not in EVALUATORS:
            raise ValueError(f"unknown evaluator {evaluator!r}; choose one of {EVALUATORS}")
        if sims < 1:
            raise ValueError(
                f"openspiel-ismcts needs at least 1 simulation per decision, got {sims}"
            )
        _openspiel()  # fail at construction, with the extra named, when OpenSpiel is absent
        self.rng = seed if isinstance(seed, random.Random) else random.Random(seed)
        self.sims = sims
        self.evaluator = evaluator
        self.name = "openspiel-ismcts" if sims == DEFAULT_SIMS else f"openspiel-ismcts:{sims}"
        if evaluator != "rollout":
            self.name = f"openspiel-ismcts:{sims}:{evaluator}"
        self._games: dict[tuple[Any, int], Any] = {}
        self._laid = (-1, -1, -1)  # (round, turn, seat) at which this bot laid down
        self.decisions = 0  # searched decisions (more than one legal action)

    def _game(self, view: PlayerView) -> Any:
        key = (view.rules, view.num_players)
        if key not in self._games:
            _, module, _, _ = _openspiel()
            params = {"players": view.num_players}
            self._games[key] = module.ContractGame(params, rules=view.rules)
        return self._games[key]

    def act(self, view: PlayerView) -> int:
        """The most visited root action of ``sims`` ISMCTS simulations."""
        legal = view.legal_actions
        if not legal:
            raise ValueError(f"seat {view.seat} has no legal action (phase {view.phase!r})")
        if len(legal) == 1:
            return self._note(view, legal[0])
        self.decisions += 1
        import numpy as np

        _, _, ismcts, mcts = _openspiel()
        game = self._game(view)
        info = PublicInfo.from_view(view)
        own_turn = self._laid[1] if self._laid[::2] == (view.round, view.seat) else None
        rng = random.Random(self.rng.getrandbits(64))

        def world(_state: Any = None, _player: Any = None) -> Any:
            return game.state_from_engine(sample_world(info, rng, own_turn), horizon=True)

        np_rng = np.random.RandomState(rng.getrandbits(32))
        if self.evaluator == "points":
            leaf: Any = HandPointsEvaluator()
        else:
            leaf = mcts.RandomRolloutEvaluator(n_rollouts=1, random_state=np_rng)
        bot = ismcts.ISMCTSBot(
            game,
            leaf,
            UCT_C,
            self.sims,
            random_state=np_rng,
            final_policy_type=ismcts.ISMCTSFinalPolicyType.MAX_VISIT_COUNT,
        )
        bot.set_resampler(world)
        policy = bot.run_search(world())
        best = max(p for _, p in policy)
        # Ties (equal visit counts) go to the lowest action id: the choice is reproducible.
        action = min(int(a) for a, p in policy if p == best)
        if action not in legal:
            raise RuntimeError(f"ISMCTS chose {action}, not legal at seat {view.seat}")
        return self._note(view, action)

    def _note(self, view: PlayerView, action: int) -> int:
        if action == LAYDOWN:
            self._laid = (view.round, view.turn, view.seat)
        return action


def make_openspiel_ismcts(name: str, seed: int | None) -> OpenSpielISMCTSAgent:
    """``openspiel-ismcts``, ``openspiel-ismcts:N`` (N simulations per decision) or
    ``openspiel-ismcts:N:EVALUATOR`` (``rollout`` or ``points``)."""
    parts = name.split(":")
    if len(parts) == 1:
        return OpenSpielISMCTSAgent(seed)
    if len(parts) > 3:
        raise ValueError(
            f"openspiel-ismcts spec {name!r} has too many parts (openspiel-ismcts:N:EVALUATOR)"
        )
    budget = parts[1]
    try:
        sims = int(budget)
    except ValueError:
        raise ValueError(f"openspiel-ismcts budget must be an integer, got {budget!r}") from None
    return OpenSpielISMCTSAgent(seed, sims, parts[2] if len(parts) == 3 else "rollout")


__all__ = [
    "DEFAULT_SIMS",
    "EVALUATORS",
    "HandPointsEvaluator",
    "OpenSpielISMCTSAgent",
    "hand_point_values",
    "make_openspiel_ismcts",
]
