"""PlanGPT end to end on tiny Gripper data: training (CE) through `genplan train`, the checkpoint
through the registry, every decoding strategy through `genplan solve` with VAL, the object-pool
refusal, the generation cap, and the applicability filter."""

from __future__ import annotations

import json

import pytest
from conftest import run_cli
from test_features import DOMAIN, gripper_data  # noqa: F401  (fixture)
from transition_doubles import gripper_problem

from genplan import registry
from genplan.planners.base import Problem
from genplan.planners.solve import solve_and_validate
from genplan.report.collect import missing_reported

SETTINGS = {"family": "plangpt", "data": "plangpt", "object_pool": 12, "max_tokens": 500, "rename": "sorted",
            "network": {"d_model": 48, "n_heads": 2, "n_layers": 2, "max_len": 256},
            "train": {"epochs": 80, "batch_size": 8, "lr": 0.003, "warmup_steps": 10, "stop": "ce", "patience": None}}
STRATEGIES = ["greedy", "greedy-applicable", "greedy-reground", "multibeam3", "multibeam3-anyvalid", "topp0.9x3",
              "prefix40-greedy"]


@pytest.fixture(scope="module")
def plangpt(gripper_data, tmp_path_factory):  # noqa: F811
    out = tmp_path_factory.mktemp("plangpt") / "model.ckpt"
    # validated on its training problems: three problems teach nothing that transfers, and the test
    # is of the machinery (every strategy, VAL, caps), not of generalisation
    res = run_cli("train", "--model", "tiny_plangpt", "--settings", json.dumps(SETTINGS), "--domain", "gripper",
                  "--train", gripper_data["train"], "--validation", gripper_data["train"], "--seed", "13",
                  "--out", out, "--log", out.with_name("training.csv"), "--summary", out.with_name("summary.json"))
    assert res.returncode == 0, res.stderr[-3000:]
    return out


@pytest.mark.slow
def test_training_writes_a_self_describing_checkpoint(plangpt):
    summary = json.loads(plangpt.with_name("summary.json").read_text())
    assert summary["family"] == "plangpt" and summary["protocol"] == "plangpt" and summary["parameters"] > 10000
    assert not missing_reported(summary)
    assert summary["train_sequences"] == 3 + 5 + 9  # every suffix of the 1-, 2- and 3-ball plans
    rows = plangpt.with_name("training.csv").read_text().splitlines()
    assert rows[0] == "epoch,train_loss,val_loss,val_coverage,lr,seconds" and len(rows) == 81
    first, last = (float(r.split(",")[1]) for r in (rows[1], rows[-1]))
    assert last < first / 3  # the loss falls
    model = registry.load_model(plangpt, expect_domain="gripper")
    assert (model.family, model.system, model.variant, model.name) == ("plangpt", "plangpt", "ce", "tiny_plangpt")


@pytest.mark.slow
@pytest.mark.parametrize("strategy", STRATEGIES)
def test_every_strategy_plans_a_training_problem_and_val_has_the_last_word(plangpt, gripper_data, tmp_path,  # noqa: F811
                                                                           strategy):
    out = tmp_path / "plan"
    reference = tmp_path / "reference.plan"  # the 2-ball plan, for plan completion
    reference.write_text("".join(f"{a}\n" for a in gripper_data["records"][2]["actions"]))
    res = run_cli("solve", "--model", plangpt, DOMAIN, gripper_data["files"][2], "--strategy", strategy, "--out", out,
                  "--reference-plan", reference)
    assert res.returncode == 0, res.stdout + res.stderr[-2000:]
    assert "Plan valid (VAL): 5 actions" in res.stdout and out.is_file()


@pytest.mark.slow
def test_more_objects_than_the_pool_is_refused(plangpt, tmp_path):
    big = gripper_problem(tmp_path / "g12.pddl", DOMAIN, 12)  # 12 balls + 2 rooms + 2 grippers > 12 tokens
    res = run_cli("solve", "--model", plangpt, DOMAIN, big, "--out", tmp_path / "plan")
    assert res.returncode == 1 and "more than the 12 object tokens" in res.stdout
    res = run_cli("solve", "--model", plangpt, DOMAIN.with_name("blocks.pddl"), big)
    assert res.returncode == 1 and "not 'blocks'" in res.stderr


