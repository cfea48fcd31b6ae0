"""A renaming ensemble for autoregressive decoding (genplan's, not in the papers): the next-token
distribution is the mean of the distributions the model gives under K renamings of the problem's
objects, each read back to one reference naming, so that what one draw of the names gets wrong
the others can outvote. SymT^ED plans so with its planning key `names: {order: random, samples: K,
seed: S}` (K > 1), as SymT^E averages h over K renamings (genplan.models.symt.model.SymT.bind;
experiments/sequence-recipe.md: the pool-order names are memorised, random ones carry what generalises).

Every member decodes the same plan: the token chosen in the reference naming is fed to member k in
its own naming. Object tokens are matched through the objects they stand for; the pool tokens that
stand for no object of the problem are matched in pool order within each pool, so that the map is a
permutation of the vocabulary and a member's unused names stay unused ones. Action, predicate and
special tokens are their own. With K = 1 (or K equal renamings) decoding is that of one naming.
The members run as one batch of K rows (genplan.planners.autoregressive.SequencePlanner), K model
calls a token in one network call."""

from __future__ import annotations

import torch

from genplan.tokens.renaming import Renaming
from genplan.tokens.vocab import Vocabulary


def permutation(reference: Renaming, member: Renaming, vocab: Vocabulary) -> list[int]:
    """p with p[reference id] = the member's id of the same token: the object tokens through the
    objects they name, the unused pool tokens in pool order (per pool), every other token itself."""
    perm = list(range(len(vocab)))
    ref_used, mem_used = set(reference.inverse), set(member.inverse)
    for obj, tok in reference.forward.items():
        perm[vocab.id(tok)] = vocab.id(member.rename(obj))
    pools = [vocab.object_tokens(t) for t in vocab.types] if vocab.per_type else [vocab.object_tokens()]
    for pool in pools:
        free_ref = [t for t in pool if t not in ref_used]
        free_mem = [t for t in pool if t not in mem_used]
        for a, b in zip(free_ref, free_mem):
            perm[vocab.id(a)] = vocab.id(b)
    return perm


class EnsemblePrompt(list):
    """The reference member's prompt (its length and tokens) with every member's prompt beside it."""

    def __init__(self, members: list):
        super().__init__(members[0])
        self.members = members


class RenamingEnsemble:
    """Combines the members' next-token logits, one batch row a member, into the reference naming's
    (log of their mean probability) and maps a reference token to each member's."""

    def __init__(self, renamings: list[Renaming], vocab: Vocabulary):
        self.renamings = renamings
        self.perms = [permutation(renamings[0], r, vocab) for r in renamings]
        self._index = None

    def __len__(self) -> int:
        return len(self.renamings)

    def members_of(self, token: int) -> list[int]:
        """The reference naming's token in every member's naming (member k's id at k)."""
        return [perm[token] for perm in self.perms]

    def combine(self, logits: torch.Tensor) -> torch.Tensor:
        """The members' logits [K, V] (row k in member k's naming) -> [1, V] in the reference naming: the
        log of the mean of their probabilities, each read back through its member's permutation."""
        if self._index is None or self._index.device != logits.device:
            self._index = torch.tensor(self.perms, device=logits.device)
        probs = torch.gather(torch.softmax(logits.double(), dim=-1), 1, self._index)
        return torch.log(probs.mean(0, keepdim=True)).float()
