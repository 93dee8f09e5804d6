"""The contract game as an OpenSpiel game: ``pyspiel.load_game("continental_contract")``.

``import continental_env.openspiel`` registers the game with ``pyspiel`` (the ``[openspiel]``
extra installs ``open_spiel``); its documentation page is ``docs/openspiel.md``.

* **State.** The project's engine (``continental_env.contract.game.Game``) is the position; an
  OpenSpiel action is an engine action id (``Game.num_actions`` of them, the legal ones ascending,
  ``action_to_string`` the engine's text).
* **Chance.** Each round's deal is one explicit chance node with ``deals`` equally likely
  outcomes; outcome ``o`` of the round at position ``i`` of the schedule is the engine deal seed
  ``i * 2**32 + o``, which deals the hands and the stock and also orders every stock re-formed
  from the discard pile in that round. The action history therefore fixes the state, so
  OpenSpiel's history-based serialization restores it exactly.
* **Rewards.** At each round's end, each seat gets (mean of the others' round points - own round
  points) / 100, the AEC environment's ``relative`` reward: zero-sum, and maximising it is
  playing for the lowest total. Returns are their sum.
* **Information.** The information-state string is the seat's view (own hand, the table, the
  whole discard pile, the cards each seat is publicly known to hold, sizes, scores, claims,
  phase) followed by the public actions of the game so far (every player action is public;
  chance outcomes are not). The observation string is the view alone. Both tensors are the AEC
  environment's observation vector (``ObservationEncoder``, version ``observation`` = 0 or 1),
  which holds no hidden card; the information-state tensor is that vector too, not a record of
  the whole history. At a chance node both strings say only that a deal is awaited and the
  tensors are zero.
* **Resampling.** ``resample_from_infostate(player, sampler)`` deals the cards ``player`` cannot
  see again at random (``deal_unseen_again``): OpenSpiel's Python ``ISMCTSBot`` samples its
  worlds through it.
"""

from __future__ import annotations

import random
from typing import Any

import numpy as np
import pyspiel

from continental_env.cards import format_cards
from continental_env.contract.aec import ObservationEncoder, observation_layout
from continental_env.contract.game import Game
from continental_env.rules import PRESETS, RuleConfig, deck_counts, points_table

SHORT_NAME = "continental_contract"
# ``rounds=0`` plays the preset's whole schedule; ``max_turns=0`` keeps the preset's limit.
DEFAULTS: dict[str, Any] = {
    "preset": "continental",
    "players": 4,
    "rounds": 0,
    "max_turns": 0,
    "deals": 1000,
    "observation": 1,
}
SEED_STRIDE = 2**32  # deal seed = schedule position * SEED_STRIDE + chance outcome
MAX_PLAYERS = 8

_GAME_TYPE = pyspiel.GameType(
    short_name=SHORT_NAME,
    long_name="Continental contract rummy",
    dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
    chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
    information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
    utility=pyspiel.GameType.Utility.ZERO_SUM,
    reward_model=pyspiel.GameType.RewardModel.REWARDS,
    max_num_players=MAX_PLAYERS,
    min_num_players=2,
    provides_information_state_string=True,
    provides_information_state_tensor=True,
    provides_observation_string=True,
    provides_observation_tensor=True,
    parameter_specification=DEFAULTS,
)


def rules_of(params: dict[str, Any]) -> RuleConfig:
    """The engine's rules for the game parameters; ValueError naming a bad value."""
    preset = params["preset"]
    if preset not in PRESETS:
        raise ValueError(f"preset {preset!r} is unknown; choose one of {sorted(PRESETS)}")
    rules = PRESETS[preset]
    rounds = params["rounds"]
    if not 0 <= rounds <= len(rules.rounds):
        raise ValueError(f"rounds={rounds} must be 0 (all) to {len(rules.rounds)}")
    if rounds:
        rules = rules.with_rounds(rules.rounds[:rounds])
    turns = params["max_turns"]
    if turns < 0:
        raise ValueError(f"max_turns={turns} must be 0 (the preset's) or positive")
    if turns:
        rules = RuleConfig.from_dict({**rules.to_dict(), "max_turns_per_round": turns})
    return rules


