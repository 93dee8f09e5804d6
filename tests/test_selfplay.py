"""Self-play masked PPO on BatchGame (``agents.train.selfplay``): a tiny run, its checkpoint and
exact resume, masking, the per-seat returns on a hand-made sequence, lanes saved and restored,
and the trained policy at the harness's table."""

from __future__ import annotations

import json
import math
import shutil
from pathlib import Path

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from agents.bots.ppo_agent import NumpyPolicy  # noqa: E402
from agents.train import selfplay  # noqa: E402  (after the skip: it needs torch)
from continental_env.batch import BatchGame  # noqa: E402
from continental_env.contract.aec import encode_observation  # noqa: E402

TINY = [
    "--num-games", "4", "--steps-per-rollout", "16", "--observation", "v0", "--players", "4",
    "--preset", "continental", "--rounds", "1", "--backend", "reference", "--hidden", "16",
    "--checkpoint-every", "1",
]  # fmt: skip
UPDATE = 4 * 16  # decisions per update


def run(out: Path, updates: int, seed: int = 0, resume: bool = False) -> dict:
    argv = [*TINY, "--out", str(out), "--total-steps", str(updates * UPDATE), "--seed", str(seed)]
    cfg, saved = selfplay.parse_args([*argv, "--resume"] if resume else argv)
    return selfplay.train(cfg, saved)


def params(out: Path) -> dict[str, torch.Tensor]:
    return torch.load(out / "checkpoints" / "last.pt", weights_only=True)["model"]


def losses(out: Path) -> list[list[str]]:
    """progress.csv's loss columns, row by row."""
    rows = (out / "progress.csv").read_text().splitlines()[1:]
    return [r.split(",")[9:] for r in rows]


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("selfplay")
    whole, split, other = root / "whole", root / "split", root / "other"
    run(whole, 3)
    run(split, 2)
    (split / "after_two.pt").write_bytes((split / "checkpoints" / "last.pt").read_bytes())
    run(split, 3, resume=True)
    run(other, 3, seed=1)
    return {"whole": whole, "split": split, "other": other}


def test_a_tiny_run_writes_a_checkpoint_progress_and_a_policy(runs: dict[str, Path]) -> None:
    out = runs["whole"]
    meta = json.loads((out / "checkpoints" / "last.json").read_text())
    assert meta["update"] == 3 and meta["decisions"] == 3 * UPDATE
    for suffix in selfplay.CHECKPOINT_FILES:
        assert (out / "checkpoints" / f"last{suffix}").is_file()
    assert (out / "checkpoints" / "prev.json").is_file()  # the checkpoint before is kept
    rows = (out / "progress.csv").read_text().splitlines()
    assert rows[0].split(",") == list(selfplay.PROGRESS_FIELDS)
    assert [r.split(",")[0] for r in rows[1:]] == ["1", "2", "3"]
    assert all(r.split(",")[9] != "" for r in rows[1:])  # pg_loss: every update trained
    assert (out / "policy.npz").is_file()


def test_resume_makes_the_same_next_update_as_an_uninterrupted_run(
    runs: dict[str, Path],
) -> None:
    whole, split, other = params(runs["whole"]), params(runs["split"]), params(runs["other"])
    after_two = torch.load(runs["split"] / "after_two.pt", weights_only=True)["model"]
    assert whole.keys() == split.keys()
    for name in whole:
        assert torch.equal(whole[name], split[name]), name
    # Positive controls: the third update changed the network, and another seed trains another.
    assert any(not torch.equal(whole[n], after_two[n]) for n in whole)
    assert any(not torch.equal(whole[n], other[n]) for n in whole)
    # The resumed run's progress has the same rows (timings aside).
    assert losses(runs["whole"]) == losses(runs["split"])


def test_resume_refuses_a_changed_network_in_one_line(
    runs: dict[str, Path], capsys: pytest.CaptureFixture
) -> None:
    with pytest.raises(SystemExit) as exc:
        selfplay.parse_args([*TINY, "--out", str(runs["whole"]), "--hidden", "32", "--resume"])
    assert exc.value.code == 2
    err = capsys.readouterr().err.strip()
    assert "--hidden '32'" in err and "'16'" in err and "\n" not in err


def test_a_fresh_run_refuses_a_directory_holding_a_run(runs: dict[str, Path]) -> None:
    with pytest.raises(SystemExit):
        selfplay.parse_args([*TINY, "--out", str(runs["whole"])])


class Foreign:
    """An object a weights-only load must refuse (a crafted one could run code)."""


