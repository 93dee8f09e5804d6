"""The compiled kernels return exactly what their pure-Python references return.

``continental_env/_kernels.c`` ports the hot pure functions (``docs/speed-kernels.md``). Each
is compared with its reference on calls recorded from seeded games of ``strong`` (regenerated
here, deterministic) and on Hypothesis hands up to the worst cases (46-70 cards). Equality is
exact: float results compare bit for bit, tuples element by element. A positive control runs
the same comparison on a deliberately wrong kernel and expects it to fail.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import replace
from functools import cache
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from reference import examples

from agents.contract import strong
from agents.contract.view import PlayerView
from continental_env import kernels, melds
from continental_env.cards import JOKER, NUM_TYPES
from continental_env.contract import features
from continental_env.contract.game import Game
from continental_env.rules import CONTRACTS, PRESETS, RuleConfig, points_table

ALL = ("continental", "continental_us", "continental_es")
K = kernels.compiled
needs_kernels = pytest.mark.skipif(K is None, reason="compiled kernels not built")


def test_kernels_are_built_unless_switched_off() -> None:
    """pip builds the kernels with the package; only an explicit switch runs without them."""
    if os.environ.get(kernels.ENV_VAR, "1") in ("0", "false", "no", "off"):
        assert not kernels.active()
    else:
        assert K is not None, "continental_env._kernels is missing: reinstall with a C compiler"
        assert kernels.active()


@contextmanager
def recording(module: Any, name: str) -> Iterator[list[tuple]]:
    """Record the arguments of every call of ``module.name`` (the reference runs)."""
    calls: list[tuple] = []
    original = getattr(module, name)

    def spy(*args: Any) -> Any:
        calls.append(args)
        return original(*args)

    setattr(module, name, spy)
    try:
        yield calls
    finally:
        setattr(module, name, original)


@contextmanager
def references_only() -> Iterator[None]:
    """Run the pure-Python references (and empty the caches that would hide calls)."""
    was = kernels.active()
    caches = (
        melds.best_arrangement,
        strong.make_plan,
        melds.contract_exists,
        melds.laydown_plan,
        features.hand_analysis,
    )
    kernels.use(False)
    for fn in caches:
        fn.cache_clear()
    try:
        yield
    finally:
        kernels.use(was)
        for fn in caches:
            fn.cache_clear()


def play_strong_games(seeds: range, presets: tuple[str, ...] = ALL) -> list[tuple]:
    """Play seeded games; returns ``hand_analysis``' arguments for the actor at every decision
    (what the v1 observation asks of it)."""
    analyses = []
    for preset in presets:
        for seed in seeds:
            game = Game.new(preset, 4, seed=seed)
            bots = [strong.StrongAgent(s) for s in range(4)]
            while not game.is_over:
                hand = tuple(game.state.hands[game.actor])
                analyses.append((hand, *game.contract, game.rules))
                game.apply(bots[game.actor].act(PlayerView(game, game.actor)))
    return list(dict.fromkeys(analyses))


@cache
def recorded_calls() -> dict[str, tuple[tuple, ...]]:
    """The references' arguments in 2 seeded 4-player games of strong per preset."""
    with (
        references_only(),
        recording(strong, "make_plan_reference") as plans,
        recording(melds.exists, "contract_exists_reference") as exists,
        recording(melds.laydown, "laydown_plan") as laydowns,
        recording(melds.contract, "contract_search") as searches,
    ):
        analyses = play_strong_games(range(2))
    return {
        "hand_analysis": tuple(analyses),
        "make_plan": tuple(plans),
        "contract_exists": tuple(exists),
        "laydown_plan": tuple(laydowns),
        "contract_search": tuple(dict.fromkeys(searches)),
    }


def recorded_plan_calls() -> tuple[tuple, ...]:
    return recorded_calls()["make_plan"]


# ----------------------------------------------------------------------------- make_plan


