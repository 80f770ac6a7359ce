"""The compiled updates of the sequential learners: one function per algorithm.

Each function is one learning algorithm as the compiled training loop
(:mod:`fsmarena.rl.sequential`) calls it, with its pseudocode in its docstring (as DEAP's
``algorithms.py`` holds its algorithms); :mod:`fsmarena.rl.algorithms.contract` says when the loop
calls it and with what.  A learner's registry line (:mod:`fsmarena.rl.registry`) names its update,
and the loop is compiled once per (game kernel, update) pair.  Adding a learner is one module
holding its update and one registry line.
"""
