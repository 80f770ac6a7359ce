"""The one install hint every message about a missing optional extra gives.

fsmarena is installed from its repository (``pip install -e '.[test]'`` in a clone), not from
the package index, so a hint naming the package on the index would fetch nothing of it.  The hint names
the source tree this package runs from when it runs from one (an editable install or a clone on
the path), so the command works from any folder; an installed wheel has no source tree beside
it, and the hint then says to run the command in a clone.  The extras themselves are declared
once, in ``setup.cfg`` (``[options.extras_require]``).
"""

from __future__ import annotations

import shlex
from pathlib import Path

#: the folder holding the ``fsmarena`` package: a clone's root when it runs from source
SOURCE_ROOT = Path(__file__).resolve().parent.parent


def source_tree() -> Path | None:
    """The clone this package runs from, or None for an installed wheel."""
    if (SOURCE_ROOT / "setup.cfg").is_file():  # a wheel installs no setup.cfg beside the package
        return SOURCE_ROOT
    return None


def install_hint(extra: str, *, portable: bool = False) -> str:
    """The command that installs ``extra``: ``pip install -e '<clone>[extra]'`` naming this
    package's source tree, or, for an installed wheel (or a text that must not name this
    machine's folders, ``portable``), the same command with ``.`` to run in a clone."""
    root = None if portable else source_tree()
    if root is None:
        return f"pip install -e '.[{extra}]' in a clone of fsmarena"
    return "pip install -e " + shlex.quote(f"{root}[{extra}]")