def plan_key(plan: strong.Plan) -> tuple:
    """Everything a plan holds, floats by their bits (``0`` and ``0.0`` differ by type)."""
    cost = plan.cost.hex() if isinstance(plan.cost, float) else plan.cost
    return (type(plan.cost).__name__, cost, plan.missing, plan.core)


def kernel_plan(
    kernel: Callable, hand: tuple, unseen: tuple, trios: int, runs: int, rules: RuleConfig
) -> strong.Plan:
    return strong.Plan(*kernel(hand, unseen, trios, runs, rules.min_run, rules.ace_wraparound))


def assert_plans_match(calls: tuple[tuple, ...], kernel: Callable) -> None:
    mismatches = [
        args
        for args in calls
        if plan_key(strong.make_plan_reference(*args)) != plan_key(kernel_plan(kernel, *args))
    ]
    assert not mismatches, f"{len(mismatches)} of {len(calls)} plans differ, first {mismatches[0]}"


@needs_kernels
def test_make_plan_kernel_matches_recorded_calls() -> None:
    calls = recorded_plan_calls()
    assert len(calls) > 2_000
    contracts = {(trios, runs) for _h, _u, trios, runs, _r in calls}
    assert contracts == set(CONTRACTS)  # every round's contract is among them
    assert_plans_match(calls, K.make_plan)


def broken_make_plan(hand, unseen, trios, runs, min_run, wrap):  # type: ignore[no-untyped-def]
    """An off-by-one kernel: the plan keeps one copy too many of its first core card."""
    cost, missing, core = K.make_plan(hand, unseen, trios, runs, min_run, wrap)
    first = next((c for c in range(NUM_TYPES) if core[c]), None)
    if first is not None and first != JOKER:
        core = (*core[:first], core[first] + 1, *core[first + 1 :])
    return cost, missing, core


@needs_kernels
def test_positive_control_a_wrong_make_plan_kernel_fails() -> None:
    with pytest.raises(AssertionError, match="plans differ"):
        assert_plans_match(recorded_plan_calls(), broken_make_plan)


@st.composite
def hands(draw: st.DrawFn, min_size: int, max_size: int) -> tuple[int, ...]:
    """Counts of a hand dealt from three decks (three copies of a natural, six jokers)."""
    deck = [c for c in range(JOKER) for _ in range(3)] + [JOKER] * 6
    size = draw(st.integers(min_size, max_size))
    cards = draw(st.permutations(deck))[:size]
    counts = [0] * NUM_TYPES
    for c in cards:
        counts[c] += 1
    return tuple(counts)


unseen_counts = st.lists(st.integers(0, 3), min_size=NUM_TYPES, max_size=NUM_TYPES).map(tuple)


@settings(max_examples=examples(300), deadline=None)
@given(
    hand=st.one_of(hands(1, 20), hands(46, 70)),
    unseen=unseen_counts,
    contract=st.sampled_from(CONTRACTS),
    preset=st.sampled_from(ALL),
)
@needs_kernels
def test_make_plan_kernel_matches_generated_hands(
    hand: tuple, unseen: tuple, contract: tuple[int, int], preset: str
) -> None:
    rules = PRESETS[preset]
    assert_plans_match(((hand, unseen, *contract, rules),), K.make_plan)


@settings(max_examples=examples(300), deadline=None)
@given(
    hand=hands(1, 20),
    unseen=unseen_counts,
    contract=st.sampled_from(CONTRACTS),
    min_run=st.integers(3, 8),
    wrap=st.booleans(),
)
@needs_kernels
def test_make_plan_kernel_matches_generated_hands_at_any_run_length(
    hand: tuple, unseen: tuple, contract: tuple[int, int], min_run: int, wrap: bool
) -> None:
    """Run windows of every length and with or without the ace wrapping (the presets' 4 only in
    the test above): the plan's C (``_plan_c.h``, shared with the batch core's bots)."""
    rules = replace(PRESETS["continental"], min_run=min_run, ace_wraparound=wrap)
    assert_plans_match(((hand, unseen, *contract, rules),), K.make_plan)


