"""The meld validator's package shape: one module per family, every old name still importable,
public names across modules, modules of a readable size (the functions' complexity is checked
for every package in test_style.py), one unseen-card count, and the contract searches agreeing
on the one question they share (can the contract go down).
"""

from __future__ import annotations

import ast
import importlib
import random
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from agents.bots.random_agent import RandomAgent
from agents.contract.handtools import unseen_counts as bot_unseen
from agents.contract.view import PlayerView
from continental_env import kernels, melds
from continental_env.cards import JOKER, NUM_TYPES
from continental_env.contract import features
from continental_env.contract.game import Game
from continental_env.rules import CONTRACTS, PRESETS, deck_counts

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "continental_env" / "melds"
MODULES = ("core", "layoffs", "exists", "contract", "distance", "laydown", "fifteen", "knock")

# Every public name of the single-file ``continental_env/melds.py`` the package replaced.
OLD_NAMES = [
    "ACE_VALUES",
    "ANNOUNCE_SIZE",
    "GOING_OUT_SHAPES",
    "GOING_OUT_SIZE",
    "HIGH",
    "KNOCKER_RULES",
    "LAYDOWN_BUDGET",
    "LAYDOWN_EXACT_CARDS",
    "LAY_RULES",
    "LOW",
    "Meld",
    "RUN",
    "SEQUENCE_LENGTHS",
    "SEQUENCE_RULES",
    "TRIO",
    "arrange_run",
    "best_contract",
    "best_laydown",
    "best_lays",
    "can_fit",
    "can_go_out",
    "color_discards",
    "continental_discards",
    "deadwood",
    "deadwood_within",
    "end_card",
    "end_joker",
    "extend_run",
    "find_contract",
    "fitting_cards",
    "going_out",
    "going_out_discards",
    "has_contract",
    "is_color",
    "is_continental",
    "is_lay",
    "is_rummy",
    "is_sequence",
    "is_valid_meld",
    "joker_for",
    "joker_positions",
    "lay_off",
    "laydown_outcome",
    "layoff_options",
    "natural_layoff_end",
    "rummy_discards",
    "run_can_extend",
    "run_layout",
    "run_spans",
    "sequence_spans",
    "swap_joker",
    "swap_targets",
    "take_end_joker",
    "trio_rank",
]


def test_every_old_name_is_still_importable_from_the_package() -> None:
    missing = [name for name in OLD_NAMES if not hasattr(melds, name)]
    assert not missing, missing
    namespace: dict = {}
    exec("from continental_env.melds import " + ", ".join(OLD_NAMES), namespace)
    assert all(namespace[name] is getattr(melds, name) for name in OLD_NAMES)


def test_the_package_re_exports_each_module_public_names_as_the_same_objects() -> None:
    exported = set()
    for name in MODULES:
        module = importlib.import_module(f"continental_env.melds.{name}")
        for public in module.__all__:
            assert getattr(melds, public) is getattr(module, public), (name, public)
        assert not exported & set(module.__all__), "a name defined by two modules"
        exported |= set(module.__all__)
    assert exported == set(melds.__all__)
    # the v1 features keep their names for the distance search that moved into melds.distance
    assert features.hand_analysis is melds.hand_analysis
    assert features.contract_distance is melds.contract_distance


def _private_imports(path: Path) -> list[str]:
    """``from continental_env.melds... import _x`` and ``melds._x`` uses in one source file."""
    found = []
    tree = ast.parse(path.read_text(), str(path))
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith(
            "continental_env.melds"
        ):
            found += [f"{path}:{node.lineno} {a.name}" for a in node.names if a.name[0] == "_"]
        if (
            isinstance(node, ast.Attribute)
            and node.attr.startswith("_")
            and not node.attr.startswith("__")
            and isinstance(node.value, ast.Name)
            and node.value.id == "melds"
        ):
            found.append(f"{path}:{node.lineno} melds.{node.attr}")
    return found


def test_no_module_reaches_into_a_private_name_of_the_meld_package() -> None:
    sources = [
        p
        for folder in ("continental_env", "agents", "tests", "scripts", "continental_web")
        for p in (ROOT / folder).rglob("*.py")
    ]
    assert len(sources) > 50
    offenders = [hit for path in sources for hit in _private_imports(path)]
    assert not offenders, offenders