def test_a_checkpoint_holding_an_object_is_not_unpickled(
    runs: dict[str, Path], tmp_path: Path
) -> None:
    run_dir = tmp_path / "run"
    shutil.copytree(runs["whole"], run_dir)
    checkpoints = run_dir / "checkpoints"
    torch.save({"model": Foreign(), "optimizer": {}, "generator": torch.zeros(1)},
               checkpoints / "last.pt")  # fmt: skip
    found = selfplay.find_checkpoint(run_dir)
    assert found["tag"] == "prev"
    assert found["skipped"] == ["last checkpoint unreadable (last.pt holds more than tensors "
                                "and plain data; not read)"]  # fmt: skip
    # A damaged game in the lanes, then a file that is no torch file: nothing left to resume.
    lanes = (checkpoints / "prev.lanes.json").read_text()
    (checkpoints / "prev.lanes.json").write_text('[{"game": {"round": 1}, "game_index": 0}]')
    with pytest.raises(ValueError, match=r"prev checkpoint unreadable \(prev.lanes.json: malf"):
        selfplay.find_checkpoint(run_dir)
    (checkpoints / "prev.lanes.json").write_text(lanes)
    (checkpoints / "prev.pt").write_bytes(b"not a torch file")
    with pytest.raises(ValueError, match=r"prev checkpoint unreadable \(prev.pt holds more"):
        selfplay.find_checkpoint(run_dir)


def test_the_masked_policy_never_samples_an_illegal_action() -> None:
    torch.manual_seed(0)
    agent = selfplay.Agent(obs_dim=8, num_actions=50, hidden=[4], activation="tanh")
    with torch.no_grad():
        agent.actor[-1].bias[:25] = 1e4  # the first half would win every draw unmasked
    generator = torch.Generator().manual_seed(0)
    mask = torch.rand(2000, 50, generator=generator) < 0.1
    mask[:, 49] = True  # at least one legal action per row
    mask[:, :25] &= torch.arange(2000)[:, None] % 2 == 0  # odd rows: none of the favourites
    obs = torch.randn(2000, 8, generator=generator)
    legal = selfplay.Legal.of(mask)
    log_probs = agent.legal_log_probs(obs, legal)
    actions = legal.actions[legal.sample(log_probs, generator)]
    assert mask[torch.arange(2000), actions].all()
    # Positive control: where a favourite is legal, a favourite is drawn.
    favourite_legal = mask[:, :25].any(dim=1)
    assert favourite_legal.sum() > 500 and (actions[favourite_legal] < 25).all()
    # The legal-only softmax is the masked softmax of the full logits, values and gradients.
    full = torch.log_softmax(agent.masked_logits(obs, mask), -1)
    assert torch.allclose(log_probs, full[legal.rows, legal.actions], atol=1e-5)
    assert (full.exp()[~mask] == 0).all()
    assert torch.equal(
        legal.position(actions),
        torch.searchsorted(legal.rows * 50 + legal.actions, torch.arange(2000) * 50 + actions),
    )
    picked = log_probs[legal.position(actions)]
    assert torch.allclose(picked, full.gather(1, actions[:, None]).squeeze(1), atol=1e-5)
    grads = []
    for value in (picked.sum(), full.gather(1, actions[:, None]).sum()):
        agent.zero_grad()
        value.backward(retain_graph=True)
        grads.append([q.grad.clone() for q in agent.actor.parameters()])
    for a, b in zip(*grads, strict=True):
        assert torch.allclose(a, b, atol=1e-4)
    # The draw follows the probabilities: one row, 20,000 draws, frequencies within 0.02.
    one = selfplay.Legal.of(torch.tensor([[True, False, True, True]]).repeat(20000, 1))
    lp = one.log_softmax(torch.tensor([0.0, 1.0, 2.0]).repeat(20000))
    drawn = one.actions[one.sample(lp, generator)]
    freq = torch.bincount(drawn, minlength=4).float() / 20000
    expected = torch.tensor([1.0, 0.0, math.e, math.e**2]) / (1 + math.e + math.e**2)
    assert (freq - expected).abs().max() < 0.02


def test_a_row_without_a_legal_action_is_refused() -> None:
    with pytest.raises(ValueError, match="no legal action"):
        selfplay.Legal.of(torch.tensor([[True, False], [False, False]]))


