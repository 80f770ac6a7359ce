"""fsmarena: evolved finite-state players meet reinforcement-learning agents on small games.

Everything lives in this one package: ``fsmarena.games`` (the game contract, the registry,
players, the batched driver, and one folder per game), ``fsmarena.evo`` (genomes and genetic
algorithms), ``fsmarena.rl`` (learners), ``fsmarena.studies`` (end-to-end protocols) and
``fsmarena.figures`` (plots); its own modules hold what they all share: the error type, safe
file input/output, reproducible parallel chunks, progress bars and the command line.

Importing it also imports ``fsmarena.games``, which registers every game's Gymnasium id
(``fsmarena/DivideTheDollar-v0``...) when Gymnasium is installed, so ``import fsmarena`` is
all ``gymnasium.make`` needs.
"""

import fsmarena.games as _games  # noqa: F401 - registers the Gymnasium ids (games.gym_ids)
from fsmarena.version import __version__

__all__ = ["__version__"]
