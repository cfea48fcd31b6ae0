"""A model file is untrusted input: the torch-free reader (genplan.checkpoint_numpy) checks every
tensor's layout against its storage record before building an array, as torch.load(weights_only=True)
does, refuses non-finite weights, and every fault of either reader is one line, "corrupt or not a
genplan checkpoint", naming the file. The crafted files of an outside attack (a tensor 4000 times
its record, a stride of 2^40 and a negative stride, each a segfault of `genplan solve`; a record 16
bytes short of its tensor, read silently from beyond the buffer; a text file, a 20-frame traceback;
NaN weights, used as a heuristic) through `genplan solve`, and torch's own loader as the oracle of
which layouts are sound on a few hundred random ones."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest
from checkpoint_craft import WEIGHTS, Tensor, envelope, heuristic_file, write
from conftest import REPO

from genplan import checkpoint, checkpoint_numpy
from genplan.errors import GenplanError

DOMAIN = REPO / "src/genplan/domains/blocks.pddl"
PROBLEM = """(define (problem p) (:domain blocks) (:objects a b)
 (:init (clear a) (ontable a) (clear b) (ontable b) (handempty)) (:goal (on a b)))
"""

ATTACKS = {
    "size 4000x": dict(tensor=Tensor("0", 0, (16000,), (1,), 4)),
    "stride 2^40": dict(tensor=Tensor("0", 0, (4,), (2**40,), 4)),
    "negative stride": dict(tensor=Tensor("0", 3, (4,), (-1,), 4)),
    "record 16 bytes short": dict(data=WEIGHTS.tobytes()[:-16]),
    "NaN weights": dict(data=np.array([0.0, np.nan, 1.0, 2.0]).tobytes()),
    "infinite weights": dict(data=np.array([0.0, 1.0, -np.inf, 2.0]).tobytes()),
}


def _model(tmp_path, case: str):
    if case == "text file":
        path = tmp_path / "model.ckpt"
        path.write_text("this is a text file, not a model\n" * 20)
        return path
    return heuristic_file(tmp_path / "model.ckpt", **ATTACKS[case])


@pytest.mark.parametrize("case", [*ATTACKS, "text file"])
def test_a_crafted_model_is_one_line_from_genplan_solve(tmp_path, case):
    model = _model(tmp_path, case)
    problem = tmp_path / "p.pddl"
    problem.write_text(PROBLEM)
    before = model.read_bytes()
    res = subprocess.run([sys.executable, "-m", "genplan", "solve", "--model", str(model), str(DOMAIN), str(problem)],
                         capture_output=True, text=True, timeout=120)
    assert res.returncode == 1, (res.returncode, res.stderr[-3000:])  # a segfault is -11
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in res.stderr, res.stderr[-3000:]
    assert str(model) in lines[0] and "corrupt or not a genplan checkpoint" in lines[0], lines
    assert model.read_bytes() == before and not res.stdout.strip()


@pytest.mark.parametrize("case", list(ATTACKS))
def test_the_torch_free_reader_refuses_what_it_cannot_read_safely(tmp_path, case):
    """In-process too: checkpoint.read (the heuristic without torch) names the fault; the layout
    faults are found by the reader itself, before torch is ever asked."""
    model = _model(tmp_path, case)
    with pytest.raises(checkpoint_numpy.Corrupt):
        checkpoint_numpy.load(model, ("heuristic",))
    with pytest.raises(GenplanError, match="corrupt or not a genplan checkpoint") as err:
        checkpoint.read(model, numpy_families=("heuristic",))
    assert err.value.path == model


@pytest.mark.parametrize("case", ["NaN weights", "infinite weights"])
def test_non_finite_weights_are_refused_through_torch_too(tmp_path, case):
    """A family read with torch.load: the same refusal, named by the tensor's place."""
    model = _model(tmp_path, case)
    with pytest.raises(GenplanError, match=r"non-finite weights: NaN or infinite at weights\.w"):
        checkpoint.read(model)
    import torch

    plain = tmp_path / "plain.ckpt"
    torch.save(envelope(torch.ones(3), b=float("nan"), family="transition"), plain)
    with pytest.raises(GenplanError, match=r"at weights\.b"):
        checkpoint.read(plain)


