"""The Plansformer baseline (genplan.models.plansformer, `genplan plansformer`): its prompt in the
published format, its answer read as a plan and VAL-checked, and the one command run on a tiny,
randomly initialised T5 saved as a Hugging Face folder of the real checkpoint's layout (config.json,
weights, vocab.json and merges.txt of a byte-level BPE, tokenizer_config.json naming
RobertaTokenizer), since the authors' weights cannot be fetched here. Random weights plan nothing:
the command is checked for its rows, VAL's verdict on each, and the stored plans."""

import csv
import gzip
import json
from pathlib import Path

import pytest

from genplan import cli, registry, val
from genplan.domains import domain_file
from genplan.formats import manifest
from genplan.formats.evaluation_csv import COLUMNS
from genplan.formats.plans_table import COLUMNS as PLAN_COLUMNS
from genplan.formats.tables import write_csv
from genplan.models.plansformer import family
from genplan.models.plansformer.prompt import prompt, read_plan_text
from genplan.planners.base import Problem

BLOCKS = domain_file("blocks")
TWO = """(define (problem two) (:domain blocks) (:objects b1 b2)
(:init (handempty) (ontable b1) (on b2 b1) (clear b2))
(:goal (and (ontable b1) (clear b1) (ontable b2) (clear b2))))
"""
THREE = """(define (problem three) (:domain blocks) (:objects b1 b2 b3)
(:init (handempty) (ontable b1) (ontable b2) (ontable b3) (clear b1) (clear b2) (clear b3))
(:goal (and (on b1 b2) (on b2 b3))))
"""
SPECIAL = ("<pad>", "<s>", "</s>", "<unk>", "<mask>")
# the prompt of TWO as the authors' generate_prompt_function.py writes it (its run on the same files)
PUBLISHED_PROMPT = (
    "<GOAL> ontable b1, clear b1, ontable b2, clear b2 <INIT> handempty, ontable b1, on b2 b1, clear b2 "
    "<ACTION> pick-up <PRE> clear x, ontable x, handempty <EFFECT> not ontable x, not clear x, not handempty, "
    "holding x <ACTION> put-down <PRE> holding x <EFFECT> not holding x, clear x, handempty, ontable x "
    "<ACTION> stack <PRE> holding x, clear y <EFFECT> not holding x, not clear y, clear x, handempty, on x y "
    "<ACTION> unstack <PRE> on x y, clear x, handempty <EFFECT> holding x, clear y, not clear x, not handempty, "
    "not on x y")


@pytest.fixture(scope="module")
def bench(tmp_path_factory):
    """Two Blocksworld problems of split validation laid out as results/problems/paper/blocks, and
    the split's plans table."""
    tmp = tmp_path_factory.mktemp("bench")
    root = tmp / "problems" / "paper" / "blocks"
    (root / "validation").mkdir(parents=True)
    (root / "domain.pddl").write_text(BLOCKS.read_text())
    rows = []
    for name, text, n in (("two", TWO, 2), ("three", THREE, 3)):
        (root / "validation" / f"{name}.pddl").write_text(text)
        rows.append({"problem": name, "split": "validation", "file": f"validation/{name}.pddl", "size": n,
                     "num_objects": n, "seed": 0, "canonical": ""})
    (root / "manifest.csv").write_text(manifest.to_csv(rows))
    table = tmp / "plans" / "validation.csv"
    write_csv(table, [{"problem": "two", "config": "astar_lmcut", "status": "optimal", "plan_length": 2, "valid": "yes"},
                      {"problem": "three", "config": "astar_lmcut", "status": "optimal", "plan_length": 4,
                       "valid": "yes"}], list(PLAN_COLUMNS))
    return root, table


def _legacy_token(content: str) -> dict:
    """A special token as transformers 4.21 wrote it into tokenizer_config.json (the authors' files)."""
    return {"__type": "AddedToken", "content": content, "lstrip": content == "<mask>", "normalized": True,
            "rstrip": False, "single_word": False}