@needs_kernels
def test_make_plan_dispatches_to_the_kernel_and_back() -> None:
    """The cached wrapper returns the same plan on either side of the switch."""
    hand, unseen, trios, runs, rules = recorded_plan_calls()[-1]
    strong.make_plan.cache_clear()
    fast = plan_key(strong.make_plan(hand, unseen, trios, runs, rules))
    with references_only():
        slow = plan_key(strong.make_plan(hand, unseen, trios, runs, rules))
    assert fast == slow


@needs_kernels
def test_kernel_refuses_bad_counts() -> None:
    rules = PRESETS["continental"]
    with pytest.raises(ValueError, match="53 card counts"):
        K.make_plan((0,) * 52, (0,) * 53, 1, 1, rules.min_run, False)
    with pytest.raises(ValueError, match=r"hand\[3\] = -1"):
        K.make_plan((0, 0, 0, -1) + (0,) * 49, (0,) * 53, 1, 1, rules.min_run, False)


# ----------------------------------------------------------------------------- _contract_exists


def assert_exists_match(calls: tuple[tuple, ...], kernel: Callable) -> None:
    mismatches = [
        args for args in calls if melds.contract_exists_reference(*args) is not kernel(*args)
    ]
    assert not mismatches, (
        f"{len(mismatches)} of {len(calls)} answers differ, first {mismatches[0]}"
    )


@needs_kernels
def test_contract_exists_kernel_matches_recorded_calls() -> None:
    calls = recorded_calls()["contract_exists"]
    assert len(calls) > 1_000
    answers = {melds.contract_exists_reference(*args) for args in calls}
    assert answers == {True, False}
    assert {args[-1] for args in calls} == {True, False}  # with and without stealing
    assert_exists_match(calls, K.contract_exists)


def broken_contract_exists(counts, trios, runs, min_run, wrap, steal):  # type: ignore[no-untyped-def]
    """An off-by-one kernel: one joker more than the hand holds."""
    more = (*counts[:JOKER], counts[JOKER] + 1)
    return K.contract_exists(more, trios, runs, min_run, wrap, steal)


@needs_kernels
def test_positive_control_a_wrong_contract_kernel_fails() -> None:
    with pytest.raises(AssertionError, match="answers differ"):
        assert_exists_match(recorded_calls()["contract_exists"], broken_contract_exists)


@settings(max_examples=examples(400), deadline=None)
@given(
    hand=st.one_of(hands(1, 20), hands(21, 45), hands(46, 70)),
    contract=st.sampled_from(CONTRACTS),
    preset=st.sampled_from(ALL),
    steal=st.booleans(),
)
@needs_kernels
def test_contract_exists_kernel_matches_generated_hands(
    hand: tuple, contract: tuple[int, int], preset: str, steal: bool
) -> None:
    rules = PRESETS[preset]
    args = (hand, *contract, rules.min_run, rules.ace_wraparound, steal)
    assert_exists_match((args,), K.contract_exists)
    assert_both_match((args[:-1],), K.contract_exists_both)


@st.composite
def suited_hands(draw: st.DrawFn) -> tuple[int, ...]:
    """Counts of a hand of one or two suits (up to three copies of a natural) and up to four
    jokers: hands near several runs at once, where the kernel's bound on the naturals runs can
    hold (``runs_naturals_bound`` in _melds_c.h) decides before any search."""
    suits = draw(st.lists(st.integers(0, 3), min_size=1, max_size=2, unique=True))
    counts = [0] * NUM_TYPES
    for suit in suits:
        for rank in range(13):
            counts[suit * 13 + rank] = draw(st.sampled_from((0, 0, 1, 1, 1, 2, 3)))
    counts[JOKER] = draw(st.integers(0, 4))
    return tuple(counts)


