"""The model families, one folder each, and the little they share.

- `transition/` (the state-centric paper's LSTM and XGBoost over WL or FSF), `plangpt/`, `symt/`
  (SymT^E, SymT^ED), `diffusion/` (masked plan diffusion), `heuristic/` (learned heuristics over WL
  features in GBFS and descent): each a registry entry (genplan.registry) whose folder holds
  `__init__.py` (its PLANNING_KEYS), `family.py` (the registry's hooks), `schema.yaml`, `model.py`,
  `train.py` and its own parts. A family imports shared pieces, never another family, never the
  registry.
- `plansformer/`: the Plansformer baseline, a pretrained CodeT5 model folder planned by `genplan
  plansformer`; no registry entry, nothing trained here.
- `settings.py`: one base for the torch families' settings; `boosters.py`: XGBoost boosters as
  bytes in the checkpoint envelope (genplan.checkpoint).
"""
