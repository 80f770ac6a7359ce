"""fsmarena: evolved finite-state players meet reinforcement-learning agents on small games.

The distribution's code lives in the top-level packages ``games`` (rules, batched engines,
players, matches), ``evo`` (genomes and genetic algorithms), ``rl`` (learners), ``studies``
(end-to-end protocols) and ``figures`` (plots). This package holds what they all share: the
error type, safe file input/output, reproducible parallel chunks, progress bars and the
command line.

Importing it also imports ``games``, which registers every game's Gymnasium id
(``fsmarena/DivideTheDollar-v0``...) when Gymnasium is installed, so ``import fsmarena`` is
all ``gymnasium.make`` needs.
"""

import fsmarena.games as _games  # noqa: F401 - registers the Gymnasium ids (games.gym_ids)
from fsmarena.version import __version__

__all__ = ["__version__"]
