"""Sub-commands of ``fsmarena``: one module per command (see :mod:`fsmarena.cli`)."""