def test_the_private_import_check_sees_a_violation() -> None:
    """Positive control: the checker above flags both forms it looks for."""
    probe = PACKAGE.parent.parent / "tests" / "_melds_private_probe.py"
    probe.write_text(
        "from continental_env.melds.contract import _take_run\n"
        "from continental_env import melds\nmelds._secret\n"
    )
    try:
        assert len(_private_imports(probe)) == 2
    finally:
        probe.unlink()


def test_modules_stay_under_600_lines() -> None:
    sizes = {p.name: len(p.read_text().splitlines()) for p in PACKAGE.glob("*.py")}
    assert set(sizes) == {"__init__.py", *(f"{m}.py" for m in MODULES)}
    assert max(sizes.values()) <= 600, sizes


# ----------------------------------------------------------------------------- one unseen count


def _true_unseen(game: Game, seat: int) -> list[int]:
    """From the hidden state: the stock plus the other hands, less what those are known to hold."""
    state = game.state
    out = [0] * NUM_TYPES
    for c in state.stock:
        out[c] += 1
    for s, hand in enumerate(state.hands):
        if s != seat:
            for c in range(NUM_TYPES):
                out[c] += hand[c] - state.known[s][c]
    return out


def test_features_and_bots_count_unseen_cards_alike_and_truly() -> None:
    checked = 0
    for seed in range(3):
        game = Game.new("continental", 4, seed=seed)
        bots = [RandomAgent(seed * 4 + s) for s in range(4)]
        rng = random.Random(seed)
        while not game.is_over:
            seat = rng.randrange(4)
            view = PlayerView(game, seat)
            counted = features.unseen_counts(game, seat)
            assert counted == bot_unseen(view)
            assert counted == _true_unseen(game, seat)
            checked += 1
            game.apply(bots[game.actor].act(PlayerView(game, game.actor)))
    assert checked > 500


def test_count_unseen_subtracts_every_source_and_never_goes_below_zero() -> None:
    deck = deck_counts(PRESETS["continental"], 4, 1)
    hand = [0] * NUM_TYPES
    hand[0] = 2  # both aces of clubs in hand
    known = [[0] * NUM_TYPES for _ in range(4)]
    known[1][JOKER] = 1
    known[0][5] = 1  # the seat's own known cards are in its hand already
    table = [melds.Meld(2, melds.TRIO, [7, 20, JOKER], rank=7)]
    out = features.count_unseen(deck, hand, [0, 9], table, known, 0)
    assert out[0] == 0  # two in hand, one in the pile: clipped at 0
    assert out[9] == deck[9] - 1
    assert out[7] == deck[7] - 1 and out[20] == deck[20] - 1
    assert out[JOKER] == deck[JOKER] - 2  # one on the table, one known in seat 1's hand
    assert out[5] == deck[5]


# ----------------------------------------------------------------------------- the searches agree

hands = st.lists(st.integers(0, NUM_TYPES - 1), min_size=6, max_size=18)


@settings(max_examples=150, deadline=None)
@given(
    cards=hands,
    round_number=st.integers(1, len(CONTRACTS)),
    preset=st.sampled_from(sorted(PRESETS)),
    compiled=st.booleans(),
)
def test_the_contract_searches_agree_on_whether_the_contract_goes_down(
    cards: list[int], round_number: int, preset: str, compiled: bool
) -> None:
    """``has_contract`` (existence), ``ContractSearch`` (arrangement) and the distance search
    answer the question they share alike, with the kernels and with the references."""
    if compiled and kernels.compiled is None:
        compiled = False
    rules = PRESETS[preset]
    trios, runs = CONTRACTS[round_number - 1]
    counts = [0] * NUM_TYPES
    for c in cards:
        counts[c] += 1
    key = tuple(counts)
    was = kernels.active()
    kernels.use(compiled)
    try:
        exists = melds.contract_exists.__wrapped__
        laid = sum(key) >= 3 * trios + rules.min_run * runs + 1 and exists(
            key, trios, runs, rules.min_run, rules.ace_wraparound, True
        )
        arranged = melds.ContractSearch(key, trios, runs, rules).run(True)
        distance = melds.hand_analysis.__wrapped__(key, trios, runs, rules)[0]
        assert melds.has_contract(key, trios, runs, rules) == (distance == 0)
        assert (melds.best_arrangement.__wrapped__(key, trios, runs, rules, True) is not None) == (
            distance == 0
        )
        if not laid:
            assert distance > 0
        if arranged is None:  # no arrangement even with every card: none keeping one back
            assert distance > 0
    finally:
        kernels.use(was)
