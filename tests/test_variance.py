"""The control-variate estimator (``agents.evaluate.variance``, ``agents.contract.chance``): mean
zero at every chance node, unbiased on a toy game with a known answer, and its place in the
harness (report, checkpoint, resume, refusals)."""

from __future__ import annotations

import json
import math
import random
import statistics
from itertools import permutations
from pathlib import Path
from typing import Any

import pytest

from agents.contract.chance import (
    FEATURES,
    ROUNDS,
    ChanceRecorder,
    MlpValueModel,
    ValueModel,
    draw_features,
    load_model,
    stock_outcomes,
)
from agents.evaluate import harness as ev
from agents.evaluate.arguments import build_parser, evaluate_arguments
from agents.evaluate.variance import chance_correction
from continental_env.contract.actions import DISCARD_BASE, DRAW, LAYOFF_BASE, PASS
from continental_env.contract.game import Game
from continental_env.contract.state import Phase

# ----------------------------------------------------------------------------- a toy game

# Two players draw in turn from a shuffled six-card deck; each stops once its total reaches its
# own threshold (a known deterministic policy); a total over 15 scores 0. The quantity measured
# is player 0's score minus player 1's; every one of the 720 deck orders is equally likely, so
# the true mean is the mean over all of them.
DECK = (1, 2, 3, 5, 8, 13)
STOP = (9, 11)


def _score(total: int) -> int:
    return total if total <= 15 else 0


def _value(totals: list[int]) -> list[float]:
    """A fixed, crude value of each player's final score: the score if it stopped now."""
    return [float(_score(t)) for t in totals]


def _play(order: tuple[int, ...], correction: str) -> tuple[float, float]:
    """(score difference, the estimator's correction of it) for one deck order."""
    deck = list(order)
    totals = [0, 0]
    done = [False, False]
    corr = [0.0, 0.0]
    turn = 0
    while deck and not all(done):
        if not done[turn]:
            left = sorted(set(deck))
            outcomes = [(c, deck.count(c) / len(deck)) for c in left]
            card = deck.pop(0)

            def after(c: int, who: int = turn) -> list[float]:
                return _value([t + c if k == who else t for k, t in enumerate(totals)])

            if correction == "aivat":
                step = chance_correction(outcomes, card, after)
            else:  # the positive control: the value as the draw fell, its expectation kept
                step = after(card)
            corr = [a + b for a, b in zip(corr, step, strict=True)]
            totals[turn] += card
            done[turn] = totals[turn] >= STOP[turn]
        turn = 1 - turn
    return _score(totals[0]) - _score(totals[1]), corr[0] - corr[1]


def _estimates(correction: str) -> tuple[list[float], list[float]]:
    plain, reduced = [], []
    for order in permutations(DECK):
        y, c = _play(order, correction)
        plain.append(y)
        reduced.append(y - c)
    return plain, reduced


def test_the_reduced_estimator_is_unbiased_and_varies_less_on_a_known_answer() -> None:
    plain, reduced = _estimates("aivat")
    truth = statistics.fmean(plain)  # exact: the mean over every equally likely deck order
    assert math.isclose(statistics.fmean(reduced), truth, abs_tol=1e-9)
    assert statistics.pvariance(reduced) < 0.8 * statistics.pvariance(plain)


def test_a_correction_that_keeps_its_expectation_is_caught_as_biased() -> None:
    plain, biased = _estimates("biased")
    assert abs(statistics.fmean(biased) - statistics.fmean(plain)) > 1.0


def test_chance_correction_at_one_node_has_mean_zero_by_enumeration() -> None:
    outcomes = [("a", 0.5), ("b", 0.25), ("c", 0.25)]
    values = {"a": [3.0, -1.0], "b": [7.0, 2.0], "c": [-4.0, 0.5]}
    mean = [0.0, 0.0]
    for o, p in outcomes:
        corr = chance_correction(outcomes, o, values.__getitem__)
        mean = [m + p * x for m, x in zip(mean, corr, strict=True)]
    assert all(math.isclose(m, 0.0, abs_tol=1e-12) for m in mean)
    assert chance_correction(outcomes, "b", values.__getitem__) == [
        7.0 - 2.25,
        2.0 - (-0.5 + 0.5 + 0.125),
    ]


