"""SymT^E and SymT^ED (genplan.models.symt): the encoder reads a set (atom order does not matter),
renaming objects together with their embeddings changes nothing but the names, a readout computed
by hand, and the family's config checks; end to end (trained and planned): tests/test_symt_trained.py."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from test_features import DOMAIN, gripper_data  # noqa: F401  (fixture)

from genplan import registry
from genplan.errors import GenplanError
from genplan.models.symt.model import SymTNet, SymTSettings, pad_rows
from genplan.tokens.atom_rows import atom_vocabulary, encode_atom_set, max_arity
from genplan.tokens.renaming import Renaming

NET = {"d_model": 32, "n_heads": 2, "n_layers": 2, "d_token": 8}


def _net(arch: str, vocab, seed: int = 0, **network) -> SymTNet:
    torch.manual_seed(seed)
    net = SymTNet({"architecture": arch, "network": {**NET, **network}, "vocab_size": len(vocab),
                   "width": 1 + max_arity(vocab), "pad_id": 0})
    for p in net.parameters():  # away from the tiny GPT-2 initialisation, so that differences show
        p.data.normal_(0, 0.3)
    return net.eval()


@pytest.fixture(scope="module")
def problem(gripper_data):  # noqa: F811
    from genplan.pddl_io import parse_domain, parse_problem

    info = parse_domain(DOMAIN)
    task = parse_problem(gripper_data["files"][3], info)
    vocab = atom_vocabulary(info, 12)
    return info, task, vocab


def test_goal_predicates_and_rows(problem):
    info, task, vocab = problem
    assert "goal_at" in vocab.predicates and vocab.arity("goal_at") == 2 and max_arity(vocab) == 2
    rows = encode_atom_set(task.init, task.goal, Renaming.identity_order(task.objects, None, vocab), vocab, task.statics)
    assert len(rows) == len(task.init | task.statics) + len(task.goal) and all(len(r) == 3 for r in rows)
    goal_rows = [r for r in rows if vocab.token(r[0]) == "goal_at"]
    assert len(goal_rows) == 3 and all(vocab.is_object(r[1]) and vocab.is_object(r[2]) for r in goal_rows)
    free = next(r for r in rows if vocab.token(r[0]) == "free")
    assert free[2] == vocab.pad_id  # unary atom: padded to the max arity


@pytest.mark.parametrize("arch", ["encoder", "encoder_decoder"])
def test_output_does_not_depend_on_the_order_of_the_atoms(problem, arch):
    info, task, vocab = problem
    rows = encode_atom_set(task.init, task.goal, Renaming.identity_order(task.objects, None, vocab), vocab, task.statics)
    perm = np.random.default_rng(0).permutation(len(rows))
    shuffled = [rows[i] for i in perm]
    net = _net(arch, vocab)
    x, m = pad_rows([rows, shuffled])
    out = net.encode(x, m)
    # equivariant per atom: atom i's hidden state moves with it
    assert torch.allclose(out.hidden[1], out.hidden[0][torch.tensor(perm)], atol=1e-5)
    if arch == "encoder":
        h, _ = net.heuristic(x, m)
        assert abs(h[0].item() - h[1].item()) < 1e-4 and abs(h[0].item()) > 1e-3
    else:
        y = torch.tensor([[vocab.action_id, vocab.id("pick")]] * 2)
        logits = net.decode(y, out.hidden, m).logits
        assert torch.allclose(logits[0], logits[1], atol=1e-4)


def _two_objects_swapped(task, vocab, a: str = "ball1", b: str = "roomb"):
    """The pool-order renaming, the same with objects a and b trading names, and their two tokens."""
    r1 = Renaming.identity_order(task.objects, None, vocab)
    swapped = dict(r1.forward)
    swapped[a], swapped[b] = r1.forward[b], r1.forward[a]
    return r1, Renaming(swapped), vocab.id(r1.forward[a]), vocab.id(r1.forward[b])


def test_renaming_objects_with_their_embeddings_renames_the_output(problem):
    """Swap two objects' names and their embedding rows (encoder E, decoder tokens): h is the same
    and the decoder's scores of the two tokens trade places. (Renaming alone is not an identity of
    the network: the contrastive losses teach that part.)"""
    info, task, vocab = problem
    r1, r2, ta, tb = _two_objects_swapped(task, vocab)
    for arch in ("encoder", "encoder_decoder"):
        net = _net(arch, vocab, seed=1)
        twin = _net(arch, vocab, seed=1)
        with torch.no_grad():
            for table in [twin.atoms.E.weight] + ([twin.decoder.wte.weight] if arch != "encoder" else []):
                table[[ta, tb]] = table[[tb, ta]]
        x1, m1 = pad_rows([encode_atom_set(task.init, task.goal, r1, vocab, task.statics)])
        x2, m2 = pad_rows([encode_atom_set(task.init, task.goal, r2, vocab, task.statics)])
        if arch == "encoder":
            h1, h2 = net.heuristic(x1, m1)[0], twin.heuristic(x2, m2)[0]
            assert abs(h1.item() - h2.item()) < 1e-4
            assert abs(h1.item() - net.heuristic(x2, m2)[0].item()) > 1e-4  # the names alone matter
        else:
            y1 = torch.tensor([[vocab.action_id, vocab.id("pick"), ta]])
            y2 = torch.tensor([[vocab.action_id, vocab.id("pick"), tb]])
            l1 = net.decode(y1, net.encode(x1, m1).hidden, m1).logits[0, -1]
            l2 = twin.decode(y2, twin.encode(x2, m2).hidden, m2).logits[0, -1]
            perm = torch.arange(len(vocab))
            perm[ta], perm[tb] = tb, ta
            assert torch.allclose(l1, l2[perm], atol=1e-4)


def test_fixed_decoder_tokens_keep_the_object_rows_apart(problem):
    """`decoder_tokens: fixed`: the decoder's own table with the object tokens' rows fixed orthogonal
    vectors (plus one learned shift); the other rows and the encoder are as `own`; refused for SymT^E."""
    vocab = problem[2]
    objects = list(vocab.object_ids())
    torch.manual_seed(0)
    net = SymTNet({"architecture": "encoder_decoder", "network": {**NET, "decoder_tokens": "fixed"},
                   "vocab_size": len(vocab), "width": 1 + max_arity(vocab), "pad_id": 0, "object_ids": objects})
    assert list(net.decoder.config.fixed_tokens) == objects
    rows = net.decoder.token_table().detach()[objects[:NET["d_model"]]]
    gram = rows @ rows.T
    assert torch.allclose(gram - torch.diag(gram.diag()), torch.zeros_like(gram), atol=1e-6)
    with pytest.raises(GenplanError, match="decoder_tokens"):
        SymTSettings.from_entry({"architecture": "encoder", "network": {"decoder_tokens": "fixed"}})


def test_memory_cosine_tells_a_collapsed_encoder(problem):
    """The summary's `memory_mean_cosine` (genplan.models.symt.train.memory_cosine): the mean cosine
    of the encoder outputs of every two atoms; 1 when every atom embeds alike (the collapse the
    contrastive loss drove the CPU models into), well below 1 for an encoder that tells atoms apart."""
    from genplan.datasets.examples import Case
    from genplan.models.symt import data
    from genplan.models.symt.train import memory_cosine

    info, task, vocab = problem
    torch.manual_seed(0)  # as training starts: LayerNorms at gain 1 and bias 0
    net = SymTNet({"architecture": "encoder_decoder", "network": NET, "vocab_size": len(vocab),
                   "width": 1 + max_arity(vocab), "pad_id": 0}).eval()
    case = Case("p", tuple(sorted(task.objects)), frozenset(task.init), frozenset(task.statics), frozenset(task.goal), ())
    enc = data.encode([case, case], vocab, info, np.random.default_rng(0), "sorted", False, False, 100)
    apart = memory_cosine(net, enc, vocab.pad_id)
    assert -1 <= apart < 0.9
    with torch.no_grad():  # every atom the same vector: only the bias of the atom map is left
        net.atoms.W.weight.zero_()
    assert memory_cosine(net, enc, vocab.pad_id) == pytest.approx(1.0, abs=1e-3)
    assert not net.training  # left as it was found


def test_shared_decoder_tokens_rename_with_the_encoder_table_alone(problem):
    """`decoder_tokens: shared`: the decoder reads and scores its tokens through the encoder's E, so
    swapping two objects' rows of E alone (no decoder table to swap) trades their scores, and the
    decoder's output is still independent of the atoms' order."""
    info, task, vocab = problem
    r1, r2, ta, tb = _two_objects_swapped(task, vocab)
    net = _net("encoder_decoder", vocab, seed=1, decoder_tokens="shared")
    twin = _net("encoder_decoder", vocab, seed=1, decoder_tokens="shared")
    assert net.decoder.wte.weight.shape[0] == 1  # no table of its own
    with torch.no_grad():
        twin.atoms.E.weight[[ta, tb]] = twin.atoms.E.weight[[tb, ta]]
    x1, m1 = pad_rows([encode_atom_set(task.init, task.goal, r1, vocab, task.statics)])
    x2, m2 = pad_rows([encode_atom_set(task.init, task.goal, r2, vocab, task.statics)])
    l1 = net.decode(torch.tensor([[vocab.action_id, vocab.id("pick"), ta]]), net.encode(x1, m1).hidden, m1).logits[0, -1]
    l2 = twin.decode(torch.tensor([[vocab.action_id, vocab.id("pick"), tb]]), twin.encode(x2, m2).hidden, m2).logits[0, -1]
    perm = torch.arange(len(vocab))
    perm[ta], perm[tb] = tb, ta
    assert torch.allclose(l1, l2[perm], atol=1e-4)
    assert not torch.allclose(l1, l2, atol=1e-4)  # the swap did change the scores
    rows = encode_atom_set(task.init, task.goal, r1, vocab, task.statics)
    perm_rows = np.random.default_rng(0).permutation(len(rows))
    x, m = pad_rows([rows, [rows[i] for i in perm_rows]])
    logits = net.decode(torch.tensor([[vocab.action_id, vocab.id("pick")]] * 2), net.encode(x, m).hidden, m).logits
    assert torch.allclose(logits[0], logits[1], atol=1e-4)


def test_readout_by_hand():
    """Blocks that add nothing (zero residual projections): the last hidden states are the atom
    embeddings W (E[p] | E[o1] | E[o2]) + b; the readout sums their first d_k = 2 dimensions."""
    from genplan.tokens.vocab import Vocabulary

    vocab = Vocabulary("d", {"p": 2}, {"a": 1}, 2)
    net = SymTNet({"architecture": "encoder", "network": {"d_model": 4, "n_heads": 2, "n_layers": 1, "d_token": 1,
                                                          "d_readout": 2},
                   "vocab_size": len(vocab), "width": 3, "pad_id": 0}).eval()
    with torch.no_grad():
        for name, p in net.encoder.named_parameters():
            if "c_proj" in name:
                p.zero_()
        net.atoms.E.weight.copy_(torch.arange(len(vocab), dtype=torch.float32)[:, None])  # E[t] = t
        net.atoms.W.weight.copy_(torch.tensor([[1., 0, 0], [0, 1, 0], [0, 0, 1], [1, 1, 1]]))
        net.atoms.W.bias.copy_(torch.tensor([0.5, 0, 0, 0]))
        net.readout[0].weight.copy_(torch.tensor([[1., 0], [0, -1]]))
        net.readout[0].bias.zero_()
        net.readout[2].weight.copy_(torch.tensor([[2., 3]]))
        net.readout[2].bias.fill_(1.0)
    x, m = pad_rows([[[2, 3, 0], [4, 5, 6]], [[2, 3, 0]]])
    h, _ = net.heuristic(x, m)
    # atom 1: (2.5, 3, 0, 5), atom 2: (4.5, 5, 6, 15); first two dims summed: (7, 8)
    # readout: (7, -8) -> GELU -> (7.0, -5e-15) -> 2 * 7 + 3 * 0 + 1 = 15
    assert h[0].item() == pytest.approx(15.0, abs=1e-4)
    # one atom (2.5, 3): (2.5, -3) -> GELU(2.5) = 2.5 * Phi(2.5), GELU(-3) = -3 * Phi(-3)
    gelu = torch.nn.functional.gelu
    assert h[1].item() == pytest.approx(2 * gelu(torch.tensor(2.5)).item() + 3 * gelu(torch.tensor(-3.0)).item() + 1,
                                        abs=1e-5)


def test_config_checks():
    bad = {"family": "symt", "architecture": "encoder", "seeds": [1], "strategies": ["greedy"]}
    assert any("architecture encoder" in p for p in registry.check_models({"m": bad}))
    good = {**bad, "strategies": ["heuristic-greedy", "gbfs"]}
    assert registry.check_models({"m": good}) == []
    ed = {"family": "symt", "seeds": [1], "strategies": ["gbfs"]}
    assert any("encoder_decoder" in p for p in registry.check_models({"m": ed}))
    from genplan.models.symt.family import identity

    assert identity(good) == ("symt_e", "contrastive")
    assert identity({**ed, "loss_weights": [1, 0, 0]}) == ("symt_ed", "no_contrastive")
    # network.decoder_tokens: SymT^ED only; the default is left out of the stored settings (keys as before)
    from genplan.models.symt.model import SymTSettings

    assert "decoder_tokens" not in SymTSettings.from_entry({}).to_dict()["network"]
    shared = SymTSettings.from_entry({"network": {"decoder_tokens": "shared"}}).to_dict()
    assert shared["network"]["decoder_tokens"] == "shared"
    from genplan.errors import GenplanError

    with pytest.raises(GenplanError, match="decoder_tokens is a setting of SymT"):
        SymTSettings.from_entry({**good, "network": {"decoder_tokens": "shared"}})
    # `names`: SymT^ED plans under one naming, or K at once (the renaming ensemble)
    ed = {"family": "symt", "seeds": [1], "strategies": ["greedy"]}
    assert registry.check_models({"m": {**ed, "names": {"order": "random", "seed": 2}}}) == []
    assert registry.check_models({"m": {**ed, "names": {"order": "random", "samples": 4}}}) == []
