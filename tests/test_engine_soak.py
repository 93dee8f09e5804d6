"""Soak: seeded random play of every game and preset; every saved state reloads and continues.

After each action (every few actions in the contract game, whose games are long) the saved
state goes through JSON and ``from_dict``: the loaded game writes the same state and offers the
same legal actions, and the reloaded first state, given the same actions, ends in the same state.
``scripts/soak_saved_states.py`` runs the long version.
"""

from __future__ import annotations

import pytest

from scripts.soak_saved_states import soak_game, tables

TABLES = dict(tables(small=True))


@pytest.mark.parametrize("name", sorted(TABLES))
def test_every_saved_state_of_random_play_reloads_and_continues_identically(name: str) -> None:
    every = 1 if name.startswith(("fifteen", "knock")) else 4
    games = 4 if name.startswith(("fifteen", "knock")) else 2
    checked = sum(soak_game(TABLES[name](seed), seed, every) for seed in range(games))
    assert checked >= games * 10
