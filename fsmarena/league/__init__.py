"""The multi-seat league of a study: every champion, every builtin and the *field* against copies
of each other, at each player count the study sweeps.

An evaluation of its own that plugs into the study pipeline by registry lines
(:data:`fsmarena.studies.registry.STAGES`, ``REPORTS``), as tuning does: the stage that plays
the league (:mod:`fsmarena.league.stage`, on :mod:`fsmarena.games.multiseat`), its tables with the
champion as the unit of every family claim (:mod:`fsmarena.league.tables`), their text
(:mod:`fsmarena.league.report`) and the report layout of a study over several player counts
(:mod:`fsmarena.league.layout`). It uses the studies package; the studies package names it only
by those registry strings.
"""
