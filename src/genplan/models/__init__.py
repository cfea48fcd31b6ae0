"""Transition models of the state-centric paper: an LSTM (`lstm`) and XGBoost (`xgb`) over WL or
FSF embeddings, in state or delta mode; `train` trains one, `transition` loads one for decoding."""
