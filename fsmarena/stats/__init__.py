"""Replicate-level statistics: the estimators (:mod:`fsmarena.stats.inference`) and the tables of
per-family intervals, pairwise tests and cross-play built from them (:mod:`fsmarena.stats.comparisons`).

Below the studies, tuning and figures, which all use them; above the games layer, whose match
intervals (:mod:`fsmarena.games.stats`) they build on.  The unit of replication is the replicate
(a champion, a training run), never the game (docs/statistics.md).
"""