def runs_naturals_bound(counts: tuple, runs: int, min_run: int, wrap: bool) -> int:
    """The kernel's bound, readably: the `runs` largest counts of naturals over every window
    (suit, span) and every j, where the j-th run in a window holds the ranks held j times."""
    spans = melds.min_spans(min_run, wrap)
    items = [
        sum(1 for rank in span if counts[suit * 13 + rank] >= j)
        for suit in range(4)
        for span in spans
        for j in range(1, runs + 1)
    ]
    return sum(sorted(items, reverse=True)[:runs])


@settings(max_examples=examples(400), deadline=None)
@given(
    hand=suited_hands(),
    trios=st.integers(0, 1),
    runs=st.integers(2, 4),
    min_run=st.one_of(st.just(4), st.integers(3, 12)),
    wrap=st.booleans(),
    steal=st.booleans(),
)
@needs_kernels
def test_contract_exists_kernel_matches_hands_near_several_runs(
    hand: tuple, trios: int, runs: int, min_run: int, wrap: bool, steal: bool
) -> None:
    """Every run length the rules allow (the presets all use 4), aces wrapping or not."""
    args = (hand, trios, runs, min_run, wrap, steal)
    if runs * min_run - runs_naturals_bound(hand, runs, min_run, wrap) > hand[JOKER]:
        assert not melds.contract_exists_reference(*args)  # the bound is sound
    assert_exists_match((args,), K.contract_exists)
    assert_both_match((args[:-1],), K.contract_exists_both)


@needs_kernels
def test_contract_exists_at_the_runs_bound() -> None:
    """Two runs of four in one suit from A-8 with the 5 missing and one joker: the naturals
    bound (7) leaves exactly the one joker, so a bound one natural stricter would say no; a
    second copy of 2-5 lets both runs lie in the same window."""
    clubs = (0, 1, 2, 3, 5, 6, 7)  # A 2 3 4 _ 6 7 8 of clubs (rank 4, the 5, missing)
    at_bound = tuple(1 if c in clubs or c == JOKER else 0 for c in range(NUM_TYPES))
    assert runs_naturals_bound(at_bound, 2, 4, False) == 7
    args = (at_bound, 0, 2, 4, False, False)
    assert melds.contract_exists_reference(*args) and K.contract_exists(*args)
    no_joker = (*at_bound[:JOKER], 0)
    assert not melds.contract_exists_reference(no_joker, 0, 2, 4, False, False)
    assert not K.contract_exists(no_joker, 0, 2, 4, False, False)
    twice = tuple(2 if c in (1, 2, 3, 4) else 0 for c in range(NUM_TYPES))  # 2-5 twice
    assert runs_naturals_bound(twice, 2, 4, False) == 8
    assert melds.contract_exists_reference(twice, 0, 2, 4, False, False)
    assert K.contract_exists(twice, 0, 2, 4, False, False)


def both_reference(counts: tuple, trios: int, runs: int, min_run: int, wrap: bool) -> tuple:
    """``contract_exists_both`` from the reference's two searches: (fits without stealing,
    fits only with stealing)."""
    plain = melds.contract_exists_reference(counts, trios, runs, min_run, wrap, False)
    stealing = melds.contract_exists_reference(counts, trios, runs, min_run, wrap, True)
    return plain, stealing and not plain


def assert_both_match(calls: tuple[tuple, ...], kernel: Callable) -> None:
    mismatches = [args for args in calls if both_reference(*args) != kernel(*args)]
    assert not mismatches, (
        f"{len(mismatches)} of {len(calls)} answers differ, first {mismatches[0]}"
    )