@pytest.mark.slow
def test_the_token_cap_stops_generation(plangpt, gripper_data):  # noqa: F811
    model = registry.load_model(plangpt)
    attempt = registry.planner(model, "greedy", {"generate": {"max_tokens": 7}}).solve(
        Problem(DOMAIN, gripper_data["files"][3]))
    assert attempt.tokens_generated == 7 and attempt.reason == "token_cap" and len(attempt.plan) <= 2


def test_the_applicability_filter_never_emits_an_inapplicable_action(gripper_data, tmp_path):  # noqa: F811
    """An untrained network: whatever it prefers, the filter of greedy-applicable and of regrounding keeps
    every action applicable."""
    import numpy as np
    import torch

    from genplan.datasets.domain_text import domain_of_text
    from genplan.models.plangpt.model import PlanGPT, PlanGPTSettings
    from genplan.nn.transformer import Transformer, TransformerConfig
    from genplan.tokens.vocab import Vocabulary

    info = domain_of_text(DOMAIN.read_text())
    vocab = Vocabulary.for_domain(info, 12)
    torch.manual_seed(3)
    net = Transformer(TransformerConfig(vocab_size=len(vocab), max_len=256, d_model=32, n_heads=2, n_layers=1))
    model = PlanGPT({"name": "random", "domain": "gripper", "seed": 3}, vocab, net.eval(), PlanGPTSettings(), info)
    for seed in range(3):
        torch.manual_seed(seed)
        for p in net.parameters():
            p.data.normal_(0, 1.0)
        for strategy in ("greedy-applicable", "greedy-reground"):  # SymT's regrounding filters too
            attempt = registry.planner(model, strategy).solve(Problem(DOMAIN, gripper_data["files"][3]))
            assert attempt.reason in ("goal", "not_goal", "token_cap"), (strategy, attempt.reason)
            if strategy == "greedy-reground":  # one prompt per action: every action generated was applied
                assert attempt.steps == len(attempt.plan) and attempt.model_calls >= len(attempt.plan)
        free = registry.planner(model, "greedy").solve(Problem(DOMAIN, gripper_data["files"][3]))
        assert free.reason in ("goal", "not_goal", "token_cap", "inapplicable", "malformed")
    assert np.isfinite(sum(p.sum().item() for p in net.parameters()))


class _Scripted:
    """A stand-in network for the decoding logic only (no training, no planning claim): at every step it
    prefers the next token of a fixed script, through the model interface SymT^ED uses (prompt, start,
    step), so that what the strategies do with a model's preferences can be checked token by token."""

    def __init__(self, vocab, info, script: list[str]):
        import torch

        from genplan.models.plangpt.model import PlanGPTSettings

        self.vocab, self.domain_info, self.settings = vocab, info, PlanGPTSettings()
        self.net, self.context, self.script = torch.nn.Linear(1, 1), 512, script
        self.family = "plangpt"

    def prompt(self, state, goal, statics, renaming):
        self.renaming = renaming
        return [self.vocab.id("<action>")]

    def _logits(self, n: int):
        import torch

        row = torch.zeros(1, len(self.vocab))
        tok = self.script[n] if n < len(self.script) else "<end>"
        row[0, self.vocab.id(self.renaming.forward.get(tok, tok))] = 10.0
        return row

    def start(self, prompt, device):
        return self._logits(0), 1

    def step(self, tokens, cache, device):
        return self._logits(cache), cache + 1


