"""``strong`` plans runs with the meld validator's arithmetic: no wrap past the ace when the rules
(``continental_us``) forbid it."""

from __future__ import annotations

from helpers import make_state

from agents.contract.strong import StrongAgent, make_plan, unseen_counts
from agents.contract.view import view_for
from continental_env.cards import card_from_str, parse_cards
from continental_env.contract.game import Game
from continental_env.rules import PRESETS


def counts(text: str) -> tuple[int, ...]:
    out = [0] * 53
    for c in parse_cards(text):
        out[c] += 1
    return tuple(out)


def test_plan_does_not_extend_a_low_ace_run_with_a_king_without_wraparound() -> None:
    hand = counts("AH 2H 3H 4H KH 7C 7D 9S")
    unseen = tuple([2] * 52 + [2])
    kh = card_from_str("KH")
    us = make_plan(hand, unseen, 1, 1, PRESETS["continental_us"])
    assert us.core[kh] == 0, "K-A-2 is not a run in continental_us"
    # Positive control: with wraparound (continental) the king does extend A-2-3-4.
    wrap = make_plan(hand, unseen, 1, 1, PRESETS["continental"])
    assert wrap.core[kh] == 1


def test_layoff_prospect_sees_no_king_below_a_low_ace_run_without_wraparound() -> None:
    def prospect(preset: str) -> float:
        state = make_state(
            preset,
            hands=["KH 9C 9D 5S", "7C 7D 8S 8D"],
            table=[(1, "run", "2H 3H 4H 5H")],
            laid_down=[False, True],
        )
        g = Game.from_dict(state)
        view = view_for(g, 0)
        return StrongAgent._layoff_prospect(view, card_from_str("KH"), unseen_counts(view))

    assert prospect("continental_us") == 0.0
    assert prospect("continental") > 0.0  # positive control: K-A-2-3-4-5 wraps there
