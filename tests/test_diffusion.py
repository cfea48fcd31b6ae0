"""Masked plan diffusion (genplan.models.diffusion, genplan.planners.diffusion): atom tokens, the
loss's weights, permutation invariance over the condition, the unmasking schedule and trace,
the applicability-aware variant, training through `genplan train` on sampled state spaces, and
`genplan solve` (exit 0 only for a VAL-valid plan; a plan too long for the window is reported)."""

from __future__ import annotations

import itertools
import json
from pathlib import Path

import pytest
import torch
from conftest import run_cli
from test_features import DOMAIN, gripper_problem, trajectory_record, write_split
from test_statespace_sampler import _benchmark

from genplan import registry
from genplan.errors import GenplanError
from genplan.models.diffusion import data
from genplan.models.diffusion.atoms import AtomVocabulary
from genplan.models.diffusion.model import DiffusionModel, DiffusionSettings, make_denoiser, network_config
from genplan.nn.transformer import TransformerConfig
from genplan.pddl_io import parse_domain
from genplan.planners.base import Problem
from genplan.planners.diffusion import commit_counts, schedule
from genplan.report.collect import missing_reported
from genplan.tokens.renaming import Renaming
from genplan.tokens.vocab import Vocabulary

WIDTH = 24  # plan positions: the 2-ball plan (19 tokens + <EOS>) fits, the 3-ball plan (42) does not
SETTINGS = {"family": "diffusion", "object_pool": 8, "max_plan_tokens": WIDTH, "rename": "sorted",
            "network": {"d_model": 64, "n_heads": 4, "n_layers": 2},
            "train": {"epochs": 80, "batch_size": 16, "lr": 0.003, "warmup_steps": 10, "examples": 80,
                      "patience": None}}


def _untrained(width=WIDTH, pool=8, seed=0, condition="table"):
    torch.manual_seed(seed)
    info = parse_domain(DOMAIN)
    vocab = Vocabulary.for_domain(info, pool)
    atoms = AtomVocabulary(vocab)
    settings = DiffusionSettings.from_entry({"object_pool": pool, "max_plan_tokens": width, "condition": condition,
                                             "network": {"d_model": 32, "n_heads": 4, "n_layers": 2}})
    net = make_denoiser(TransformerConfig(**network_config(vocab, settings)), atoms, settings).eval()
    ident = {"name": "untrained", "domain": "gripper", "pddl_domain": info.name, "seed": seed}
    return DiffusionModel(ident, vocab, atoms, net, settings, info)


def _state_space(root, balls):
    """The state spaces (`ss.csv`) of generated Gripper problems with these numbers of balls."""
    from genplan.stages import statespace

    bench = _benchmark(root / "problems", "gripper", balls)
    statespace.statespaces_split(bench, "train", 10000, root / "ss", root / "ss.csv")
    return root / "ss.csv"


def _train(out, settings, ss, train, val):
    res = run_cli("train", "--model", "tiny_diffusion", "--settings", json.dumps(settings), "--domain", "gripper",
                  "--train", ss, train, "--validation", val, "--seed", "13", "--out", out,
                  "--log", out.with_name("training.csv"), "--summary", out.with_name("summary.json"))
    assert res.returncode == 0, res.stderr[-3000:]
    return out


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    root = tmp_path_factory.mktemp("diffusion")
    ss = _state_space(root, [1, 2])
    problems = {n: gripper_problem(root, n) for n in (1, 2, 3, 9)}
    records = {n: trajectory_record(problems[n]) for n in (1, 2, 3)}
    train = write_split(root / "train.json.gz", [records[n] for n in (1, 2)])
    val = write_split(root / "validation.json.gz", [records[2], records[3]])
    return {"root": root, "ss": ss, "train": train, "val": val, "problems": problems, "records": records}


@pytest.fixture(scope="module")
def trained(files):
    return _train(files["root"] / "model.ckpt", SETTINGS, files["ss"], files["train"], files["val"])


