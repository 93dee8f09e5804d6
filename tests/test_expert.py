"""Expert iteration's labels (``agents.train.expert``) and cloning from them near a model
(``imitation.clone`` with ``init`` and ``searched_weight``), on one-round deals at 3 seats."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("sb3_contrib")
pytest.importorskip("torch")

from agents.contract.feature_agent import feature_observation
from agents.train import expert, imitation
from continental_env.contract.game import Game
from continental_env.rules import resolve_rules

# a cheap search: it still searches (and sometimes leaves strong's move) at two worlds
TEACHER = "search-v2:min_worlds=2:max_worlds=2:screen=1"
SETTINGS = {"seed": 7, "players": 3, "teacher": TEACHER, "table": "strong@v1", "rounds": [1]}


def replay_to_teacher(deal: int, table: str, teacher_may_act: bool = True) -> Game:
    """Deal ``deal`` of SETTINGS (3 seats, round 1, the teacher at seat 1 when ``deal % 3 == 1``)
    played by ``table`` at seats 0 and 2 until seat 1's first choice of two or more actions;
    ``teacher_may_act=False``: asserting seat 1 does not act before it."""
    from agents import make_agent
    from agents.contract.view import PlayerView

    game_seed = expert._deal_seed(7, deal)
    game = Game.new(resolve_rules("continental").with_rounds((1,)), 3, seed=game_seed)
    bots = {s: make_agent(table, seed=game_seed % 2**31 + s) for s in (0, 2)}
    while game.actor != 1 or len(game.legal_actions()) < 2:
        assert teacher_may_act or game.actor != 1, "the teacher acted before its first choice"
        game.apply(bots[game.actor].act(PlayerView(game, game.actor)))
    return game


@pytest.fixture(scope="module")
def labels(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("labels") / "run"
    expert.label(str(out), deals=3, progress=False, **SETTINGS)
    return out


def test_labels_are_the_teachers_decisions_at_its_rotating_seat(labels: Path) -> None:
    files = sorted(labels.glob("deal-*.npz"))
    assert [f.name for f in files] == ["deal-000000.npz", "deal-000001.npz", "deal-000002.npz"]
    searched = 0
    for deal, f in enumerate(files):
        with np.load(f) as part:
            assert int(part["seat"]) == deal % 3
            n = len(part["actions"])
            assert n > 5
            assert len(part["obs"]) == len(part["values"]) == len(part["searched"]) == n
            flat, sizes = part["legal_flat"], part["legal_sizes"]
            starts = np.concatenate([[0], np.cumsum(sizes)])
            for i in range(n):
                legal = flat[starts[i] : starts[i + 1]]
                assert len(legal) >= 2 and part["actions"][i] in legal
            assert not (part["deviated"] & ~part["searched"]).any()  # a deviation was searched
            searched += int(part["searched"].sum())
    assert searched > 0


def test_the_first_observation_is_the_seats_public_vector(labels: Path) -> None:
    # Replaying deal 1 with the same seeds reaches the teacher's first choice through the table's
    # moves alone when the teacher does not act first; its logged vector is the seat's own
    # feature observation (public information and its own hand only).
    with np.load(labels / "deal-000001.npz") as part:
        first = part["obs"][0]
    game = replay_to_teacher(1, "strong@v1", teacher_may_act=False)
    mine = feature_observation(game, 1).astype(np.float16)
    assert np.array_equal(first, mine)
    assert not np.array_equal(first, feature_observation(game, 2).astype(np.float16))


def test_a_pool_of_tables_takes_the_deals_in_turns(tmp_path: Path) -> None:
    # "strong@v1,greedy" at 3 seats: deals 0-2 at a strong@v1 table, 3-5 at a greedy one. Deal 4
    # (teacher at seat 1) replayed with greedy at seats 0 and 2 reaches the logged first state.
    assert [expert.table_for_deal("a,b", d, 3) for d in range(7)] == list("aaabbba")
    out = tmp_path / "pool"
    expert.label(str(out), deals=5, progress=False, **{**SETTINGS, "table": "strong@v1,greedy"})
    assert json.loads((out / "manifest.json").read_text())["table"] == "strong@v1,greedy"
    with np.load(out / "deal-000004.npz") as part:
        first = part["obs"][0]
    game = replay_to_teacher(4, "greedy")
    assert np.array_equal(first, feature_observation(game, 1).astype(np.float16))
    with pytest.raises(ValueError, match="table=','"):
        expert.label(str(tmp_path / "none"), deals=1, progress=False, **{**SETTINGS, "table": ","})


def test_resume_skips_labelled_deals_and_refuses_other_settings(
    labels: Path, tmp_path: Path
) -> None:
    labels = Path(shutil.copytree(labels, tmp_path / "run"))  # the fixture stays at 3 deals
    (labels / ".deal-000009.123.tmp.npz").write_bytes(b"a save cut short")
    before = {f.name: f.stat().st_mtime_ns for f in labels.glob("deal-*.npz")}
    summary = expert.label(str(labels), deals=4, progress=False, **SETTINGS)
    assert summary["labelled_now"] == 1
    after = {f.name: f.stat().st_mtime_ns for f in labels.glob("deal-*.npz")}
    assert {k: after[k] for k in before} == before and "deal-000003.npz" in after
    with pytest.raises(ValueError, match=r"other settings.*teacher"):
        expert.label(str(labels), deals=4, progress=False, **{**SETTINGS, "teacher": "strong"})
    with pytest.raises(ValueError, match="jobs=0"):
        expert.label(str(labels), deals=4, jobs=0, progress=False, **SETTINGS)
    with pytest.raises(ValueError, match=r"unknown|agent"):
        expert.label(str(labels), deals=4, progress=False, **{**SETTINGS, "table": "nobody"})
    with pytest.raises(ValueError, match="hidden state"):
        expert.label(str(labels), deals=4, progress=False,
                     **{**SETTINGS, "teacher": "search-oracle-v2"})  # fmt: skip
    # the merge reads the complete deal files only
    assert expert.merge(str(labels), str(tmp_path / "m.npz"))["deals"] == 4
    # --deals N: the first N deals only, and all of them or a refusal naming the first missing
    assert expert.merge(str(labels), str(tmp_path / "m2.npz"), deals=2)["deals"] == 2
    with np.load(tmp_path / "m2.npz") as merged:
        assert sorted(set(merged["deal"].tolist())) == [0, 1]
    with pytest.raises(ValueError, match=r"lacks 1 of deals 0 to 4 \(first missing: 4\)"):
        expert.merge(str(labels), str(tmp_path / "m3.npz"), deals=5)
    assert not (tmp_path / "m3.npz").exists()


def test_merge_then_clone_from_a_model_weighing_searched_decisions(
    labels: Path, tmp_path: Path
) -> None:
    data = tmp_path / "labels.npz"
    summary = expert.merge(str(labels), str(data))
    loaded = imitation.load_dataset(str(data))
    assert summary["decisions"] == len(loaded["actions"]) == len(loaded["searched"])
    assert loaded["meta"]["teacher"] == TEACHER and loaded["meta"]["players"] == 3
    assert sorted(set(loaded["deal"].tolist())) == [0, 1, 2]
    first = imitation.clone(str(data), str(tmp_path / "a.zip"), epochs=1, net_arch=(32,),
                            holdout=0.3)  # fmt: skip
    report = imitation.clone(str(data), str(tmp_path / "b.zip"), epochs=1, net_arch=(32,),
                             holdout=0.3, init=str(tmp_path / "a.zip"), searched_weight=4.0,
                             seed=2)  # fmt: skip
    kinds = report["heldout_by_kind"]
    assert kinds["all"]["n"] == report["decisions"]["heldout"]
    assert report["init_heldout_by_kind"]["all"]["n"] == kinds["all"]["n"]
    # the init's held-out agreement is the first clone's own: its weights were loaded
    assert report["init_heldout_by_kind"]["all"] == pytest.approx(first["heldout_by_kind"]["all"])
    # Anchoring: the unsearched decisions take the init model's own move, the searched keep
    # the teacher's; the init then agrees with every unsearched label (before: not all).
    import torch
    from sb3_contrib import MaskablePPO

    policy = MaskablePPO.load(str(tmp_path / "a.zip"), device="cpu").policy
    obs = torch.as_tensor(loaded["obs"].astype(np.float32))
    n = policy.action_net.out_features
    unsearched = np.flatnonzero(~loaded["searched"])
    teacher = loaded["actions"].copy()
    before = imitation.accuracy(policy, obs, torch.as_tensor(teacher), loaded, unsearched, n)
    assert before["accuracy"] < 1.0
    counts = imitation._anchor_labels(policy, obs, loaded, n)
    assert counts["unsearched"] == len(unsearched) and counts["changed"] > 0
    assert np.array_equal(loaded["actions"][loaded["searched"]], teacher[loaded["searched"]])
    after = imitation.accuracy(policy, obs, torch.as_tensor(loaded["actions"]), loaded,
                               unsearched, n)  # fmt: skip
    assert after["accuracy"] == 1.0
    anchored = imitation.clone(str(data), str(tmp_path / "d.zip"), epochs=1, net_arch=(32,),
                               holdout=0.3, init=str(tmp_path / "a.zip"),
                               anchor_unsearched=True)  # fmt: skip
    assert anchored["anchored"] == counts
    with pytest.raises(ValueError, match="anchor_unsearched: needs init"):
        imitation.clone(str(data), str(tmp_path / "c.zip"), epochs=1, net_arch=(32,),
                        holdout=0.3, anchor_unsearched=True)  # fmt: skip
    with pytest.raises(ValueError, match=r"init=.*no such file"):
        imitation.clone(str(data), str(tmp_path / "c.zip"), epochs=1, net_arch=(32,),
                        holdout=0.3, init=str(tmp_path / "missing.zip"))  # fmt: skip
    with pytest.raises(ValueError, match="net-arch"):
        imitation.clone(str(data), str(tmp_path / "c.zip"), epochs=1, net_arch=(16,),
                        holdout=0.3, init=str(tmp_path / "a.zip"))  # fmt: skip
    one = tmp_path / "one"
    one.mkdir()
    for name in ("manifest.json", "deal-000000.npz"):
        shutil.copy(labels / name, one / name)
    expert.merge(str(one), str(tmp_path / "one.npz"))
    with pytest.raises(ValueError, match=r"1 deal.*cannot be split"):
        imitation.clone(str(tmp_path / "one.npz"), str(tmp_path / "c.zip"), epochs=1,
                        net_arch=(32,), holdout=0.3)  # fmt: skip
    with pytest.raises(ValueError, match="searched_weight=0"):
        imitation.clone(str(data), str(tmp_path / "c.zip"), epochs=1, net_arch=(32,),
                        holdout=0.3, searched_weight=0)  # fmt: skip
    assert json.loads((labels / "manifest.json").read_text())["rounds"] == [1]


def test_the_shipped_network_starts_a_clone_of_a_four_seat_dataset(tmp_path: Path) -> None:
    # The shipped model (written by an earlier package version) loads as --init; before any
    # step it already agrees with strong@v1 on most held-out decisions, as it was cloned from it.
    shipped = Path(__file__).resolve().parents[1] / "agents/models/ppo_continental_4p.zip"
    labels = tmp_path / "labels"
    expert.label(str(labels), deals=3, seed=3, players=4, teacher="strong@v1",
                 table="strong@v1", rounds=[1], progress=False)  # fmt: skip
    data = tmp_path / "labels.npz"
    summary = expert.merge(str(labels), str(data))
    assert summary["searched"] == summary["deviated"] == 0  # strong searches nothing
    report = imitation.clone(str(data), str(tmp_path / "ft.zip"), epochs=1, lr=1e-5,
                             holdout=0.4, init=str(shipped))  # fmt: skip
    assert report["init_heldout_by_kind"]["all"]["accuracy"] > 0.7
    with pytest.raises(ValueError, match="net-arch"):
        imitation.clone(str(data), str(tmp_path / "x.zip"), epochs=1, net_arch=(32,),
                        holdout=0.4, init=str(shipped))  # fmt: skip


def test_a_self_play_policy_file_starts_a_clone_with_its_actor() -> None:
    # The shipped self-play network (a numpy policy: actor only) loads into the clone's actor:
    # the same logits as the file's own policy on real positions; the value network stays fresh.
    import torch

    from agents.bots.ppo_agent import NumpyPolicy

    path = str(Path(__file__).resolve().parents[1] / "agents/models/selfplay4_continental_4p.npz")
    source = NumpyPolicy.load_npz(path)
    game = Game.new(resolve_rules("continental"), 4, seed=11)
    obs = np.stack([feature_observation(game, s) for s in range(4)]).astype(np.float32)
    model = imitation.build_model(4, "continental", True, (256, 256), seed=1)

    def logits() -> np.ndarray:
        policy = model.policy
        with torch.no_grad():
            latent = policy.mlp_extractor.forward_actor(torch.as_tensor(obs))
            return policy.action_net(latent).numpy()

    want = np.stack([source.logits(x) for x in obs])
    assert not np.allclose(logits(), want, atol=1e-3)  # control: a fresh network differs
    value_before = {k: v.clone() for k, v in model.policy.value_net.state_dict().items()}
    imitation._load_init(model, path, 4, "continental", True, ())
    assert np.allclose(logits(), want, atol=1e-4)
    after = model.policy.value_net.state_dict()
    assert all(torch.equal(value_before[k], after[k]) for k in after)
    with pytest.raises(ValueError, match=r"init=.*--net-arch"):
        imitation._load_init(imitation.build_model(4, "continental", True, (32,), seed=1),
                             path, 4, "continental", True, ())  # fmt: skip
    with pytest.raises(ValueError, match=r"init=.*not continental_v1 at 3 players"):
        imitation._load_init(model, path, 3, "continental", True, ())


def test_a_driver_plays_the_seat_and_the_teacher_labels_its_states(tmp_path: Path) -> None:
    # DAgger: random plays the labelled seat; the logged states are its game (replayed here
    # move for move) and the labels are the teacher's, which differ from its moves.
    from agents import make_agent
    from agents.contract.view import PlayerView

    out = tmp_path / "dagger"
    expert.label(str(out), deals=1, driver="random", progress=False, **SETTINGS)
    assert json.loads((out / "manifest.json").read_text())["driver"] == "random"
    with np.load(out / "deal-000000.npz") as part:
        obs, labels = part["obs"], part["actions"]
    game_seed = expert._deal_seed(7, 0)
    game = Game.new(resolve_rules("continental").with_rounds((1,)), 3, seed=game_seed)
    bots = [make_agent("strong@v1", seed=game_seed % 2**31 + s) for s in range(3)]
    bots[0] = make_agent("random", seed=game_seed % 2**31 + 3)
    seen, played = [], []
    while not game.is_over:
        seat, choices = game.actor, game.legal_actions()
        if seat == 0 and len(choices) == 1:
            game.apply(choices[0])  # a forced move: label_deal asks nobody's generator
        elif seat == 0:
            seen.append(feature_observation(game, 0).astype(np.float16))
            played.append(bots[0].act(PlayerView(game, 0)))
            game.apply(played[-1])
        else:
            game.apply(bots[seat].act(PlayerView(game, seat)))
    assert len(seen) == len(obs) and all(
        np.array_equal(a, b) for a, b in zip(seen, obs, strict=True)
    )
    assert list(labels) != played
    with pytest.raises(ValueError, match=r"other settings.*driver"):
        expert.label(str(out), deals=1, progress=False, **SETTINGS)


def test_clone_step_weights_are_a_weighted_mean_of_the_log_likelihoods() -> None:
    import torch

    from agents.train.cloning import clone_step

    class Fixed:  # a policy whose log-probabilities are given
        def __init__(self) -> None:
            self.w = torch.nn.Parameter(torch.zeros(1))

        def evaluate_actions(self, obs, actions, masks):  # type: ignore[no-untyped-def]
            log_prob = torch.log(torch.tensor([0.5, 0.25, 0.125])) + self.w
            return torch.zeros(3), log_prob, torch.ones(3)

        def parameters(self):  # type: ignore[no-untyped-def]
            return [self.w]

    def loss(weights: torch.Tensor | None) -> float:
        policy = Fixed()
        opt = torch.optim.SGD(policy.parameters(), lr=0.0)
        out = clone_step(policy, opt, None, None, torch.zeros(3), None, vf_coef=0.0,
                         max_grad_norm=1.0, weights=weights)  # fmt: skip
        return float(out["policy_loss"].detach())

    plain = loss(None)
    assert loss(torch.ones(3)) == pytest.approx(plain)
    assert plain == pytest.approx(-np.log([0.5, 0.25, 0.125]).mean())
    # weight 0 drops a decision; weight 3 counts one three times
    assert loss(torch.tensor([1.0, 0.0, 0.0])) == pytest.approx(-np.log(0.5))
    assert loss(torch.tensor([3.0, 1.0, 0.0])) == pytest.approx(
        -(3 * np.log(0.5) + np.log(0.25)) / 4
    )
    with pytest.raises(ValueError, match="shape"):
        loss(torch.ones(3, 1))


def test_observe_own_gives_the_search_the_lay_down_turn_really_played() -> None:
    # A driver's lay-down reaches the teacher's worlds; one the teacher proposed but that was not
    # played is overwritten by the next one played.
    from agents import make_agent
    from agents.contract.view import PlayerView
    from continental_env.contract.game import LAYDOWN

    game = Game.new(resolve_rules("continental").with_rounds((1,)), 3, seed=11)
    teacher = make_agent(TEACHER, seed=1)
    view = PlayerView(game, game.actor)
    teacher.observe_own(view, LAYDOWN)
    assert teacher._laid == (view.round, view.turn, view.seat)
    teacher.observe_own(view, view.legal_actions[0] if view.legal_actions[0] != LAYDOWN else -1)
    assert teacher._laid == (view.round, view.turn, view.seat)  # other moves leave it


def test_labels_carry_the_searched_candidates_and_their_mean_outcomes(
    labels: Path, tmp_path: Path
) -> None:
    deviations = 0
    for f in sorted(labels.glob("deal-*.npz")):
        with np.load(f) as part:
            sizes, flat, values = part["cand_sizes"], part["cand_flat"], part["cand_values"]
            assert len(sizes) == len(part["actions"]) == len(part["cand_worlds"])
            assert ((sizes > 0) == part["searched"]).all()  # soft targets where it searched
            assert ((part["cand_worlds"] > 0) == part["searched"]).all()
            starts = np.concatenate([[0], np.cumsum(sizes)])
            assert starts[-1] == len(flat) == len(values)
            for i in np.flatnonzero(part["searched"]):
                cands = flat[starts[i] : starts[i + 1]].tolist()
                means = values[starts[i] : starts[i + 1]]
                action = int(part["actions"][i])
                assert action in cands and len(cands) >= 2
                if part["deviated"][i]:  # the search left strong's move for a better mean
                    deviations += 1
                    assert cands[0] != action and means[cands.index(action)] < means[0]
                else:
                    assert cands[0] == action
    assert deviations > 0  # positive control: the branch above ran
    # A deal labelled before the soft targets were kept merges as searched without candidates.
    old = tmp_path / "old"
    shutil.copytree(labels, old)
    with np.load(old / "deal-000001.npz") as part:
        kept = {k: part[k] for k in part.files if not k.startswith("cand_")}
    np.savez_compressed(old / "deal-000001.npz", **kept)
    merged = {}
    for name, directory in (("new", labels), ("old", old)):
        expert.merge(str(directory), str(tmp_path / f"{name}.npz"))
        merged[name] = imitation.load_dataset(str(tmp_path / f"{name}.npz"))
    new, before = merged["new"], merged["old"]
    sizes_new, sizes_old = np.diff(new["cand_offsets"]), np.diff(before["cand_offsets"])
    in_deal_1 = new["deal"] == 1
    assert (sizes_old[in_deal_1] == 0).all() and sizes_new[in_deal_1].sum() > 0
    assert (sizes_old[~in_deal_1] == sizes_new[~in_deal_1]).all()
    assert new["cand_offsets"][-1] == len(new["cand_flat"]) == len(new["cand_values"])


def test_soft_targets_spread_a_share_over_the_candidates_by_their_outcomes() -> None:
    from agents.train.cloning import soft_targets

    ids, probs = soft_targets(np.array([7, 3]), [np.array([3, 9, 4]), np.array([])],
                              [np.array([1.0, 1.0 + 5 * np.log(2), 1.0]), np.array([])],
                              weight=0.5, temperature=5.0)  # fmt: skip
    assert ids.shape == probs.shape == (2, 4)
    assert ids[0].tolist() == [7, 3, 9, 4] and ids[1, 0] == 3
    # exp(-0), exp(-log 2), exp(-0) -> 2/5, 1/5, 2/5 of the half
    assert probs[0].tolist() == pytest.approx([0.5, 0.2, 0.1, 0.2])
    assert probs[1].tolist() == pytest.approx([1.0, 0.0, 0.0, 0.0])  # not searched: hard
    assert probs.sum(1) == pytest.approx([1.0, 1.0])


def test_a_clone_with_soft_targets_moves_probability_to_the_better_candidates(
    labels: Path, tmp_path: Path
) -> None:
    import torch

    from agents.train.cloning import clone_step, soft_targets

    data = tmp_path / "labels.npz"
    expert.merge(str(labels), str(data))
    loaded = imitation.load_dataset(str(data))
    # With weight 0 the soft loss is the hard one, on a real policy: same log-likelihoods.
    model = imitation.build_model(3, "continental", True, (32,), seed=0)
    policy = model.policy
    idx = np.arange(40)
    obs = torch.as_tensor(loaded["obs"][idx].astype(np.float32))
    actions = torch.as_tensor(loaded["actions"][idx])
    masks = imitation.masks_for(loaded, idx, model.action_space.n)
    spans = [slice(loaded["cand_offsets"][i], loaded["cand_offsets"][i + 1]) for i in idx]
    cands = [loaded["cand_flat"][s] for s in spans]
    means = [loaded["cand_values"][s] for s in spans]
    frozen = torch.optim.SGD(policy.parameters(), lr=0.0)
    outs = []
    for weight in (None, 0.0, 0.8):
        targets = None
        if weight is not None:
            ids, probs = soft_targets(loaded["actions"][idx], cands, means, weight, 5.0)
            targets = (torch.as_tensor(ids), torch.as_tensor(probs))
        outs.append(clone_step(policy, frozen, obs, actions, torch.zeros(40), masks,
                               vf_coef=0.0, max_grad_norm=1.0, targets=targets))  # fmt: skip
    assert torch.allclose(outs[0]["log_prob"], outs[1]["log_prob"], atol=1e-5)
    searched = torch.as_tensor(np.diff(loaded["cand_offsets"])[idx] > 0)
    assert searched.any()  # positive control: where a decision was searched, the loss differs
    assert not torch.allclose(outs[0]["log_prob"][searched], outs[2]["log_prob"][searched])
    assert torch.allclose(outs[0]["log_prob"][~searched], outs[2]["log_prob"][~searched])
    report = imitation.clone(str(data), str(tmp_path / "soft.zip"), epochs=1, net_arch=(32,),
                             holdout=0.3, soft_weight=0.5, soft_temperature=5.0)  # fmt: skip
    assert report["soft_weight"] == 0.5 and (tmp_path / "soft.zip").is_file()
    for bad, match in (({"soft_weight": 1.5}, "soft_weight"),
                       ({"soft_weight": 0.5, "soft_temperature": 0.0}, "soft_temperature")):  # fmt: skip
        with pytest.raises(ValueError, match=match):
            imitation.clone(str(data), str(tmp_path / "x.zip"), epochs=1, net_arch=(32,),
                            holdout=0.3, **bad)  # fmt: skip


def test_merge_keeps_every_searched_decision_and_a_share_of_the_others(
    labels: Path, tmp_path: Path
) -> None:
    expert.merge(str(labels), str(tmp_path / "all.npz"))
    whole = imitation.load_dataset(str(tmp_path / "all.npz"))
    summary = expert.merge(str(labels), str(tmp_path / "part.npz"), unsearched_share=0.4)
    part = imitation.load_dataset(str(tmp_path / "part.npz"))
    assert part["meta"]["unsearched_share"] == 0.4 and summary["decisions"] == len(part["actions"])
    # every searched decision is kept, with its candidates; some unsearched ones are dropped
    assert part["searched"].sum() == whole["searched"].sum() > 0
    assert part["deviated"].sum() == whole["deviated"].sum()
    assert 0 < (~part["searched"]).sum() < (~whole["searched"]).sum()
    # each kept decision is a decision of the whole set: same row, legal actions, candidates
    rows = {}
    for i in range(len(whole["actions"])):
        key = whole["obs"][i].tobytes() + bytes([int(whole["deal"][i])])
        rows.setdefault(key, []).append(i)
    for j in range(len(part["actions"])):
        i = rows[part["obs"][j].tobytes() + bytes([int(part["deal"][j])])][0]
        for key in ("actions", "values", "searched", "deviated", "cand_worlds"):
            assert part[key][j] == whole[key][i], key
        for flat, offsets in (("legal_flat", "legal_offsets"), ("cand_flat", "cand_offsets"),
                              ("cand_values", "cand_offsets")):  # fmt: skip
            mine = part[flat][part[offsets][j] : part[offsets][j + 1]]
            theirs = whole[flat][whole[offsets][i] : whole[offsets][i + 1]]
            assert np.array_equal(mine, theirs), flat
    # the same dataset every time (drawn from the labelling's seed and the deal's number)
    expert.merge(str(labels), str(tmp_path / "again.npz"), unsearched_share=0.4)
    again = imitation.load_dataset(str(tmp_path / "again.npz"))
    assert np.array_equal(again["obs"], part["obs"])
    for bad in (0.0, 1.5, float("nan")):
        with pytest.raises(ValueError, match="unsearched-share"):
            expert.merge(str(labels), str(tmp_path / "bad.npz"), unsearched_share=bad)
    assert not (tmp_path / "bad.npz").exists()


def test_deviated_decisions_weigh_more_in_the_clone(labels: Path, tmp_path: Path) -> None:
    data = tmp_path / "labels.npz"
    expert.merge(str(labels), str(data))
    loaded = imitation.load_dataset(str(data))
    assert loaded["deviated"].any()  # positive control: there are deviations to weigh
    assert imitation._label_weights(loaded, 1.0, 1.0) is None
    weights = imitation._label_weights(loaded, 2.0, 5.0).numpy()
    expected = np.where(loaded["searched"], 2.0, 1.0) * np.where(loaded["deviated"], 5.0, 1.0)
    assert np.array_equal(weights, expected.astype(np.float32))
    report = imitation.clone(str(data), str(tmp_path / "w.zip"), epochs=1, net_arch=(32,),
                             holdout=0.3, deviated_weight=5.0)  # fmt: skip
    assert report["deviated_weight"] == 5.0
    with pytest.raises(ValueError, match="deviated_weight=0"):
        imitation.clone(str(data), str(tmp_path / "c.zip"), epochs=1, net_arch=(32,),
                        holdout=0.3, deviated_weight=0)  # fmt: skip
    # the rows are handed out as float32 from the stored float16
    rows = imitation.Rows(loaded["obs"])
    assert loaded["obs"].dtype == np.float16 and rows[np.arange(3)].dtype.is_floating_point
    assert np.array_equal(rows[np.arange(3)].numpy(), loaded["obs"][:3].astype(np.float32))


def test_a_kl_anchor_keeps_the_clone_near_its_init(labels: Path, tmp_path: Path) -> None:
    import torch

    from agents.train.cloning import anchor_kl, clone_step, frozen_copy, reference_log_probs

    data = tmp_path / "labels.npz"
    expert.merge(str(labels), str(data))
    loaded = imitation.load_dataset(str(data))
    model = imitation.build_model(3, "continental", True, (32,), seed=0)
    policy = model.policy
    idx = np.arange(min(64, len(loaded["actions"])))
    obs = imitation.Rows(loaded["obs"])[idx]
    masks = imitation.masks_for(loaded, idx, model.action_space.n)
    ref = reference_log_probs(policy, obs, masks)
    assert float(anchor_kl(policy, obs, masks, ref)) == pytest.approx(0.0, abs=1e-6)
    from sb3_contrib import MaskablePPO

    imitation.clone(str(data), str(tmp_path / "a.zip"), epochs=2, net_arch=(32,), holdout=0.3,
                    lr=3e-3)  # fmt: skip
    other = MaskablePPO.load(str(tmp_path / "a.zip"), device="cpu").policy  # a trained one
    assert float(anchor_kl(policy, obs, masks, reference_log_probs(other, obs, masks))) > 1e-3
    # A step anchored to the policy itself is the unanchored step (the KL and its gradient are
    # 0 there); anchored elsewhere it differs (positive control).
    actions = torch.as_tensor(loaded["actions"][idx])
    after = []
    for anchor in (None, (ref, 5.0), (reference_log_probs(other, obs, masks), 5.0)):
        twin = frozen_copy(policy).train()
        opt = torch.optim.SGD(twin.parameters(), lr=0.1)
        clone_step(twin, opt, obs, actions, torch.zeros(len(idx)), masks, vf_coef=0.0,
                   max_grad_norm=1e9, anchor=anchor)  # fmt: skip
        after.append(torch.cat([p.detach().flatten() for p in twin.parameters()]))
    assert torch.allclose(after[0], after[1], atol=1e-6)
    assert not torch.allclose(after[0], after[2], atol=1e-6)
    # Through clone: the clone ends nearer its init with a strong anchor than without.
    apart = {}
    for weight in (0.0, 50.0):
        report = imitation.clone(str(data), str(tmp_path / f"k{weight}.zip"), epochs=6,
                                 net_arch=(32,), holdout=0.3, lr=3e-3, deviated_weight=20.0,
                                 batch_size=8,
                                 init=str(tmp_path / "a.zip"), kl_weight=weight)  # fmt: skip
        assert report["kl_weight"] == weight
        assert ("anchor_kl" in report["epochs"][0]) == (weight > 0)
        apart[weight] = _distance(tmp_path / "a.zip", tmp_path / f"k{weight}.zip", loaded)
    assert 0 < apart[50.0] < apart[0.0] / 2
    with pytest.raises(ValueError, match=r"kl_weight=1\.0: needs init"):
        imitation.clone(str(data), str(tmp_path / "c.zip"), epochs=1, net_arch=(32,),
                        holdout=0.3, kl_weight=1.0)  # fmt: skip


def _distance(a: Path, b: Path, data: dict) -> float:
    """Mean KL(model a || model b) over the dataset's decisions."""
    import torch
    from sb3_contrib import MaskablePPO

    from agents.train.cloning import anchor_kl, reference_log_probs

    idx = np.arange(len(data["actions"]))
    obs = imitation.Rows(data["obs"])[idx]
    first, second = (MaskablePPO.load(str(p), device="cpu").policy for p in (a, b))
    masks = imitation.masks_for(data, idx, first.action_net.out_features)
    with torch.no_grad():
        return float(anchor_kl(second, obs, masks, reference_log_probs(first, obs, masks)))
