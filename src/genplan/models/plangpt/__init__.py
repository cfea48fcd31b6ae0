"""PlanGPT (plangpt.md): a causal transformer that writes a plan token by token after reading the
problem's tokens; trained with cross-entropy (CE) or planning-coverage early stopping (CES)."""
