"""PlanGPT (plangpt.md): a causal transformer that writes a plan token by token after reading the
problem's tokens; trained with cross-entropy (CE) or planning-coverage early stopping (CES)."""

# keys of a model entry that only plan with the model, never train it (the registry reads them from
# family.py; model.py and family.py both take them from here, so neither imports the other for them)
PLANNING_KEYS = ("generate", "names")