@needs_kernels
def test_contract_exists_both_matches_two_reference_searches() -> None:
    """The batch core's one search for both answers (its has_contract) against the reference's
    two, on the recorded hands and a hand that fits only by stealing (two trios and a run from
    2S QS and nine jokers, aces wrapping, as in tests/test_batch_core.py)."""
    calls = {args[:-1] for args in recorded_calls()["contract_exists"]}
    steal_only = (tuple(1 if c in (40, 50) else 9 if c == JOKER else 0 for c in range(53)),
                  2, 1, 4, True)  # fmt: skip
    assert both_reference(*steal_only) == (False, True)
    # a run of A-4 of one suit and three jokers: the search meets a leaf whose trio fits only
    # by stealing before the one that fits without (the answer is still "fits, no steal needed")
    steal_first = (tuple(1 if c < 4 else 3 if c == JOKER else 0 for c in range(53)), 1, 1, 4, True)
    assert both_reference(*steal_first) == (True, False)
    answers = {both_reference(*args) for args in calls}
    assert {(True, False), (False, False)} <= answers
    assert_both_match((*sorted(calls), steal_only, steal_first), K.contract_exists_both)


@needs_kernels
def test_positive_control_a_search_that_ignores_stealing_fails() -> None:
    def no_steal(counts, trios, runs, min_run, wrap):  # type: ignore[no-untyped-def]
        return K.contract_exists(counts, trios, runs, min_run, wrap, False), False

    steal_only = (tuple(1 if c in (40, 50) else 9 if c == JOKER else 0 for c in range(53)),
                  2, 1, 4, True)  # fmt: skip
    with pytest.raises(AssertionError, match="answers differ"):
        assert_both_match((steal_only,), no_steal)


# ----------------------------------------------------------------------------- lay-down cores


def reference_cores(counts: tuple, trios: int, runs: int, rules: RuleConfig, signature: tuple):
    """``_core_combinations`` after ``best_contract``'s own arrangement, with their bounds."""
    first = melds.best_arrangement(counts, trios, runs, rules, False)
    table = [melds.Meld(-1, *row) for row in signature]
    pts = points_table(rules)
    out = []
    for i, own in enumerate(melds.core_combinations(counts, trios, runs, rules, first)):
        if i == melds.LAYDOWN_BUDGET:
            break
        if i:
            bound = melds.stuck_bound(melds.rest_after(counts, own), table, own, pts)
            rows = tuple(
                (m.kind, tuple(m.cards), m.start if m.kind == melds.RUN else 0,
                 m.suit if m.kind == melds.RUN else m.rank)
                for m in own
            )  # fmt: skip
            out.append((*bound, rows))
    return out


def kernel_cores(
    kernel: Callable, counts: tuple, trios: int, runs: int, rules: RuleConfig, signature: tuple
):
    table = [melds.Meld(-1, *row) for row in signature]
    ranks = sum({1 << m.rank for m in table if m.kind == melds.TRIO})
    suits = sum({1 << m.suit for m in table if m.kind == melds.RUN})
    return kernel(
        counts, trios, runs, rules.min_run, rules.ace_wraparound, points_table(rules), ranks,
        suits, melds.LAYDOWN_BUDGET - 1,
    )  # fmt: skip


def assert_cores_match(calls: tuple[tuple, ...], kernel: Callable) -> None:
    mismatches = [args for args in calls if reference_cores(*args) != kernel_cores(kernel, *args)]
    assert not mismatches, (
        f"{len(mismatches)} of {len(calls)} enumerations differ, first {mismatches[0]}"
    )


def exact_laydowns() -> tuple[tuple, ...]:
    """Recorded lay-down searches that enumerate cores: a contract in hand of at most 20 cards."""
    return tuple(
        args
        for args in recorded_calls()["laydown_plan"]
        if sum(args[0]) <= melds.LAYDOWN_EXACT_CARDS
        and melds.best_arrangement(*args[:4], False) is not None
    )


@needs_kernels
def test_laydown_cores_kernel_matches_recorded_calls() -> None:
    calls = exact_laydowns()
    assert len(calls) > 50
    assert max(sum(args[0]) for args in calls) >= 16  # the slow tail: 16-20 cards
    assert any(args[4] for args in calls)  # some with melds on the table
    assert_cores_match(calls, K.laydown_cores)


@needs_kernels
def test_laydown_plan_identical_with_and_without_kernels() -> None:
    """The whole lay-down choice (cores, bound, exact closure) on every recorded call."""
    plan = melds.laydown_plan.__wrapped__
    calls = recorded_calls()["laydown_plan"]
    assert calls
    for args in calls:
        fast = plan(*args)
        with references_only():
            slow = plan(*args)
        assert fast == slow, args


