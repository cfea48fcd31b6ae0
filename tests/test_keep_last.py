"""`train.keep: last`: the weights of the last selection, whatever the validation score (the
8-block validation split of the published Blocksworld instances scores epoch 1 best)."""

import pytest
import torch
from torch import nn

from genplan.errors import GenplanError
from genplan.models.symt.model import SymTSettings
from genplan.training import LoopConfig
from genplan.training.loop import fit


def _run(keep: str):
    torch.manual_seed(0)
    net = nn.Linear(2, 1)
    xs = torch.randn(64, 2)
    ys = xs @ torch.tensor([[1.0], [-2.0]])

    def loss_fn(m, batch):
        x, y = batch
        return ((m(x) - y) ** 2).mean()

    scores = iter([1.0, 5.0, 6.0, 7.0])  # the first epoch scores best
    cfg = LoopConfig(epochs=4, lr=0.05, keep=keep, checkpoint_every=None)
    return fit(net, loss_fn, lambda gen: [(xs, ys)], cfg, seed=1, select=lambda m: next(scores), steps_per_epoch=1), net


def test_keep_last_keeps_the_last_epochs_weights_best_the_best_scored():
    best, _ = _run("best")
    last, net = _run("last")
    assert best.best_epoch == 1 and last.best_epoch == 4
    assert [s["score"] for s in last.selections] == [1.0, 5.0, 6.0, 7.0]
    assert all(torch.equal(last.best_weights[k], v) for k, v in net.state_dict().items())
    assert not all(torch.equal(best.best_weights[k], last.best_weights[k]) for k in best.best_weights)


def test_keep_is_checked_and_left_out_of_the_stored_settings_by_default():
    entry = {"family": "symt", "architecture": "encoder", "train": {"patience": None}}
    assert "keep" not in SymTSettings.from_entry(entry).to_dict()["train"]
    assert SymTSettings.from_entry({**entry, "train": {"patience": None, "keep": "last"}}).to_dict()["train"]["keep"] == "last"
    with pytest.raises(GenplanError, match="patience"):
        SymTSettings.from_entry({**entry, "train": {"patience": 3, "keep": "last"}})
    with pytest.raises(GenplanError, match="train.keep 'first'"):
        SymTSettings.from_entry({**entry, "train": {"patience": None, "keep": "first"}})
