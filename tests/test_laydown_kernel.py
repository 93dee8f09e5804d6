"""The compiled lay-down choice (``continental_env/_laydown_c.h``) returns exactly what
``melds.laydown_plan_reference`` returns.

Compared on every lay-down of seeded random play (the three presets, 2-8 players, min_run 3-5,
wrap on and off: small and large hands, tables with several trios of a rank and runs of a suit,
jokers) and on Hypothesis hands and tables, the reference running with every kernel off. A
positive control checks that the comparison catches a deliberately wrong kernel and that the
table and the hand change the result where they should; bad input is refused in one line. The
batch core lays down with the same C code: a lockstep against the reference engine checks it.
"""

from __future__ import annotations

import os
import random
import shutil
import subprocess
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import replace
from functools import cache
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from reference import examples

from continental_env import kernels, melds
from continental_env.cards import JOKER, NUM_TYPES
from continental_env.contract.game import Game
from continental_env.melds import laydown
from continental_env.rules import CONTRACTS, PRESETS, RuleConfig, points_table

K = kernels.compiled
pytestmark = pytest.mark.skipif(K is None, reason="compiled kernels not built")

Call = tuple[tuple[int, ...], int, int, RuleConfig, tuple]


@contextmanager
def references_only() -> Iterator[None]:
    """Every kernel off (the reference's contract search and core enumeration too)."""
    was = kernels.active()
    kernels.use(False)
    melds.best_arrangement.cache_clear()
    try:
        yield
    finally:
        kernels.use(was)
        melds.best_arrangement.cache_clear()


def kernel_plan(counts: tuple, trios: int, runs: int, rules: RuleConfig, signature: tuple) -> Any:
    pts = points_table(rules)
    return K.laydown_plan(counts, trios, runs, rules.min_run, rules.ace_wraparound, pts, signature)


def assert_plans_match(calls: list[Call], kernel: Callable = kernel_plan) -> None:
    with references_only():
        expected = [laydown.laydown_plan_reference(*args) for args in calls]
    mismatches = [
        (args, want) for args, want in zip(calls, expected, strict=True) if kernel(*args) != want
    ]
    assert not mismatches, (
        f"{len(mismatches)} of {len(calls)} plans differ, first {mismatches[0][0]}: "
        f"reference {mismatches[0][1]}, kernel {kernel(*mismatches[0][0])}"
    )


def variants() -> list[tuple[RuleConfig, int]]:
    """(rules, players): the presets at 2-8 players, and min_run 3 and 5 with wrap flipped."""
    base = [
        (PRESETS["continental"], 2),
        (PRESETS["continental"], 8),
        (PRESETS["continental_us"], 3),
        (PRESETS["continental_us"], 6),
        (PRESETS["continental_es"], 4),
        (PRESETS["continental_es"], 7),
    ]
    odd = [
        (replace(PRESETS["continental"], name="custom", min_run=3, ace_wraparound=False), 5),
        (replace(PRESETS["continental_us"], name="custom", min_run=5, ace_wraparound=True), 4),
        (replace(PRESETS["continental_es"], name="custom", min_run=3), 3),
    ]
    return base + odd


@cache
def random_play_laydowns() -> tuple[Call, ...]:
    """The arguments of every lay-down choice in seeded random play (lay-downs favoured half
    the time they are legal, so some come early with small hands and some late with large)."""
    calls: list[Call] = []
    original = laydown.laydown_plan

    def spy(*args: Any) -> Any:
        calls.append(args)
        return original(*args)

    laydown.laydown_plan = spy  # best_laydown looks it up here
    try:
        for k, (rules, p) in enumerate(variants()):
            short = replace(rules, name="custom", max_turns_per_round=40)
            for seed in range(4):
                game = Game.new(short, p, seed=100 * k + seed)
                rng = random.Random(seed)
                while not game.is_over:
                    legal = game.legal_actions()
                    lay = 4 in legal and rng.random() < 0.5
                    game.apply(4 if lay else rng.choice(legal))
    finally:
        laydown.laydown_plan = original
    return tuple(dict.fromkeys(calls))


