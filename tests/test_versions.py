"""Frozen bot versions: ``strong@v1``, ``search@v1`` to ``search@v6`` play recorded games move for move.

The v1 digests below were recorded at commit 5894364 (before any later version existed), with the
bare names ``strong``/``search``; the ``search@v2`` to ``search@v6`` ones when each was frozen: the sha256 of the comma-joined action ids of a whole seeded game
(first 16 hex digits). A frozen version must reproduce them forever; a change that moves one is a
new version (``name@v2``), never an edit of a frozen one.
"""

from __future__ import annotations

import hashlib
import shutil
from pathlib import Path

import pytest

from agents import CURRENT, is_oracle, make_agent, versioned_name
from agents.contract.view import PlayerView
from continental_env.contract.game import Game
from continental_env.rules import resolve_rules

# (seat names, game seed, rounds or None for all seven, preset) -> (digest, actions, scores)
RECORDED = [
    (("strong@v1",) * 4, 11, None, "continental", ("050bcf335057f7db", 798, [369, 225, 385, 498])),
    (("strong@v1",) * 4, 12, None, "continental", ("1e9698ec710d2e29", 837, [265, 180, 432, 434])),
    (("strong@v1",) * 3, 21, None, "continental", ("fdd2063dd77dc5b6", 629, [230, 65, 107])),
    (("strong@v1",) * 4, 22, (3, 5, 7), "continental_es", ("be3afa1f995419e0", 429, [75, 90, 130, 155])),
    (("search@v1",) + ("strong@v1",) * 3, 13, (1, 4, 7), "continental", ("cc7b1655b6817ad2", 326, [142, 21, 94, 133])),
    (("strong@v1", "search@v1:2", "strong@v1", "search@v1"), 14, (2, 6), "continental", ("092be924703dcd03", 149, [157, 175, 0, 76])),
    (("search@v1:8", "strong@v1", "strong@v1"), 15, (5, 7), "continental", ("007b87778e3d1818", 218, [231, 104, 0])),
    # search@v2, recorded when it was frozen (each game has search deviations from strong's move)
    (("search@v2",) + ("strong@v1",) * 3, 16, (1, 4, 7), "continental", ("fc8430e4d112dcd6", 300, [78, 157, 25, 11])),
    (("strong@v1", "search@v2:8", "strong@v1", "search@v2"), 17, (2, 6), "continental", ("e116186833ef1099", 227, [107, 81, 53, 71])),
    # search@v3 (search@v2 over belief-resampled worlds), recorded when it was frozen
    (("search@v3",) + ("strong@v1",) * 3, 18, (1, 4, 7), "continental", ("53c41c690da82066", 371, [231, 108, 3, 138])),
    (("strong@v1", "search@v3:8", "strong@v1", "search@v3"), 19, (2, 6), "continental", ("34384fff0c9a65d9", 178, [12, 141, 0, 99])),
    # search@v4 (search@v3 with history beliefs), recorded when it was frozen
    (("search@v4",) + ("strong@v1",) * 3, 23, (1, 4, 7), "continental", ("4f2fab2c6ab60115", 375, [53, 221, 118, 21])),
    (("strong@v1", "search@v4:8", "strong@v1", "search@v4"), 24, (2, 6), "continental", ("d5645e9259622bb8", 164, [157, 7, 62, 63])),
    # search@v5 (search@v4 with up to 48 worlds), recorded when it was frozen; seed 28 differs from v4
    (("search@v5",) + ("strong@v1",) * 3, 28, (1, 4, 7), "continental", ("64e3560115046ba3", 392, [194, 11, 161, 128])),
    (("strong@v1", "search@v5:8", "strong@v1", "search@v5"), 26, (2, 6), "continental", ("ef720089f2f6574a", 265, [110, 11, 87, 126])),
    # search@v6 (search@v5's search guarding ppo:selfplay3_continental_4p's move), recorded when
    # it was frozen, before its decisive run; each game overturns the network's move
    (("search@v6",) + ("strong@v1",) * 3, 31, (1, 4, 7), "continental", ("ff9705c739118636", 294, [81, 8, 104, 138])),
    (("strong@v1", "search@v6:8", "strong@v1", "search@v6"), 32, (2, 6), "continental", ("3dd2d8354987d297", 152, [97, 214, 98, 45])),
]  # fmt: skip


