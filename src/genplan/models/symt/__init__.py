"""SymT^E and SymT^ED (symt-symmetry-aware-transformers.md): symmetry-aware transformers over
atom-level inputs, a heuristic (encoder) or a plan generator (encoder-decoder), trained with
contrastive losses between renamed copies (genplan.nn.contrastive)."""