@pytest.fixture(scope="module")
def memorised(files):
    """A model trained on one problem, the 1-ball Gripper, and its state space alone, validated on
    it too: it has learnt that problem's plans (validation loss about 0.01 at 150 epochs), so it
    solves it whatever the seed (seeds 13 to 32 all solve it under the applicability filter). The
    module's `trained` model, fitted on 1- and 2-ball problems and chosen by the loss on a single
    validation plan, solved the same problem for only some seeds and machines (CI failed it)."""
    root = files["root"] / "memorised"
    ss = _state_space(root, [1])
    split = write_split(root / "train.json.gz", [files["records"][1]])
    settings = {**SETTINGS, "train": {**SETTINGS["train"], "epochs": 150}}
    return _train(root / "model.ckpt", settings, ss, split, split)


def test_atom_tokens_are_one_per_atom_with_a_goal_region_apart():
    vocab = Vocabulary.for_domain(parse_domain(DOMAIN), 5)
    atoms = AtomVocabulary(vocab)
    ids = set()
    for pred, arity in vocab.predicates.items():
        for k in range(5 ** arity):
            args = [f"o{(k // 5 ** (arity - 1 - i)) % 5}" for i in range(arity)]
            for goal in (False, True):
                i = atoms.id((pred, *args), goal=goal)
                assert atoms.atom(i) == ("goal" if goal else "state", (pred, *args))
                ids.add(i)
    assert ids == set(range(len(atoms)))  # a bijection onto 0..2A-1
    assert atoms.id(("at", "o1", "o2"), goal=True) - atoms.id(("at", "o1", "o2")) == atoms.atoms


def test_the_loss_weighs_masked_plan_positions_only():
    torch.manual_seed(0)
    plan = torch.tensor([[1, 10, 11, 4, 0, 0], [1, 12, 4, 0, 0, 0]])
    t = torch.tensor([0.5, 0.25])
    noisy, masked = data.corrupt(plan, t, torch.rand(plan.shape), mask_id=5)
    assert not masked[:, 0].any() and (noisy[masked] == 5).all() and (noisy[~masked] == plan[~masked]).all()
    C = 3
    w = data.loss_weights(masked, t, plan, C, pad_id=0)
    assert (w[:, :C] == 0).all() and (w[:, C:][~masked] == 0).all()
    assert torch.allclose(w[:, C:][masked], (1 / t[:, None] / (plan.shape[1] - 1)).expand_as(masked)[masked])
    logits = torch.randn(2, C + plan.shape[1], 20, requires_grad=True)
    targets = data.full_targets(torch.zeros(2, C, dtype=torch.long), plan)
    data.diffusion_loss(logits, targets, w).backward()
    grad = logits.grad.abs().sum(-1)
    assert (grad[:, :C] == 0).all() and (grad[:, C:][~masked] == 0).all() and (grad[:, C:][masked] > 0).all()
    down = data.loss_weights(masked, t, plan, C, pad_id=0, pad_weight=0.1)
    pads = (plan == 0) & masked
    assert torch.allclose(down[:, C:][pads], 0.1 * w[:, C:][pads]) and torch.equal(down[:, C:][~pads], w[:, C:][~pads])


@pytest.mark.parametrize("condition", ["table", "factored"])
def test_permuting_the_condition_atoms_leaves_the_output_unchanged(condition):
    model = _untrained(condition=condition)
    cond = torch.tensor([[3, 17, 40, 41, 90, 200, 333]])
    plan = torch.tensor([[1] + [5] * WIDTH])
    plan[0, 3] = 9
    with torch.no_grad():
        base = model.net.plan_logits(cond, torch.ones_like(cond, dtype=torch.bool), plan)
        for seed in range(3):
            perm = torch.randperm(cond.shape[1], generator=torch.Generator().manual_seed(seed))
            out = model.net.plan_logits(cond[:, perm], torch.ones_like(cond, dtype=torch.bool), plan)
            assert torch.allclose(base, out, atol=1e-5)
        # the condition matters, its order does not: another atom changes the output
        other = model.net.plan_logits(cond.clone().fill_(3), torch.ones_like(cond, dtype=torch.bool), plan)
    assert not torch.allclose(base, other, atol=1e-5)