def broken_laydown_cores(counts, trios, runs, min_run, wrap, pts, ranks, suits, limit):  # type: ignore[no-untyped-def]
    """An off-by-one kernel: one core combination fewer than the budget allows."""
    return K.laydown_cores(counts, trios, runs, min_run, wrap, pts, ranks, suits, limit)[:-1]


@needs_kernels
def test_positive_control_a_wrong_cores_kernel_fails() -> None:
    with pytest.raises(AssertionError, match="enumerations differ"):
        assert_cores_match(exact_laydowns(), broken_laydown_cores)


@st.composite
def laydown_cases(draw: st.DrawFn) -> tuple[tuple[int, ...], int, int, RuleConfig]:
    """A hand of 10-20 cards that holds its contract: the contract's melds (naturals of a
    rank, a suit's consecutive ranks, some replaced by jokers) and random cards besides."""
    rules = PRESETS[draw(st.sampled_from(ALL))]
    trios, runs = draw(st.sampled_from(CONTRACTS))
    counts = [0] * NUM_TYPES
    for _ in range(trios):
        rank = draw(st.integers(0, 12))
        for suit in draw(st.lists(st.integers(0, 3), min_size=3, max_size=4)):
            counts[suit * 13 + rank] += 1
    for _ in range(runs):
        suit, start = draw(st.integers(0, 3)), draw(st.integers(0, 14 - rules.min_run))
        for i in range(rules.min_run):
            counts[suit * 13 + (start + i) % 13] += 1
    for _ in range(draw(st.integers(0, 2))):  # jokers stand in for some naturals
        held = [c for c in range(JOKER) if counts[c]]
        c = draw(st.sampled_from(held))
        counts[c] -= 1
        counts[JOKER] += 1
    size = sum(counts)
    extra = draw(st.lists(st.integers(0, JOKER), min_size=max(0, 10 - size), max_size=20 - size))
    for c in extra:
        counts[c] += 1
    return tuple(counts), trios, runs, rules


@settings(max_examples=examples(150), deadline=None)
@given(case=laydown_cases())
@needs_kernels
def test_laydown_cores_kernel_matches_generated_hands(case: tuple) -> None:
    hand, trios, runs, rules = case
    if melds.best_arrangement(hand, trios, runs, rules, False) is None:
        return  # a hand of exactly the contract's cards keeps none back: no lay-down
    assert_cores_match(((hand, trios, runs, rules, ()),), K.laydown_cores)
    plan = melds.laydown_plan.__wrapped__
    fast = plan(hand, trios, runs, rules, ())
    with references_only():
        assert plan(hand, trios, runs, rules, ()) == fast


# ----------------------------------------------------------------------------- hand_analysis


def assert_analyses_match(calls: tuple[tuple, ...], kernel: Callable) -> None:
    def run(args: tuple) -> tuple:
        counts, trios, runs, rules = args
        return kernel(counts, trios, runs, rules.min_run, rules.ace_wraparound)

    mismatches = [args for args in calls if features.hand_analysis_reference(*args) != run(args)]
    assert not mismatches, (
        f"{len(mismatches)} of {len(calls)} analyses differ, first {mismatches[0]}"
    )


@needs_kernels
def test_hand_analysis_kernel_matches_recorded_calls() -> None:
    calls = recorded_calls()["hand_analysis"]
    assert len(calls) > 2_000
    distances = {features.hand_analysis_reference(*args)[0] for args in calls[::50]}
    assert len(distances) > 3  # near and far hands alike
    assert_analyses_match(calls, K.hand_analysis)


def broken_hand_analysis(counts, trios, runs, min_run, wrap):  # type: ignore[no-untyped-def]
    """An off-by-one kernel: a distance one short on hands not yet in hand."""
    distance, reducers, in_trio, in_run = K.hand_analysis(counts, trios, runs, min_run, wrap)
    return max(0, distance - 1), reducers, in_trio, in_run