@pytest.mark.parametrize(
    ("outcomes", "actual", "match"),
    [
        ([("a", 0.5), ("b", 0.4)], "a", "sum to 1"),
        ([("a", 1.5), ("b", -0.5)], "a", ">= 0"),
        ([("a", 1.0), ("b", 0.0)], "b", "no probability"),
        ([("a", 1.0)], "z", "no probability"),
    ],
)
def test_chance_correction_refuses_bad_nodes(outcomes: list, actual: str, match: str) -> None:
    with pytest.raises(ValueError, match=match):
        chance_correction(outcomes, actual, lambda o: [0.0])


# ----------------------------------------------------------------------------- the contract game


def _at_a_draw(seed: int, draws: int) -> Game:
    """A game where seat in turn is about to draw from the stock, after ``draws`` such turns of
    a simple scripted play (draw, then discard the first card)."""
    game = Game.new("continental", 4, seed=seed)
    done = 0
    while True:
        if game.state.phase == Phase.DRAW:
            if done == draws:
                return game
            done += 1
        if game.state.phase == Phase.DRAW:
            game.apply(DRAW)
        elif game.state.phase == Phase.CLAIM:
            game.apply(PASS)
        else:  # never lay down: discard the lowest card type held
            game.apply(next(a for a in game.legal_actions() if DISCARD_BASE <= a < LAYOFF_BASE))


def _recorded(game: Game, card: int, model: ValueModel) -> list[float]:
    """The recorder's correction when the seat in turn draws ``card`` (moved to the stock's top
    of a copy of ``game``)."""
    copy = game.clone()
    stock = copy.state.stock
    stock.append(stock.pop(stock.index(card)))
    recorder = ChanceRecorder(copy, model)
    copy.apply(DRAW)
    while copy.state.phase == Phase.CLAIM:  # everyone passes: the draw then comes off the stock
        copy.apply(PASS)
    assert recorder.events == 1
    return recorder.corrections


def _mean_over_stock(game: Game, model: Any) -> tuple[list[float], int]:
    """Per seat, the recorded correction averaged over every card the stock holds (with its
    copies), and how many different corrections the drawer got."""
    outcomes = stock_outcomes(game)
    total = sum(n for _c, n in outcomes)
    mean = [0.0] * 4
    seen = set()
    for card, copies in outcomes:
        corr = _recorded(game, card, model)
        seen.add(round(corr[game.state.current], 6))
        mean = [m + copies / total * x for m, x in zip(mean, corr, strict=True)]
    return mean, len(seen)


@pytest.mark.parametrize(("seed", "draws"), [(3, 0), (11, 9), (29, 21)])
def test_the_draw_correction_has_mean_zero_over_the_stock(seed: int, draws: int) -> None:
    mean, seen = _mean_over_stock(_at_a_draw(seed, draws), load_model())
    assert all(math.isclose(m, 0.0, abs_tol=1e-9) for m in mean), mean
    assert seen > 1  # the value does tell cards apart: the test is not vacuous


def test_the_recorded_correction_is_the_value_as_drawn_minus_its_expectation() -> None:
    game = _at_a_draw(5, 4)
    model = load_model("aivat_value_v1.json")
    _receiver, feats = draw_features(game)
    rnd = game.state.round
    outcomes = stock_outcomes(game)

    def value(card: int) -> list[float]:
        return [model.value_of(rnd, f) for f in feats[card]]

    total = sum(n for _c, n in outcomes)
    node = [(c, n / total) for c, n in outcomes]
    card = outcomes[0][0]
    expected = chance_correction(node, card, value)
    got = _recorded(game, card, model)
    assert all(math.isclose(a, b, abs_tol=1e-9) for a, b in zip(got, expected, strict=True))


def test_a_reformed_stock_is_the_discard_pile_but_its_top_card() -> None:
    game = _at_a_draw(7, 2)
    s = game.state
    s.discard = [5, 5, 17, 52, 9]
    s.stock = []
    assert stock_outcomes(game) == [(5, 2), (17, 1), (52, 1)]
    s.discard = [9]
    assert stock_outcomes(game) == []


