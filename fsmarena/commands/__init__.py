"""Sub-commands of ``fsmarena``: one module per command (see :mod:`fsmarena.cli`).

The command line imports every module here at start-up, to build ``fsmarena --help``; so a
command imports at module level only what is quick to load (the base, the registries, the
player files), and imports its engines (numba), studies, figures (matplotlib, networkx) and
learners (scikit-learn) inside the functions that run it.  Nothing outside the command line
imports these modules; what they share with the library lives in the base (:mod:`fsmarena`).
"""
