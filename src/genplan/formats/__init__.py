"""The on-disk formats, one module each, with the one reader (and, where the file is not a stage's own
product, the one writer) that every consumer imports: the manifest of a problems folder, the plans
table, trajectories, state spaces, the evaluation CSV and the row set it may hold, the stored plans
beside it, and the CSV and Markdown tables the reports write. The stages make these files; the other
layers read them here, never from a stage."""
