"""Training examples: embedded VAL trajectories (transition models: `trajectories`), states of full
state spaces (`statespace`), the sequence families' cases from either (`examples`) and the PDDL
domain they are of, as text (`domain_text`)."""
