"""How well a SymT^ED checkpoint fits the plans along trajectories files, teacher-forced: the
prediction loss (nats a plan token) and the argmax's accuracy, split into the action-name tokens
and the object tokens, and the share of states whose whole first action the argmax gets right;
with the objects named in pool order (as evaluation and rename-one's fixed copy name them) and at
random (seeded; as the contrastive copy and rename-both name them). A diagnosis of issue 25's
recipe trials: a model that fits the fixed names but not random ones has learnt the training
problems' names, one that fits neither has not learnt the plans.

It also measures whether the decoder reads the state at all (pool-order names): the mean cosine
between the encoder's outputs (its final LayerNorm, the decoder's memory) of every two real atoms
of the states (near 1: the encoder maps every atom alike, it has collapsed), and the mean KL
divergence of the first plan token's distribution given each state's own memory from that given
another state's (0: the first action does not depend on the state).

    python experiments/symted_fit.py [--partial PARTIAL] CHECKPOINT TRAJECTORIES.json.gz [...]

`--partial`: measure the weights of a training job's partial state (`model.ckpt.partial`, written
after each epoch) instead, in the network of CHECKPOINT (a finished model of the same settings):
how a stopped trial's early epochs were judged.
"""

from __future__ import annotations

import sys

import numpy as np
import torch


def load_model(checkpoint: str, partial: str | None = None):
    """The SymT model of CHECKPOINT, with the weights of a partial training state where given."""
    from genplan.checkpoint import read
    from genplan.models.symt.model import SymT

    model = SymT.from_envelope(read(checkpoint), checkpoint)
    if model.settings.architecture != "encoder_decoder":
        raise SystemExit(f"{checkpoint}: not a SymT^ED (encoder-decoder) checkpoint")
    if partial is not None:
        state = torch.load(partial, weights_only=True, map_location="cpu")
        model.net.load_state_dict(state["weights"])
        print(f"weights of {partial}: after epoch {state['epoch']} (optimiser step {state['step']})")
    return model


def encoded(model, cases: list, names: str, seed: int = 0):
    """The cases' SymT^ED examples (atom rows and plans), objects named `sorted` or `random` (seeded)."""
    from genplan.models.symt import data

    return data.encode(cases, model.vocab, model.domain_info, np.random.default_rng(seed), names,
                       model.settings.per_type, True, model.settings.max_tokens)


def fit_lines(model, enc, label: str) -> str:
    from genplan.models.symt import data

    vocab = model.vocab
    objects = torch.tensor(sorted(vocab.object_ids()))
    nll = {"action": [], "object": [], "end": []}
    right = {k: [] for k in nll}
    first = []
    net = model.net.eval()
    with torch.no_grad():
        for batch in data.batches(enc, 64, list(range(len(enc.rows))), vocab.pad_id):
            memory = net.encode(batch["rows"], batch["mask"]).hidden
            logits = net.decode(batch["dec_in"], memory, batch["mask"], attention_mask=batch["dec_real"]).logits
            target, real = batch["dec_out"], batch["dec_mask"]
            ce = torch.nn.functional.cross_entropy(logits.float().transpose(1, 2), target, reduction="none")
            ok = logits.argmax(-1) == target
            is_obj = torch.isin(target, objects)
            is_end = target == vocab.id("<end>")
            kinds = {"object": is_obj, "end": is_end, "action": ~is_obj & ~is_end}
            for k, sel in kinds.items():
                sel = sel & real
                nll[k].append(ce[sel])
                right[k].append(ok[sel])
            first += _first_action_right(ok, is_obj, real).tolist()
    lines = [f"{label}: {len(enc.rows)} states"]
    for k in nll:
        n = torch.cat(nll[k])
        a = torch.cat(right[k]).float()
        if len(n):
            lines.append(f"  {k:6s} tokens {len(n):6d}: loss {n.mean():.3f} nats, argmax right {a.mean():.3f}")
    lines.append(f"  first action wholly right (argmax, teacher-forced): {np.mean(first):.3f}")
    return "\n".join(lines)


def collapse_line(model, enc, label: str, seed: int = 0) -> str:
    """The encoder outputs' mean cosine and the first token's KL to a shuffled memory (docstring), of
    examples `encoded` with pool-order names."""
    from genplan.models.symt import data
    from genplan.models.symt.train import mean_cosine

    vocab, net = model.vocab, model.net.eval()
    gen = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        b = next(data.batches(enc, len(enc.rows), list(range(len(enc.rows))), vocab.pad_id))
        memory, mask = net.encode(b["rows"], b["mask"]).hidden, b["mask"]
        cosine = mean_cosine(memory[mask])

        def first(mem, m):
            return net.decode(b["dec_in"][:, :1], mem, m, attention_mask=b["dec_real"][:, :1]).logits[:, 0].log_softmax(-1)

        own = first(memory, mask)
        perm = torch.randperm(len(enc.rows), generator=gen)
        other = first(memory[perm], mask[perm])
        kl = float((own.exp() * (own - other)).sum(-1).mean())
        right = float((own.argmax(-1) == b["dec_out"][:, 0]).float().mean())
    return (f"{label}: encoder outputs' mean cosine {cosine:.3f}; first plan token right {right:.3f}; "
            f"KL(first token | own state || another state's) {kl:.4f}")


def _first_action_right(ok: torch.Tensor, is_obj: torch.Tensor, real: torch.Tensor) -> torch.Tensor:
    """Per row: whether the first action's name and its object tokens (up to the next non-object
    token) are all predicted right."""
    out = []
    for r in range(ok.shape[0]):
        n = 1
        while n < int(real[r].sum()) and bool(is_obj[r, n]):
            n += 1
        out.append(bool(ok[r, :n].all()))
    return torch.tensor(out)


def main(argv: list[str]) -> int:
    torch.set_num_threads(1)
    partial = None
    if argv[:1] == ["--partial"] and len(argv) > 1:
        partial, argv = argv[1], argv[2:]
    if len(argv) < 2:
        print(__doc__)
        return 2
    from genplan.formats.trajectories import load
    from genplan.models.symt import data

    model = load_model(argv[0], partial)
    for path in argv[1:]:
        cases = data.validation_cases(load(path), 10**9, 0, keep_goal_states=False)
        pool_order = encoded(model, cases, "sorted")
        print(collapse_line(model, pool_order, path))
        print(fit_lines(model, pool_order, f"{path} (sorted names)"))
        print(fit_lines(model, encoded(model, cases, "random"), f"{path} (random names)"))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