def test_kernel_matches_reference_on_random_play() -> None:
    calls = list(random_play_laydowns())
    assert len(calls) > 150
    sizes = [sum(args[0]) for args in calls]
    assert min(sizes) <= 12 and max(sizes) > melds.LAYDOWN_EXACT_CARDS  # both paths
    assert any(args[0][JOKER] for args in calls)
    assert {(args[3].min_run, args[3].ace_wraparound) for args in calls} >= {
        (3, False),
        (4, True),
        (4, False),
        (5, True),
    }
    # tables holding several trios of one rank, and several runs of one suit
    assert any(len({r[3] for r in s if r[0] == "trio"}) < sum(r[0] == "trio" for r in s)
               for *_, s in calls)  # fmt: skip
    assert any(len({r[4] for r in s if r[0] == "run"}) < sum(r[0] == "run" for r in s)
               for *_, s in calls)  # fmt: skip
    assert_plans_match(calls)


def test_laydown_plan_runs_the_kernel_and_caches() -> None:
    """``melds.laydown_plan`` returns the kernel's value when the kernels are on, the
    reference's when off."""
    args = random_play_laydowns()[0]
    laydown.laydown_plan.cache_clear()
    assert laydown.laydown_plan(*args) == kernel_plan(*args)
    with references_only():
        laydown.laydown_plan.cache_clear()
        assert laydown.laydown_plan(*args) == laydown.laydown_plan_reference(*args)
    laydown.laydown_plan.cache_clear()


def test_constants_match() -> None:
    assert K.LAYDOWN_BUDGET == melds.LAYDOWN_BUDGET
    assert K.LAYDOWN_EXACT_CARDS == melds.LAYDOWN_EXACT_CARDS


# ----------------------------------------------------------------------------- Hypothesis


@st.composite
def tables(draw: st.DrawFn, rules: RuleConfig) -> tuple:
    """0-8 table melds: trios (3-6 cards, some jokers; ranks may repeat) and runs of min_run-13
    cards (suits may repeat), as ``laydown._table_signature`` writes them."""
    rows = []
    for _ in range(draw(st.integers(0, 8))):
        if draw(st.booleans()):
            rank = draw(st.integers(0, 12))
            cards = [s * 13 + rank for s in draw(st.lists(st.integers(0, 3), min_size=1,
                                                          max_size=4))]  # fmt: skip
            cards += [JOKER] * draw(st.integers(max(0, 3 - len(cards)), 2))
            rows.append(("trio", tuple(cards), 0, rank, -1))
        else:
            suit = draw(st.integers(0, 3))
            n = draw(st.integers(rules.min_run, 13))
            top = 12 if rules.ace_wraparound else 14 - n
            start = draw(st.integers(0, top))
            cards = [suit * 13 + (start + i) % 13 for i in range(n)]
            for i in draw(st.lists(st.integers(1, n - 1), max_size=2)):
                cards[i] = JOKER
            rows.append(("run", tuple(cards), start, -1, suit))
    return tuple(rows)


@st.composite
def cases(draw: st.DrawFn) -> Call:
    """A hand holding its contract (its melds' cores, some naturals turned into jokers) and
    random cards besides (up to 20, sometimes up to 30), on a random table."""
    rules = draw(st.sampled_from([r for r, _ in variants()]))
    trios, runs = draw(st.sampled_from(CONTRACTS))
    counts = [0] * NUM_TYPES
    for _ in range(trios):
        rank = draw(st.integers(0, 12))
        for suit in draw(st.lists(st.integers(0, 3), min_size=3, max_size=4)):
            counts[suit * 13 + rank] += 1
    for _ in range(runs):
        suit = draw(st.integers(0, 3))
        start = draw(st.integers(0, 12 if rules.ace_wraparound else 14 - rules.min_run))
        for i in range(rules.min_run):
            counts[suit * 13 + (start + i) % 13] += 1
    for _ in range(draw(st.integers(0, 2))):
        c = draw(st.sampled_from([c for c in range(JOKER) if counts[c]]))
        counts[c] -= 1
        counts[JOKER] += 1
    most = draw(st.sampled_from([20, 20, 30]))
    extra = draw(st.lists(st.integers(0, JOKER), max_size=max(0, most - sum(counts))))
    for c in extra:
        counts[c] += 1
    return tuple(counts), trios, runs, rules, draw(tables(rules))


@settings(max_examples=examples(300), deadline=None)
@given(case=cases())
def test_kernel_matches_reference_on_generated_hands(case: Call) -> None:
    assert_plans_match([case])


# ----------------------------------------------------------------------------- positive control


def broken_plan(counts: tuple, trios: int, runs: int, rules: RuleConfig, signature: tuple) -> Any:
    """A wrong kernel: it forgets the table's last meld."""
    return kernel_plan(counts, trios, runs, rules, signature[:-1])