def test_seat_advantages_on_a_hand_made_sequence() -> None:
    # Two lanes, two seats, five steps; seats alternate 0, 1, 0, 1, 0 and seat 1 acts next.
    # Lane 0's game ends on step 3 (seat 1's action); lane 1's goes on. Step 1 gives seat 0 +1
    # and seat 1 -1, step 3 gives seat 0 +2 and seat 1 -2.
    actor = np.array([[0, 0], [1, 1], [0, 0], [1, 1], [0, 0]])
    rewards = np.zeros((5, 2, 2))
    rewards[1, :] = [1.0, -1.0]
    rewards[3, :] = [2.0, -2.0]
    done = np.zeros((5, 2), dtype=bool)
    done[3, 0] = True
    values = np.array([[1.0, 1.0], [2.0, 2.0], [3.0, 3.0], [4.0, 4.0], [5.0, 5.0]])
    adv, trained = selfplay.seat_advantages(
        actor, rewards, done, values, np.array([1, 1]), np.array([10.0, 10.0]), 0.9, 0.5
    )
    # Lane 0, by hand (gamma 0.9, lambda 0.5):
    #   t=3 seat 1: -2, game over:            delta = -2 - 4 = -6
    #   t=2 seat 0: +2 (step 3), game over:   delta = 2 - 3 = -1
    #   t=1 seat 1: -1, next v=4:             -1 + 3.6 - 2 = 0.6, + 0.45 * -6 = -2.1
    #   t=0 seat 0: +1, next v=3:             1 + 2.7 - 1 = 2.7, + 0.45 * -1 = 2.25
    #   t=4 seat 0 (the next game): its outcome is after the rollout, not trained
    # Lane 1, no game end, seat 1's next value 10:
    #   t=4 seat 0: not trained (advantage 0, its value 5 bootstraps t=2)
    #   t=3 seat 1: -2, next v=10:            -2 + 9 - 4 = 3
    #   t=2 seat 0: +2, next v=5:             2 + 4.5 - 3 = 3.5
    #   t=1 seat 1: -1, next v=4:             -1 + 3.6 - 2 = 0.6, + 0.45 * 3 = 1.95
    #   t=0 seat 0: +1, next v=3:             2.7 + 0.45 * 3.5 = 4.275
    assert np.allclose(adv[:, 0], [2.25, -2.1, -1.0, -6.0, 0.0])
    assert np.allclose(adv[:, 1], [4.275, 1.95, 3.5, 3.0, 0.0])
    assert trained.tolist() == [[True, True]] * 4 + [[False, False]]


def play_random(batch: BatchGame, rng: np.random.Generator, mask: np.ndarray) -> np.ndarray:
    return np.array([rng.choice(np.flatnonzero(m)) for m in mask])


def test_saved_lanes_resume_with_their_game_counts(tmp_path: Path) -> None:
    """Lanes saved after a game ended play on exactly as the batch they came from, the next
    deal included (its seed comes from the lane's game count)."""
    kwargs = {"num_games": 2, "seed": 5, "rounds": [1], "backend": "reference"}
    source = BatchGame(**kwargs)
    obs, mask, actor = source.reset()
    rng = np.random.default_rng(0)
    while source.game_index(0) + source.game_index(1) == 0:
        obs, mask, actor, _, _ = source.step(play_random(source, rng, mask))
    (tmp_path / "last.lanes.json").write_text(json.dumps(selfplay.save_lanes(source)))
    torch.save({"model": {}, "optimizer": {}, "generator": torch.zeros(1)}, tmp_path / "last.pt")
    saved = selfplay.load_checkpoint(tmp_path, "last")["lanes"]
    copy = BatchGame(**kwargs)
    copy.reset()
    obs2, mask2, actor2 = selfplay.restore_lanes(copy, saved)
    assert np.array_equal(obs, obs2) and np.array_equal(mask, mask2)
    assert np.array_equal(actor, actor2)
    ended = 0
    while ended < 2:  # on to both lanes' next game ends
        actions = play_random(source, rng, mask)
        obs, mask, actor, rewards, done = source.step(actions)
        obs2, mask2, actor2, rewards2, done2 = copy.step(actions)
        assert np.array_equal(obs, obs2) and np.array_equal(mask, mask2)
        assert np.array_equal(rewards, rewards2) and np.array_equal(done, done2)
        ended += int(done.sum())
    assert [copy.game_index(i) for i in range(2)] == [source.game_index(i) for i in range(2)]


def test_the_policy_plays_at_the_harness_table(runs: dict[str, Path]) -> None:
    from agents.bots.ppo_agent import load_agent
    from agents.evaluate import evaluate

    path = runs["whole"] / "policy.npz"
    policy = load_agent(str(path))
    assert policy.env == "continental_v0" and policy.trained_players == 4
    # The numpy actor is the trained actor: the same logits on an observation of the AEC env.
    batch = BatchGame(num_games=1, seed=3, rounds=[1], backend="reference")
    batch.reset()
    game = batch.game(0)
    obs = encode_observation(game, game.actor, batch.observation_layout)
    agent = selfplay.Agent(batch.obs_dim, batch.num_actions, [16], "relu")
    agent.load_state_dict(params(runs["whole"]))
    with torch.no_grad():
        expected = agent.actor(torch.from_numpy(obs)).numpy()
    assert np.allclose(policy.logits(obs), expected, atol=1e-5)
    report = evaluate([f"ppo:{path}", "greedy"], players=4, games=1, seed=0, rounds=[1])
    assert report["config"]["deals"] == 1
    played = report["agents"][f"ppo:{path}"]
    assert played["games"] == 4 and np.isfinite(played["mean_points"])  # one deal, 4 seatings


