"""The ``search@v1`` bot: determinized flat Monte Carlo search (PIMC) that guards ``strong``'s move.

A frozen version (``make_agent("search@v1")``, ``search@v1:N``; ``tests/test_versions.py`` pins its
moves): it keeps ``strong@v1`` (``agents.contract.strong.StrongAgent``) as its base and rollout policy, and
its decisions never change. ``search`` names the current best search (``agents.CURRENT``).

``make_agent("search", seed)`` uses the default budget (``DEFAULT_SIMS`` worlds per decision);
``make_agent("search:N", seed)`` uses ``N``; ``search:N:ROLLOUT[:RULE]`` picks the rollout policy
(``strong``, the default, ``greedy`` or the cheap ``fast``) and the decision rule (``guard``, the
default, or ``argmin``) for ablations.

At each decision with more than one legal action:

1. **Candidates.** ``strong``'s move first, and an alternative only where the move is a real
   question: take the top discard or draw, and claim it or pass, when it fills a slot of strong's
   plan without completing the contract; lay the contract down now or wait (strong's discard).
   Everything else (discards, lay-offs, swaps, closing) is strong's move and costs no search, as
   does any decision with one legal action.
2. **Worlds.** ``N`` hidden worlds are sampled from the seat's public information alone
   (``agents.contract.sampler``: the live game behind the view is never read).
3. **Rollouts.** Every candidate is applied in the same worlds (common random numbers: the
   comparison is paired) and the round is played out to its end by ``strong`` at every seat, the
   policy the table really plays. The outcome is the seat's round points minus the mean of the
   other seats' round points.
4. **Guard.** Strong's move is kept unless an alternative's per-world advantage averages more
   than ``MARGIN`` points with a paired t-statistic of at least ``T_MIN``; after ``SCREEN``
   worlds a decision where no alternative is ahead stops early. With one world there is no
   t-statistic, so ``search:1`` plays exactly as ``strong`` (without searching). ``argmin``
   plays the best mean instead.

All randomness comes from the bot's own generator (seeded through ``make_agent``), so a seed and
a budget give the same decisions every time, whatever ``--jobs`` says.
"""

from __future__ import annotations

import math
import random

from agents.bots.base import SeededAgent
from agents.contract.greedy import GreedyAgent
from agents.contract.handtools import unseen_counts
from agents.contract.rollouts import COMPILED_POLICIES, CompiledRollouts, compiled_available
from agents.contract.sampler import PublicInfo, sample_world
from agents.contract.strong import StrongAgent, make_plan
from agents.contract.view import PlayerView
from continental_env.cards import JOKER
from continental_env.contract.game import (
    CLAIM,
    CLOSE,
    DISCARD_BASE,
    DRAW,
    LAYDOWN,
    PASS,
    TAKE,
    Game,
)
from continental_env.melds import has_contract

DEFAULT_SIMS = 4
ROLLOUTS = ("strong", "fast", "greedy")
RULES = ("guard", "argmin")
MARGIN = 1.0  # points (relative to the table) an alternative must gain on average over strong
T_MIN = 2.0  # ... with at least this paired t-statistic over the worlds
SCREEN = 2  # worlds after which a decision with no promising alternative stops
MAX_ROLLOUT_ACTIONS = 2000  # a round never needs this many; guards against a stuck rollout


def _partnered(hand: list[int], c: int) -> bool:
    """Whether natural ``c`` has a same-rank card or a same-suit card within two ranks."""
    r = c % 13
    if sum(hand[s * 13 + r] for s in range(4)) > 1:
        return True
    base = c - r
    return any(0 <= r + d < 13 and hand[base + r + d] for d in (-2, -1, 1, 2))


