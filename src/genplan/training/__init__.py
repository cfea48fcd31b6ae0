"""The shared training of the torch families: the loop (`loop`), its partial states (`partial_state`),
reproducible settings (`reproducible`), its optimiser and schedule (`schedule`), its typed state
(`state`), where it runs (`placement`: the device and the compiled calls) and the job around the loop
(`job`), which every family's training, torch or not, goes through."""

from genplan.training.loop import Trainer, copy_weights, fit, validation_loss
from genplan.training.schedule import LoopConfig, lr_at
from genplan.training.state import TrainState

__all__ = ["LoopConfig", "TrainState", "Trainer", "copy_weights", "fit", "lr_at", "validation_loss"]