def test_the_value_model_file_is_checked() -> None:
    good = {"name": "m", "features": list(FEATURES), "weights": {"1": [0.0] * len(FEATURES)}}
    assert ValueModel.from_dict(good, "m.json").weights[1] == tuple([0.0] * len(FEATURES))
    with pytest.raises(ValueError, match=r"m\.json: its features"):
        ValueModel.from_dict({**good, "features": ["pts"]}, "m.json")
    with pytest.raises(ValueError, match="weights of round '1'"):
        ValueModel.from_dict({**good, "weights": {"1": [math.inf] * len(FEATURES)}}, "m.json")
    with pytest.raises(ValueError, match="not a value model"):
        ValueModel.from_dict([], "m.json")
    for row in ([10**400] * len(FEATURES), ["1"] * len(FEATURES), [True] * len(FEATURES)):
        with pytest.raises(ValueError, match="weights of round '1'"):
            ValueModel.from_dict({**good, "weights": {"1": row}}, "m.json")
    with pytest.raises(ValueError, match="weights of round"):
        ValueModel.from_dict({**good, "weights": {"\u00b2": [0.0] * len(FEATURES)}}, "m.json")


def _network(seed: int, hidden: int = 6, scale: float = 1.5) -> MlpValueModel:
    """A network value with random weights (and a random linear term)."""
    rng = random.Random(seed)
    n = len(FEATURES)

    def mat(rows: int, cols: int) -> list[list[float]]:
        return [[rng.gauss(0, 0.5) for _ in range(cols)] for _ in range(rows)]

    model = MlpValueModel.network_only(
        "net",
        {
            "mean": [rng.uniform(0, 2) for _ in range(n)],
            "scale": [rng.uniform(0.5, 3) for _ in range(n)],
            "layers": [
                {"w": mat(n + ROUNDS, hidden), "b": [rng.gauss(0, 1) for _ in range(hidden)]},
                {"w": mat(hidden, 1), "b": [0.3]},
            ],
        },
    )
    return model.with_mix([rng.gauss(0, 0.2) for _ in range(n)], scale)


def _reference_value(model: MlpValueModel, rnd: int, row: list[float]) -> float:
    """The network value of one row, written out with plain loops."""
    h = [(x - m) / s for x, m, s in zip(row, model.mean, model.spread, strict=True)]
    h += [1.0 if r == rnd - 1 else 0.0 for r in range(ROUNDS)]
    for i, (w, b) in enumerate(model.layers):
        cols = range(w.shape[1])
        h = [math.fsum(h[j] * float(w[j][c]) for j in range(len(h))) + float(b[c]) for c in cols]
        if i < len(model.layers) - 1:
            h = [max(v, 0.0) for v in h]
    return model.scale * h[0] + math.fsum(a * b for a, b in zip(model.linear, row, strict=True))


@pytest.mark.parametrize(("seed", "draws"), [(3, 0), (29, 21)])
def test_a_network_value_keeps_the_mean_of_zero_over_the_stock(seed: int, draws: int) -> None:
    mean, seen = _mean_over_stock(_at_a_draw(seed, draws), _network(seed))
    assert all(math.isclose(m, 0.0, abs_tol=1e-9) for m in mean), mean
    assert seen > 1


class _Unweighted(MlpValueModel):
    """A control: the expectation taken as if every distinct outcome were equally likely."""

    def draw_corrections(self, round_number, variants, copies, actual):  # type: ignore[no-untyped-def]
        return super().draw_corrections(round_number, variants, [1] * len(copies), actual)


def test_the_mean_zero_check_catches_an_expectation_with_wrong_weights() -> None:
    game = _at_a_draw(3, 0)
    base = _network(3)
    control = _Unweighted(**{f: getattr(base, f) for f in base.__dataclass_fields__})
    mean, _seen = _mean_over_stock(game, control)
    assert max(abs(m) for m in mean) > 1e-3, mean


