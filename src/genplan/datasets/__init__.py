"""Training examples: embedded VAL trajectories (transition models: `trajectories`), states of full
state spaces (`statespace`), the states along plans and their neighbourhoods for the learned
heuristic trained from plans (`plan_neighbourhood`), the sequence families' cases (`examples`) and the
PDDL domain they are of, as text (`domain_text`)."""