@needs_kernels
def test_positive_control_a_wrong_hand_analysis_kernel_fails() -> None:
    with pytest.raises(AssertionError, match="analyses differ"):
        assert_analyses_match(recorded_calls()["hand_analysis"], broken_hand_analysis)


@settings(max_examples=examples(300), deadline=None)
@given(
    hand=st.one_of(hands(1, 10), hands(11, 20), hands(46, 70)),
    contract=st.sampled_from(CONTRACTS),
    preset=st.sampled_from(ALL),
)
@needs_kernels
def test_hand_analysis_kernel_matches_generated_hands(
    hand: tuple, contract: tuple[int, int], preset: str
) -> None:
    assert_analyses_match(((hand, *contract, PRESETS[preset]),), K.hand_analysis)


@settings(max_examples=examples(300), deadline=None)
@given(
    hand=st.one_of(hands(1, 20), hands(21, 45)),
    trios=st.integers(0, 5),
    runs=st.integers(0, 2),
    preset=st.sampled_from(ALL),
)
@needs_kernels
def test_hand_analysis_kernel_matches_contracts_beyond_the_games(
    hand: tuple, trios: int, runs: int, preset: str
) -> None:
    """The kernel's whole domain, not only the rounds' contracts: up to five trios, whose
    choice (marginals per rank, the cheapest first) the kernel computes in closed form."""
    assert_analyses_match(((hand, trios, runs, PRESETS[preset]),), K.hand_analysis)


# ----------------------------------------------------------------------------- _Search


def search_rows(found: list | None) -> list | None:
    return None if found is None else [(k, tuple(c), s, key) for k, c, s, key in found]


def assert_searches_match(calls: tuple[tuple, ...], kernel: Callable) -> None:
    def run(args: tuple) -> list | None:
        counts, trios, runs, rules, first_only = args
        pts = points_table(rules)
        return kernel(counts, trios, runs, rules.min_run, rules.ace_wraparound, pts, first_only)

    mismatches = [
        args
        for args in calls
        if search_rows(melds.ContractSearch(*args[:4]).run(args[4])) != run(args)
    ]
    assert not mismatches, (
        f"{len(mismatches)} of {len(calls)} arrangements differ, first {mismatches[0]}"
    )


@needs_kernels
def test_contract_search_kernel_matches_recorded_calls() -> None:
    calls = recorded_calls()["contract_search"]
    assert len(calls) > 100
    found = [melds.ContractSearch(*args[:4]).run(args[4]) is None for args in calls]
    assert any(found) and not all(found)  # hands with and without an arrangement
    assert_searches_match(calls, K.contract_search)


def broken_contract_search(counts, trios, runs, min_run, wrap, pts, first_only):  # type: ignore[no-untyped-def]
    """An off-by-one kernel: the runs' starts one position late."""
    found = K.contract_search(counts, trios, runs, min_run, wrap, pts, first_only)
    if found is None:
        return None
    return [(k, c, s + 1 if k == melds.RUN else s, key) for k, c, s, key in found]


@needs_kernels
def test_positive_control_a_wrong_contract_search_kernel_fails() -> None:
    with pytest.raises(AssertionError, match="arrangements differ"):
        assert_searches_match(recorded_calls()["contract_search"], broken_contract_search)


@settings(max_examples=examples(300), deadline=None)
@given(
    hand=st.one_of(hands(3, 20), hands(21, 45), hands(46, 70)),
    contract=st.sampled_from(CONTRACTS),
    preset=st.sampled_from(ALL),
    first_only=st.booleans(),
)
@needs_kernels
def test_contract_search_kernel_matches_generated_hands(
    hand: tuple, contract: tuple[int, int], preset: str, first_only: bool
) -> None:
    args = (hand, *contract, PRESETS[preset], first_only)
    assert_searches_match((args,), K.contract_search)
