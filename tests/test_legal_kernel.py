"""The compiled ``contract_legal`` lists exactly the legal ids of ``legal.compute_legal``.

``Game._compute_legal`` (every ``legal_actions()``, every action mask) runs
``_kernels.contract_legal`` when the kernels are built; ``legal.py`` (the candidates filtered by
``action_checks.CHECKS``) stays the readable definition. The lists are compared, order
included, at positions of seeded random play of every preset at 2-8 players (and a hand-made
close, which random play rarely reaches), after checking that those positions offer every
other action kind. Positive controls: a changed rule or hand given
to the kernel is caught by the same comparison. Where the kernel returns None (a hand only the
full contract search decides) the engine runs ``legal.py``. Bad input is refused with a one-line
error; the action mask's ``mark_ids`` writes nothing when it refuses.
"""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import numpy as np
import pytest

from continental_env import kernels
from continental_env.contract.game import Game
from continental_env.contract.legal import compute_legal
from tests import helpers

K = kernels.compiled
needs_kernels = pytest.mark.skipif(K is None, reason="compiled kernels not built")

TABLES = helpers.TABLES


def played(preset: str, players: int) -> tuple[Game, ...]:
    """About 150 positions of each of two seeded games of random legal play, and their ends."""
    return helpers.played(preset, players, 5, 150) + helpers.played(preset, players, 6, 150)


def closing() -> Game:
    """Seat 0 down with one card left: its one legal action is to close (random play rarely
    gets there)."""
    return helpers.make_game(
        "continental",
        hands=["KH", "2C 3C 4C 5D 6D 8S 9S", "2H 3H 4H 5S 6S 8D 9D", "2S 3S 4S 5C 6C 8H 9H"],
        table=[(0, "trio", "7C 7D 7S"), (0, "trio", "JC JD JS")],
        laid_down_turn=[0, -1, -1, -1],
    )


def run_kernel(game: Game, facts: tuple[Any, ...] | None = None) -> list[int] | None:
    return K.contract_legal(
        game.state, *(game.setup.legal_kernel_facts if facts is None else facts)
    )


@needs_kernels
@pytest.mark.parametrize(("preset", "players"), TABLES)
def test_the_kernel_equals_the_reference_in_random_play(preset: str, players: int) -> None:
    for game in played(preset, players):
        want = compute_legal(game)
        assert run_kernel(game) == want, (preset, players, game.phase, game.round)
        assert game.legal_actions() == want


@needs_kernels
def test_the_kernel_lists_a_close() -> None:
    game = closing()
    assert run_kernel(game) == compute_legal(game) == [game.action_from_str("close")]


@needs_kernels
def test_the_positions_offer_every_action_kind() -> None:
    """The comparison above is not vacuous: its positions offer every kind, under each joker
    rule, and 004's discard restriction bites in some."""
    seen: set[tuple[str, str]] = set()
    restricted = 0
    for preset, players in TABLES:
        for game in played(preset, players):
            for action in compute_legal(game):
                seen.add((preset, game.layout.decode(action)[0]))
            st = game.state
            if st.phase == "play" and game.rules.discard_restriction and st.table:
                held = sum(1 for c in range(53) if st.hands[st.current][c])
                if st.jokers_owed == 0 and st.hand_sizes[st.current] >= 2:
                    discards = sum(1 for a in compute_legal(game) if 6 <= a < 59)
                    restricted += discards < held
    kinds = {kind for _preset, kind in seen}
    assert kinds >= {"draw", "take", "claim", "pass", "laydown", "discard", "layoff"}
    assert ("continental", "swap") in seen
    assert ("continental_us", "movejoker") in seen
    assert restricted > 0


@needs_kernels
def test_a_changed_rule_or_hand_is_caught() -> None:
    """Positive controls: the same comparison fails when the kernel is given other rules (no
    swaps, no joker moves) or another hand."""
    positions = [g for p, n in TABLES for g in played(p, n)]
    swap = next(
        g for g in positions if any(g.layout.decode(a)[0] == "swap" for a in compute_legal(g))
    )
    facts = list(swap.setup.legal_kernel_facts)
    facts[2] = False  # joker_rule is not "swap"
    assert run_kernel(swap, tuple(facts)) != compute_legal(swap)
    move = next(
        g for g in positions if any(g.layout.decode(a)[0] == "movejoker" for a in compute_legal(g))
    )
    facts = list(move.setup.legal_kernel_facts)
    facts[3] = False  # joker_rule is not "shift"
    assert run_kernel(move, tuple(facts)) != compute_legal(move)
    play = next(g for g in positions if g.phase == "play")
    other = play.clone()
    hand = other.state.hands[other.state.current]
    held = next(c for c in range(52) if hand[c] == 0)
    hand[held] += 1
    assert run_kernel(other) != compute_legal(play)