def _max_round_points(rules: RuleConfig, players: int) -> int:
    """An upper bound on one seat's points in one round: every card of the deck."""
    pts = points_table(rules)
    return max(
        sum(n * pts[c] for c, n in enumerate(deck_counts(rules, players, r))) for r in rules.rounds
    )


class ContractGame(pyspiel.Game):
    """The contract game with OpenSpiel's interface (module docstring)."""

    def __init__(
        self, params: dict[str, Any] | None = None, rules: RuleConfig | None = None
    ) -> None:
        """``params`` as ``DEFAULTS``; ``rules`` (for search at a table with rules of its own)
        replaces the preset, rounds and turn limit the parameters name."""
        full = {**DEFAULTS, **(params or {})}
        unknown = sorted(set(full) - set(DEFAULTS))
        if unknown:
            raise ValueError(f"unknown parameters {unknown}; choose among {sorted(DEFAULTS)}")
        self.rules = rules if rules is not None else rules_of(full)
        players = full["players"]
        # Game(...) refuses a table the preset's decks cannot deal (one line naming it).
        self.template = Game(self.rules, players)
        if full["deals"] < 1:
            raise ValueError(f"deals={full['deals']} must be at least 1")
        if full["observation"] not in (0, 1):
            raise ValueError(f"observation={full['observation']} must be 0 or 1")
        self.deals = full["deals"]
        self.observation_version = full["observation"]
        bound = len(self.rules.rounds) * _max_round_points(self.rules, players) / 100
        super().__init__(
            _GAME_TYPE,
            pyspiel.GameInfo(
                num_distinct_actions=self.template.num_actions,
                max_chance_outcomes=self.deals,
                num_players=players,
                min_utility=-bound,
                max_utility=bound,
                utility_sum=0.0,
                # player actions plus one chance node per round
                max_game_length=self.template.max_game_length + len(self.rules.rounds),
            ),
            full,
        )

    def new_initial_state(self) -> ContractState:
        """The game before its first deal (a chance node)."""
        engine = Game(self.rules, self.num_players())
        engine.state.deal_seeds = [0] * len(self.rules.rounds)
        return ContractState(self, engine, pending=True)

    def state_from_engine(
        self, engine: Game, history: list[tuple[int, int, int]] | None = None, horizon: bool = False
    ) -> ContractState:
        """A state over ``engine`` (used as is) at a decision; ``history`` is the public actions
        shown in information-state strings; ``horizon`` ends the game with the current round.
        Such a state has no OpenSpiel action history: it is for search, not serialization."""
        state = ContractState(self, engine, pending=False, horizon=horizon)
        state._public = list(history or [])
        return state

    def make_py_observer(
        self, iig_obs_type: Any = None, params: dict[str, Any] | None = None
    ) -> ContractObserver:
        """The observer OpenSpiel builds its tensors and strings from."""
        return ContractObserver(self, iig_obs_type, params)


class _EngineBox:
    """Holds the engine so that OpenSpiel's copy of a state (a deep copy of its attributes)
    copies it with ``Game.clone``, the engine's fast copy."""

    __slots__ = ("game",)

    def __init__(self, game: Game) -> None:
        self.game = game

    def __deepcopy__(self, memo: dict) -> _EngineBox:
        return _EngineBox(self.game.clone())