def three_updates_whole_and_resumed(argv: list[str], tmp_path: Path) -> tuple[Path, Path, object]:
    """Runs ``argv`` for three updates in one go (``whole``) and for two then one more with
    ``--resume`` (``split``); the resumed run's config."""
    whole, split = tmp_path / "whole", tmp_path / "split"
    for out, steps in ((whole, 3), (split, 2)):
        cfg, saved = selfplay.parse_args([*argv, "--out", str(out), "--total-steps",
                                          str(steps * UPDATE)])  # fmt: skip
        selfplay.train(cfg, saved)
    cfg, saved = selfplay.parse_args(["--out", str(split), "--resume", "--total-steps",
                                      str(3 * UPDATE)])  # fmt: skip
    selfplay.train(cfg, saved)
    return whole, split, cfg


def test_a_shared_trunk_runs_once_for_both_heads_and_resumes_exactly(tmp_path: Path) -> None:
    torch.manual_seed(0)
    agent = selfplay.Agent(obs_dim=8, num_actions=20, hidden=[6, 5], activation="relu",
                           shared=True)  # fmt: skip
    separate = selfplay.Agent(obs_dim=8, num_actions=20, hidden=[6, 5], activation="relu")
    # One copy of the hidden layers: the parameters the optimiser sees are the actor's and a
    # value head (positive control: separate networks have two sets).
    count = sum(p.numel() for p in agent.parameters())
    actor = sum(p.numel() for p in agent.actor.parameters())
    assert count == actor + 5 + 1
    assert sum(p.numel() for p in separate.parameters()) > 2 * actor - 20 * 6
    obs = torch.randn(30, 8)
    mask = torch.rand(30, 20) < 0.3
    mask[:, 0] = True
    legal = selfplay.Legal.of(mask)
    for net in (agent, separate):
        log_probs, value = net.evaluate(obs, legal)
        assert torch.allclose(log_probs, net.legal_log_probs(obs, legal))
        assert torch.allclose(value, net.value(obs))
    # A shared run trains, is recorded in its config, and resumes to the same network.
    whole, split, cfg = three_updates_whole_and_resumed([*TINY, "--shared-trunk", "--seed", "4"],
                                                        tmp_path)  # fmt: skip
    assert cfg.shared_trunk
    a, b = params(whole), params(split)
    assert a.keys() == b.keys() and all(torch.equal(a[k], b[k]) for k in a)
    assert torch.equal(a["critic.0.weight"], a["actor.0.weight"])  # one tensor, saved twice


def test_policy_every_keeps_copies_that_the_curve_script_evaluates(tmp_path: Path) -> None:
    import importlib.util

    out = tmp_path / "run"
    cfg, saved = selfplay.parse_args([*TINY, "--out", str(out), "--total-steps",
                                      str(4 * UPDATE), "--policy-every", "2"])  # fmt: skip
    selfplay.train(cfg, saved)
    kept = sorted((out / "policies").glob("*.npz"))
    assert [p.name for p in kept] == [f"policy_{2 * UPDATE:012d}.npz",
                                      f"policy_{4 * UPDATE:012d}.npz"]  # fmt: skip
    metas = [NumpyPolicy.load_npz(str(p)).meta for p in kept]
    assert [m["decisions"] for m in metas] == [2 * UPDATE, 4 * UPDATE]
    assert 0 < metas[0]["cpu_s"] < metas[1]["cpu_s"]
    spec = importlib.util.spec_from_file_location(
        "selfplay_curve", Path(__file__).resolve().parent.parent / "scripts" / "selfplay_curve.py"
    )
    curve = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(curve)
    report = tmp_path / "curve.json"
    argv = [str(out), "--opponents", "greedy", "--deals", "2", "--rounds", "1", "--json",
            str(report), "--plot", str(tmp_path / "curve.png")]  # fmt: skip
    assert curve.main(argv) == 0
    points = json.loads(report.read_text())["points"]
    assert [p["policy"] for p in points] == [p.name for p in kept]
    assert all(p["opponent"] == "greedy" and np.isfinite(p["mean_diff"]) for p in points)
    assert (tmp_path / "curve.png").stat().st_size > 0
    with pytest.raises(SystemExit):  # a run without kept policies is refused in one line
        curve.main([str(tmp_path)])


