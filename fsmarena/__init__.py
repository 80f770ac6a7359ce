"""fsmarena: evolved finite-state players meet reinforcement-learning agents on small games.

Everything lives in this one package: ``fsmarena.games`` (the game contract, the registry,
players, the batched driver, and one folder per game), ``fsmarena.evo`` (genomes and genetic
algorithms), ``fsmarena.rl`` (learners), ``fsmarena.studies`` (end-to-end protocols) and
``fsmarena.figures`` (plots); its own modules hold what they all share: the error type, safe
file input/output, reproducible parallel chunks, progress bars and the command line.

Importing it also imports ``fsmarena.games``, which registers every game's Gymnasium id
(``fsmarena/DivideTheDollar-v0``...) when Gymnasium is installed, so ``import fsmarena`` is
all ``gymnasium.make`` needs.  The Python API, :func:`run_study`, :func:`load_results` and
:func:`play`, :func:`tournament`, :func:`train` and :func:`evolve` (:mod:`fsmarena.api`,
docs/python-api.md), is loaded on first use.
"""

from typing import Any

import fsmarena.games as _games  # noqa: F401 - registers the Gymnasium ids (games.gym_ids)
from fsmarena.version import __version__

#: the Python API (:mod:`fsmarena.api`), loaded on first use: ``import fsmarena`` loads no engine
API = ("run_study", "load_results", "play", "tournament", "train", "evolve")

__all__ = ["__version__", *API]


def __getattr__(name: str) -> Any:
    """``fsmarena.run_study`` and the rest of :data:`API`, from :mod:`fsmarena.api`."""
    if name in API:
        from fsmarena import api  # start-up time: the API imports the engines and the studies

        return getattr(api, name)
    raise AttributeError(f"module 'fsmarena' has no attribute '{name}'")
