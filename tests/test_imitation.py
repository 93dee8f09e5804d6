"""The imitation recipe (``agents.train.imitation``, ``agents.train.kl_ppo``) and its ``train.py`` flags: the
collecting and cloning on a tiny table, what a model records and where it is
refused, the KL penalty and its schedule, and a tiny PPO run near a clone."""

from __future__ import annotations

import json
import math
import zipfile
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("sb3_contrib")
torch = pytest.importorskip("torch")

from agents.bots.ppo_agent import check_env, check_table, load_agent  # noqa: E402
from agents.contract import feature_agent  # noqa: E402
from agents.train import imitation  # noqa: E402

TINY_ARCH = (32,)


@pytest.fixture(scope="module")
def clone_zip(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A clone on the features observation from two one-round deals at a 3-seat table."""
    base = tmp_path_factory.mktemp("bc")
    data = base / "data.npz"
    summary = imitation.collect(str(data), deals=3, seed=5, players=3, preset="continental",
                                features=True, rounds=[1], progress=False)  # fmt: skip
    assert summary["decisions"] > 20
    out = base / "clone.zip"
    report = imitation.clone(str(data), str(out), epochs=2, net_arch=TINY_ARCH, holdout=0.34)
    for row in report["epochs"]:
        assert math.isfinite(row["loss"])
        assert 0 <= row["heldout"]["accuracy"] <= 1
        assert row["heldout"]["entropy"] > 0  # the clone stays stochastic
    return out


def test_a_preview_model_loads_as_continental_v1(clone_zip: Path, tmp_path: Path) -> None:
    # A clone written before continental_v1 existed records "continental_v0+features": the same
    # vector, so it plays as a v1 model and loads into the v1 single-learner environment.
    from sb3_contrib import MaskablePPO

    from agents.train.single_agent import make_env

    old = tmp_path / "preview.zip"
    with zipfile.ZipFile(clone_zip) as src, zipfile.ZipFile(old, "w") as dst:
        for item in src.infolist():
            data = src.read(item)
            if item.filename == "continental.json":
                meta = json.loads(data)
                meta["env"] = "continental_v0+features"
                data = json.dumps(meta).encode()
            dst.writestr(item, data)
    agent = feature_agent.load_feature_agent(str(old), num_players=3)
    assert agent.env == "continental_v1" and agent.version == 1
    env = make_env(opponents=["greedy"], num_players=3, rounds=[1], version=1, seed=1)
    model = MaskablePPO.load(old, env=env, device="cpu")  # same Box: shape, dtype, bounds
    assert model.observation_space == env.observation_space


def test_collect_logs_only_the_teachers_choices(tmp_path: Path) -> None:
    part = imitation.collect_deal((0, 1, 3, "continental", False, [1]))
    n = len(part["actions"])
    assert n == len(part["legal"]) == len(part["values"]) == len(part["obs"]) > 0
    for legal, action in zip(part["legal"], part["actions"], strict=True):
        assert len(legal) > 1 and action in legal.tolist()
    assert part["obs"][0].shape == (imitation.observation_layout(3)["turn"].stop,)


def test_clone_records_its_observation_and_is_refused_elsewhere(clone_zip: Path) -> None:
    with zipfile.ZipFile(clone_zip) as archive:
        meta = json.loads(archive.read("continental.json"))
    assert meta["env"] == feature_agent.FEATURE_ENV
    assert meta["num_players"] == 3
    assert meta["obs_size"] == feature_agent.observation_size(3)
    agent = feature_agent.load_feature_agent(str(clone_zip), num_players=3)
    with pytest.raises(ValueError, match="trained for 3 players"):
        feature_agent.load_feature_agent(str(clone_zip), num_players=4)
    as_ppo = load_agent(str(clone_zip))  # ppo:PATH plays it on its own observation
    assert as_ppo.env == feature_agent.FEATURE_ENV
    check_table(as_ppo, 3)
    with pytest.raises(ValueError, match="trained for 3 players"):
        check_table(as_ppo, 4)
    # Loaded into an environment of another version or size: one line naming both.
    for env, players in (("continental_v0", 3), ("continental_v1", 4)):
        with pytest.raises(ValueError) as err:
            check_env(meta, "clone", players, env)
        text = str(err.value)
        assert "\n" not in text and "continental_v1 at 3 players" in text
        assert f"not {env} at {players} players" in text
    check_env(meta, "clone", 3, "continental_v1")
    # It plays legal moves on the plain engine (which keeps the public log itself).
    from agents.contract.view import PlayerView
    from continental_env.contract.game import Game

    game = Game.new("continental", 3, seed=4)
    for _ in range(30):
        view = PlayerView(game, game.actor)
        action = agent.act(view)
        assert action in game.legal_actions()
        game.apply(action)


def test_kl_is_zero_at_the_reference_and_pulls_back_toward_it(clone_zip: Path) -> None:
    from sb3_contrib import MaskablePPO

    from agents.train.kl_ppo import KLAnneal, KLPolicy

    clone = MaskablePPO.load(clone_zip, device="cpu")
    env = imitation.build_model(3, "continental", True, TINY_ARCH, 1).get_env()
    model = MaskablePPO(KLPolicy, env, policy_kwargs={"net_arch": {"pi": [32], "vf": [32]},
                                       "activation_fn": torch.nn.ReLU}, device="cpu")  # fmt: skip
    policy = model.policy
    policy.load_state_dict(clone.policy.state_dict())
    policy.set_reference(clone.policy)
    assert not any(p is q for p in policy.parameters() for q in policy.reference.parameters())
    n = model.action_space.n
    obs = torch.rand(8, model.observation_space.shape[0])
    masks = np.zeros((8, n), dtype=bool)
    masks[:, [0, 1, 6, 7, 8]] = True
    actions = torch.zeros(8, dtype=torch.long)
    policy.ent_coef, policy.kl_coef = 0.01, 1.0
    _, _, entropy_kl = policy.evaluate_actions(obs, actions, masks)
    policy.kl_coef = 0.0
    _, _, entropy = policy.evaluate_actions(obs, actions, masks)
    assert torch.allclose(entropy, entropy_kl, atol=1e-5)  # same weights: KL 0
    # Move the policy away, then step on the KL term alone: it comes back.
    with torch.no_grad():
        policy.action_net.bias[6] += 3.0
    logits = policy.get_distribution(obs, action_masks=masks).distribution.logits
    kl_before = policy.kl_to_reference(obs, logits, masks).mean()
    assert kl_before > 0.1
    optimizer = torch.optim.SGD(policy.parameters(), lr=0.5)
    for _ in range(20):
        logits = policy.get_distribution(obs, action_masks=masks).distribution.logits
        loss = policy.kl_to_reference(obs, logits, masks).mean()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    assert loss.item() < kl_before.item() / 2
    anneal = KLAnneal(0.5, steps=1000, first=100)
    assert anneal.coef(0) == 0.5 and anneal.coef(600) == pytest.approx(0.25)
    assert anneal.coef(5000) == 0.0


def test_train_flags_for_the_recipe_are_checked(tmp_path: Path, clone_zip: Path) -> None:
    from agents.train import sb3 as train

    def error(*args: str) -> None:
        with pytest.raises(SystemExit):
            train.parse_args(["--runs-dir", str(tmp_path / "r"), *args])

    features_run = ["--features", "--init-policy", str(clone_zip), "--players", "3"]
    for args in (
        ["--kl-coef", "0.1"],  # no --init-policy
        ["--kl-coef", "-1"],
        ["--init-policy", str(tmp_path / "missing.zip")],
        ["--no-features", "--init-policy", str(clone_zip), "--players", "3"],  # a v1 model
        ["--features", "--init-policy", str(clone_zip), "--players", "4"],  # another table
        [*features_run, "--kl-coef", "0.1", "--ent-coef", "0"],  # the KL needs entropy
    ):
        error(*args)
    assert not (tmp_path / "r").exists()


def test_tiny_ppo_run_near_the_clone(tmp_path: Path, clone_zip: Path) -> None:
    from agents.train import sb3 as train

    runs = tmp_path / "runs"
    argv = ["--runs-dir", str(runs), "--run-name", "kl", "--players", "3", "--rounds", "1",
            "--features", "--init-policy", str(clone_zip), "--kl-coef", "0.5",
            "--kl-anneal-steps", "128", "--opponents", "strong,self", "--vec-env", "dummy",
            "--num-envs", "1", "--n-steps", "64", "--batch-size", "64", "--n-epochs", "1",
            "--net-arch", "32", "--total-timesteps", "128", "--snapshot-every", "64",
            "--eval-every", "0", "--no-progress"]  # fmt: skip
    assert train.main(argv) == 0
    ckpt = runs / "kl" / "checkpoints"
    with zipfile.ZipFile(ckpt / "last.zip") as archive:
        meta = json.loads(archive.read("continental.json"))
    assert meta["env"] == feature_agent.FEATURE_ENV
    assert json.loads((ckpt / "last.json").read_text())["num_timesteps"] >= 128
    assert list((runs / "kl" / "snapshots").glob("*.npz"))  # snapshots of the learner, as "self"
    # Resumable: the reference comes back from the saved --init-policy, the counter goes on.
    assert train.main(["--resume", str(runs / "kl"), "--total-timesteps", "192"]) == 0
    assert json.loads((ckpt / "last.json").read_text())["num_timesteps"] >= 192