class ContractState(pyspiel.State):
    """One position: the engine, whether a deal awaits its chance outcome, the public actions."""

    def __init__(
        self, game: ContractGame, engine: Game, pending: bool, horizon: bool = False
    ) -> None:
        super().__init__(game)
        self._deals = game.deals
        self._box = _EngineBox(engine)
        self.pending = pending  # the round's deal awaits its chance outcome
        self.horizon = horizon  # a search state: terminal at the current round's end
        self._start_round = engine.state.round_index
        self._public: list[tuple[int, int, int]] = []  # (round, seat, action)
        n = engine.num_players
        self._rewards = [0.0] * n
        self._returns = [0.0] * n

    @property
    def engine(self) -> Game:
        """The position (the project's engine)."""
        return self._box.game

    # ------------------------------------------------------------------ the game's flow

    def current_player(self) -> int:
        """The seat to act, ``CHANCE`` before a deal, ``TERMINAL`` at the end."""
        if self.is_terminal():
            return pyspiel.PlayerId.TERMINAL
        if self.pending:
            return pyspiel.PlayerId.CHANCE
        return self.engine.actor

    def is_terminal(self) -> bool:
        """After the last round (or, for a search state, the current one)."""
        g = self.engine
        return g.is_over or (self.horizon and g.state.round_index != self._start_round)

    def _legal_actions(self, player: int) -> list[int]:
        return self.engine.legal_actions() if player == self.engine.actor else []

    def chance_outcomes(self) -> list[tuple[int, float]]:
        """The ``deals`` deal seeds of this round, equally likely."""
        p = 1.0 / self._deals
        return [(o, p) for o in range(self._deals)]

    def _apply_action(self, action: int) -> None:
        g = self.engine
        n = g.num_players
        if self.pending:
            if not 0 <= action < self._deals:
                raise ValueError(f"chance outcome {action} is not one of the {self._deals} deals")
            index = g.state.round_index
            g.state.deal_seeds[index] = index * SEED_STRIDE + action
            g._deal()  # re-deals the round from its seed (the engine dealt a placeholder)
            self.pending = False
            # The round's rewards stay readable at the first decision after the deal: OpenSpiel
            # reads rewards at decision nodes, not at chance nodes.
            return
        self._rewards = [0.0] * n
        rounds_scored = len(g.state.round_history)
        self._public.append((g.state.round, g.actor, action))
        g.apply(action)
        if len(g.state.round_history) > rounds_scored:
            points = g.state.round_history[-1]["points"]
            total = sum(points)
            self._rewards = [((total - p) / (n - 1) - p) / 100 for p in points]
            self._returns = [a + b for a, b in zip(self._returns, self._rewards, strict=True)]
            self.pending = not g.is_over and not self.horizon

    def _action_to_string(self, player: int, action: int) -> str:
        if player == pyspiel.PlayerId.CHANCE:
            return f"deal {action}"
        return self.engine.action_to_str(action)

    def rewards(self) -> list[float]:
        """Each seat's reward for the last action (non-zero only when it ended a round)."""
        return list(self._rewards)

    def returns(self) -> list[float]:
        """The rewards so far, summed."""
        return list(self._returns)

    # ------------------------------------------------------------------ sampling worlds

    def resample_from_infostate(self, player: int, probability_sampler: Any) -> ContractState:
        """A state with ``player``'s information state whose hidden cards are dealt again at
        random (``deal_unseen_again``); ``probability_sampler()`` (a number in [0, 1)) seeds
        the deal."""
        if self.pending or self.is_terminal():
            return self.clone()
        rng = random.Random(int(probability_sampler() * 2**53))
        out = self.clone()
        out._box = _EngineBox(deal_unseen_again(self.engine, player, rng))
        return out

    def __str__(self) -> str:
        """Every hand and the stock (for debugging: not an observation)."""
        g = self.engine
        if self.pending:
            return f"round {g.state.round}: the deal awaits its chance outcome"
        lines = [view_text(g, seat) for seat in range(g.num_players)]
        lines.append(f"stock {format_cards(g.state.stock)}")
        return "\n".join(lines)


# ---------------------------------------------------------------------------- resampling


def deal_unseen_again(game: Game, seat: int, rng: random.Random) -> Game:
    """A copy of ``game`` whose cards ``seat`` cannot see are dealt again uniformly at random.

    The unseen cards are the other seats' cards not publicly known to be held (known pick-ups
    stay with their holders) and the stock. As a multiset they are the round's deck minus what
    ``seat`` sees, so shuffling them into the same slots (each hand keeps its size, the stock
    its length) is a uniform deal of the unseen pool given the seat's view: the distribution
    ``agents.contract.sampler`` deals from. The generator that orders a re-formed stock is
    hidden too and is reseeded.
    """
    world = game.clone()
    s = world.state
    pool = list(s.stock)
    slots = []
    for other in range(world.num_players):
        if other == seat:
            continue
        hand, known = s.hands[other], s.known[other]
        hidden = [c for c in range(len(hand)) for _ in range(hand[c] - known[c])]
        for c in hidden:
            hand[c] -= 1
        pool += hidden
        slots.append((other, len(hidden)))
    rng.shuffle(pool)
    for other, count in slots:
        for c in pool[:count]:
            s.hands[other][c] += 1
        del pool[:count]
    s.stock = pool
    s.rng = random.Random(rng.getrandbits(64))
    world._invalidate()  # the legal ids read the hand in turn
    return world


