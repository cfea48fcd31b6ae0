"""The greedy answer of p2's model on the first interpolation problem, token by token (no filter), to
see where it goes wrong: python experiments/results/recipe/p2_plangpt_blocks_byh_48k_sorted/greedy_tokens.py
(needs runs/exp/p2_plangpt_blocks_byh_48k_sorted/model.ckpt, not committed: rerun command.sh)."""
import torch

from genplan import registry
from genplan.pddl_io import parse_domain, parse_problem
from genplan.tokens.renaming import Renaming
from genplan.tokens.sequences import encode_problem
from genplan.tokens.types import object_types

m = registry.load_model("runs/exp/p2_plangpt_blocks_byh_48k_sorted/model.ckpt")
info = parse_domain("runs/recipe/problems/paper/blocks/domain.pddl")
task = parse_problem("runs/recipe/problems/paper/blocks/interpolation/probBLOCKS-5-0.pddl", info)
ren = Renaming.identity_order(task.objects, object_types(m.domain_info, task), m.vocab, per_type=m.settings.per_type)
ids = encode_problem(task.init, task.goal, ren, m.vocab, order="canonical", statics=task.statics)
print("names:", ren.forward)
print("prompt:", " ".join(m.vocab.token(i) for i in ids))
x = list(ids)
with torch.no_grad():
    for _ in range(60):
        t = int(torch.argmax(m.net(torch.tensor([x])).logits[0, -1]))
        x.append(t)
        if m.vocab.token(t) == "<end>":
            break
print("greedy:", " ".join(m.vocab.token(i) for i in x[len(ids):]))
