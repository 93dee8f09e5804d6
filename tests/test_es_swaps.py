"""continental_es joker swaps (RULES.md 1.8, seed 004): only a run's jokers may be swapped, and the
joker taken must be laid off on the table in the same turn, so a swap is legal only when it can be.
The other presets keep their swaps (positive controls)."""

from __future__ import annotations

import pytest
from helpers import act, legal_texts, make_state

from continental_env.contract.game import Game


def down_game(preset: str, hand0: str, table: list[tuple[int, str, str]]) -> Game:
    state = make_state(
        preset,
        hands=[hand0, "9C 9D 4S 4D 2C"],
        table=table,
        laid_down=[True, True],
    )
    return Game.from_dict(state)


RUN_WITH_JOKER = (1, "run", "5H JK 7H 8H")
TRIO_WITH_JOKER = (1, "trio", "KC KD JK")


def test_a_trio_joker_cannot_be_swapped_in_continental_es() -> None:
    g = down_game("continental_es", "KS 3C 3D 9S", [TRIO_WITH_JOKER, RUN_WITH_JOKER])
    assert "swap KS 0" not in legal_texts(g)
    with pytest.raises(ValueError, match="only a run's jokers"):
        g.apply(g.action_from_str("swap KS 0"))
    # Positive control: the default preset swaps a trio's joker.
    g = down_game("continental", "KS 3C 3D 9S", [TRIO_WITH_JOKER, RUN_WITH_JOKER])
    assert "swap KS 0" in legal_texts(g)


def test_the_swapped_joker_must_be_laid_off_before_discarding() -> None:
    g = down_game("continental_es", "6H 3C 3D 9S", [TRIO_WITH_JOKER, RUN_WITH_JOKER])
    act(g, "swap 6H 1")
    texts = legal_texts(g)
    assert not [t for t in texts if t.startswith("discard")]
    assert "layoff JK 0" in texts and "layoff JK 1 high" in texts
    with pytest.raises(ValueError, match="must first lay off the joker"):
        g.apply(g.action_from_str("discard 9S"))
    before = g.to_dict()
    assert Game.from_dict(before).jokers_owed == 1  # the obligation survives a JSON round trip
    act(g, "layoff JK 0")
    assert "discard 9S" in legal_texts(g)
    # Positive control: the default preset lets the swapper keep the joker and discard.
    g = down_game("continental", "6H 3C 3D 9S", [TRIO_WITH_JOKER, RUN_WITH_JOKER])
    act(g, "swap 6H 1")
    assert "discard 9S" in legal_texts(g)


def test_a_swap_is_illegal_when_the_joker_could_not_be_laid_off() -> None:
    # One card in hand: after the swap the joker is the last card, and a lay-off must keep one.
    g = down_game("continental_es", "6H", [RUN_WITH_JOKER])
    assert "swap 6H 0" not in legal_texts(g)
    with pytest.raises(ValueError, match="could not be laid off"):
        g.apply(g.action_from_str("swap 6H 0"))
    g = down_game("continental", "6H", [RUN_WITH_JOKER])
    assert "swap 6H 0" in legal_texts(g)  # positive control


def test_a_lay_off_that_strands_the_swapped_joker_is_illegal() -> None:
    # After the swap the hand is JK + 9H; laying off 9H first would leave the joker as the last
    # card, which can then be neither laid off nor discarded.
    g = down_game("continental_es", "6H 9H", [RUN_WITH_JOKER])
    act(g, "swap 6H 0")
    texts = legal_texts(g)
    assert "layoff 9H 0" not in texts
    assert "layoff JK 0 high" in texts
    with pytest.raises(ValueError, match="could no longer be laid off"):
        g.apply(g.action_from_str("layoff 9H 0"))


def test_from_dict_refuses_an_owed_joker_where_the_rules_have_none() -> None:
    g = down_game("continental", "6H 3C 3D 9S", [RUN_WITH_JOKER])
    data = g.to_dict()
    data["jokers_owed"] = 1
    with pytest.raises(ValueError, match="jokers_owed"):
        Game.from_dict(data)
