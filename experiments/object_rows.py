"""How far apart a trained model keeps its object tokens (issue 25: why random object names stall the
sequence families). For each checkpoint, the rows of its token table that embed object tokens (PlanGPT
and diffusion: the transformer's table as the model reads it, fixed rows included; SymT: the atom
embedding's E, and the decoder's own table where it has one) and, over the objects a problem of
`--objects` objects would use (pool order o0..), the mean norm of a row, the norm of their mean, the mean
norm of a row's own part (its difference from that mean) and the mean cosine between two rows.
Learned rows that drift together (cosine near 1, own parts small against the shared mean) cannot tell
one object from another.

    python experiments/object_rows.py runs/exp/d3_*/model.ckpt ... [--objects 16] > OUT.txt
"""

from __future__ import annotations

import argparse
import sys

import torch


def tables(model) -> dict[str, tuple[torch.Tensor, list[int]]]:
    """name -> (table [V,D], the object token ids) of the model's token tables."""
    ids = list(model.vocab.object_ids())
    net = model.net
    if model.family == "plangpt":
        return {"token table": (net.token_table(), ids)}
    if model.family == "diffusion":
        return {"token table": (net.core.token_table(), ids)}
    if model.family == "symt":
        out = {"atom embedding E": (net.atoms.E.weight, ids)}
        decoder = getattr(net, "decoder", None)
        if decoder is not None and decoder.config.vocab_size > 1:
            out["decoder token table"] = (decoder.token_table(), ids)
        return out
    raise SystemExit(f"object_rows: family {model.family!r} has no object tokens")


def stats(rows: torch.Tensor) -> str:
    mean = rows.mean(0)
    unit = torch.nn.functional.normalize(rows, dim=1)
    cos = unit @ unit.T
    off = cos[~torch.eye(len(rows), dtype=torch.bool)]
    return (f"row norm {rows.norm(dim=1).mean():.4f}, norm of the mean {mean.norm():.4f}, "
            f"own part {(rows - mean).norm(dim=1).mean():.4f}, mean cosine {off.mean():.4f}")


def main(argv=None) -> int:
    from genplan import registry

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("checkpoints", nargs="+")
    ap.add_argument("--objects", type=int, default=16, help="the first K object tokens (pool order)")
    args = ap.parse_args(argv)
    print(f"# object token rows of trained models; command: python experiments/object_rows.py "
          f"{' '.join(args.checkpoints)} --objects {args.objects}")
    for path in args.checkpoints:
        model = registry.load_model(path)
        s = model.settings
        how = f"rename {getattr(s, 'rename', '?')}, object_embeddings {getattr(s, 'object_embeddings', 'learned')}"
        with torch.no_grad():
            for name, (table, ids) in tables(model).items():
                print(f"{path} ({model.family}, {how}) {name}, objects o0..o{min(args.objects, len(ids)) - 1}: "
                      f"{stats(table[ids[:args.objects]])}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
