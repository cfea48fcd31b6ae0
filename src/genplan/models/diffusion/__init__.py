"""Masked plan diffusion (plan-diffusion.md): a bidirectional transformer denoises a masked,
fixed-length plan conditioned on the problem's atoms; plans are written by T-step unmasking."""
