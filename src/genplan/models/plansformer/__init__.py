"""Plansformer, the CodeT5 baseline the papers compare with: its prompt (`prompt`) and a loader and
planner for a local pretrained model folder (`family`), run by `genplan plansformer`."""
