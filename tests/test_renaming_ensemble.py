"""The renaming ensemble of autoregressive decoding (genplan.planners.renaming_ensemble): the
permutation between two namings and the combined next-token distribution."""

from __future__ import annotations

import torch

from genplan.planners.renaming_ensemble import RenamingEnsemble, permutation
from genplan.tokens.renaming import Renaming
from genplan.tokens.vocab import Vocabulary

VOCAB = Vocabulary("d", {"at": 2}, {"go": 2}, 5)  # object tokens o0..o4


def test_permutation_matches_tokens_through_the_objects_and_is_a_bijection():
    ref = Renaming({"a": "o0", "b": "o1"})
    other = Renaming({"a": "o3", "b": "o0"})
    perm = permutation(ref, other, VOCAB)
    assert sorted(perm) == list(range(len(VOCAB)))  # a permutation of the vocabulary
    assert perm[VOCAB.id("o0")] == VOCAB.id("o3") and perm[VOCAB.id("o1")] == VOCAB.id("o0")
    # the unused names o2, o3, o4 of the reference go to the member's unused o1, o2, o4 in pool order
    assert [perm[VOCAB.id(t)] for t in ("o2", "o3", "o4")] == [VOCAB.id(t) for t in ("o1", "o2", "o4")]
    assert all(perm[i] == i for i in range(len(VOCAB)) if not VOCAB.is_object(i))  # actions, specials
    assert permutation(ref, ref, VOCAB) == list(range(len(VOCAB)))


def test_per_type_pools_stay_within_their_type():
    vocab = Vocabulary("d", {"at": 2}, {"go": 2}, {"ball": 3, "room": 2})
    ref = Renaming({"x": "ball0", "r": "room1"})
    other = Renaming({"x": "ball2", "r": "room0"})
    perm = permutation(ref, other, vocab)
    assert sorted(perm) == list(range(len(vocab)))
    assert perm[vocab.id("room0")] == vocab.id("room1")  # the unused room names match each other
    assert {vocab.token(perm[vocab.id(t)]) for t in vocab.object_tokens("ball")} == set(vocab.object_tokens("ball"))


def test_the_combined_distribution_is_the_members_mean_read_in_the_reference_naming():
    ref, other = Renaming({"a": "o0", "b": "o1"}), Renaming({"a": "o1", "b": "o0"})
    ens = RenamingEnsemble([ref, other], VOCAB)
    a_ref, b_ref = VOCAB.id("o0"), VOCAB.id("o1")
    member0 = torch.full((1, len(VOCAB)), -9.0)
    member0[0, a_ref] = 2.0  # the reference member prefers a (o0) a little over b
    member0[0, b_ref] = 1.9
    member1 = torch.full((1, len(VOCAB)), -9.0)
    member1[0, VOCAB.id("o0")] = 5.0  # the other member, in its own naming, strongly prefers b (o0 there)
    combined = ens.combine(torch.cat([member0, member1]))
    assert int(combined.argmax()) == b_ref  # b outvotes a
    p0, p1 = torch.softmax(member0.double(), -1)[0], torch.softmax(member1.double(), -1)[0]
    expected = (p0[b_ref] + p1[VOCAB.id("o0")]) / 2
    assert torch.isclose(combined[0, b_ref].exp().double(), expected, atol=1e-6)
    assert torch.isclose(combined.exp().sum().double(), torch.tensor(1.0, dtype=torch.float64), atol=1e-5)
    assert [ens.members_of(t)[1] for t in (VOCAB.id("go"), a_ref, b_ref)] == [VOCAB.id("go"), VOCAB.id("o1"),
                                                                               VOCAB.id("o0")]
    assert ens.members_of(a_ref)[0] == a_ref  # the reference member keeps its names
    # one naming twice: the reference's own distribution
    same = RenamingEnsemble([ref, ref], VOCAB).combine(torch.cat([member0, member0]))
    assert torch.allclose(same, torch.log_softmax(member0, -1), atol=1e-6)
