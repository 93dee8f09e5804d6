"""The compiled ``encode_features`` writes exactly the vector of ``encode_features_reference``.

``continental_env/_features_c.h`` ports the v1 features (``continental_env.contract.features``)
to C; ``encode_features`` runs it when the kernels are built. Equality is exact
(``np.array_equal`` on float32 vectors) at every seat of positions from seeded random play of
the three presets at 2-8 players: before and after lay-downs, in claim windows, at game over.
Hypothesis adds positions no game reaches (odd rules, long logs, counts off the deck). Positive
controls: perturbing any one input of the kernel is caught by the same comparison. The kernel's
Python entry refuses bad input with a one-line error and leaves ``out`` untouched.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from reference import examples

from continental_env import kernels
from continental_env.cards import JOKER, NUM_TYPES
from continental_env.contract import features
from continental_env.contract.features import (
    PublicLog,
    encode_features,
    encode_features_reference,
    feature_layout,
)
from continental_env.contract.game import Game
from continental_env.contract.public_log import KINDS
from continental_env.rules import PRESETS, contract_for_round
from tests import helpers

K = kernels.compiled
needs_kernels = pytest.mark.skipif(K is None, reason="compiled kernels not built")

TABLES = helpers.TABLES


def played(preset: str, players: int) -> tuple[Game, ...]:
    """About 40 positions of one seeded game of random legal play and its end."""
    return helpers.played(preset, players, 5, 40)


def differences(game: Any, seat: int, got: np.ndarray) -> list[str]:
    """Names of the feature fields where ``got`` differs from the reference."""
    want = encode_features_reference(game, seat)
    assert got.dtype == want.dtype == np.float32 and got.shape == want.shape
    layout = feature_layout(game.num_players)
    return [name for name, sl in layout.items() if not np.array_equal(got[sl], want[sl])]


@needs_kernels
@pytest.mark.parametrize(("preset", "players"), TABLES)
def test_kernel_equals_reference_in_random_play(preset: str, players: int) -> None:
    assert kernels.active()
    for game in played(preset, players):
        for seat in range(players):
            got = encode_features(game, seat)
            assert differences(game, seat, got) == [], (preset, players, game.phase, seat)


@needs_kernels
def test_the_positions_cover_every_situation() -> None:
    """The comparison above sees lay-downs, claim windows, empty piles, long and short logs."""
    seen: set[str] = set()
    for preset, players in TABLES:
        for game in played(preset, players):
            seen.add(str(game.phase))
            if any(game.laid_down):
                seen.add("laid down")
            if game.phase != "game_over" and not all(game.laid_down):
                seen.add("not down")
            if not game.discard:
                seen.add("empty pile")
            n = len(game.public_log.items)
            seen.add("short log" if 0 < n < features.HISTORY else "long log" if n else "no log")
    assert {"claim", "game_over", "laid down", "not down", "empty pile"} <= seen, seen
    assert {"short log", "long log", "no log"} <= seen, seen


@needs_kernels
def test_kernel_equals_the_pure_python_reference() -> None:
    """The reference above runs the compiled hand analysis; here every part is pure Python."""
    games = played("continental", 4)[::3]
    was = kernels.active()
    with_kernel = [[encode_features(g, s) for s in range(4)] for g in games]
    kernels.use(False)
    features.hand_analysis.cache_clear()
    features._hand_arrays.cache_clear()
    try:
        for game, rows in zip(games, with_kernel, strict=True):
            for seat in range(4):
                assert differences(game, seat, rows[seat]) == []
    finally:
        kernels.use(was)
        features.hand_analysis.cache_clear()
        features._hand_arrays.cache_clear()


@needs_kernels
def test_an_outside_log_and_a_foreign_layout() -> None:
    """``log`` is read as by the reference; a layout not ``feature_layout(P)`` goes to it."""
    game = played("continental", 3)[10]
    record = game.public_log.copy()
    bare = replace_log(game, None)
    for seat in range(3):
        got = encode_features(bare, seat, None, record)
        assert np.array_equal(got, encode_features_reference(bare, seat, None, record))
        assert np.array_equal(got, encode_features(game, seat))
    layout = dict(reversed(list(feature_layout(3).items())))  # equal: same slices
    assert np.array_equal(encode_features(game, 0, layout), encode_features(game, 0))
    shifted = {name: slice(sl.start + 1, sl.stop + 1) for name, sl in feature_layout(3).items()}
    shifted["distance"] = slice(0, 9)
    got = encode_features(game, 0, shifted)
    assert np.array_equal(got, encode_features_reference(game, 0, shifted))


def replace_log(game: Game, log: PublicLog | None) -> Any:
    """A stand-in for ``game`` whose engine keeps no log (``public_log`` is ``log``)."""

    class Bare:
        def __getattr__(self, name: str) -> Any:
            return log if name == "public_log" else getattr(game, name)

    return Bare()


def test_kernels_off_runs_the_reference(monkeypatch: pytest.MonkeyPatch) -> None:
    calls = []
    original = features.encode_features_reference

    def spy(*args: Any) -> np.ndarray:
        calls.append(args)
        return original(*args)

    monkeypatch.setattr(features, "encode_features_reference", spy)
    monkeypatch.setattr(kernels, "native", None)
    game = played("continental", 2)[5]
    assert np.array_equal(features.encode_features(game, 1), original(game, 1))
    assert len(calls) == 1


# ----------------------------------------------------------------------------- positive controls

ARGS = [
    "num_players",
    "seat",
    "trios",
    "runs",
    "min_run",
    "wrap",
    "live",
    "laid_down_self",
    "hand",
    "deck",
    "discard",
    "table",
    "known",
    "hand_sizes",
    "laid_down",
    "claims",
    "points",
    "discarded",
    "declined",
    "takes",
    "discards",
    "entries",
]


def perturbed(args: tuple[Any, ...], name: str) -> tuple[Any, ...]:
    """``args`` with the argument ``name`` changed in a way the features must show."""
    out = list(args)
    i = ARGS.index(name)
    value = out[i]

    def bump(xs: list[int], k: int) -> list[int]:
        xs = list(xs)
        xs[k] += 1
        return xs

    if name in ("min_run", "trios", "runs"):
        out[i] = value + 1
    elif name in ("wrap", "live", "laid_down_self"):
        out[i] = not value
    elif name in ("hand", "deck", "points"):
        k = next(c for c in range(NUM_TYPES) if out[ARGS.index("hand")][c])
        out[i] = bump(value, k)
    elif name == "discard":
        out[i] = [*value, JOKER]
    elif name == "table":
        out[i] = [*value, [0, 1, 2]]
    elif name == "known":
        out[i] = [bump(row, 7) if s != args[1] else row for s, row in enumerate(value)]
    elif name in ("hand_sizes", "claims", "takes", "discards"):
        out[i] = bump(value, (args[1] + 1) % args[0])
    elif name == "laid_down":
        s = (args[1] + 1) % args[0]
        out[i] = [not v if k == s else v for k, v in enumerate(value)]
    elif name in ("discarded", "declined"):
        out[i] = bump(value, 3)
    elif name == "entries":
        seat, kind, card = value[-1]
        out[i] = [*value[:-1], (seat, (kind + 1) % len(KINDS), card)]
    elif name == "seat":
        out[i] = (value + 1) % args[0]
    else:  # num_players: would not match the vector's size; the size check refuses it
        raise AssertionError(name)
    return tuple(out)


@needs_kernels
@pytest.mark.parametrize("name", [n for n in ARGS if n != "num_players"])
def test_a_perturbed_input_is_detected(name: str) -> None:
    """Every input of the kernel reaches the vector: changing it breaks the equality."""
    caught = 0
    for game in played("continental", 4)[5:-1]:
        seat = game.actor
        args = features._kernel_arguments(game, seat, None)
        if not args[ARGS.index("entries")]:
            continue  # the round's first decision: no entry to change yet
        out = np.empty(feature_layout(4)["history"].stop, dtype=np.float32)
        K.encode_features(out, *args)
        assert differences(game, seat, out) == []  # the unchanged input agrees
        K.encode_features(out, *perturbed(args, name))
        caught += differences(game, seat, out) != []
        if caught >= 3:
            break
    assert caught >= 3, name


# ----------------------------------------------------------------------------- Hypothesis


@dataclass
class Meld:
    cards: list[int]


@dataclass
class Position:
    """What ``encode_features_reference`` reads of a game, with any values."""

    num_players: int
    rules: Any
    round: int
    round_index: int
    deal_seeds: list[int]
    phase: str
    hands: list[list[int]]
    discard: list[int]
    table: list[Meld]
    known: list[list[int]]
    hand_sizes: list[int]
    laid_down: list[bool]
    claims: list[int]
    public_log: PublicLog

    @property
    def contract(self) -> tuple[int, int]:
        return contract_for_round(self.round)


counts = st.lists(st.integers(0, 3), min_size=NUM_TYPES, max_size=NUM_TYPES)
cards = st.integers(0, JOKER)


@st.composite
def positions(draw: st.DrawFn) -> tuple[Position, int]:
    """Any values where the engine keeps invariants: rules with other runs, long logs, hands
    and piles that need not add up to the deck, a log of another deal."""
    preset = draw(st.sampled_from(sorted(PRESETS)))
    p = draw(st.integers(2, PRESETS[preset].max_players))
    rules = replace(
        PRESETS[preset], min_run=draw(st.integers(3, 12)), ace_wraparound=draw(st.booleans())
    )
    seat = draw(st.integers(0, p - 1))
    hands = [[0] * NUM_TYPES for _ in range(p)]  # the others' hands are never read
    for c in draw(st.lists(cards, max_size=24)):
        hands[seat][c] += 1
    log = PublicLog()
    log.start(PublicLog.key_for(0, [11]), p)
    entries = st.tuples(st.integers(0, p - 1), st.integers(0, len(KINDS) - 1), cards)
    for who, kind, card in draw(st.lists(entries, max_size=20)):
        shown = KINDS[kind] == "discard" or (
            KINDS[kind] not in ("laydown", "close", "movejoker") and draw(st.booleans())
        )
        log._add(who, kind, card if shown else -1)
    melds = draw(st.lists(st.lists(cards, min_size=3, max_size=8), max_size=5))
    position = Position(
        num_players=p,
        rules=rules,
        round=draw(st.integers(1, 7)),
        round_index=0,
        deal_seeds=[draw(st.sampled_from([11, 12]))],  # 12: the log belongs to another deal
        phase=draw(st.sampled_from(["draw", "play", "claim", "game_over"])),
        hands=hands,
        discard=draw(st.lists(cards, max_size=12)),
        table=[Meld(m) for m in melds],
        known=[draw(counts) for _ in range(p)],
        hand_sizes=[draw(st.integers(0, 40)) for _ in range(p)],
        laid_down=[draw(st.booleans()) for _ in range(p)],
        claims=[draw(st.integers(0, 7)) for _ in range(p)],
        public_log=log,
    )
    return position, seat


@needs_kernels
@settings(max_examples=examples(80), deadline=None)
@given(positions())
def test_kernel_equals_reference_on_any_position(drawn: tuple[Position, int]) -> None:
    game, seat = drawn
    assert differences(game, seat, encode_features(game, seat)) == []


# ----------------------------------------------------------------------------- refusals


def call_with(name: str, value: Any) -> tuple[BaseException, np.ndarray]:
    """Call the kernel with one argument replaced; the error and ``out`` afterwards."""
    game = played("continental", 4)[8]
    args = list(features._kernel_arguments(game, game.actor, None))
    out = np.full(feature_layout(4)["history"].stop, 7.0, dtype=np.float32)
    if name == "out":
        out = value
    else:
        args[ARGS.index(name)] = value
    with pytest.raises((ValueError, TypeError)) as info:
        K.encode_features(out, *args)
    return info.value, out


def hand_with(k: int, value: Any) -> list[Any]:
    hand: list[Any] = [0] * NUM_TYPES
    hand[k] = value
    return hand


REFUSED = [
    ("num_players", 1, "num_players = 1"),
    ("seat", 4, "seat = 4"),
    ("seat", "0", "seat must be an int"),
    ("trios", 9, "trios = 9"),
    ("min_run", 0, "min_run = 0"),
    ("hand", [0] * 52, "hand must hold 53"),
    ("hand", hand_with(3, -1), "hand[3] = -1"),
    ("hand", hand_with(5, 1.0), "hand[5] must be an int"),
    ("hand", hand_with(6, 2**70), "hand[6] = 1180591620717411303424"),
    ("hand", "abc", "hand must be a list or tuple"),
    ("deck", hand_with(0, -2), "deck[0] = -2"),
    ("discard", [3, 53], "discard[1] = 53"),
    ("table", [[1, 2, 3], [4, 99]], "table[1][1] = 99"),
    ("table", [[1, 2, 3], 7], "table[1] must be a list or tuple"),
    ("known", [[0] * NUM_TYPES] * 3, "known must hold 4"),
    ("known", [[0] * NUM_TYPES] * 3 + [hand_with(9, -1)], "known[3][9] = -1"),
    ("hand_sizes", [1, 2, 3], "hand_sizes must hold 4"),
    ("laid_down", [0, 2, 0, 0], "laid_down[1] = 2"),
    ("points", hand_with(52, -50), "points[52] = -50"),
    ("discarded", [0] * 10, "discarded must hold 212"),
    ("takes", [0, 0, 0, -1], "takes[3] = -1"),
    ("entries", [(0, 1, 2), (4, 0, -1)], "entries[1] seat = 4"),
    ("entries", [(0, 10, 2)], "entries[0] kind = 10"),
    ("entries", [(0, 1, 53)], "entries[0] card = 53"),
    ("entries", [(0, 1)], "entries[0] must be a (seat, kind, card)"),
    ("entries", 5, "entries must be None or a list"),
    ("out", np.zeros(10, dtype=np.float32), "out holds 10 floats; 4 players need"),
    ("out", np.zeros(1082, dtype=np.float64), "out must hold float32"),
    ("out", [0.0] * 1082, "out must be a writable contiguous float32 array"),
]


@needs_kernels
@pytest.mark.parametrize(("name", "value", "message"), REFUSED)
def test_bad_input_is_refused_in_one_line(name: str, value: Any, message: str) -> None:
    error, out = call_with(name, value)
    text = str(error)
    assert message in text and "\n" not in text, text
    if name != "out":
        assert (out == 7.0).all()  # nothing written


@needs_kernels
def test_a_read_only_out_and_a_wrong_argument_count_are_refused() -> None:
    game = played("continental", 4)[8]
    args = features._kernel_arguments(game, game.actor, None)
    out = np.zeros(feature_layout(4)["history"].stop, dtype=np.float32)
    out.flags.writeable = False
    with pytest.raises(TypeError, match="writable contiguous float32"):
        K.encode_features(out, *args)
    with pytest.raises(TypeError, match="takes 23 arguments, got 22"):
        K.encode_features(out, *args[:-1])
    assert not out.any()


# ----------------------------------------------------------------------------- the header alone

HEADER = Path(features.__file__).resolve().parent.parent / "_features_c.h"


def c_ints(values: Any) -> str:
    values = [int(v) for v in values] or [0]  # C has no empty array
    return "{" + ", ".join(map(str, values)) + "}"


def test_the_header_alone_writes_the_same_vector(tmp_path: Path) -> None:
    """``_features_c.h`` is plain C that a core stepping many games can include: compiled on
    its own (C99, every warning an error) into a program without Python, it writes the
    reference's vector for a position of play."""
    cc = shutil.which(os.environ.get("CC", "cc")) or shutil.which("gcc")
    if cc is None or not HEADER.exists():
        pytest.skip("no C compiler, or an installed package without its C sources")
    game = played("continental", 3)[12]
    seat = game.actor
    (p, _seat, trios, runs, min_run, wrap, live, down, hand, deck, discard, table, known,
     sizes, laid, claims, points, discarded, declined, takes, discards, entries
     ) = features._kernel_arguments(game, seat, None)  # fmt: skip
    assert entries, "the position has a log to encode"
    last = entries[-features.HISTORY :]
    program = f"""
#include "_features_c.h"
#include <stdio.h>
int main(void) {{
    const int hand[] = {c_ints(hand)}, deck[] = {c_ints(deck)}, pile[] = {c_ints(discard)};
    const int cards[] = {c_ints(c for meld in table for c in meld)};
    const int known[] = {c_ints(c for row in known for c in row)};
    const int sizes[] = {c_ints(sizes)}, laid[] = {c_ints(laid)}, claims[] = {c_ints(claims)};
    const int points[] = {c_ints(points)}, discarded[] = {c_ints(discarded)};
    const int declined[] = {c_ints(declined)}, takes[] = {c_ints(takes)};
    const int discards[] = {c_ints(discards)}, who[] = {c_ints(e[0] for e in last)};
    const int kind[] = {c_ints(e[1] for e in last)}, card[] = {c_ints(e[2] for e in last)};
    float points50[NT], out[4096];
    for (int c = 0; c < NT; c++) points50[c] = (float)points[c] / 50.0f;
    FeatInput in = {{0}};
    in.p = {p}; in.seat = {seat}; in.trios = {trios}; in.runs = {runs}; in.min_run = {min_run};
    in.wrap = {int(wrap)}; in.live = {int(live)}; in.laid_down_self = {int(down)};
    in.hand = hand; in.deck = deck; in.discard = pile; in.n_discard = {len(discard)};
    in.table_cards = cards; in.n_table_cards = {sum(len(m) for m in table)};
    in.known = known; in.hand_sizes = sizes; in.laid_down = laid; in.claims = claims;
    in.points50 = points50; in.has_log = 1; in.discarded = discarded; in.declined = declined;
    in.takes = takes; in.discards = discards; in.last_seat = who; in.last_kind = kind;
    in.last_card = card; in.n_last = {len(last)};
    if (features_write(&in, out) != 0) return 1;
    fwrite(out, sizeof(float), (size_t)features_size(in.p), stdout);
    return 0;
}}
"""
    source = tmp_path / "alone.c"
    source.write_text(program)
    binary = tmp_path / "alone"
    flags = ["-std=c99", "-pedantic", "-Wall", "-Wextra", "-Werror", "-O2", "-ffp-contract=off"]
    subprocess.run([cc, *flags, "-I", str(HEADER.parent), str(source), "-o", str(binary)],
                   check=True, capture_output=True)  # fmt: skip
    written = subprocess.run([str(binary)], check=True, capture_output=True).stdout
    got = np.frombuffer(written, dtype=np.float32)
    assert differences(game, seat, got) == []
