"""The compiled ``encode_observation`` writes exactly the vector of ``aec.encode_observation``.

``ObservationEncoder.encode`` (every ``env.last()``) builds the whole observation, v0 and the v1
features, in one call of ``_kernels.encode_observation`` when the kernels are built; its v0
writer (``continental_env/_obs_c.h``) is the batch core's too (``tests/test_batch*.py`` keep
that side in lockstep). Equality is exact (``np.array_equal`` on float32 vectors) at every seat
of positions from seeded random play of the three presets at 2-8 players: claim windows,
lay-downs, game over. Positive controls: a changed input or a wrong seat is caught by the same
comparison. Bad input is refused with a one-line error and ``out`` left as it was.
"""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import numpy as np
import pytest

from continental_env import kernels
from continental_env.contract import features
from continental_env.contract.aec import (
    ObservationEncoder,
    encode_observation,
    observation_layout,
    observation_size,
)
from continental_env.contract.features import _kernel_arguments
from continental_env.contract.game import Game
from tests import helpers

K = kernels.compiled
needs_kernels = pytest.mark.skipif(K is None, reason="compiled kernels not built")

TABLES = helpers.TABLES
PHASES = {"draw": 0, "claim": 1, "play": 2}


def played(preset: str, players: int) -> tuple[Game, ...]:
    """About 30 positions of one seeded game of random legal play and its end."""
    return helpers.played(preset, players, 11, 30)


def with_table() -> Game:
    """A live position of 4 players with melds on the table."""
    return next(g for g in played("continental", 4) if g.table and g.phase != "game_over")


def kernel_args(game: Game, seat: int, version: int) -> list[Any]:
    """The arguments of ``_kernels.encode_observation`` after ``out``, as the encoder passes
    them."""
    st = game.state
    return [
        version,
        *_kernel_arguments(game, seat, None, version == 1),
        st.seen_discards,
        [meld.owner for meld in st.table],
        game.fitting_counts(),
        st.round,
        PHASES.get(st.phase, -1),
        st.scores,
        len(st.stock),
        st.turn,
        game.rules.max_turns_per_round,
    ]


def run_kernel(game: Game, seat: int, version: int, args: list[Any] | None = None) -> np.ndarray:
    out = np.zeros(observation_size(observation_layout(game.num_players, version)), np.float32)
    K.encode_observation(out, *(kernel_args(game, seat, version) if args is None else args))
    return out


def differences(want: np.ndarray, got: np.ndarray, layout: dict[str, slice]) -> list[str]:
    """Names of the layout's parts where ``got`` differs from ``want``."""
    assert got.dtype == want.dtype == np.float32 and got.shape == want.shape
    return [name for name, sl in layout.items() if not np.array_equal(got[sl], want[sl])]


@needs_kernels
@pytest.mark.parametrize(("preset", "players"), TABLES)
def test_the_encoder_equals_the_reference_in_random_play(preset: str, players: int) -> None:
    assert kernels.active()
    encoders = {v: ObservationEncoder(players, v) for v in (0, 1)}
    for game in played(preset, players):
        for version, encoder in encoders.items():
            layout = observation_layout(players, version)
            for seat in range(players):
                want = encode_observation(game, seat, layout)
                got = encoder.encode(game, seat)
                where = (preset, players, version, game.phase, seat)
                assert differences(want, got, layout) == [], where


@needs_kernels
def test_the_positions_cover_every_situation() -> None:
    seen: set[str] = set()
    for preset, players in TABLES:
        for game in played(preset, players):
            seen.add(str(game.phase))
            if any(game.laid_down):
                seen.add("laid down")
            if game.table:
                seen.add("table")
            if any(game.known[s][c] for s in range(players) for c in range(53)):
                seen.add("known")
            if any(score < 0 for score in game.scores):
                seen.add("negative score")
    assert {"draw", "claim", "play", "game_over", "laid down", "table", "known"} <= seen, seen


@needs_kernels
def test_the_kernel_equals_the_pure_python_reference() -> None:
    """Above, the reference's features come from the compiled ``encode_features``; here the
    whole reference is pure Python (kernels off)."""
    cases = [(preset, p) for preset, p in TABLES if p in (2, 5)]
    got = {}
    for preset, players in cases:
        for i, game in enumerate(played(preset, players)[::4]):
            for seat in range(players):
                got[preset, players, i, seat] = run_kernel(game, seat, 1)
    was = kernels.active()
    kernels.use(False)
    try:
        for (preset, players, i, seat), vector in got.items():
            game = played(preset, players)[::4][i]
            layout = observation_layout(players, 1)
            want = encode_observation(game, seat, layout)
            assert differences(want, vector, layout) == [], (preset, players, i, seat)
    finally:
        kernels.use(was)
        features.hand_analysis.cache_clear()
        features._hand_arrays.cache_clear()


