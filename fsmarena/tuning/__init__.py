"""Tuning a family's settings for a game at a declared cost in simulated games.

:mod:`fsmarena.tuning.space` reads a search space given as data, :mod:`fsmarena.tuning.search`
runs a seeded random search (or Optuna's TPE when the ``[tune]`` extra is installed) within a
budget of games, and :mod:`fsmarena.tuning.family` makes the objective of a study family: train
with the trial's settings, score the player against an opponent on seeds disjoint from the study's.
"""