def test_positive_control_a_wrong_kernel_fails() -> None:
    calls = [args for args in random_play_laydowns() if args[4]]
    with pytest.raises(AssertionError, match="plans differ"):
        assert_plans_match(calls, broken_plan)


def test_positive_control_the_table_and_the_hand_change_the_result() -> None:
    """5C 5D 5H, 7S 8S 9S TS, KC KD (a trio and a run): with a trio of kings on the table both
    kings go (one card must stay: a king), else both stay; a different hand differs too."""
    rules = PRESETS["continental"]
    hand = [0] * NUM_TYPES
    for c in (4, 17, 30, 45, 46, 47, 48, 12, 25):
        hand[c] += 1
    counts = tuple(hand)
    kings = (("trio", (38, 51, JOKER), 0, 12, -1),)
    alone = kernel_plan(counts, 1, 1, rules, ())
    beside = kernel_plan(counts, 1, 1, rules, kings)
    assert alone[0][0] == 2 and beside[0][0] == 1
    assert alone[1] == beside[1]  # the same melds go down; the lay-offs differ
    more = list(counts)
    more[49] += 1  # JS extends the run: laid down with it
    longer = kernel_plan(tuple(more), 1, 1, rules, ())
    assert longer[1] != alone[1]
    assert_plans_match([(counts, 1, 1, rules, ()), (counts, 1, 1, rules, kings),
                        (tuple(more), 1, 1, rules, ())])  # fmt: skip


# ----------------------------------------------------------------------------- bounds


def _args(**change: Any) -> list:
    rules = PRESETS["continental"]
    hand = [0] * NUM_TYPES
    for c in (4, 17, 30, 45, 46, 47, 48, 12, 25):
        hand[c] += 1
    args = {
        "counts": tuple(hand),
        "trios": 1,
        "runs": 1,
        "min_run": 4,
        "wrap": True,
        "points53": points_table(rules),
        "signature": (("trio", (38, 51, JOKER), 0, 12, -1),),
    }
    args.update(change)
    return list(args.values())


def _counts(index: int, value: Any) -> tuple:
    hand = list(_args()[0])
    hand[index] = value
    return tuple(hand)


@pytest.mark.parametrize(
    ("change", "error", "words"),
    [
        ({"counts": (1,) * 52}, ValueError, "counts must hold 53"),
        ({"counts": _counts(3, -1)}, ValueError, r"counts\[3\] = -1 must be in 0..16"),
        ({"counts": _counts(3, 17)}, ValueError, r"counts\[3\] = 17"),
        ({"counts": _counts(52, 97)}, ValueError, r"counts\[52\] = 97 must be in 0..96"),
        ({"counts": _counts(0, "x")}, TypeError, r"counts\[0\] = 'x' must be an int"),
        ({"counts": _counts(0, True)}, TypeError, r"counts\[0\] = True must be an int"),
        ({"counts": "abc"}, TypeError, "counts must be a tuple"),
        ({"trios": 9}, ValueError, "trios = 9 must be in 0..8"),
        ({"runs": -1}, ValueError, "runs = -1"),
        ({"trios": 0, "runs": 0}, ValueError, "trios \\+ runs = 0"),
        ({"min_run": 2}, ValueError, "min_run = 2 must be in 3..12"),
        ({"min_run": 13}, ValueError, "min_run = 13"),
        ({"points53": (1,) * 53 + (2,)}, ValueError, "points53 must hold 53"),
        ({"points53": (10001,) * 53}, ValueError, r"points53\[0\] = 10001 must be in 0..10000"),
        ({"signature": [("trio", (1, 14, 27), 0, 1, -1)]}, TypeError, "signature must be a tuple"),
        ({"signature": (("quad", (1,), 0, 1, -1),)}, ValueError, "kind = 'quad'"),
        ({"signature": (("trio", (1, 14), 0, 1),)}, TypeError, r"signature\[0\] = "),
        ({"signature": (("trio", (1, 14, 53), 0, 1, -1),)}, ValueError, r"card = 53"),
        ({"signature": (("trio", (1, 14, 27), 0, 13, -1),)}, ValueError, r"rank = 13"),
        ({"signature": (("run", tuple(range(14)), 0, -1, 0),)}, ValueError, "holds 14 cards"),
        ({"signature": (("run", (0, 1, 2), 0, -1, 4),)}, ValueError, r"suit = 4"),
        ({"signature": (("run", (0, 1, 2), 14, -1, 0),)}, ValueError, r"start = 14"),
        ({"signature": (("run", (), 0, -1, 0),)}, ValueError, "holds 0 cards"),
        ({"signature": (("trio", (1, 14, 27), 0, 1, -1),) * 65}, ValueError, "65 melds"),
    ],
)
def test_bounds_refused_in_one_line(change: dict, error: type, words: str) -> None:
    with pytest.raises(error, match=words) as info:
        K.laydown_plan(*_args(**change))
    assert "\n" not in str(info.value)


