"""The computation of the wire-protocol test vectors (run it with `python -m tools.generate_vectors`).

`common` holds the fixed table and the deterministic random streams, `jsonform` the JSON
conventions, `crypto_sections` and `builder` the small vector files, `game` the whole-game vector.
"""

from tools.vectors.builder import Builder, build_all
from tools.vectors.common import (
    _PATCHED,
    VECTOR_DIR,
    DeterministicSecrets,
    deterministic,
    no_system_draws,
)
from tools.vectors.game import GAME_FILE, build_game, play_game
from tools.vectors.jsonform import differences, dump, tree, untree

__all__ = [
    "GAME_FILE",
    "VECTOR_DIR",
    "_PATCHED",
    "Builder",
    "DeterministicSecrets",
    "build_all",
    "build_game",
    "deterministic",
    "differences",
    "dump",
    "no_system_draws",
    "play_game",
    "tree",
    "untree",
]