def test_seat_advantages_skip_the_bots_decisions_but_count_their_rewards() -> None:
    # One lane, two seats alternating 0, 1, 0, 1, 0; seat 1 is a bot. Seat 0's rewards arrive
    # on the bot's steps (+1 at step 1, +2 at step 3); seat 0 acts next after the rollout.
    actor = np.array([[0], [1], [0], [1], [0]])
    rewards = np.zeros((5, 1, 2))
    rewards[1, 0] = [1.0, -1.0]
    rewards[3, 0] = [2.0, -2.0]
    done = np.zeros((5, 1), dtype=bool)
    values = np.array([[1.0], [7.0], [3.0], [7.0], [5.0]])
    learner = actor == 0
    adv, trained = selfplay.seat_advantages(actor, rewards, done, values, np.array([0]),
                                            np.array([10.0]), 0.9, 0.5, learner)  # fmt: skip
    # seat 0's chain: t=4 -> next value 10: 0 + 9 - 5 = 4
    #                 t=2 -> +2, next v=5: 2 + 4.5 - 3 = 3.5, + 0.45 * 4 = 5.3
    #                 t=0 -> +1, next v=3: 1 + 2.7 - 1 = 2.7, + 0.45 * 5.3 = 5.085
    assert np.allclose(adv[:, 0], [5.085, 0.0, 5.3, 0.0, 4.0])
    assert trained[:, 0].tolist() == [True, False, True, False, True]
    # Positive control: without the mask the bot's steps are decisions of seat 1's chain.
    _adv, every = selfplay.seat_advantages(actor, rewards, done, values, np.array([0]),
                                           np.array([10.0]), 0.9, 0.5)  # fmt: skip
    assert every[1, 0] and not every[3, 0]  # seat 1's last decision has no known outcome