def test_a_hand_the_kernel_leaves_to_the_search_gets_the_reference(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """``contract_legal`` returns None where only the full contract search decides (the rare
    last step of ``melds.has_contract``): the engine then lists ``legal.py``'s ids."""
    game = helpers.played("continental", 4, 5, 30)[5]
    want = compute_legal(game)
    calls: list[Any] = []

    def undecided(state: Any, *facts: Any) -> None:
        calls.append(state)

    monkeypatch.setattr(kernels, "native", SimpleNamespace(contract_legal=undecided))
    game._legal = None
    assert game.legal_actions() == want
    assert calls == [game.state]


def test_the_reference_runs_with_the_kernels_off() -> None:
    game = helpers.played("continental_es", 5, 5, 30)[9]
    want = compute_legal(game)
    was = kernels.active()
    kernels.use(False)
    try:
        game._legal = None
        assert game.legal_actions() == want
    finally:
        kernels.use(was)


@needs_kernels
def test_bad_input_is_refused_in_one_line() -> None:
    game = next(g for g in played("continental", 4) if g.phase == "play" and g.table)
    facts = game.setup.legal_kernel_facts
    with pytest.raises(AttributeError, match="phase"):
        K.contract_legal(object(), *facts)
    with pytest.raises(TypeError, match="takes 12 arguments, got 2"):
        K.contract_legal(game.state, 1)
    bad = game.clone()
    bad.state.table[0].cards.append(60)
    with pytest.raises(ValueError, match=r"meld card = 60 is out of range 0\.\.52") as info:
        K.contract_legal(bad.state, *facts)
    assert "\n" not in str(info.value)
    bad = game.clone()
    bad.state.current = 9
    with pytest.raises(ValueError, match="hands has no item 9"):
        K.contract_legal(bad.state, *facts)
    facts = list(facts)
    facts[5] = 0  # min_run
    with pytest.raises(ValueError, match=r"min_run = 0 is out of range 1\.\.13"):
        K.contract_legal(game.state, *facts)


@needs_kernels
def test_mark_ids_writes_the_mask_or_nothing() -> None:
    mask = np.zeros(10, dtype=np.int8)
    K.mark_ids(mask, [1, 4, 9])
    assert mask.nonzero()[0].tolist() == [1, 4, 9]
    mask = np.zeros(10, dtype=np.int8)
    with pytest.raises(ValueError, match=r"ids\[1\] = 10 is not an index of the 10-entry mask"):
        K.mark_ids(mask, [2, 10])
    assert not mask.any()  # refused before writing
    with pytest.raises(TypeError, match="must hold int8"):
        K.mark_ids(np.zeros(10, dtype=np.float32), [1])
    with pytest.raises(TypeError, match="ids must be a list"):
        K.mark_ids(mask, (1, 2))


@needs_kernels
def test_the_env_mask_is_the_same_with_the_kernels_off() -> None:
    """``CardGameEnv._mask`` marks the legal ids with ``mark_ids``, or with numpy when the
    kernels are off: the same int8 mask, all 0 for a seat not to act."""
    import continental_env

    env = continental_env.env(num_players=3)
    raw = env.unwrapped
    env.reset(seed=4)
    rng = np.random.default_rng(4)
    was = kernels.active()
    try:
        for _ in range(150):
            masks = []
            for enabled in (True, False):
                kernels.use(enabled)
                raw._game._legal = None  # listed again on this side
                masks.append([raw._mask(seat) for seat in range(3)])
            for on, off in zip(*masks, strict=True):
                assert on.dtype == off.dtype == np.int8
                assert np.array_equal(on, off)
            actor = raw.game.actor
            assert masks[0][actor].nonzero()[0].tolist() == raw.game.legal_actions()
            assert sum(int(m.any()) for m in masks[0]) == 1
            kernels.use(was)
            legal = raw.game.legal_actions()
            env.step(legal[rng.integers(len(legal))])
    finally:
        kernels.use(was)
