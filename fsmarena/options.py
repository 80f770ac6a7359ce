"""Which options apply: every algorithm, genome and protocol declares the settings it takes.

A setting given to one that does not take it (``--tolerance`` to Q-learning, ``--max-tests`` to a
table FSM, ``--opponents`` to the round robin) would otherwise be ignored without a word, so the
run would not be the one the user asked for.  The registry of the choices (:mod:`fsmarena.rl.registry` for the
learners, :mod:`fsmarena.evo.genome` and :mod:`fsmarena.evo.registry` for evolution) declares what each choice
takes, and :func:`check_applies` refuses the rest in one line, naming who does use the setting,
as argparse users expect.  The command line passes the options the user typed, a study the
parameters its file names; the Python API, which cannot tell a default from a given value,
passes the settings that differ from their defaults.

The rule reaches one level down, into schedules: a final value (``--epsilon-final``,
``--alpha-final``) is used only by a schedule that moves to it (``linear``, ``exponential``), so
:func:`check_finals` refuses one given while the schedule it belongs to (given, the game's or the
algorithm's default) is ``constant`` — Monte Carlo's default epsilon schedule, every default
step-size schedule but a game's own.
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


#: the schedules that move a setting to its final value (``constant`` keeps the start throughout;
#: :mod:`fsmarena.rl.schedules`)
MOVING_SCHEDULES = ("linear", "exponential")


def check_finals(given: Iterable[str], schedules: Mapping[str, str], chosen: str) -> None:
    """FsmarenaError for the first ``NAME_final`` in ``given`` whose schedule ``schedules[NAME]``
    (as resolved: given, or the default of the game and of ``chosen``, the algorithm) does not
    move to a final value::

        --alpha-final is only used by a linear or exponential --alpha-schedule; q-learning's is constant here
        --epsilon-final is only used by a linear or exponential --epsilon-schedule, not constant
    """
    given = set(given)
    for name, kind in sorted(schedules.items()):
        final, schedule = flag(f"{name}_final"), flag(f"{name}_schedule")
        if f"{name}_final" not in given or kind in MOVING_SCHEDULES:
            continue
        wanted = f"{final} is only used by a {' or '.join(MOVING_SCHEDULES)} {schedule}"
        if f"{name}_schedule" in given:
            raise FsmarenaError(f"{wanted}, not {kind}")
        raise FsmarenaError(f"{wanted}; {chosen}'s is {kind} here: give {schedule} too, or leave out {final}")


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