@pytest.mark.skipif(BatchGame(num_games=1).backend != "compiled", reason="needs the C core")
def test_opponents_fill_every_seat_but_the_learners_and_resume_exactly(tmp_path: Path) -> None:
    base = ["compiled" if a == "reference" else a for a in TINY]
    argv = [*base, "--opponents", "greedy,strong@v1", "--seed", "3"]
    whole, split, cfg = three_updates_whole_and_resumed(argv, tmp_path)
    assert cfg.opponents == "greedy,strong@v1"
    a, b = params(whole), params(split)
    assert all(torch.equal(a[k], b[k]) for k in a)
    rows = (whole / "progress.csv").read_text().splitlines()[1:]
    trained = [int(r.split(",")[2]) for r in rows]
    # Only the learner's seat (one of four) is trained: about a quarter of the decisions.
    assert all(0 < k <= UPDATE // 2 for k in trained)
    with pytest.raises(SystemExit):
        selfplay.parse_args([*base, "--opponents", "nobody", "--out", str(tmp_path / "x")])
    with pytest.raises(SystemExit):  # the reference backend has no bots to ask
        selfplay.parse_args([*TINY, "--opponents", "greedy", "--out", str(tmp_path / "y")])


def test_parse_pool_reads_weights_and_refuses_bad_entries_in_one_line() -> None:
    assert selfplay.parse_pool("self:2,strong@v1,greedy:1,ppo:a/b.npz,ppo:c.npz:3") == [
        ("self", 2), ("strong@v1", 1), ("greedy", 1), ("ppo:a/b.npz", 1), ("ppo:c.npz", 3),
    ]  # fmt: skip
    for bad, why in (("nobody:1", "choose self"), ("self:0", "whole number"),
                     ("greedy:x", "choose self")):  # fmt: skip
        with pytest.raises(ValueError, match=why) as exc:
            selfplay.parse_pool(bad)
        assert repr(bad) in str(exc.value) and "\n" not in str(exc.value)


@pytest.mark.skipif(BatchGame(num_games=1).backend != "compiled", reason="needs the C core")
def test_a_pool_gives_self_lanes_every_seat_and_bot_lanes_one(tmp_path: Path) -> None:
    base = ["compiled" if a == "reference" else a for a in TINY]
    cfg, _ = selfplay.parse_args([*base, "--num-games", "12", "--pool", "self,greedy:2",
                                  "--out", str(tmp_path / "p")])  # fmt: skip
    batch = selfplay.make_batch(cfg)
    seats = selfplay._learner_seats(cfg, batch)
    policy, kinds = seats.policy, seats.kinds
    assert (seats.nets == -1).all() and not seats.models
    # Blocks of four lanes take self, greedy, greedy in turn.
    assert policy[:4].all()
    for i in range(4, 12):
        assert policy[i].tolist() == [s == i % 4 for s in range(4)]
        assert (kinds[i] == batch.bot_kinds("greedy")[0]).all()
    # --opponents keeps its own layout: one learner seat in every lane (positive control).
    cfg2, _ = selfplay.parse_args([*base, "--num-games", "12", "--opponents", "greedy",
                                   "--out", str(tmp_path / "q")])  # fmt: skip
    policy2 = selfplay._learner_seats(cfg2, batch).policy
    assert policy2.sum(axis=1).tolist() == [1] * 12
    for argv in (["--pool", "self,nobody"], ["--pool", "self", "--opponents", "greedy"]):
        with pytest.raises(SystemExit):
            selfplay.parse_args([*base, *argv, "--out", str(tmp_path / "x")])
    with pytest.raises(SystemExit):  # the reference backend has no bots to ask
        selfplay.parse_args([*TINY, "--pool", "self,greedy", "--out", str(tmp_path / "y")])


@pytest.mark.skipif(BatchGame(num_games=1).backend != "compiled", reason="needs the C core")
def test_a_pool_run_trains_self_and_learner_seats_and_resumes_exactly(tmp_path: Path) -> None:
    base = ["compiled" if a == "reference" else a for a in TINY]
    argv = [*base, "--num-games", "8", "--pool", "self,strong@v1", "--win-bonus", "0.5",
            "--seed", "5"]  # fmt: skip
    whole, split, cfg = three_updates_whole_and_resumed(argv, tmp_path)
    assert cfg.pool == "self,strong@v1" and cfg.win_bonus == 0.5
    a, b = params(whole), params(split)
    assert all(torch.equal(a[k], b[k]) for k in a)
    rows = (whole / "progress.csv").read_text().splitlines()[1:]
    trained = [int(r.split(",")[2]) for r in rows]
    # Half the lanes are self-play (every decision is the policy's), half have one learner
    # seat: more than the quarter of one learner per lane, less than every decision.
    per_update = 8 * 16
    assert all(per_update // 4 < k < per_update for k in trained)


def test_win_bonus_is_the_win_reward_of_the_games_that_ended() -> None:
    batch = BatchGame(num_games=6, num_players=3, seed=2, rounds=[1], backend="reference")
    rng = np.random.default_rng(0)
    _, mask, _ = batch.reset()
    seen = 0
    for _ in range(4000):
        actions = np.array([rng.choice(np.flatnonzero(m)) for m in mask])
        _, mask, _, _, done = batch.step(actions)
        bonus = selfplay.win_bonus(batch, done, 0.5)
        assert not bonus[~done].any()  # only the lanes whose game ended
        for i in np.flatnonzero(done):
            scores = batch.final_scores[i]
            won = scores == scores.min()
            assert np.allclose(bonus[i][won], 0.5 / won.sum())
            if (~won).any():
                assert np.allclose(bonus[i][~won], -0.5 / (~won).sum())
            assert abs(bonus[i].sum()) < 1e-6  # zero-sum
            seen += 1
        if seen >= 10:
            break
    assert seen >= 10
    assert not selfplay.win_bonus(batch, done, 0.0).any()  # weight 0: nothing added


def test_close_bonus_goes_to_the_seat_the_engine_records_as_closer() -> None:
    batch = BatchGame(num_games=6, num_players=3, seed=5, backend="reference")
    rng = np.random.default_rng(1)
    _, mask, _ = batch.reset()
    closed = 0
    for _ in range(20000):
        actions = np.array([rng.choice(np.flatnonzero(m)) for m in mask])
        _, mask, _, _, done = batch.step(actions)
        bonus = selfplay.close_bonus(batch, 20.0)
        assert not bonus[~batch.round_end].any()  # only the lanes whose round ended
        for i in np.flatnonzero(batch.round_end & ~done):  # a finished game's lane restarted
            closer = batch.game(i).state.round_history[-1]["closer"]  # the round that ended
            if closer is None:  # the round ran out of cards: no one closed, nothing added
                assert not bonus[i].any()
                continue
            want = np.full(3, -0.1, dtype=np.float32)  # 20 points / 100, split over 2
            want[closer] = 0.2
            assert np.allclose(bonus[i], want) and abs(bonus[i].sum()) < 1e-6
            assert selfplay.closers(batch)[i].tolist() == [s == closer for s in range(3)]
            closed += 1
        if closed >= 12:
            break
    assert closed >= 12
    assert not selfplay.close_bonus(batch, 0.0).any()  # weight 0: nothing added


def test_init_starts_from_another_runs_network_and_counts_its_cost(
    runs: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    out = tmp_path / "fork"
    argv = [*TINY, "--out", str(out), "--total-steps", str(UPDATE), "--init", str(runs["whole"])]
    cfg, saved = selfplay.parse_args(argv)
    batch = selfplay.make_batch(cfg)
    agent = selfplay.Agent(batch.obs_dim, batch.num_actions, [16], "relu")
    start = selfplay.init_network(agent, cfg)
    source = params(runs["whole"])
    assert all(torch.equal(agent.state_dict()[k], source[k]) for k in source)
    selfplay.train(cfg, saved)
    after = params(out)
    assert any(not torch.equal(after[k], source[k]) for k in source)  # it trained on from there
    meta = NumpyPolicy.load_npz(str(out / "policy.npz")).meta
    assert meta["decisions"] == UPDATE
    assert meta["total_decisions"] == UPDATE + start["decisions"] == 4 * UPDATE
    assert meta["init_runs"] == [str(runs["whole"])]
    # A run whose network differs is refused in one line; so is a directory with no run.
    for bad, why in ((["--hidden", "32"], "--hidden '16'"), (["--init", str(tmp_path)], "")):
        with pytest.raises(SystemExit):
            selfplay.parse_args([*argv[:-2], "--out", str(tmp_path / "x"), *bad,
                                 *([] if "--init" in bad else argv[-2:])])  # fmt: skip
        err = capsys.readouterr().err.strip().splitlines()[-1]
        assert "--init" in err and why in err


def test_init_from_a_policy_file_loads_its_actor_and_warmup_holds_it(
    runs: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    source = runs["other"] / "policy.npz"
    policy = NumpyPolicy.load_npz(str(source))

    def fork(name: str, *extra: str) -> tuple[NumpyPolicy, dict[str, torch.Tensor]]:
        argv = [*TINY, "--out", str(tmp_path / name), "--total-steps", str(2 * UPDATE),
                "--init", str(source), "--seed", "3", *extra]  # fmt: skip
        cfg, saved = selfplay.parse_args(argv)
        selfplay.train(cfg, saved)
        return NumpyPolicy.load_npz(str(tmp_path / name / "policy.npz")), params(tmp_path / name)

    def same_actor(a: NumpyPolicy, b: NumpyPolicy) -> bool:
        return all(
            np.array_equal(x, y) for (x, _), (y, _) in zip(a.weights, b.weights, strict=True)
        )

    for shape in ([], ["--shared-trunk"]):
        held, held_params = fork("held" + "".join(shape), "--critic-warmup", "2", *shape)
        assert same_actor(held, policy)  # two updates, the policy held in both
        torch.manual_seed(3)  # the run's initialisation, as train() makes it
        fresh = selfplay.Agent(policy.obs_size, policy.num_actions, [16], "relu", bool(shape))
        head = "critic.2.weight"  # the value head (shared: the one layer of its own)
        assert fresh.state_dict()[head].shape == held_params[head].shape == (1, 16)
        assert not torch.equal(held_params[head], fresh.state_dict()[head])  # the critic learned
    trained, _ = fork("trained", "--critic-warmup", "1")  # positive control: update 2 trains it
    assert not same_actor(trained, policy)
    meta = trained.meta
    assert meta["decisions"] == 2 * UPDATE and meta["total_decisions"] == 5 * UPDATE
    assert meta["init_runs"] == [str(source)]
    # A policy for another table or shape is refused in one line, naming the difference.
    for bad, why in ((["--rounds", "2"], "rounds"), (["--hidden", "32"], "hidden layers are 16")):
        with pytest.raises(SystemExit):
            selfplay.parse_args([*TINY, "--out", str(tmp_path / "x"), "--init", str(source), *bad])
        err = capsys.readouterr().err.strip().splitlines()[-1]
        assert "--init" in err and why in err
    (tmp_path / "junk.npz").write_bytes(b"not a policy")
    with pytest.raises(SystemExit):
        selfplay.parse_args(
            [*TINY, "--out", str(tmp_path / "y"), "--init", str(tmp_path / "junk.npz")]
        )
    assert "not a readable policy file" in capsys.readouterr().err


def test_a_frozen_network_in_the_pool_plays_its_seats_as_the_harness_would(
    runs: dict[str, Path], tmp_path: Path
) -> None:
    net = f"ppo:{runs['other'] / 'policy.npz'}"
    argv = [*TINY, "--num-games", "8", "--pool", f"self,{net}", "--seed", "4"]
    cfg, _ = selfplay.parse_args([*argv, "--out", str(tmp_path / "p")])
    batch = selfplay.make_batch(cfg)
    seats = selfplay._learner_seats(cfg, batch)
    assert seats.policy[:4].all() and len(seats.models) == 1
    for i in range(4, 8):  # the network at every seat but the learner's
        assert seats.nets[i].tolist() == [-1 if s == i % 4 else 0 for s in range(4)]
    obs, mask, actor = batch.reset()
    lanes = np.arange(8)
    mine = seats.policy[lanes, actor]
    actions = seats.actions(batch, lanes, mine, obs, mask, actor)
    model = seats.models[0]
    for i in range(8):
        if mine[i]:
            assert actions[i] == -1
        else:  # what ppo:PATH plays from this observation (deterministic)
            legal = np.flatnonzero(mask[i]).tolist()
            assert actions[i] == model.act_from_observation(obs[i], legal)
            assert mask[i, actions[i]]
    whole, split, _ = three_updates_whole_and_resumed(argv, tmp_path)
    a, b = params(whole), params(split)
    assert all(torch.equal(a[k], b[k]) for k in a)
    # A network of another table is refused in one line before any game (positive control:
    # the same file plays above).
    with pytest.raises(SystemExit):
        selfplay.parse_args([*argv[:-4], "--pool", f"self,{net}", "--players", "3",
                             "--out", str(tmp_path / "x")])  # fmt: skip


def test_a_privileged_critic_sees_the_hidden_hands_and_the_policy_never_does(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    argv = [*TINY, "--privileged-critic", "--seed", "5"]
    whole, split, cfg = three_updates_whole_and_resumed(argv, tmp_path)
    assert cfg.privileged_critic
    a, b = params(whole), params(split)
    assert a.keys() == b.keys() and all(torch.equal(a[k], b[k]) for k in a)  # exact resume
    batch = selfplay.make_batch(cfg)
    extra = 3 * 53  # the three other seats' hands
    assert a["critic.0.weight"].shape[1] == batch.obs_dim + extra
    assert a["actor.0.weight"].shape[1] == batch.obs_dim  # the policy's input: the observation
    policy = NumpyPolicy.load_npz(str(whole / "policy.npz"))
    assert policy.obs_size == batch.obs_dim

    # One rollout twice from the same state, the second with scrambled hidden hands: the same
    # decisions (the policy never reads them), other values (the critic does: the control).
    agent = selfplay.Agent(batch.obs_dim, batch.num_actions, [16], "relu", critic_extra=extra)
    agent.load_state_dict(a)

    def rollout(scramble: bool) -> selfplay.Buffers:
        batch = selfplay.make_batch(cfg)
        obs, mask, actor = batch.reset()
        if scramble:
            real = batch.hidden_hands
            monkeypatch.setattr(batch, "hidden_hands", lambda: real()[:, ::-1, ::-1] + 1)
        buf = selfplay.Buffers.empty(16, cfg.num_games, 4, batch.obs_dim, batch.num_actions,
                                     extra)  # fmt: skip
        generator = torch.Generator().manual_seed(0)
        selfplay._rollout(batch, agent, generator, torch.device("cpu"), buf, None, obs, mask,
                          actor)  # fmt: skip
        return buf

    plain, scrambled = rollout(False), rollout(True)
    np.testing.assert_array_equal(plain.action, scrambled.action)
    np.testing.assert_array_equal(plain.logprob, scrambled.logprob)
    assert not np.allclose(plain.value, scrambled.value)
    assert plain.extra.any() and not np.array_equal(plain.extra, scrambled.extra)


def test_privileged_critic_refusals_and_init_from_a_shared_run(
    runs: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    with pytest.raises(SystemExit):
        selfplay.parse_args([*TINY, "--out", str(tmp_path / "x"), "--privileged-critic",
                             "--shared-trunk"])  # fmt: skip
    err = capsys.readouterr().err.strip().splitlines()[-1]
    assert "privileged" in err and "--shared-trunk" in err
    # --init from a run without it: the actor is loaded, and the critic with zero weights on
    # the hidden hands, so it starts as the same function of the observation
    out = tmp_path / "fork"
    cfg, _ = selfplay.parse_args([*TINY, "--out", str(out), "--total-steps", str(UPDATE),
                                  "--privileged-critic", "--init", str(runs["whole"])])  # fmt: skip
    batch = selfplay.make_batch(cfg)
    agent = selfplay.Agent(batch.obs_dim, batch.num_actions, [16], "relu",
                           critic_extra=selfplay.critic_extra(cfg))  # fmt: skip
    selfplay.init_network(agent, cfg)
    source, now = params(runs["whole"]), agent.state_dict()
    assert all(torch.equal(now[k], source[k]) for k in now if k != "critic.0.weight")
    first = now["critic.0.weight"]
    assert torch.equal(first[:, : batch.obs_dim], source["critic.0.weight"])
    assert not first[:, batch.obs_dim :].any()
    plain = selfplay.Agent(batch.obs_dim, batch.num_actions, [16], "relu")
    plain.load_state_dict(source)
    obs, hands = torch.randn(7, batch.obs_dim), torch.rand(7, 3 * 53) * 3
    with torch.no_grad():
        assert torch.allclose(agent.value(torch.cat([obs, hands], 1)), plain.value(obs))
    # the control: a critic of other layers is refused, not loaded
    other = {**source, "critic.2.weight": torch.zeros(5, 16)}
    assert selfplay.init_critic(agent.state_dict(), other) is None
