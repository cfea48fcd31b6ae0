"""Masked plan diffusion (plan-diffusion.md): a bidirectional transformer denoises a masked,
fixed-length plan conditioned on the problem's atoms; plans are written by T-step unmasking."""

# keys of a model entry that only plan with the model, never train it (the registry reads them from
# family.py; model.py and family.py both take them from here, so neither imports the other for them)
PLANNING_KEYS = ("generate",)