def fast_policy(world: Game) -> int:
    """The cheap rollout policy: reads the (sampled) world directly, no view, no look-ahead.

    Draw from the stock unless the top discard pairs with the hand (before laying down) or fits
    the table (after); never claim; close, lay down and lay off whenever possible; discard the
    highest-point natural without a partner (same rank, or same suit within two ranks), else the
    highest-point natural.
    """
    legal = world.legal_actions()
    phase = world.phase
    actor = world.actor
    assert actor is not None
    hand = world.hands[actor]
    if phase == "claim":
        return PASS
    if phase == "draw":
        return _fast_draw(world, legal, actor, hand)
    if CLOSE in legal:
        return CLOSE
    if LAYDOWN in legal:
        return LAYDOWN
    layout = world.layout
    for a in legal:
        if layout.layoff_base <= a < layout.swap_base:
            return a
    return _fast_discard(world, legal, actor, hand)


def _fast_draw(world: Game, legal: list[int], actor: int, hand: list[int]) -> int:
    """``fast_policy``'s draw: the top discard if it is a joker, fits the table (laid down) or
    pairs with the hand (not yet), else the stock."""
    top = world.discard[-1] if world.discard else None
    if TAKE in legal and top is not None:
        if top == JOKER:
            return TAKE
        if world.laid_down[actor]:
            if world.fitting_counts()[top]:
                return TAKE
        elif _partnered(hand, top) or hand[top]:
            return TAKE
    return DRAW


def _fast_discard(world: Game, legal: list[int], actor: int, hand: list[int]) -> int:
    """``fast_policy``'s discard: the highest-point natural without a partner (any natural once
    laid down), ties to the lowest card; the first legal action when no discard is legal."""
    pts = world.points
    best = None
    down = world.laid_down[actor]
    for a in legal:
        if DISCARD_BASE <= a < DISCARD_BASE + JOKER:
            c = a - DISCARD_BASE
            key = (down or not _partnered(hand, c), pts[c], -c)
            if best is None or key > best[0]:
                best = (key, a)
    if best is not None:
        return best[1]
    return legal[0]


def _rollout_value(world: Game, seat: int, policy: list | None) -> float:
    """Play ``world`` to the end of its round; the seat's points minus the table's mean.

    ``policy`` is one bot per seat acting on ``PlayerView``s, or None for ``fast_policy``.
    """
    start = world.round_index
    for _ in range(MAX_ROLLOUT_ACTIONS):
        if world.phase == "game_over" or world.round_index != start:
            break
        legal = world.legal_actions()
        if len(legal) == 1:
            action = legal[0]
        elif policy is None:
            action = fast_policy(world)
        else:
            actor = world.actor
            action = policy[actor].act(PlayerView.in_world(world, actor))
        world.apply(action)
    else:
        raise RuntimeError("a rollout did not finish its round")
    points = world.round_history[-1]["points"]
    p = len(points)
    return points[seat] - (sum(points) - points[seat]) / (p - 1)