def play_digest(names: tuple[str, ...], seed: int, rounds, preset: str):  # type: ignore[no-untyped-def]
    """Play one seeded game; (digest of its actions, number of actions, final scores, deviations)."""
    rules = resolve_rules(preset)
    if rounds:
        rules = rules.with_rounds(tuple(rounds))
    game = Game.new(rules, len(names), seed=seed)
    bots = [make_agent(n, seed * 10 + s) for s, n in enumerate(names)]
    actions = []
    while not game.is_over:
        action = bots[game.actor].act(PlayerView(game, game.actor))
        actions.append(action)
        game.apply(action)
    digest = hashlib.sha256(",".join(map(str, actions)).encode()).hexdigest()[:16]
    deviations = sum(getattr(b, "deviations", 0) for b in bots)
    return digest, len(actions), list(game.scores), deviations


@pytest.mark.parametrize(("names", "seed", "rounds", "preset", "expected"), RECORDED)
def test_frozen_versions_replay_recorded_games(names, seed, rounds, preset, expected) -> None:  # type: ignore[no-untyped-def]
    digest, count, scores, _ = play_digest(names, seed, rounds, preset)
    assert (digest, count, scores) == expected


@pytest.mark.parametrize("index", [4, 7, 9, 10, 11, 12, 13, 14, 15, 16])
def test_recorded_search_games_include_a_deviation_from_strong(index: int) -> None:
    # Otherwise the search pins would only pin strong's moves.
    names, seed, rounds, preset, expected = RECORDED[index]
    digest, _count, _scores, deviations = play_digest(names, seed, rounds, preset)
    assert digest == expected[0] and deviations >= 1


def test_bare_names_play_the_current_version() -> None:
    assert versioned_name("strong") == CURRENT["strong"]
    assert versioned_name("search") == CURRENT["search"]
    assert versioned_name("search:8") == CURRENT["search"] + ":8"
    assert versioned_name("search:2:fast:argmin") == CURRENT["search"] + ":2:fast:argmin"
    assert versioned_name("greedy") == "greedy"
    assert versioned_name("ppo:agents/models/strong.zip") == "ppo:agents/models/strong.zip"
    # The bare name keeps its own label, the versioned one its version.
    assert make_agent("strong", 1).name == "strong"
    assert make_agent("strong@v1", 1).name == "strong@v1"
    assert make_agent("search@v1:3", 1).name == "search@v1:3"
    assert type(make_agent("strong", 1)) is type(make_agent(CURRENT["strong"], 1))


def test_unknown_versions_are_refused_by_name() -> None:
    with pytest.raises(ValueError, match="'strong@v9'"):
        make_agent("strong@v9", 0)
    with pytest.raises(ValueError, match="'strong@v1:3'"):
        make_agent("strong@v1:3", 0)


def test_search_v6_refuses_a_network_file_other_than_its_own(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from agents.bots import ppo_agent

    changed = tmp_path / "selfplay3_continental_4p.npz"
    shutil.copy(ppo_agent.shipped_model("selfplay3_continental_4p"), changed)
    with open(changed, "ab") as f:
        f.write(b"\0")  # one byte more: another file
    monkeypatch.setattr(ppo_agent, "shipped_model", lambda name: str(changed))
    with pytest.raises(ValueError, match="not the file it was frozen with"):
        make_agent("search@v6", 0)


def test_oracle_names_are_recognised() -> None:
    assert is_oracle("search-oracle") and is_oracle("search-oracle:16")
    assert not is_oracle("search@v1") and not is_oracle("strong")
    bot = make_agent("search-oracle:3", 2)
    assert bot.name == "search-oracle:3" and bot.sims == 3
    with pytest.raises(ValueError, match="integer"):
        make_agent("search-oracle:x", 0)
