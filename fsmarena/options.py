"""Which options apply: every algorithm, genome and protocol declares the settings it takes.

A setting given to one that does not take it (``--tolerance`` to Q-learning, ``--max-tests`` to a
table FSM, ``--opponents`` to the round robin) would otherwise be ignored without a word, so the
run would not be the one the user asked for.  The registry of the choices (:mod:`fsmarena.rl.registry` for the
learners, :mod:`fsmarena.evo.genome` and :mod:`fsmarena.evo.registry` for evolution) declares what each choice
takes, and :func:`check_applies` refuses the rest in one line, naming who does use the setting,
as argparse users expect.  The command line passes the options the user typed, a study the
parameters its file names; the Python API, which cannot tell a default from a given value,
passes the settings that differ from their defaults.
"""

from __future__ import annotations

import dataclasses
from typing import Any, Collection, Iterable, Mapping

from fsmarena.errors import FsmarenaError


def flag(name: str) -> str:
    """The command-line spelling of a setting: ``max_tests`` -> ``--max-tests``."""
    return "--" + name.replace("_", "-")


def check_applies(given: Iterable[str], chosen: str, takes: Mapping[str, Collection[str]], noun: str = "") -> None:
    """FsmarenaError for the first setting in ``given`` that ``takes[chosen]`` lacks although
    another choice takes it (settings no choice declares are not this table's business).

    ``noun`` names the kind of choice in the message (``genome``, ``protocol``; empty for the
    learning algorithms, whose names say what they are)::

        --max-tests is only used by the bda genome, not fsm
    """
    declared = {name for names in takes.values() for name in names}
    for name in sorted((set(given) & declared) - set(takes.get(chosen, ()))):
        users = [owner for owner, names in takes.items() if name in names]
        raise FsmarenaError(f"{flag(name)} is only used by {_owners(users, noun)}, not {chosen}")


def changed_fields(config: Any) -> list[str]:
    """The fields of a dataclass instance that differ from their declared defaults (what the
    Python API counts as given)."""
    changed = []
    for item in dataclasses.fields(config):
        if item.default is not dataclasses.MISSING:
            default = item.default
        elif item.default_factory is not dataclasses.MISSING:
            default = item.default_factory()
        else:
            continue  # a required field is always given
        if getattr(config, item.name) != default:
            changed.append(item.name)
    return changed


def _owners(users: list[str], noun: str) -> str:
    listed = users[0] if len(users) == 1 else ", ".join(users[:-1]) + " and " + users[-1]
    if not noun:
        return listed
    return f"the {listed} {noun}" + ("s" if len(users) > 1 else "")