# ---------------------------------------------------------------------------- observations


def view_text(game: Game, seat: int | None) -> str:
    """What ``seat`` sees, one line: only fields a seat's view holds (no hidden card); with
    ``seat=None`` the public part alone (no hand)."""
    s = game.state
    who = "public" if seat is None else f"p{seat}"
    if game.is_over:
        return f"{who} game over; scores {s.scores}"
    hand = "" if seat is None else f"; hand {format_cards(game.hand_cards(seat))}"
    known = " ".join(
        f"p{i}:{format_cards([c for c in range(53) for _ in range(k[c])])}"
        for i, k in enumerate(s.known)
        if any(k)
    )
    table = " | ".join(f"p{m.owner} {m.kind} {format_cards(m.cards)}" for m in s.table)
    return (
        f"{who} round {s.round} turn {s.turn} {s.phase} current p{s.current}"
        + (f" asked p{s.asked}" if s.asked is not None else "")
        + f" dealer p{s.dealer}{hand}"
        + f"; sizes {s.hand_sizes} down {[int(d) for d in s.laid_down]} claims {s.claims}"
        + f" scores {s.scores}; stock {len(s.stock)}; discard {format_cards(s.discard)}"
        + f"; known {known or '-'}; table {table or '-'}"
    )


class ContractObserver:
    """OpenSpiel's observer protocol (``tensor``, ``dict``, ``set_from``, ``string_from``):
    the AEC observation vector, and the seat's view (with the public actions when the
    observation type asks for perfect recall)."""

    def __init__(
        self, game: ContractGame, iig_obs_type: Any, params: dict[str, Any] | None
    ) -> None:
        if params:
            raise ValueError(f"observation parameters {params} are not supported")
        if iig_obs_type is None:
            iig_obs_type = pyspiel.IIGObservationType(perfect_recall=False)
        self.recall = iig_obs_type.perfect_recall
        self.private = iig_obs_type.private_info == pyspiel.PrivateInfoType.SINGLE_PLAYER
        self.public = iig_obs_type.public_info
        # Only the seat's own view has a tensor: public-only or private-only observations
        # (OpenSpiel's factored observations) are strings.
        self.full = self.private and self.public
        n = game.num_players()
        self._encoder = ObservationEncoder(n, game.observation_version)
        size = sum(
            sl.stop - sl.start for sl in observation_layout(n, game.observation_version).values()
        )
        self.tensor: np.ndarray | None = np.zeros(size, np.float32) if self.full else None
        name = "info_state" if self.recall else "observation"
        self.dict = {name: self.tensor} if self.full else {}

    def set_from(self, state: ContractState, player: int) -> None:
        """The tensor of ``state`` for ``player`` (zero at a chance node)."""
        if self.tensor is None:
            return
        if state.pending:
            self.tensor.fill(0.0)
            return
        self.tensor[:] = self._encoder.encode(state.engine, player)

    def string_from(self, state: ContractState, player: int) -> str:
        """The seat's view (and the public actions for perfect recall)."""
        g = state.engine
        if state.pending:
            text = f"round {g.state.round} deal pending; scores {g.state.scores}" * self.public
        elif self.full:
            text = view_text(g, player)
        elif self.private:
            text = f"p{player} hand {format_cards(g.hand_cards(player))}"
        else:
            text = view_text(g, None) if self.public else ""
        if self.recall and self.public and state._public:
            acts = " ".join(f"r{r}p{s}:{g.action_to_str(a)}" for r, s, a in state._public)
            text += f"\nhistory {acts}"
        return text


pyspiel.register_game(_GAME_TYPE, ContractGame)

__all__ = [
    "DEFAULTS",
    "SHORT_NAME",
    "ContractGame",
    "ContractObserver",
    "ContractState",
    "deal_unseen_again",
    "view_text",
]