def test_a_factored_condition_reads_objects_through_the_plan_vocabulary(files, tmp_path):
    """`condition: factored`: an atom is embedded from its predicate slot and the plan's own object
    embeddings (AtomVocabulary.rows), so changing one object's plan embedding changes exactly the
    atoms that name it; a model so set trains, and its checkpoint loads and plans."""
    model = _untrained(condition="factored")
    atoms, vocab, net = model.atoms, model.vocab, model.net
    assert net.factored and not hasattr(net, "atoms")
    rows = atoms.rows()
    ids = [atoms.id(("at", "o1", "o2")), atoms.id(("at", "o3", "o2")), atoms.id(("at", "o1", "o2"), goal=True)]
    assert [vocab.token(t) for t in rows[ids[0], 1:]] == ["o1", "o2"] and rows[ids[2], 0] != rows[ids[0], 0]
    cond = torch.tensor([ids])
    with torch.no_grad():
        before = net.embed_condition(cond)
        net.core.wte.weight[vocab.id("o1")] += 1.0
        after = net.embed_condition(cond)
    changed = [not torch.allclose(before[0, i], after[0, i]) for i in range(3)]
    assert changed == [True, False, True]
    settings = {**SETTINGS, "condition": "factored", "train": {**SETTINGS["train"], "epochs": 3}}
    ckpt = _train(tmp_path / "model.ckpt", settings, files["ss"], files["train"], files["val"])
    loaded = registry.load_model(ckpt, expect_domain="gripper")
    assert loaded.settings.condition == "factored" and loaded.net.factored
    res = run_cli("solve", "--model", ckpt, DOMAIN, files["problems"][1], "--strategy", "unmask-T4")
    assert "Traceback" not in res.stderr and "genplan: error" not in res.stderr and res.returncode in (0, 1)
    # the default (table) is left out of the stored settings, as before the setting existed; factored is kept
    assert "condition" not in DiffusionSettings.from_entry({}).to_dict()
    assert DiffusionSettings.from_entry(loaded.settings.to_dict()).to_dict() == loaded.settings.to_dict()

def test_fixed_object_embeddings_need_a_factored_condition_and_fix_the_object_rows():
    """`object_embeddings: fixed`: the core's fixed tokens are the vocabulary's object tokens, read by the
    factored condition and the plan alike; with a table condition the setting is refused by name."""
    with pytest.raises(GenplanError, match="object_embeddings: fixed needs condition: factored"):
        DiffusionSettings.from_entry({"object_embeddings": "fixed"})
    torch.manual_seed(0)
    info = parse_domain(DOMAIN)
    vocab = Vocabulary.for_domain(info, 8)
    settings = DiffusionSettings.from_entry({"object_pool": 8, "condition": "factored", "object_embeddings": "fixed",
                                             "network": {"d_model": 32, "n_heads": 4, "n_layers": 2}})
    net = make_denoiser(TransformerConfig(**network_config(vocab, settings)), AtomVocabulary(vocab), settings)
    objects = list(vocab.object_ids())
    assert list(net.core.config.fixed_tokens) == objects and [vocab.token(i) for i in objects][:2] == ["o0", "o1"]
    table = net.core.token_table().detach()
    assert torch.allclose(net.core.embed(torch.tensor(objects)), table[objects])
    assert "object_embeddings" in settings.to_dict() and "object_embeddings" not in DiffusionSettings.from_entry({}).to_dict()


def test_the_schedule_commits_every_position_in_t_steps():
    assert commit_counts(220, 20) == [11] * 20 and commit_counts(10, 4) == [3, 3, 2, 2]
    assert sum(k for _, _, k in schedule(24, 8, blocks=4)) == 24
    assert [lo for lo, _, _ in schedule(24, 8, blocks=4)] == [0, 0, 6, 6, 12, 12, 18, 18]
    with pytest.raises(ValueError):
        schedule(24, 10, blocks=4)


