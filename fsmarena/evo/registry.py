"""The protocol registry: every evolution protocol, declared once.

The counterpart of the learner registry (:mod:`fsmarena.rl.registry`): a protocol is one line of
:data:`PROTOCOLS`, its name, the ``"module:Class"`` of its :class:`fsmarena.evo.protocols.Protocol`
(whose docstring carries the pseudocode, as DEAP's ``algorithms.py`` does, and whose
``validate`` checks the settings only it cares about), the settings only some protocols use
that it takes, and its line in ``--help``.  ``fsmarena evolve`` reads this table for its
``--protocol`` choices and help, :class:`fsmarena.evo.settings.EvolveConfig` for which settings apply; adding
a protocol is its class and one line here.

Names and strings only (no numpy, no engine): the command line reads it at start-up.
"""

from __future__ import annotations

from dataclasses import dataclass

from fsmarena.errors import FsmarenaError


@dataclass(frozen=True)
class ProtocolEntry:
    """One evolution protocol (see the module docstring)."""

    name: str
    target: str
    settings: tuple[str, ...]
    summary: str


#: the settings of the generational protocols (round robin and those built on it)
_GENERATIONAL = ("games_per_pair", "elite", "crossover_rate")

PROTOCOLS: tuple[ProtocolEntry, ...] = (
    ProtocolEntry(
        "thesis",
        "fsmarena.evo.protocols:ThesisProtocol",
        ("opponents", "games_per_opponent", "replaced"),
        "steady state vs fresh random automata",
    ),
    ProtocolEntry(
        "round-robin",
        "fsmarena.evo.protocols:RoundRobinProtocol",
        _GENERATIONAL,
        "generational GA scored within the population",
    ),
    ProtocolEntry(
        "panel",
        "fsmarena.evo.protocols:PanelProtocol",
        _GENERATIONAL + ("panel", "panel_weight"),
        "scored against fixed players",
    ),
    ProtocolEntry(
        "score",
        "fsmarena.evo.protocols:ScoreProtocol",
        _GENERATIONAL + ("exact_fitness",),
        "one-player games (421), fitness = mean score",
    ),
)


def names() -> tuple[str, ...]:
    """Every registered protocol's name, in registration order."""
    return tuple(e.name for e in PROTOCOLS)


def protocol(name: str) -> ProtocolEntry:
    """The entry called ``name``; an unknown name is one FsmarenaError listing the known ones."""
    for item in PROTOCOLS:
        if item.name == name:
            return item
    raise FsmarenaError(f"unknown protocol '{name}' (known: {', '.join(names())})")


def settings() -> dict[str, tuple[str, ...]]:
    """Per protocol, the settings only some protocols use that it takes: the table
    :func:`fsmarena.options.check_applies` refuses the others with."""
    return {e.name: e.settings for e in PROTOCOLS}


def help_text() -> str:
    """``--protocol``'s help: each protocol's name and summary."""
    return "; ".join(f"{e.name}: {e.summary}" for e in PROTOCOLS)


def check_registry() -> None:
    """TypeError for a malformed table (a programming error): two protocols of one name."""
    found = names()
    if len(set(found)) != len(found):
        raise TypeError(f"two protocols share a name: {list(found)}")