def test_a_network_correction_is_its_value_as_drawn_minus_its_expectation() -> None:
    game = _at_a_draw(5, 4)
    model = _network(5)
    _receiver, feats = draw_features(game)
    rnd = game.state.round
    outcomes = stock_outcomes(game)

    def value(card: int) -> list[float]:
        return [_reference_value(model, rnd, f) for f in feats[card]]

    total = sum(n for _c, n in outcomes)
    node = [(c, n / total) for c, n in outcomes]
    for card in (outcomes[0][0], outcomes[-1][0]):
        expected = chance_correction(node, card, value)
        got = _recorded(game, card, model)
        assert all(math.isclose(a, b, abs_tol=1e-7) for a, b in zip(got, expected, strict=True))


def test_a_network_of_scale_zero_is_its_linear_term() -> None:
    game = _at_a_draw(11, 9)
    linear = load_model("aivat_value_v1.json")
    assert isinstance(linear, ValueModel)
    rnd = game.state.round
    net = _network(11).with_mix(linear.weights[rnd], 0.0)
    card = stock_outcomes(game)[2][0]
    got, want = _recorded(game, card, net), _recorded(game, card, linear)
    assert all(math.isclose(a, b, abs_tol=1e-7) for a, b in zip(got, want, strict=True))


def test_the_network_model_file_is_checked() -> None:
    good = _network(1).to_dict()
    again = MlpValueModel.from_dict(json.loads(json.dumps(good)), "v.json")
    assert again.label == _network(1).label
    bad_layer = {**good, "layers": [good["layers"][1]]}
    with pytest.raises(ValueError, match=r"v\.json: a layer's shape"):
        MlpValueModel.from_dict(bad_layer, "v.json")
    with pytest.raises(ValueError, match="finite"):
        MlpValueModel.from_dict({**good, "scale": math.nan}, "v.json")
    with pytest.raises(ValueError, match="spread > 0"):
        MlpValueModel.from_dict({**good, "spread": [0.0] * len(FEATURES)}, "v.json")
    with pytest.raises(ValueError, match="not a network value model"):
        MlpValueModel.from_dict({k: v for k, v in good.items() if k != "linear"}, "v.json")
    with pytest.raises(ValueError, match="rounds"):
        MlpValueModel.from_dict({**good, "rounds": 3}, "v.json")
    with pytest.raises(ValueError, match=r"v\.json: not a network value model"):
        MlpValueModel.from_dict([], "v.json")
    for bad in ({"scale": "1.5"}, {"scale": True}, {"mean": ["0"] * len(FEATURES)},
                {"scale": 10**400}):  # fmt: skip
        with pytest.raises(ValueError, match=r"v\.json: not a network value model"):
            MlpValueModel.from_dict({**good, **bad}, "v.json")


# ----------------------------------------------------------------------------- the harness

KW = dict(players=3, games=3, seed=8, rounds=[1, 2])


def _strip(report: dict) -> dict:
    return {k: v for k, v in report.items() if k != "timing"}


def test_the_report_gives_the_reduced_figure_beside_the_plain_one() -> None:
    plain = ev.evaluate(["greedy", "random"], **KW)
    report = ev.evaluate(["greedy", "random"], **KW, variance="aivat")
    assert "variance" not in plain and "variance" not in plain["config"]
    # The games are the same: the estimator only watches them.
    assert report["paired"] == plain["paired"] and report["agents"] == plain["agents"]
    v = report["variance"]
    assert v["estimator"] == "aivat" and v["decides"] == "plain"
    assert v["models"] == [load_model().label] and v["models"][0].startswith("aivat_value_v1:")
    assert v["chance_events"] > 0 and report["config"]["variance"] == "aivat"
    row = v["paired"]["random"]
    assert row["plain_ci95"] == plain["paired"]["random"]["ci95"]
    assert math.isclose(row["mean_diff"], row["plain_mean_diff"] - row["mean_correction"])
    lo, hi = row["ci95"]
    plo, phi = row["plain_ci95"]
    assert math.isclose(row["width_ratio"], (hi - lo) / (phi - plo))
    text = ev.format_report(report)
    assert "the plain figure above decides" in text and "width ratio" in text


