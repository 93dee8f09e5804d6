"""``search-v2``: a wider determinized search that spends its worlds where a decision is close.

It keeps the design of ``search@v1`` (``agents.contract.search``): ``N`` hidden worlds sampled from
the seat's public information (``agents.contract.sampler``), every candidate applied in the same
worlds (common random numbers) and each world's round played out by ``strong@v1`` at every seat,
the outcome being the seat's round points minus the table's mean. What changes:

1. **Wider candidates.** Besides v1's questions (take or draw and claim or pass when the card
   fills a slot of strong's plan; lay down now or wait), the discards are searched: strong's
   ``discards`` best-ranked discards (strong's own choice on shrinking lists), and the
   highest-point card in hand (``dump``), the one strong keeps too long when an opponent is about
   to close. Claims and takes of any card related to the hand are questioned (``wide_claims``),
   not only those that fill a plan slot.
2. **Sequential worlds.** ``min_worlds`` worlds first (after ``screen`` worlds a decision where no
   alternative is ahead stops). While the best alternative is ahead by more than ``margin`` but
   not yet by a paired t-statistic of ``t_min``, worlds are added in batches of ``min_worlds`` up
   to ``max_worlds``: the budget goes to the close decisions only.
3. **The guard.** Strong's move is kept unless an alternative's mean per-world advantage exceeds
   ``margin`` points with a paired t-statistic of at least ``t_min`` at the end (v1's threshold,
   2). Of several such alternatives the largest mean gain is played.

``search@v2`` is this bot at its default settings, frozen (``tests/test_versions.py`` pins its
moves); ``search@v2:N`` caps a decision at ``N`` worlds (``max_worlds``; ``search@v2:1`` plays as
``strong@v1``). ``search-v2`` and ``search-v2:K=V[:K=V...]`` are the experimental family that
overrides the settings (``discards``, ``dump``, ``wide_claims``, ``danger``, ``min_worlds``,
``max_worlds``, ``screen``, ``margin``, ``t_min``, ``belief``, ``history``) for ablations. The
bot never reads the live game: the sampler sees the view only (with ``history=1``, also the
view's public log of discards and declines).
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass, fields, replace

from agents.contract.beliefs import BeliefSampler
from agents.contract.sampler import PublicInfo, sample_world
from agents.contract.search import SearchAgent
from agents.contract.view import PlayerView
from continental_env.cards import JOKER
from continental_env.contract.game import CLAIM, DISCARD_BASE, DRAW, LAYDOWN, PASS, TAKE, Game


@dataclass(frozen=True)
class Settings:
    """The knobs of ``search-v2`` (defaults: the bot as named)."""

    discards: int = 3  # strong's best-ranked discards searched (1: strong's discard only)
    dump: int = 1  # 1: also search the highest-point discard
    wide_claims: int = 0  # 1: question takes and claims of any related card
    danger: int = 1  # 1: search discards only once an opponent is down (the round may end soon)
    min_worlds: int = 4  # worlds for every searched decision
    max_worlds: int = 16  # worlds a close decision may grow to
    screen: int = 2  # worlds after which a decision with no alternative ahead stops
    margin: float = 1.0  # points an alternative must gain on average over strong's move
    t_min: float = 2.0  # ... with at least this paired t-statistic
    belief: int = 1  # uniform deals per world resampled by belief weight (1: uniform worlds)
    history: int = 0  # 1: the belief weight also reads opponents' discards and declines

    def __post_init__(self) -> None:
        if self.min_worlds < 1:
            raise ValueError(f"min_worlds must be at least 1, got {self.min_worlds}")
        if self.max_worlds < self.min_worlds:
            raise ValueError(
                f"max_worlds ({self.max_worlds}) must be at least min_worlds ({self.min_worlds})"
            )
        if self.discards < 1:
            raise ValueError(f"discards must be at least 1, got {self.discards}")
        if not 1 <= self.screen <= self.min_worlds:
            raise ValueError(f"screen must be in 1..min_worlds, got {self.screen}")
        if self.belief < 1:
            raise ValueError(f"belief must be at least 1 (1: uniform worlds), got {self.belief}")
        if self.history not in (0, 1):
            raise ValueError(f"history must be 0 or 1, got {self.history}")
        if self.history and self.belief == 1:
            raise ValueError("history needs belief candidates to weigh (belief at least 2)")


class SearchV2Agent(SearchAgent):
    """Strong's move unless the sampled worlds show an alternative clearly better; see the module."""

    name = "search-v2"

    def __init__(
        self,
        seed: int | random.Random | None = None,
        settings: Settings | None = None,
        compiled: bool | None = None,
    ) -> None:
        self.settings = settings or Settings()
        super().__init__(seed, self.settings.max_worlds, compiled=compiled)
        self.name = "search-v2"
        self.worlds_used = 0  # worlds played over searched decisions (the budget's real cost)
        # belief 1: the uniform sampler's deals; history: the joint table with the public log
        self._belief = BeliefSampler(self.settings.belief, history=bool(self.settings.history))

    # ------------------------------------------------------------------ candidates

    def candidates(self, view: PlayerView) -> list[int]:
        """Strong's move first, then the alternatives worth comparing (module docstring)."""
        out = super().candidates(view)
        if len(out) == 1 and len(view.legal_actions) == 1:
            return out
        if view.phase in ("draw", "claim"):
            extra = self._pickup_alternatives(view, out)
        else:
            extra = self._discard_alternatives(view, out)
        legal = view.legal_actions
        for a in extra:
            if a in legal and a not in out:
                out.append(a)
        return out

    def _pickup_alternatives(self, view: PlayerView, out: list[int]) -> list[int]:
        """At a draw or a claim: both answers, when the card is related to the hand."""
        wide = self.settings.wide_claims and len(out) == 1
        if not wide or not self._wide_question(view, view.discard_top):
            return []
        draw = view.phase == "draw"
        return [DRAW if draw else CLAIM, TAKE if draw else PASS]

    def _discard_alternatives(self, view: PlayerView, out: list[int]) -> list[int]:
        """At a discard (or a lay-down that strong chose): strong's best-ranked discards and the
        dearest card, once another seat is down (with ``danger``)."""
        s = self.settings
        discards = [a for a in view.legal_actions if DISCARD_BASE <= a < DISCARD_BASE + JOKER]
        if not discards or (out[0] not in discards and out[0] != LAYDOWN):
            return []  # a close, a lay-off or a swap: strong's alone
        if s.danger and not any(d for i, d in enumerate(view.laid_down) if i != view.seat):
            return []  # nobody else is down: strong's discard
        extra = self._ranked_discards(view, discards, s.discards)
        if s.dump:
            pts = view.points
            extra.append(max(discards, key=lambda a: (pts[a - DISCARD_BASE], -a)))
        return extra

    def _wide_question(self, view: PlayerView, top: int | None) -> bool:
        """A take or claim of a natural related to the hand (before laying down)."""
        if top is None or top == JOKER or view.laid_down[view.seat]:
            return False
        if view.phase == "draw" and TAKE not in view.legal_actions:
            return False
        return self._strong._related(view, top)

    def _ranked_discards(self, view: PlayerView, discards: list[int], k: int) -> list[int]:
        """Strong's ``k`` best discards: its choice, then its choice among the rest, and so on."""
        left = list(discards)
        out: list[int] = []
        down = view.laid_down[view.seat]
        while left and len(out) < k:
            a = (
                self._strong._discard_down(view, left)
                if down
                else self._strong._discard_up(view, left)
            )
            out.append(a)
            left.remove(a)
        return out

    # ------------------------------------------------------------------ decision

    def evaluate(self, view: PlayerView, cands: list[int], rng: random.Random) -> list[list[float]]:
        """Per candidate, its outcome in each world played (the same worlds for all)."""
        s = self.settings
        policy = self._rollout_policy(view.num_players)
        values: list[list[float]] = [[] for _ in cands]
        info = PublicInfo.from_view(view)
        own_turn = self._laid[1] if self._laid[::2] == (view.round, view.seat) else None
        for k in range(s.max_worlds):
            if k == s.screen and not self._promising(values):
                break
            if k >= s.min_worlds and k % s.min_worlds == 0 and not self._undecided(values):
                break
            world = self._sample(info, rng, own_turn)  # drawn only when played
            for i, value in enumerate(self._play(world, cands, view.seat, policy)):
                values[i].append(value)
            self.worlds_used += 1
        return values

    def _sample(self, info: PublicInfo, rng: random.Random, own_turn: int | None) -> Game:
        """One hidden world consistent with the seat's public information (never the live game),
        resampled by belief weight when ``belief`` > 1 (``agents.contract.beliefs``)."""
        return sample_world(info, rng, own_turn, self._belief.deal(info, rng))

    def _gains(self, values: list[list[float]]) -> list[tuple[float, float]]:
        """Per alternative (index 1 on): mean paired gain over strong's move and its t-statistic."""
        n = len(values[0])
        out = []
        for v in values[1:]:
            gains = [b - a for a, b in zip(v, values[0], strict=True)]
            mean = sum(gains) / n
            if n < 2:
                out.append((mean, 0.0))
                continue
            var = sum((g - mean) ** 2 for g in gains) / (n - 1)
            t = mean / math.sqrt(var / n) if var > 0 else (math.inf if mean > 0 else 0.0)
            out.append((mean, t))
        return out

    def _undecided(self, values: list[list[float]]) -> bool:
        """Whether some alternative is ahead by the margin without a decisive t yet."""
        s = self.settings
        return any(m > s.margin and t < s.t_min for m, t in self._gains(values))

    def choose(self, values: list[list[float]]) -> int:
        """The candidate to play: the largest mean gain among those passing the guard, else 0."""
        s = self.settings
        best, best_gain = 0, 0.0
        if len(values[0]) < 2:
            return 0
        for i, (mean, t) in enumerate(self._gains(values), start=1):
            if mean > s.margin and t >= s.t_min and mean > best_gain:
                best, best_gain = i, mean
        return best