@pytest.fixture(scope="module")
def checkpoint(tmp_path_factory, bench):
    """A CodeT5-shaped checkpoint folder, tiny and random, in the layout of the authors' release:
    T5ForConditionalGeneration (2 + 2 layers, d_model 32, ReLU feed-forward as CodeT5-base) and a
    byte-level BPE trained on the problems' prompts (vocab.json, merges.txt, CodeT5's special-token
    ids), with tokenizer_config.json and special_tokens_map.json in transformers 4.21's format (special
    tokens as `AddedToken` objects, sentinels among them), as the release has them."""
    import torch
    from tokenizers import ByteLevelBPETokenizer
    from transformers import T5Config, T5ForConditionalGeneration

    root, _ = bench
    folder = tmp_path_factory.mktemp("plansformer")
    texts = [prompt(root / "domain.pddl", p) for p in sorted((root / "validation").glob("*.pddl"))]
    bpe = ByteLevelBPETokenizer()
    bpe.train_from_iterator(texts + ["plan: unstack b2 b1, put-down b2"], vocab_size=400, min_frequency=1,
                            special_tokens=[*SPECIAL, "<extra_id_0>", "<extra_id_1>"])  # CodeT5's ids 0-4 first
    bpe.save_model(str(folder))
    legacy = {name: _legacy_token(content) for name, content in (("bos_token", "<s>"), ("eos_token", "</s>"),
              ("unk_token", "<unk>"), ("pad_token", "<pad>"), ("mask_token", "<mask>"))}
    (folder / "tokenizer_config.json").write_text(json.dumps({"tokenizer_class": "RobertaTokenizer",
                                                              "model_max_length": 512, "errors": "replace",
                                                              "add_prefix_space": False, **legacy}))
    # CodeT5's sentinels as the release lists them: token objects without "__type"
    extra = [{k: v for k, v in _legacy_token(f"<extra_id_{i}>").items() if k != "__type"} for i in (1, 0)]
    (folder / "special_tokens_map.json").write_text(json.dumps({**legacy, "additional_special_tokens": extra}))
    torch.manual_seed(0)
    config = T5Config(vocab_size=bpe.get_vocab_size(), d_model=32, d_ff=64, d_kv=8, num_layers=2,
                      num_decoder_layers=2, num_heads=2, feed_forward_proj="relu", pad_token_id=0, bos_token_id=1,
                      eos_token_id=2, decoder_start_token_id=0)
    T5ForConditionalGeneration(config).save_pretrained(folder)
    return folder


def test_the_release_layout_loads_with_codet5s_tokens(checkpoint, bench, caplog):
    from tokenizers import ByteLevelBPETokenizer

    root, _ = bench
    with caplog.at_level("INFO", logger="genplan"):
        model = family.load_checkpoint(checkpoint, device="cpu")
    # transformers 5 cannot read the release's special_tokens_map.json: the BPE files are read instead
    assert "reading vocab.json and merges.txt as CodeT5's RobertaTokenizer" in caplog.text
    tok = model.tokenizer
    assert [tok.convert_tokens_to_ids(t) for t in SPECIAL] == [0, 1, 2, 3, 4]
    text = prompt(root / "domain.pddl", root / "validation" / "two.pddl")
    plain = ByteLevelBPETokenizer(str(checkpoint / "vocab.json"), str(checkpoint / "merges.txt")).encode(text).ids
    assert tok(text).input_ids == [1, *plain, 2]  # <s> prompt </s>, as the fine-tuning encoded it
    assert model.network.config.model_type == "t5" and not model.network.training


def test_prompt_is_the_published_format(tmp_path):
    problem = tmp_path / "two.pddl"
    problem.write_text(TWO)
    assert prompt(BLOCKS, problem) == PUBLISHED_PROMPT


def test_answers_in_the_published_format_are_read_as_plans():
    assert read_plan_text("plan: unstack b2 b1, put-down b2") == [("unstack", "b2", "b1"), ("put-down", "b2")]
    assert read_plan_text("(unstack b2 b1)\n(put-down b2)\n") == [("unstack", "b2", "b1"), ("put-down", "b2")]
    assert read_plan_text("") == [] and read_plan_text("plan:") == []
    with pytest.raises(ValueError):
        read_plan_text("plan: unstack (b2 b1")


def test_a_correct_answer_is_a_goal_and_val_accepts_its_plan(bench, tmp_path):
    root, _ = bench
    problem = Problem(root / "domain.pddl", root / "validation" / "two.pddl")
    plan, reason = family.read_answer("plan: unstack b2 b1, put-down b2", problem)
    assert reason == "goal" and plan == [("unstack", "b2", "b1"), ("put-down", "b2")]
    path = tmp_path / "plan"
    path.write_text("".join(f"({' '.join(a)})\n" for a in plan))
    assert val.validate(problem.domain_file, problem.problem_file, path).valid
    assert family.read_answer("plan: put-down b2", problem) == ([("put-down", "b2")], "inapplicable")
    assert family.read_answer("plan: unstack b2", problem) == ([], "malformed")  # wrong arity
    assert family.read_answer("plan: fly b1 b2", problem) == ([], "malformed")  # no such action
    assert family.read_answer("plan: unstack b2 b1", problem)[1] == "not_goal"


