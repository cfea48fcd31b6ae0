"""Evaluation: one model and strategy on the problems of one split. `split` plans the split and writes
its evaluation CSV and stored plans; `problem` makes one problem's row; `parallel` plans problems in
worker processes; `isolated` plans each problem in a fresh process under the resource protocol;
`external` turns an outside planner's runs into an evaluation of our own; `revalidate` is
`genplan validate --evaluation`, VAL again on every stored plan."""