@pytest.mark.parametrize("strategy", ["unmask-T1", "unmask-T7", "unmask-T24", "unmask-T8-B4", "unmask-T12-tau1.0"])
def test_after_t_steps_no_mask_remains_and_committed_tokens_never_change(files, tmp_path, strategy):
    model = _untrained()
    planner = registry.planner(model, strategy)
    planner.trace_path = tmp_path / "trace.json"
    attempt = planner.solve(Problem(DOMAIN, files["problems"][2]))
    steps = json.loads(planner.trace_path.read_text())["steps"]
    T = int(strategy.split("-")[1][1:])
    assert len(steps) == T == attempt.steps and steps[-1]["mask"] == 0 and "<mask>" not in steps[-1]["tokens"]
    counts = [k for _, _, k in schedule(WIDTH, T, planner.blocks)]
    previous = ["<start>"] + ["<mask>"] * WIDTH
    for row, k in zip(steps, counts):
        assert len(row["new"]) == k and row["mask"] == sum(t == "<mask>" for t in row["tokens"][1:])
        for i, (a, b) in enumerate(zip(previous, row["tokens"])):
            assert a == b or (a == "<mask>" and i in row["new"])  # only masked positions change, once
        previous = row["tokens"]
    assert attempt.reason in ("goal", "not_goal", "inapplicable", "malformed", "token_cap")


@pytest.mark.slow
def test_the_applicable_variant_left_to_right_never_commits_an_inapplicable_action(files):
    """One block per position: commits go left to right, every one at the frontier, so the
    filter sees all of them; an untrained network's plan is then always applicable."""
    model = _untrained(seed=3)
    for n in (1, 2):
        attempt = registry.planner(model, f"unmask-T{WIDTH}-B{WIDTH}-applicable").solve(
            Problem(DOMAIN, files["problems"][n]))
        assert attempt.reason in ("goal", "not_goal", "token_cap") and not attempt.counters["prefix_broken"]
        plain = registry.planner(model, f"unmask-T{WIDTH}-B{WIDTH}").solve(Problem(DOMAIN, files["problems"][n]))
        assert plain.reason in ("inapplicable", "malformed", "token_cap", "not_goal", "goal")


