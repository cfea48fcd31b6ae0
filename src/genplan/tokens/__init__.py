"""Tokens shared by the sequence families (PlanGPT, SymT, masked diffusion): the vocabulary of a
domain (`vocab`), object types (`types`), renaming of problem objects into the vocabulary's object
pools (`renaming`), the token sequences of problems and plans (`sequences`), and SymT's atoms as
rows of token ids (`atom_rows`)."""

from genplan.tokens.renaming import Renaming
from genplan.tokens.sequences import (
    ActionParser,
    SequenceError,
    decode_plan,
    encode_atoms,
    encode_plan,
    encode_problem,
    make_example,
)
from genplan.tokens.types import object_types, pool_sizes, type_counts
from genplan.tokens.vocab import SPECIALS, Vocabulary

__all__ = [
    "SPECIALS", "ActionParser", "Renaming", "SequenceError", "Vocabulary", "decode_plan", "encode_atoms",
    "encode_plan", "encode_problem", "make_example", "object_types", "pool_sizes", "type_counts",
]