class SearchAgent(SeededAgent):
    """Plays ``strong``'s move unless sampled worlds show an alternative clearly better."""

    name = "search"

    def __init__(
        self,
        seed: int | random.Random | None = None,
        sims: int = DEFAULT_SIMS,
        rollout: str = "strong",
        rule: str = "guard",
        compiled: bool | None = None,
    ) -> None:
        super().__init__(seed)
        if rollout not in ROLLOUTS:
            raise ValueError(f"unknown rollout policy {rollout!r}; choose one of {ROLLOUTS}")
        if rule not in RULES:
            raise ValueError(f"unknown decision rule {rule!r}; choose one of {RULES}")
        if sims < 1:
            raise ValueError(f"search needs at least 1 simulation per decision, got {sims}")
        self.rollout = rollout
        self.rule = rule
        self.sims = sims
        self.name = f"search:{sims}" if sims != DEFAULT_SIMS else "search"
        if rollout != "strong" or rule != "guard":
            self.name = f"search:{sims}:{rollout}" + (f":{rule}" if rule != "guard" else "")
        self._strong = StrongAgent(0)
        self._greedy = GreedyAgent(0)
        self._laid = (-1, -1, -1)  # (round, turn, seat) at which this bot laid down
        self.decisions = 0  # searched decisions (more than one candidate)
        self.deviations = 0  # searched decisions where an alternative beat strong's move
        self.rollouts = 0  # rollouts played
        # Rollouts on the compiled core (``agents.contract.rollouts``): the same values, hence
        # the same moves; None: whenever it is built and the rollout policy has a compiled bot.
        self._compiled = _compiled_rollouts(rollout, compiled)

    # ------------------------------------------------------------------ candidates

    def candidates(self, view: PlayerView) -> list[int]:
        """The legal actions worth comparing, strong's choice first.

        Only structural choices are searched: draw or take when the top discard relates to the
        hand (or fits the table once down), claim or pass when the card relates to the hand, lay
        down now or wait (strong's discard). Every other decision is strong's alone.
        """
        legal = view.legal_actions
        if len(legal) == 1:
            return list(legal)
        if CLOSE in legal:
            return [CLOSE]
        first = self._strong.act(view)
        out = [first]

        def add(a: int) -> None:
            if a in legal and a not in out:
                out.append(a)

        top = view.discard_top
        if view.phase in ("draw", "claim"):
            if self._helps_plan(view, top):
                add(DRAW if view.phase == "draw" else CLAIM)
                add(TAKE if view.phase == "draw" else PASS)
        elif LAYDOWN in legal:
            discards = [a for a in legal if DISCARD_BASE <= a < DISCARD_BASE + JOKER + 1]
            add(LAYDOWN)
            if discards:
                # Not laying down means discarding now: strong's discard.
                add(self._strong._discard_up(view, discards))
        return out

    def _helps_plan(self, view: PlayerView, top: int | None) -> bool:
        """Whether taking ``top`` is a real question: it fills a slot of strong's plan (before
        laying down) without completing the contract outright. A joker, a card that completes
        the contract, one that does not help and any pick-up once down are strong's alone.
        """
        if top is None or top == JOKER or view.laid_down[view.seat]:
            return False
        if view.phase == "draw" and TAKE not in view.legal_actions:
            return False
        trios, runs = view.contract
        rules = view.rules
        hand = list(view.hand)
        if has_contract(hand, trios, runs, rules):
            return False
        hand[top] += 1
        if has_contract(hand, trios, runs, rules):
            return False
        if not self._strong._related(view, top):
            return False
        unseen = unseen_counts(view)
        now = make_plan(tuple(view.hand), tuple(unseen), trios, runs, rules)
        after = make_plan(tuple(hand), tuple(unseen), trios, runs, rules)
        return after.cost < now.cost - 0.5

    # ------------------------------------------------------------------ decision

    def act(self, view: PlayerView) -> int:
        """Strong's move, or the candidate whose rollouts beat it clearly over ``sims`` worlds."""
        legal = view.legal_actions
        if not legal:
            raise ValueError(f"seat {view.seat} has no legal action (phase {view.phase!r})")
        if len(legal) == 1:
            return self._note(view, legal[0])
        cands = self.candidates(view)
        if len(cands) == 1 or (self.rule == "guard" and self.sims < 2):
            return self._note(view, cands[0])  # one world gives the guard no t-statistic
        self.decisions += 1
        rng = random.Random(self.rng.getrandbits(64))
        values = self.evaluate(view, cands, rng)
        best = self.choose(values)
        self.deviations += best != 0
        # What the search saw, for labels with soft targets (``agents.train.expert``): each
        # candidate's mean rollout outcome (the seat's round points less the others' mean;
        # lower is better) over the worlds played.
        self.last_search = (list(cands), [sum(v) / len(v) for v in values], len(values[0]))
        return self._note(view, cands[best])

    def evaluate(self, view: PlayerView, cands: list[int], rng: random.Random) -> list[list[float]]:
        """Per candidate, the rollout outcome in each sampled world (the same worlds for all)."""
        policy = self._rollout_policy(view.num_players)
        values: list[list[float]] = [[] for _ in cands]
        for k, world in enumerate(self._worlds(view, rng)):
            if k == SCREEN and self.rule == "guard" and not self._promising(values):
                break  # no alternative is ahead of strong's move after the first worlds
            for i, value in enumerate(self._play(world, cands, view.seat, policy)):
                values[i].append(value)
        return values

    def _play(self, world: Game, cands: list[int], seat: int, policy: list | None) -> list[float]:
        """Each candidate applied to a copy of ``world``, its round played out: the values."""
        after = []
        for a in cands:
            w = world.clone()
            w.apply(a)
            after.append(w)
        self.rollouts += len(after)
        if self._compiled is not None:
            return self._compiled.values(after, seat)
        return [_rollout_value(w, seat, policy) for w in after]

    @staticmethod
    def _promising(values: list[list[float]]) -> bool:
        """Whether some alternative's mean outcome beats strong's move by more than ``MARGIN``."""
        n = len(values[0])
        base = sum(values[0]) / n
        return any(base - sum(v) / n > MARGIN for v in values[1:])

    def choose(self, values: list[list[float]]) -> int:
        """The index of the candidate to play (0 is strong's move).

        ``argmin``: the lowest mean outcome, ties to the earlier candidate. ``guard``: strong's
        move unless another candidate's per-world advantage over it (paired: the same worlds)
        averages more than ``MARGIN`` points with a t-statistic above ``T_MIN``.
        """
        means = [sum(v) / len(v) for v in values]
        if self.rule == "argmin":
            return min(range(len(values)), key=lambda i: (means[i], i))
        best, best_gain = 0, 0.0
        n = len(values[0])
        for i in range(1, len(values)):
            gains = [b - a for a, b in zip(values[i], values[0], strict=True)]
            gain = sum(gains) / n
            if gain <= MARGIN or n < 2:
                continue
            var = sum((g - gain) ** 2 for g in gains) / (n - 1)
            if var > 0 and gain / math.sqrt(var / n) < T_MIN:
                continue
            if gain > best_gain:
                best, best_gain = i, gain
        return best

    def _rollout_policy(self, players: int) -> list | None:
        if self.rollout == "fast":
            return None
        if self.rollout == "greedy":
            return [self._greedy] * players
        return [self._strong] * players

    def _worlds(self, view: PlayerView, rng: random.Random) -> list[Game]:
        """``sims`` worlds sampled from the view's public fields only (``agents.contract.sampler``)."""
        info = PublicInfo.from_view(view)
        own_turn = self._laid[1] if self._laid[::2] == (view.round, view.seat) else None
        return [sample_world(info, rng, own_turn) for _ in range(self.sims)]

    def _note(self, view: PlayerView, action: int) -> int:
        if action == LAYDOWN:
            self._laid = (view.round, view.turn, view.seat)
        return action

    def observe_own(self, view: PlayerView, action: int) -> None:
        """Record the move its seat really played at ``view`` when another policy chose it
        (labelling a network's games): the turn its worlds take the seat to have laid down.
        A lay-down it proposed but that was not played is ignored by the worlds (the seat is
        not down); the next one played overwrites it."""
        self._note(view, action)