FROZEN = {
    "search@v2": Settings(),
    "search@v3": Settings(belief=32),
    "search@v4": Settings(belief=32, history=1),
    "search@v5": Settings(belief=32, history=1, max_worlds=48),
}


def capped(settings: Settings, budget: str) -> Settings:
    """``settings`` capped at ``budget`` worlds a decision (the ``:N`` of ``search@vK:N``);
    ValueError naming a budget that is not a whole number of at least 1."""
    try:
        n = int(budget)
    except ValueError:
        raise ValueError(f"search budget must be an integer, got {budget!r}") from None
    if n < 1:
        raise ValueError(f"search needs at least 1 world per decision, got {n}")
    first = min(settings.min_worlds, n)
    return replace(settings, max_worlds=n, min_worlds=first, screen=min(settings.screen, first))


def overridden(settings: Settings, part: str, spec: str, also: str = "") -> Settings:
    """``settings`` with the ``K=V`` of ``part`` (a field of ``Settings``) set; ValueError naming
    the part of ``spec`` (``also``: the other keys the caller reads, for the message)."""
    kinds = {f.name: f.type for f in fields(Settings)}
    key, eq, value = part.partition("=")
    if not eq or key not in kinds:
        raise ValueError(
            f"{part!r} in {spec!r}: expected {also}K=V with K one of {', '.join(kinds)}"
        )
    try:
        number = float(value) if kinds[key] in ("float", float) else int(value)
    except ValueError:
        raise ValueError(f"{part!r} in {spec!r}: {key} needs a number") from None
    return replace(settings, **{key: number})