def test_applicability_filtered_generation_stops_at_the_goal(gripper_data):  # noqa: F811
    """SymT: "Plan generation stops when the simulated state satisfies the goal". A network that would go
    on after the goal (picking a ball up again) gets the plan up to the goal with greedy-applicable; plain
    greedy reads on to its `<end>` and misses the goal."""
    from test_features import gripper_plan

    from genplan.datasets.domain_text import domain_of_text
    from genplan.tokens.vocab import Vocabulary

    info = domain_of_text(DOMAIN.read_text())
    vocab = Vocabulary.for_domain(info, 12)
    plan = gripper_plan(["ball1", "ball2"])
    script = [t for action in plan + [("pick", "ball1", "roomb", "left")] for t in action]
    model = _Scripted(vocab, info, script)
    filtered = registry.planner(model, "greedy-applicable").solve(Problem(DOMAIN, gripper_data["files"][2]))
    assert filtered.reason == "goal" and filtered.plan == [tuple(a) for a in plan]
    free = registry.planner(model, "greedy").solve(Problem(DOMAIN, gripper_data["files"][2]))
    assert free.reason == "not_goal" and len(free.plan) == len(plan) + 1


def test_applicability_filtered_generation_never_ends_short_of_the_goal(gripper_data):  # noqa: F811
    """SymT's filter considers "only tokens leading to an applicable action": `<end>` leads to none, so a
    network that would end after one action goes on (among the applicable actions) until the goal or the
    token cap, with greedy-applicable and with regrounding; plain greedy ends where the network does."""
    from test_features import gripper_plan

    from genplan.datasets.domain_text import domain_of_text
    from genplan.tokens.vocab import Vocabulary

    info = domain_of_text(DOMAIN.read_text())
    vocab = Vocabulary.for_domain(info, 12)
    first = gripper_plan(["ball1", "ball2"])[0]
    model = _Scripted(vocab, info, list(first))  # then `<end>` preferred at every step
    problem = Problem(DOMAIN, gripper_data["files"][2])
    for strategy in ("greedy-applicable", "greedy-reground"):
        attempt = registry.planner(model, strategy).solve(problem)
        assert attempt.reason in ("goal", "token_cap") and len(attempt.plan) > 1, (strategy, attempt.reason)
        assert attempt.plan[0] == tuple(first)
    free = registry.planner(model, "greedy").solve(problem)
    assert free.reason == "not_goal" and free.plan == [tuple(first)]


def test_a_planner_evaluates_a_model_in_memory_for_ces(plangpt, gripper_data):  # noqa: F811
    from genplan.models.plangpt.train import _coverage

    model = registry.load_model(plangpt)
    problems = [Problem(DOMAIN, gripper_data["files"][n]) for n in (1, 2)]
    assert _coverage(model, problems) == 1.0
    assert all(solve_and_validate(registry.planner(model, "greedy"), p).solved for p in problems)


def test_a_prefix_that_overruns_the_context_is_refused(gripper_data):  # noqa: F811
    """Plan completion appends the given prefix to the prompt: past the context it is refused,
    never a crash."""
    import torch

    from genplan.datasets.domain_text import domain_of_text
    from genplan.models.plangpt.model import PlanGPT, PlanGPTSettings
    from genplan.nn.transformer import Transformer, TransformerConfig
    from genplan.pddl_io import str_to_atom
    from genplan.tokens.vocab import Vocabulary

    info = domain_of_text(DOMAIN.read_text())
    vocab = Vocabulary.for_domain(info, 12)
    problem_file = gripper_data["files"][3]
    plan = [str_to_atom(a) for a in gripper_data["records"][3]["actions"]]
    torch.manual_seed(0)
    for max_len, refused in ((48, True), (256, False)):
        net = Transformer(TransformerConfig(vocab_size=len(vocab), max_len=max_len, d_model=16, n_heads=2, n_layers=1))
        model = PlanGPT({"name": "r", "domain": "gripper", "seed": 0}, vocab, net.eval(), PlanGPTSettings(), info)
        attempt = registry.planner(model, "prefix80-greedy").solve(Problem(DOMAIN, problem_file, plan))
        assert (attempt.reason == "refused") == refused, attempt
        if not refused:
            assert attempt.plan[:7] == plan[:7]  # the given 80 % of the 9-step plan, then the model's