def _compiled_rollouts(rollout: str, compiled: bool | None) -> CompiledRollouts | None:
    """The compiled rollouts when asked for (True: required) or, with None, when built here."""
    if compiled is False or rollout not in COMPILED_POLICIES:
        if compiled:
            raise ValueError(f"rollout policy {rollout!r} has no compiled bot")
        return None
    if not compiled_available():
        if compiled:
            raise RuntimeError("compiled rollouts: continental_env._batch is not built here")
        return None
    return CompiledRollouts(rollout)


def make_search(spec: str, seed: int | None) -> SearchAgent:
    """``search``, ``search:N``, ``search:N:ROLLOUT`` or ``search:N:ROLLOUT:RULE``."""
    if spec == "search":
        return SearchAgent(seed)
    parts = spec.split(":")
    if len(parts) > 4:
        raise ValueError(f"search spec {spec!r} has too many parts (search:N:ROLLOUT:RULE)")
    budget = parts[1]
    rollout = parts[2] if len(parts) > 2 else "strong"
    rule = parts[3] if len(parts) > 3 else "guard"
    try:
        sims = int(budget)
    except ValueError:
        raise ValueError(f"search budget must be an integer, got {budget!r}") from None
    return SearchAgent(seed, sims, rollout, rule)


__all__ = ["DEFAULT_SIMS", "SearchAgent", "make_search"]