@needs_kernels
def test_the_encoder_makes_one_kernel_call_and_a_new_array_each_time(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    calls = []

    def spy(out: np.ndarray, *args: Any) -> None:
        calls.append(args[0])
        K.encode_observation(out, *args)

    monkeypatch.setattr(kernels, "native", SimpleNamespace(encode_observation=spy))
    game = played("continental", 3)[12]
    encoder = ObservationEncoder(3, 1)
    first = encoder.encode(game, 1)
    kept = first.copy()
    second = encoder.encode(game, 1)
    assert calls == [1, 1]
    assert second is not first and np.array_equal(first, second)
    encoder.encode(played("continental", 3)[20], 1)
    assert np.array_equal(first, kept)  # an observation handed out never changes


# ----------------------------------------------------------------------------- positive controls

# (argument index after ``out``, change): each must show in the vector
CHANGES = {
    "hand": (9, lambda v: [v[0] + 1, *v[1:]]),
    "known": (13, lambda v: [[c + 1 for c in row] for row in v]),
    "seen": (23, lambda v: [v[0] + 1, *v[1:]]),
    "fits": (25, lambda v: [1 - v[0], *v[1:]]),
    "round": (26, lambda v: v % 7 + 1),
    "phase": (27, lambda v: (v + 1) % 3),
    "scores": (28, lambda v: [v[0] + 7, *v[1:]]),
    "stock": (29, lambda v: v + 1),
    "turn": (30, lambda v: v + 1),
    "max_turns": (31, lambda v: v + 1),
}


@needs_kernels
@pytest.mark.parametrize("name", sorted(CHANGES))
def test_a_changed_input_is_caught(name: str) -> None:
    game = played("continental", 4)[15]
    assert game.phase != "game_over"
    layout = observation_layout(4, 1)
    want = encode_observation(game, 2, layout)
    assert differences(want, run_kernel(game, 2, 1), layout) == []
    index, change = CHANGES[name]
    args = kernel_args(game, 2, 1)
    args[index] = change(args[index])
    assert differences(want, run_kernel(game, 2, 1, args), layout) != []


@needs_kernels
def test_a_wrong_seat_is_caught() -> None:
    game = played("continental", 4)[15]
    layout = observation_layout(4, 0)
    want = encode_observation(game, 1, layout)
    assert differences(want, run_kernel(game, 2, 0), layout) != []


# ----------------------------------------------------------------------------- bad input

BAD = [
    ("version", 1, lambda v: 2, ValueError),
    ("seat", 3, lambda v: 4, ValueError),
    ("seen", 24, lambda v: v[:52], ValueError),
    ("seen", 24, lambda v: [-1, *v[1:]], ValueError),
    ("owners", 25, lambda v: [4] * len(v), ValueError),
    ("fits", 26, lambda v: [2] * 53, ValueError),
    ("fits", 26, lambda v: None, TypeError),
    ("round", 27, lambda v: 0, ValueError),
    ("phase", 28, lambda v: 3, ValueError),
    ("phase", 28, lambda v: -1, ValueError),  # -1 is the game over's; this one is live
    ("scores", 29, lambda v: [*v[:-1], "x"], TypeError),
    ("scores", 29, lambda v: v[:-1], ValueError),
    ("stock", 30, lambda v: -1, ValueError),
    ("max_turns", 32, lambda v: 0, ValueError),
    ("table", 13, lambda v: [[53], *v[1:]], ValueError),
]


@needs_kernels
@pytest.mark.parametrize(("name", "index", "change", "error"), BAD)
def test_bad_input_is_refused_in_one_line_and_out_unchanged(
    name: str, index: int, change: Any, error: type[Exception]
) -> None:
    game = with_table()  # the table change below replaces a meld
    args = [None, *kernel_args(game, 2, 1)]
    args[index] = change(args[index])
    out = np.full(observation_size(observation_layout(4, 1)), 7.0, np.float32)
    args[0] = out
    with pytest.raises(error) as info:
        K.encode_observation(*args)
    message = str(info.value)
    assert "\n" not in message and name in message, message
    assert (out == 7.0).all()


@needs_kernels
@pytest.mark.parametrize(
    "out",
    [np.zeros(10, np.float32), np.zeros(1827, np.float64), [0.0] * 1827],
    ids=["short", "float64", "list"],
)
def test_a_bad_out_is_refused(out: Any) -> None:
    game = played("continental", 4)[15]
    with pytest.raises((TypeError, ValueError), match="out"):
        K.encode_observation(out, *kernel_args(game, 2, 1))


@needs_kernels
def test_the_argument_count_is_checked() -> None:
    with pytest.raises(TypeError, match="encode_observation takes 33 arguments, got 2"):
        K.encode_observation(np.zeros(3, np.float32), 0)


@needs_kernels
def test_the_kept_hand_analyses_are_keyed_by_hand_and_contract() -> None:
    """The kernels keep the last hand analyses; the same hand under each contract in turn (a
    kept analysis of another contract would be wrong) equals the pure-Python reference."""
    base = next(
        g
        for g in played("continental", 3)
        if g.phase != "game_over" and not g.laid_down[g.actor] and sum(g.hands[g.actor])
    )
    seat = base.actor
    games = []
    for round_number in (1, 2, 3, 4, 5, 6, 7, 3, 1):
        game = base.clone()
        game.state.round = round_number
        games.append(game)
    layout = observation_layout(3, 1)
    got = [run_kernel(game, seat, 1) for game in games]
    was = kernels.active()
    kernels.use(False)
    try:
        for game, vector in zip(games, got, strict=True):
            want = encode_observation(game, seat, layout)
            assert differences(want, vector, layout) == [], game.round
    finally:
        kernels.use(was)
        features.hand_analysis.cache_clear()
        features._hand_arrays.cache_clear()
    assert len({tuple(v[layout["distance"]]) for v in got}) > 1  # the contracts differ