def test_a_sound_crafted_file_reads_as_torch_reads_it(tmp_path):
    import torch

    model = heuristic_file(tmp_path / "ok.ckpt")
    light, plain = checkpoint.read(model, numpy_families=("heuristic",)), checkpoint.read(model)
    assert np.array_equal(light["weights"]["w"], WEIGHTS) and np.array_equal(plain["weights"]["w"].numpy(), WEIGHTS)
    assert isinstance(plain["weights"]["w"], torch.Tensor)


def test_other_faults_are_one_message_never_a_traceback(tmp_path):
    """A storage record missing, a compressed member, sizes that are no integers, a storage given
    two lengths, a pickle cut short: each Corrupt, not an exception of the parts."""
    import zipfile

    cases = {
        "missing record": write(tmp_path / "a.ckpt", envelope(Tensor("0", 0, (4,), (1,), 4)), {}),
        "float size": write(tmp_path / "b.ckpt", envelope(Tensor("0", 0, (4.0,), (1,), 4)), {"0": WEIGHTS.tobytes()}),
        "sizes and strides differ": write(tmp_path / "c.ckpt", envelope(Tensor("0", 0, (2, 2), (1,), 4)),
                                          {"0": WEIGHTS.tobytes()}),
        "two lengths": write(tmp_path / "d.ckpt", envelope([Tensor("0", 0, (4,), (1,), 4), Tensor("0", 0, (2,), (1,), 2)]),
                             {"0": WEIGHTS.tobytes()}),
    }
    compressed = tmp_path / "e.ckpt"
    with zipfile.ZipFile(cases["missing record"]) as src, zipfile.ZipFile(compressed, "w", zipfile.ZIP_DEFLATED) as out:
        for name in src.namelist():
            out.writestr(name, src.read(name))
        out.writestr("archive/data/0", WEIGHTS.tobytes())
    cases["compressed"] = compressed
    cut = tmp_path / "f.ckpt"
    with zipfile.ZipFile(cases["missing record"]) as src, zipfile.ZipFile(cut, "w") as out:
        for name in src.namelist():
            out.writestr(name, src.read(name)[:40] if name.endswith("data.pkl") else src.read(name))
    cases["pickle cut short"] = cut
    for what, path in cases.items():
        try:
            checkpoint_numpy.load(path, ("heuristic",))
            pytest.fail(f"{what}: read")
        except checkpoint_numpy.Corrupt:
            pass
        with pytest.raises(GenplanError, match="corrupt or not a genplan checkpoint"):
            checkpoint.read(path, numpy_families=("heuristic",))


def _torch_reads(path) -> np.ndarray | None:
    import torch

    try:
        return torch.load(path, weights_only=True)["weights"]["w"].numpy()
    except RuntimeError:
        return None


def test_the_reader_accepts_exactly_the_layouts_torch_accepts(tmp_path):
    """Random sizes, strides, offsets and record lengths around the bounds (seeded): the torch-free
    reader refuses a layout exactly where torch.load(weights_only=True) does and otherwise gives
    torch's values to the bit, so the bounds check is torch's, not a guess at it. One refusal is
    its own: a negative stride on an empty tensor, which torch reads (no model has one)."""
    rng = np.random.default_rng(64)
    agreed = {"read": 0, "refused": 0}
    for i in range(300):
        dims = int(rng.integers(0, 4))
        size = tuple(int(x) for x in rng.integers(0, 5, dims))
        stride = tuple(int(x) for x in rng.integers(-1 if i % 7 == 0 else 0, 6, dims))
        numel = int(rng.integers(0, 40))
        offset = int(rng.integers(0, 12))
        data_len = numel if i % 5 else int(rng.integers(0, 40))  # a record of another length now and then
        path = write(tmp_path / f"{i}.ckpt", envelope(Tensor("0", offset, size, stride, numel)),
                     {"0": (np.arange(data_len, dtype=np.float64) + 0.5).tobytes()})
        want = _torch_reads(path)
        try:
            got = checkpoint_numpy.load(path, ("heuristic",))["weights"]["w"]
        except checkpoint_numpy.Corrupt:
            got = None
        stricter = want is not None and min(stride, default=0) < 0  # torch reads an empty tensor of any strides
        assert (got is None) == (want is None or stricter), (size, stride, offset, numel, data_len, want)
        if stricter:
            continue
        if want is not None:
            assert np.asarray(got).shape == want.shape and np.array_equal(np.asarray(got), want)
        agreed["read" if want is not None else "refused"] += 1
    assert min(agreed.values()) > 50, agreed  # both sides of the bound were tried