def test_resume_keeps_the_corrections(tmp_path: Path) -> None:
    whole = ev.evaluate(["greedy", "random"], **KW, variance="aivat")
    path = tmp_path / "run.ckpt"
    ev.evaluate(["greedy", "random"], **{**KW, "games": 2}, checkpoint=str(path), variance="aivat")
    deal = json.loads(path.read_text().splitlines()[1])
    assert len(deal["games"][0]["aivat"]["corrections"]) == 3  # stored as data, per seat
    resumed = ev.evaluate(
        ["greedy", "random"], **KW, checkpoint=str(path), resume=True, variance="aivat"
    )
    assert resumed["timing"]["resumed_deals"] == 2
    assert _strip(resumed) == _strip(whole)
    # A checkpoint with corrections still resumes a plain run.
    plain = ev.evaluate(["greedy", "random"], **KW, checkpoint=str(path), resume=True)
    assert "variance" not in plain and plain["paired"] == whole["paired"]


def test_resume_with_the_estimator_refuses_deals_without_corrections(tmp_path: Path) -> None:
    path = tmp_path / "plain.ckpt"
    ev.evaluate(["greedy", "random"], **{**KW, "games": 2}, checkpoint=str(path))
    before = path.read_text()
    with pytest.raises(ValueError, match=r"deal 0 was played without --variance"):
        ev.evaluate(["greedy", "random"], **KW, checkpoint=str(path), resume=True, variance="aivat")
    assert path.read_text() == before


def test_resume_refuses_corrections_of_another_value_model(tmp_path: Path) -> None:
    path = tmp_path / "run.ckpt"
    ev.evaluate(["greedy", "random"], **{**KW, "games": 2}, checkpoint=str(path), variance="aivat")
    lines = path.read_text().splitlines()
    deal = json.loads(lines[1])
    for g in deal["games"]:
        g["aivat"]["model"] = "aivat_value_v1:000000000000"  # the same name, other weights
    path.write_text("\n".join([lines[0], json.dumps(deal), *lines[2:]]) + "\n")
    with pytest.raises(
        ValueError, match="deal 0's corrections come from value model aivat_value_v1:0000"
    ):
        ev.evaluate(["greedy", "random"], **KW, checkpoint=str(path), resume=True, variance="aivat")


def test_resume_refuses_malformed_corrections(tmp_path: Path) -> None:
    path = tmp_path / "run.ckpt"
    ev.evaluate(["greedy", "random"], **{**KW, "games": 2}, checkpoint=str(path), variance="aivat")
    lines = path.read_text().splitlines()
    deal = json.loads(lines[2])
    deal["games"][1]["aivat"]["corrections"] = [1.0, "x", 2.0]
    path.write_text("\n".join([*lines[:2], json.dumps(deal)]) + "\n")
    with pytest.raises(ValueError, match="deal 1's game 1: its corrections"):
        ev.evaluate(["greedy", "random"], **KW, checkpoint=str(path), resume=True, variance="aivat")


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        (dict(variance="aivt"), "unknown estimator; choose one of aivat"),
        (dict(variance="aivat", game="fifteen", rounds=None), "fifteen game has no chance model"),
    ],
)
def test_bad_estimators_are_refused_before_any_game(kwargs: dict, match: str) -> None:
    with pytest.raises(ValueError, match=match):
        ev.evaluate(["greedy", "random"], **{**KW, **kwargs})


def test_an_oracle_is_refused_with_the_estimator() -> None:
    with pytest.raises(ValueError, match="reads the hidden state, so the stock's order"):
        ev.evaluate(["search-oracle", "greedy"], **KW, allow_oracle=True, variance="aivat")


def test_the_command_line_names_the_estimator() -> None:
    parser = build_parser()
    args = parser.parse_args(["--agents", "greedy,random", "--variance", "aivat"])
    assert evaluate_arguments(args)["variance"] == "aivat"
    assert evaluate_arguments(parser.parse_args(["--agents", "greedy,random"]))["variance"] is None
    with pytest.raises(SystemExit):
        parser.parse_args(["--agents", "greedy,random", "--variance", "cv"])


def test_the_mixed_table_gets_its_reduced_figure_too() -> None:
    report = ev.evaluate(
        ["greedy", "random"], players=3, games=2, seed=4, rounds=[1], mixed=["random"],
        variance="aivat",
    )  # fmt: skip
    mixed = report["mixed"]["variance"]
    assert mixed["decides"] == "plain" and set(mixed["paired"]) == {"random"}