def test_bounds_accept_the_engine_extremes() -> None:
    """16 copies of a natural and 96 jokers (16 decks of six jokers): a large hand, the
    fewest-points path, the reference's value."""
    hand = [0] * NUM_TYPES
    hand[0] = hand[13] = 16
    hand[JOKER] = 96
    args = (tuple(hand), 2, 0, PRESETS["continental"], ())
    assert kernel_plan(*args) is not None
    assert_plans_match([args])


# ----------------------------------------------------------------------------- the batch core


def test_batch_core_lays_down_as_the_reference_engine() -> None:
    """The batch core's lay-downs (C) against the reference engine with every kernel off, in
    lockstep with lay-downs and lay-offs favoured."""
    pytest.importorskip("continental_env._batch")
    from test_batch_core import lockstep, short

    rules = replace(PRESETS["continental_us"], name="custom", min_run=3)
    with references_only():
        played = lockstep(short(rules, turns=40), 4, lanes=3, steps=400, seed=5, rich=0.8)
    assert played["laydown"] >= 8


# ----------------------------------------------------------------------------- the header alone

HEADER = Path(laydown.__file__).resolve().parent.parent / "_laydown_c.h"


def c_ints(values: Any) -> str:
    return "{" + ", ".join(str(int(v)) for v in values) + "}"


def test_the_header_alone_chooses_the_same_laydown(tmp_path: Path) -> None:
    """``_laydown_c.h`` is plain C without Python (the batch core runs it): compiled on its own
    (C99, warnings as errors) into a program, it prints the reference's plan for lay-downs of
    random play with melds on the table."""
    cc = shutil.which(os.environ.get("CC", "cc")) or shutil.which("gcc")
    if cc is None or not HEADER.exists():
        pytest.skip("no C compiler, or an installed package without its C sources")
    calls = [args for args in random_play_laydowns() if args[4]][:5]
    blocks = []
    for counts, trios, runs, rules, signature in calls:
        table = ", ".join(
            f"{{{int(kind == 'run')}, {len(cards)}, {start}, {rank}, {suit}}}"
            for kind, cards, start, rank, suit in signature
        )
        blocks.append(f"""
    {{
        const int counts[] = {c_ints(counts)}, pts[] = {c_ints(points_table(rules))};
        const LdTableMeld table[] = {{{table}}};
        if (ld_laydown_plan(counts, {trios}, {runs}, {rules.min_run}, {int(rules.ace_wraparound)},
                            pts, table, {len(signature)}, &plan) != 1) return 1;
        show(&plan);
    }}""")
    program = f"""
#include "_laydown_c.h"
#include <stdio.h>
static LdPlan plan;
static void show(const LdPlan *p) {{
    printf("%d %d %d\\n", p->key[0], p->key[1], p->key[2]);
    for (int j = 0; j < p->nrows; j++) {{
        printf("%s %d %d", p->rows[j].kind == LD_TRIO ? "trio" : "run", p->rows[j].start,
               p->rows[j].key);
        for (int i = 0; i < p->rows[j].n; i++) printf(" %d", p->rows[j].cards[i]);
        printf("\\n");
    }}
    printf("end\\n");
}}
int main(void) {{{"".join(blocks)}
    return 0;
}}
"""
    source = tmp_path / "alone.c"
    source.write_text(program)
    binary = tmp_path / "alone"
    flags = ["-std=c99", "-pedantic", "-Wall", "-Wextra", "-Werror", "-Wno-unused-function", "-O2"]
    subprocess.run([cc, *flags, "-I", str(HEADER.parent), str(source), "-o", str(binary)],
                   check=True, capture_output=True)  # fmt: skip
    printed = subprocess.run([str(binary)], check=True, capture_output=True, text=True).stdout
    plans = []
    for block in printed.split("end\n")[:-1]:
        lines = block.splitlines()
        key = tuple(int(v) for v in lines[0].split())
        rows = []
        for line in lines[1:]:
            kind, start, k, *cards = line.split()
            rows.append((kind, tuple(int(c) for c in cards), int(start), int(k)))
        plans.append((key, tuple(rows)))
    with references_only():
        assert plans == [laydown.laydown_plan_reference(*args) for args in calls]
