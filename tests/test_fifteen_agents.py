"""The fifteen-card bots' strategy: the greedy bot on scripted positions and at an all-greedy
table, and the registry's fifteen-card names (the checks both side games share: legal play,
views, hidden cards, are in ``test_side_agents.py``)."""

from __future__ import annotations

import pytest
from fifteen_helpers import fifteen_game, legal_texts
from side_helpers import play_bots as play

from agents import make_agent
from agents.fifteen import view_for
from agents.fifteen.greedy import covered, hand_value
from continental_env.cards import parse_cards, to_counts
from continental_env.fifteen.game import Game

OPP = "2D 4D 6D TD QD 2S 8S TS QS KS 3C 7C KC 5H 9H"


def test_greedy_goes_out_and_wins_hands_at_an_all_greedy_table() -> None:
    g = play(Game.new(num_players=4, seed=3, hands=3), ["greedy"] * 4)
    winners = [h["winner"] for h in g.hand_history]
    assert len(winners) == 3 and all(w is not None for w in winners)
    for h in g.hand_history:  # every arrangement is a legal shape, paid by the table
        sizes = sorted(len(m.split()) for m in h["melds"])
        assert sizes in ([3] * 5, [3, 4, 4, 4], [3, 3, 4, 5])


def test_make_agent_refuses_an_unknown_game_and_defaults_to_the_contract_game() -> None:
    with pytest.raises(ValueError, match="unknown game 'poker'"):
        make_agent("greedy", 1, game="poker")
    assert make_agent("strong", 1).name == "strong"  # the contract game stays the default


def test_greedy_goes_out_at_once_with_a_dealt_hand() -> None:
    g = fifteen_game(
        hands=["AH 2H 3H 4C 5C 6C 7D 8D 9D 4S 5S 6S 9C TC JC", OPP],
        discard="KD",
        has_played=[False, True],
    )
    assert g.action_to_str(make_agent("greedy", 0, game="fifteen").act(view_for(g))) == "out"


def test_greedy_takes_the_up_card_that_lets_it_go_out_and_maximises_the_payment() -> None:
    g = fifteen_game(hands=["AH 2H 3H 4C 5C 6C 7D 8D 9D 4S 5S 6S 9C TC JK", OPP], discard="JC")
    bot = make_agent("greedy", 0, game="fifteen")
    assert g.action_to_str(bot.act(view_for(g))) == "take"
    g.apply(bot.act(view_for(g)))
    outs = [t for t in legal_texts(g) if t.startswith("out")]
    assert "out JK" in outs and len(outs) > 1
    # Shedding the joker pays 1 + 10 (no joker); keeping it pays 1 + 2.
    assert g.action_to_str(bot.act(view_for(g))) == "out JK"


def test_greedy_draws_when_the_up_card_does_not_help_and_sheds_a_loose_card() -> None:
    hand = "AH 2H 3H 4C 5C 6C 7D 8D 9D 4S 5S 6S 9C TC KD"
    g = fifteen_game(hands=[hand, OPP], discard="8H", stock_top="QS")
    bot = make_agent("greedy", 0, game="fifteen")
    assert g.action_to_str(bot.act(view_for(g))) == "draw"
    g.apply(bot.act(view_for(g)))
    assert g.action_to_str(bot.act(view_for(g))) in ("discard KD", "discard QS")


def test_hand_value_counts_cards_in_sequences() -> None:
    assert covered(to_counts(parse_cards("AH 2H 3H 4C 5C 6C 7D 8D 9D 4S 5S 6S 9C TC JC"))) == 15
    assert covered(to_counts(parse_cards("KH AH 2H"))) == 0  # no around-the-corner
    assert covered(to_counts(parse_cards("KH AH 2H JK"))) == 3  # 2H + JK ... or JK KH AH
    assert hand_value(to_counts(parse_cards("5H 6H"))) > hand_value(to_counts(parse_cards("5H 9H")))