@pytest.mark.parametrize("rename, same", [("once", True), ("random", False)])
def test_names_drawn_once_stay_the_same_every_epoch_and_random_ones_change(plangpt, gripper_data, rename, same):  # noqa: F811
    """`rename: once` (PlanGPT's dataset: each problem's names randomised once) gives every epoch the same
    sequences; `random` renames afresh each epoch."""
    import dataclasses

    import torch

    from genplan.datasets.examples import trajectory_cases
    from genplan.formats.trajectories import load
    from genplan.models.plangpt.train import _batches

    model = registry.load_model(plangpt, expect_domain="gripper")
    model.settings = dataclasses.replace(model.settings, rename=rename)
    cases = trajectory_cases(load(gripper_data["train"]))
    gen = torch.Generator().manual_seed(0)
    def epoch():  # every sequence of the epoch without its padding, in one order
        rows = [torch.cat([x[:, :1], y], 1) for x, y, *_ in _batches(model, cases)(gen)]  # the whole sequences
        return sorted(r[r != model.vocab.pad_id].tolist() for batch in rows for r in batch)

    epochs = [epoch(), epoch()]
    assert (epochs[0] == epochs[1]) is same


def test_length_grouped_batches_hold_the_same_examples_with_less_padding():
    """`train.length_window` (a throughput setting, experiments/sequence-recipe.md p5): the epoch's examples
    unchanged, each batch cut from a run of sequences sorted by length, the batches shuffled; stored in
    the settings only where set."""
    import random

    from genplan.models.plangpt.data import length_grouped
    from genplan.models.plangpt.model import PlanGPTSettings

    rng = random.Random(0)
    lengths = [rng.randint(10, 200) for _ in range(1000)]
    order = list(range(1000))
    rng.shuffle(order)

    def padded(o):  # tokens computed with each batch padded to its longest sequence
        return sum(max(lengths[r] for r in o[i:i + 32]) * len(o[i:i + 32]) for i in range(0, len(o), 32))

    grouped = length_grouped(order, lengths, 32, 5, lambda n: list(reversed(range(n))))
    assert sorted(grouped) == list(range(1000))
    assert padded(grouped) < 0.8 * padded(order)
    first = grouped[-32:]  # the reversed shuffle puts the first run's first batch last
    assert [lengths[r] for r in first] == sorted(lengths[r] for r in order[:160])[:32]
    assert length_grouped(order, lengths, 32, 5, lambda n: list(range(n))) != grouped
    assert "length_window" not in PlanGPTSettings.from_entry({}).to_dict()["train"]
    assert PlanGPTSettings.from_entry({"train": {"length_window": 20}}).to_dict()["train"]["length_window"] == 20


@pytest.mark.slow
def test_plangpt_plans_under_named_renamings_and_a_renaming_ensemble(plangpt, gripper_data, monkeypatch):  # noqa: F811
    """`names` (planning only): one random renaming, or K at once for the greedy strategies; one naming
    twice decodes as that naming alone, with two model calls a token."""
    from genplan.tokens.renaming import Renaming

    model = registry.load_model(plangpt)
    problem = Problem(DOMAIN, gripper_data["files"][2])
    single = registry.planner(model, "greedy", {}).solve(problem)
    pool = Renaming.identity_order(problem.task.objects, None, model.vocab)
    monkeypatch.setattr(Renaming, "at_evaluation", classmethod(lambda cls, *a, **k: [pool, pool]))
    twice = registry.planner(model, "greedy", {"names": {"order": "random", "samples": 2}}).solve(problem)
    monkeypatch.undo()
    assert (twice.plan, twice.reason) == (single.plan, single.reason) and single.reason == "goal"
    assert twice.model_calls == 2 * single.model_calls
    entry = {"family": "plangpt", "seeds": [1], "names": {"order": "random", "samples": 4}}
    assert registry.check_models({"m": {**entry, "strategies": ["greedy", "greedy-reground"]}}) == []
    assert any("renaming ensemble" in p for p in registry.check_models({"m": {**entry, "strategies": ["topp0.9x3"]}}))