def make_frozen(spec: str, seed: int | None) -> SearchV2Agent:
    """A frozen version at its settings (``FROZEN``: ``search@v2``; ``search@v3``, the same search
    over worlds resampled by belief; ``search@v4``, by belief with the public log's history;
    ``search@v5``, v4 whose close decisions may grow to 48 worlds), or ``search@vK:N`` (at most
    ``N`` worlds a decision)."""
    parts = spec.split(":")
    if parts[0] not in FROZEN or len(parts) > 2:
        raise ValueError(
            f"search spec {spec!r}: expected {' or '.join(FROZEN)}, optionally with :N (rollout "
            "and rule ablations are search@v1:N:ROLLOUT:RULE; settings ablations search-v2:K=V)"
        )
    settings = FROZEN[parts[0]]
    if len(parts) == 2:
        settings = capped(settings, parts[1])
    bot = SearchV2Agent(seed, settings)
    bot.name = spec
    return bot


def make_search_v2(spec: str, seed: int | None) -> SearchV2Agent:
    """``search-v2`` or ``search-v2:K=V[:K=V...]`` (``Settings`` fields); ValueError naming a bad part."""
    parts = spec.split(":")
    if parts[0] != "search-v2":
        raise ValueError(f"search-v2 spec {spec!r} must start with search-v2")
    settings = Settings()
    for part in parts[1:]:
        settings = overridden(settings, part, spec)
    bot = SearchV2Agent(seed, settings)
    bot.name = spec
    return bot


__all__ = [
    "FROZEN",
    "SearchV2Agent",
    "Settings",
    "capped",
    "make_frozen",
    "make_search_v2",
    "overridden",
]
