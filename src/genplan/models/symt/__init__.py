"""SymT^E and SymT^ED (symt-symmetry-aware-transformers.md): symmetry-aware transformers over
atom-level inputs, a heuristic (encoder) or a plan generator (encoder-decoder), trained with
contrastive losses between renamed copies (genplan.nn.contrastive)."""

# keys of a model entry that only plan with the model, never train it (the registry reads them from
# family.py; model.py and family.py both take them from here, so neither imports the other for them)
PLANNING_KEYS = ("generate", "decode", "search", "names")