def test_the_command_fills_the_plansformer_rows_with_val_checked_plans(bench, checkpoint, tmp_path):
    root, table = bench
    out = tmp_path / "evaluation" / "paper" / "blocks" / "plansformer" / "seed0" / "validation.multibeam2.csv"
    status = cli.main(["plansformer", "--checkpoint", str(checkpoint), "--benchmark-dir", str(root), "--split",
                       "validation", "--plans-table", str(table), "--max-length", "24", "--device", "cpu",
                       "--out", str(out)])
    assert status == 0 and "plansformer" not in registry.FAMILIES  # registered while it evaluated only
    with open(out, newline="") as fh:
        reader = csv.DictReader(fh)
        assert reader.fieldnames == COLUMNS
        rows = list(reader)
    assert [r["problem"] for r in rows] == ["two", "three"]
    for r in rows:
        assert (r["benchmark"], r["domain"], r["split"], r["system"], r["variant"], r["model"], r["seed"],
                r["strategy"]) == ("paper", "blocks", "validation", "plansformer", "pretrained", "plansformer", "0",
                                   "multibeam2")
        # random weights: no plan; the reason is recorded and VAL ran on what was returned
        assert r["solved"] == "no" and r["reason"] in ("malformed", "inapplicable", "not_goal", "token_cap")
        assert r["val"] and r["val"] != "valid" and int(r["horizon"]) == 24
        counters = json.loads(r["counters"])
        assert counters["prompt_tokens"] > 0 and counters["truncated"] == 0
        assert 0 < int(r["model_calls"]) <= 23  # generated tokens, within --max-length
    plans = json.loads(gzip.decompress(out.with_name("validation.multibeam2.plans.json.gz").read_bytes()))
    assert sorted(plans["problems"]) == ["three", "two"]
    assert all(isinstance(p["plan"], list) for p in plans["problems"].values())  # what VAL checked, stored
    assert all("answer" in json.loads(r["counters"]) for r in rows)  # what the model wrote, for a reader
    # the stored plans are rechecked by VAL and agree with the rows
    assert cli.main(["validate", "--evaluation", str(out), "--problems", str(root)]) == 0


def test_greedy_and_a_cut_prompt(bench, checkpoint, tmp_path):
    root, table = bench
    out = tmp_path / "validation.greedy.csv"
    status = cli.main(["plansformer", "--checkpoint", str(checkpoint), "--benchmark-dir", str(root), "--split",
                       "validation", "--plans-table", str(table), "--strategy", "greedy", "--device", "cpu",
                       "--settings", json.dumps({"max_length": 8, "max_source_tokens": 16}), "--out", str(out)])
    assert status == 0
    with open(out, newline="") as fh:
        rows = list(csv.DictReader(fh))
    assert {r["strategy"] for r in rows} == {"greedy"}
    assert all(json.loads(r["counters"])["prompt_tokens"] == 16 for r in rows)
    assert all(json.loads(r["counters"])["truncated"] == 1 for r in rows)


def _bad_folders(tmp: Path, good: Path) -> dict[str, tuple[Path, str]]:
    """Checkpoint folders that are not Plansformer checkpoints, and what the error must say."""
    file = tmp / "model.bin"
    file.write_text("x")
    empty = tmp / "empty"
    empty.mkdir()
    gpt2 = tmp / "gpt2"
    gpt2.mkdir()
    (gpt2 / "config.json").write_text(json.dumps({"model_type": "gpt2"}))
    no_tok = tmp / "no_tokenizer"
    no_tok.mkdir()
    for name in ("config.json", "model.safetensors"):
        (no_tok / name).write_bytes((good / name).read_bytes())
    no_weights = tmp / "no_weights"
    no_weights.mkdir()
    for name in ("config.json", "vocab.json", "merges.txt"):
        (no_weights / name).write_bytes((good / name).read_bytes())
    return {"missing": (tmp / "nowhere", "checkpoint folder not found"), "file": (file, "not a folder"),
            "no config": (empty, "no config.json"), "not t5": (gpt2, "not a CodeT5 (T5) checkpoint"),
            "no tokenizer": (no_tok, "no tokenizer"), "no weights": (no_weights, "no weights")}


@pytest.mark.parametrize("case", ["missing", "file", "no config", "not t5", "no tokenizer", "no weights"])
def test_a_folder_that_is_no_checkpoint_is_named(case, bench, checkpoint, tmp_path, capsys):
    root, table = bench
    folder, message = _bad_folders(tmp_path, checkpoint)[case]
    out = tmp_path / "out.csv"
    status = cli.main(["plansformer", "--checkpoint", str(folder), "--benchmark-dir", str(root), "--split",
                       "validation", "--plans-table", str(table), "--out", str(out)])
    err = capsys.readouterr().err
    assert status == 1 and str(folder) in err and message in err, err
    assert not out.exists()


def test_a_strategy_it_does_not_plan_with_is_refused(bench, checkpoint, tmp_path, capsys):
    root, table = bench
    status = cli.main(["plansformer", "--checkpoint", str(checkpoint), "--benchmark-dir", str(root), "--split",
                       "validation", "--plans-table", str(table), "--strategy", "greedy-applicable",
                       "--out", str(tmp_path / "out.csv")])
    assert status == 2 and "greedy or multibeamN" in capsys.readouterr().err
