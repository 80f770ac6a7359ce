"""Nim, the template of a game folder: everything about the game lives here.

``game`` (rules, labels and metadata), ``kernel`` (the compiled single-game kernel: the rules
themselves), ``reference`` (a plain loop the tests hold the kernel to), ``expectations`` (what
the contract tests must find), ``nim.toml`` (its study) and ``rules.md`` (its rules page).
Copy the folder to ``fsmarena/games/nim/`` and add ``"fsmarena.games.nim"`` to ``fsmarena.games.registry.GAME_PACKAGES``,
or keep it anywhere importable and name it in ``FSMARENA_GAMES`` (docs/add-a-game.md).

The entry names its modules from this package's own name, so the folder works unchanged
wherever it is imported from.
"""

from fsmarena.games.registry import GameEntry

ENTRY = GameEntry(
    name="nim",
    game=f"{__name__}.game:Nim",
    studies={"nim": "nim.toml"},
    kernel=f"{__name__}.kernel",
    probes=("optimal", "take-one", "random"),  # fingerprints: mixtures of these three builtins
    expectations=f"{__name__}.expectations:EXPECTED",
)
