"""Legality and its explanations come from the same ``CHECKS``: they cannot disagree.

For positions of every preset, every action id is legal exactly when its kind belongs to the
phase and it passes every check of its kind (``ARGS`` checks included, which legal-action
generation does not run: the candidate helpers must agree with them), and every illegal id is
refused by a named check, never by the catch-all.
"""

from __future__ import annotations

import random

import pytest

from continental_env.contract.actions import SIMPLE_ACTIONS
from continental_env.contract.game import CHECKS, EFFECTS, Game
from continental_env.contract.game import PHASE_OF_KIND as PHASES

KINDS = (*SIMPLE_ACTIONS, "discard", "layoff", "swap", "movejoker")


def test_every_action_kind_has_checks_candidates_and_an_effect() -> None:
    assert set(CHECKS) == set(EFFECTS) == set(PHASES) == set(KINDS)


def positions(preset: str, players: int, seed: int, count: int) -> list[Game]:
    """Positions along a game that prefers lay-downs, lay-offs and joker moves."""
    g = Game.new(preset, players, seed=seed)
    rng = random.Random(seed)
    out = []
    while not g.is_over and len(out) < count:
        out.append(g.clone())
        legal = g.legal_actions()
        plays = [a for a in legal if g.action_to_str(a).split()[0] not in ("discard", "draw")]
        g.apply(rng.choice(plays) if plays and rng.random() < 0.7 else rng.choice(legal))
    return out


def passes(g: Game, action: int) -> bool:
    kind, *args = g.layout.decode(action)
    if g.is_over or PHASES[kind] != g.state.phase:
        return False
    return all(check.holds(g, tuple(args)) for check in CHECKS[kind])


@pytest.mark.parametrize("preset", ["continental", "continental_us", "continental_es"])
def test_legal_exactly_when_every_check_holds(preset: str) -> None:
    seen_play = 0
    for g in positions(preset, 3, seed=11, count=400)[::8]:
        legal = set(g.legal_actions())
        seen_play += g.state.phase == "play" and any(g.state.laid_down)
        for action in range(g.num_actions):
            assert passes(g, action) == (action in legal), (g.action_to_str(action), g)
    assert seen_play, "no play step with a seat laid down was examined"


@pytest.mark.parametrize("preset", ["continental", "continental_us", "continental_es"])
def test_every_refusal_names_a_check(preset: str) -> None:
    for g in positions(preset, 4, seed=5, count=300)[::10]:
        legal = set(g.legal_actions())
        before = g.to_dict()
        for action in range(0, g.num_actions, 7):
            if action in legal:
                continue
            with pytest.raises(ValueError) as err:
                g.apply(action)
            message = str(err.value)
            assert message.startswith(f"illegal action {action} ("), message
            assert not message.endswith("not legal now"), message
        assert g.to_dict() == before


def test_take_from_an_empty_pile_is_refused_by_name() -> None:
    g = Game.new("continental", 2, seed=1)
    g.state.discard.clear()  # as after a claim emptied the pile
    g._invalidate()
    assert g.legal_actions() == [g.action_from_str("draw")]
    with pytest.raises(ValueError, match="the discard pile is empty"):
        g.apply(g.action_from_str("take"))