def test_a_plan_without_eos_is_reported_as_too_long():
    model = _untrained()
    planner = registry.planner(model, "unmask-T4")
    vocab = model.vocab
    renaming = Renaming.identity_order(["rooma", "roomb", "left", "right", "ball1"], None, vocab, per_type=False)
    tokens = [vocab.id("move"), vocab.id("o2"), vocab.id("o3")] * (WIDTH // 3)
    plan, reason, message = planner._read(tokens, renaming, None)
    assert (plan, reason) == ([], "token_cap") and "does not fit" in message


@pytest.mark.slow
def test_training_skips_and_counts_plans_longer_than_the_window(trained):
    summary = json.loads(trained.with_name("summary.json").read_text())
    assert summary["family"] == "diffusion" and summary["variant"] == "confidence_remask"
    assert not missing_reported(summary)
    assert summary["val_skipped_too_long"] == 1 and summary["val_sequences"] == 1  # the 3-ball plan: 42 tokens
    # 80 sampled states less the goal states (empty plans); every 1- and 2-ball plan fits
    assert 60 < summary["train_sequences"] < 80 and summary["train_skipped_too_long"] == 0
    assert 0 < summary["pad_weight_share"] < 1
    model = registry.load_model(trained, expect_domain="gripper")
    assert (model.family, model.system, model.variant) == ("diffusion", "diffusion", "confidence_remask")
    rows = trained.with_name("training.csv").read_text().splitlines()
    assert rows[0].startswith("epoch,train_loss,val_loss") and float(rows[-1].split(",")[1]) < float(rows[1].split(",")[1])


@pytest.mark.slow
def test_solve_exits_0_only_for_a_val_valid_plan(trained, memorised, files, tmp_path):
    from genplan import val

    # left to right (one block per position) with the applicability filter: the plan of the model that
    # learnt the 1-ball problem (3 actions); the module's model, whose plans depend on the seed and
    # the machine's floating point, is held to the exit-code contract below
    out, trace = tmp_path / "plan", tmp_path / "trace.json"
    res = run_cli("solve", "--model", memorised, DOMAIN, files["problems"][1], "--strategy",
                  f"unmask-T{WIDTH}-B{WIDTH}-applicable", "--out", out, "--trace", trace)
    assert res.returncode == 0, res.stdout + res.stderr[-2000:]
    assert "Plan valid (VAL): 3 actions" in res.stdout and val.validate(DOMAIN, files["problems"][1], out).valid
    assert json.loads(trace.read_text())["steps"][-1]["mask"] == 0
    # the paper's sampler: exit 0 exactly when VAL accepts the plan, a plan file only then
    for n, strategy in itertools.product((1, 2), ("unmask-T20", f"unmask-T{WIDTH}-B{WIDTH}-applicable")):
        out = tmp_path / f"plan{n}-{strategy}"
        res = run_cli("solve", "--model", trained, DOMAIN, files["problems"][n], "--strategy", strategy,
                      "--out", out)
        assert "Traceback" not in res.stderr
        assert (res.returncode == 0) == ("Plan valid (VAL)" in res.stdout) == out.is_file()
        assert res.returncode == 0 or "No plan" in res.stdout + res.stderr
        if out.is_file():
            assert val.validate(DOMAIN, files["problems"][n], out).valid
    # the 3-ball plan needs 42 plan positions, the model has 24: reported, exit 1, no traceback
    res = run_cli("solve", "--model", trained, DOMAIN, files["problems"][3], "--strategy", "unmask-T20",
                  "--out", tmp_path / "p3")
    assert res.returncode == 1 and "No plan" in res.stdout and "Traceback" not in res.stderr
    assert not (tmp_path / "p3").exists()
    res = run_cli("solve", "--model", trained, DOMAIN, files["problems"][9])  # 13 objects, a pool of 8
    assert res.returncode == 1 and "more than the 8 object tokens" in res.stdout
    res = run_cli("solve", "--model", trained, DOMAIN, files["problems"][2], "--strategy", "unmask-T10-B4")
    assert res.returncode == 2 and "cannot be split evenly" in res.stderr  # a bad strategy: usage error


def test_settings_are_checked_and_name_the_variant():
    from genplan.models.diffusion import family

    assert family.identity({"train": {"schedule": "beta"}}) == ("diffusion", "confidence_remask-beta")
    assert family.identity({"train": {"symmetry": "rename-one"}}) == ("diffusion", "confidence_remask-symmetry")
    assert family.check("m", {"train": {"schedule": "cosine"}}) and family.check("m", {"object_pool": {"ball": 3}})
    assert registry.check_models({"d": {"family": "diffusion", "seeds": [1], "strategies": ["greedy"]}})


def test_the_report_builds_its_tables_and_figure_from_the_csvs_and_a_trace(files, tmp_path):
    from genplan.formats import tables
    from genplan.formats.evaluation_csv import COLUMNS
    from genplan.paths import Layout
    from genplan.report import build_report
    from genplan.report.registry import outputs

    lay = Layout(str(tmp_path))

    def write(model, variant, strategy, seed, solved, time="0.5"):
        rows = [{c: "" for c in COLUMNS} | {
            "benchmark": "paper", "domain": "blocks", "split": "interpolation", "system": "diffusion",
            "variant": variant, "model": model, "seed": seed, "strategy": strategy, "problem": f"p{i}",
            "solved": "yes" if ok else "no", "quality": "0.5000" if ok else "", "time": time, "counters": "{}"}
            for i, ok in enumerate(solved)]
        tables.write_csv(lay.evaluation("paper", "blocks", model, seed, "interpolation", strategy), rows, COLUMNS)

    write("diffusion", "confidence_remask", "unmask-T20", 13, [True, True, False, False])
    write("diffusion", "confidence_remask", "unmask-T20", 14, [True, False, False, False])
    write("diffusion", "confidence_remask", "unmask-T5", 13, [False] * 4, time="0.1")
    write("diffusion_beta", "confidence_remask-beta", "unmask-T5", 13, [True] * 4, time="0.1")
    planner = registry.planner(_untrained(), "unmask-T20")
    planner.trace_path = tmp_path / "traces/paper/blocks/diffusion/seed13/p0.unmask-T20.json"
    planner.solve(Problem(DOMAIN, files["problems"][1]))
    build_report("diffusion", tmp_path, tmp_path, None)
    assert all(Path(f).is_file() for f in outputs("diffusion", str(tmp_path)))
    rows = tables.read_csv(tmp_path / "tables/diffusion-table1.csv")
    cov = next(r for r in rows if r["variant"] == "confidence_remask" and r["strategy"] == "unmask-T20"
               and r["metric"] == "coverage" and r["split"] == "interpolation" and r["domain"] == "blocks")
    assert (cov["ours_mean"], cov["ours_std"], cov["n_seeds"], cov["published_mean"]) == ("0.3750", "0.1250", "2", "0.56")
    qual = next(r for r in rows if r["strategy"] == "unmask-T20" and r["metric"] == "quality" and r["split"] == "interpolation"
                and r["domain"] == "blocks")
    assert qual["ours_mean"] == "0.1875"  # 0.5 per solved problem, unsolved count 0
    fig = tables.read_csv(tmp_path / "tables/diffusion-figure4.csv")
    assert [(r["variant"], r["steps"], r["coverage_mean"]) for r in fig] == [
        ("confidence_remask", "5", "0.0000"), ("confidence_remask", "20", "0.3750"), ("confidence_remask-beta", "5", "1.0000")]
    table2 = (tmp_path / "tables/diffusion-table2.md").read_text()
    assert "| 20 |" in table2 and "p0" not in table2.split("\n")[0] and "| 0 |" in table2


@pytest.mark.slow
def test_the_beta_schedule_masks_more_and_the_symmetric_losses_train(files, tmp_path):
    gen = torch.Generator().manual_seed(0)
    uniform = data.sample_rates(4000, gen, "uniform", 1e-3)
    beta = data.sample_rates(4000, gen, "beta", 1e-3, (2.0, 1.0))
    assert uniform.min() >= 1e-3 and beta.min() >= 1e-3 and beta.max() <= 1
    assert abs(float(uniform.mean()) - 0.5) < 0.03 and abs(float(beta.mean()) - 2 / 3) < 0.03
    settings = {**SETTINGS, "rename": "random", "network": {**SETTINGS["network"], "share_weights": True},
                "train": {**SETTINGS["train"], "epochs": 2, "symmetry": "rename-one", "schedule": "beta"}}
    out = tmp_path / "sym.ckpt"
    res = run_cli("train", "--model", "sym", "--settings", json.dumps(settings), "--domain", "gripper",
                  "--train", files["ss"], files["train"], "--validation", files["val"], "--seed", "1", "--out", out,
                  "--log", tmp_path / "sym.csv", "--summary", tmp_path / "sym.json")
    assert res.returncode == 0, res.stderr[-2000:]
    header, *rows = (tmp_path / "sym.csv").read_text().splitlines()
    assert header.split(",")[-3:] == ["l_att", "l_hid", "l_pred"] and len(rows) == 2
    assert all(float(v) > 0 for v in rows[0].split(",")[-3:])  # the copies differ: both contrastive terms bite
    assert registry.load_model(out).variant == "confidence_remask-beta-symmetry"


@pytest.mark.slow
def test_the_overfit_benchmarks_probe_reads_the_plan_and_scores_the_masked_predictions(memorised, files, tmp_path):
    """experiments/diffusion_overfit.py's predictions.txt (cited by experiments/sequence-recipe.md): per training
    problem the plan's tokens in pool-order names, the t = 1 answer, and the positions right; the
    memorised 1-ball model gets its own plan right when one position at a time is masked."""
    import re
    import sys

    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "experiments"))
    try:
        import diffusion_overfit
    finally:
        sys.path.pop(0)
    split = write_split(tmp_path / "one.json.gz", [files["records"][1]])
    lines = diffusion_overfit.probe(Path(memorised), split)
    assert len(lines) == 3 and all(line.startswith(files["records"][1]["problem"] + ":") for line in lines)
    plan = lines[0].split("plan", 1)[1].split()
    # objects in pool order: ball1 o0, then the grippers and rooms (left o1, right o2, rooma o3, roomb o4)
    assert plan == ["pick", "o0", "o3", "o1", "move", "o3", "o4", "drop", "o0", "o4", "o1", "<end>"]
    answer = lines[1].split("t = 1", 1)[1].split()
    all_right, n, one_right, n2 = map(int, re.search(r"all masked right (\d+)/(\d+), one masked right (\d+)/(\d+)",
                                                     lines[2]).groups())
    assert n == n2 == len(plan) == len(answer) and all_right == sum(a == p for a, p in zip(answer, plan))
    assert one_right >= n // 2
