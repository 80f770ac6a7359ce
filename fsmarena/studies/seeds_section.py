"""The seeds section of every report: what the study's seed document reports, which of its settings
the study shares, and whether this run's result agrees with the seed's.

Each game folder holds ``seed.toml`` (the format is in ``docs/publishing.md``, "Seeds"): the seed's
reported numbers, each quoted with where it stands in the seed, the measure of the study it
corresponds to and the seed's own uncertainty (``tolerance``); and the seed's settings, each mapped
to a setting of the study (``<competitor>.<setting>``, ``study.<field>`` or ``game.<rule>``) or,
where the study has no such setting, described in words (``study_text``).  A study without a seed
says so.

The verdict is at the level of the replicate: the study's figure is the mean of its champions with
a Student-t 95% interval over them (:func:`fsmarena.stats.comparisons.mean_ci`); a seed number
*agrees* when it lies within that interval widened by the seed's tolerance, *differs* otherwise,
and is *not comparable* where the seed file says why (a different table, training or budget).
"""

from __future__ import annotations

import math
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from fsmarena.errors import FsmarenaError
from fsmarena.fileio import read_text
from fsmarena.stats.comparisons import mean_ci
from fsmarena.studies.results import StudyResults
from fsmarena.studies.study_file import tomllib

SEED_FILE = "seed.toml"


@dataclass(frozen=True)
class Comparison:
    """One reported number against this run: the study's replicate mean and interval, and the verdict."""

    what: str
    seed_value: float
    tolerance: float
    replicates: int
    mean: float
    low: float
    high: float
    verdict: str
    why: str = ""


def seed_path(results: StudyResults) -> Path:
    """The ``seed.toml`` of the folder of the study's game."""
    game = next(iter(results.parts.values())).game
    module = sys.modules[type(game).__module__]
    return Path(str(module.__file__)).parent / SEED_FILE


def read_seed(path: Path) -> dict[str, Any]:
    """A seed file, checked for the fields every entry needs (one clear error otherwise)."""
    try:
        data = tomllib.loads(read_text(path, "seed file"))
    except tomllib.TOMLDecodeError as error:
        raise FsmarenaError(f"{path}: not a valid seed file ({error})") from None
    if not isinstance(data.get("seed"), str) or not isinstance(data.get("studies"), list):
        raise FsmarenaError(f"{path}: a seed file needs 'seed' (text) and 'studies' (a list)")
    for item in data.get("reported", []):
        missing = {"what", "value", "quote", "where", "competitor", "measure", "tolerance"} - set(item)
        if missing:
            raise FsmarenaError(f"{path}: a reported number lacks {', '.join(sorted(missing))}")
    for item in data.get("settings", []):
        if not {"name", "seed_value", "quote"} <= set(item) or ("study" in item) == ("study_text" in item):
            raise FsmarenaError(f"{path}: a setting needs name, seed_value, quote and one of study or study_text")
    return data


def compare(
    what: str, seed_value: float, tolerance: float, samples: list[float], not_comparable: str = ""
) -> Comparison:
    """The seed's number against the replicates' values (``samples``): agrees when it lies in the
    replicates' 95% interval (the value itself for one replicate) widened by ``tolerance``."""
    mean, low, high = mean_ci(samples)
    if len(samples) == 1:
        low = high = mean
    if not_comparable:
        verdict = "not comparable"
    elif not samples or math.isnan(low):
        verdict, not_comparable = "not comparable", "this run has no replicate of it"
    else:
        verdict = "agrees" if low - tolerance <= seed_value <= high + tolerance else "differs"
    return Comparison(what, seed_value, tolerance, len(samples), mean, low, high, verdict, not_comparable)


def measure_values(results: StudyResults, competitor: str, measure: str) -> list[float]:
    """Every replicate's value of ``measure`` (``exact_value``, or ``win_rate:<builtin>``: wins
    over games against it) for ``competitor``, from the first part that has it."""
    for data in results.parts.values():
        if competitor not in {c.name for c in data.plan.competitors}:
            continue
        records = data.family(competitor)
        if measure == "exact_value":
            return [float(rec.info["exact_value"]) for rec in records]
        opponent = measure.removeprefix("win_rate:")
        if measure.startswith("win_rate:") and all(opponent in rec.panel for rec in records):
            return [rec.panel[opponent]["wins"] / rec.panel[opponent]["games"] for rec in records]
        raise FsmarenaError(f"seed file: unknown measure '{measure}' for '{competitor}'")
    raise FsmarenaError(f"seed file: '{competitor}' is not a competitor of study '{results.name}'")


def study_value(results: StudyResults, key: str) -> Any:
    """The study's value of a setting key: ``study.<field>``, ``game.<rule>`` or
    ``<competitor>.<setting>`` (the first part's, in a sweep)."""
    owner, _, name = key.partition(".")
    if owner == "study":
        if hasattr(results.study, name):
            return getattr(results.study, name)
        if name in results.study.options:
            return results.study.options[name]
    elif owner == "game":
        game = next(iter(results.parts.values())).game
        config = getattr(game, "config", game)
        if hasattr(config, name):
            return getattr(config, name)
    else:
        settings = results.settings
        found = [s for c, s in settings.items() if c == owner or c.startswith(owner + ".")]
        if found and name in found[0]:
            return found[0][name]
    raise FsmarenaError(f"seed file: '{key}' is not a setting of study '{results.name}'")


def _shown(value: Any) -> str:
    if isinstance(value, (list, tuple)):
        return ", ".join(str(v) for v in value)
    if isinstance(value, dict):
        return ", ".join(f"{k} = {v}" for k, v in value.items())
    if isinstance(value, int) and not isinstance(value, bool):
        return f"{value:,}"
    return str(value)


def settings_table(results: StudyResults, seed: dict[str, Any]) -> list[str]:
    """The seed's settings beside the study's: same or different."""
    rows = ["| setting | seed | this study | same? |", "|---|---|---|---|"]
    for item in seed.get("settings", []):
        if "study" in item:
            ours = _shown(study_value(results, item["study"]))
            same = "yes" if ours == _shown(item["seed_value"]) else "no"
        else:
            ours, same = (
                item["study_text"],
                "yes" if item["study_text"].startswith(_shown(item["seed_value"])) else "no",
            )
        note = f" ({item['note']})" if item.get("note") else ""
        rows.append(f"| {item['name']} | {_shown(item['seed_value'])} | {ours}{note} | {same} |")
    return rows


def comparisons(results: StudyResults, seed: dict[str, Any]) -> list[Comparison]:
    """Every number the seed reports against this run."""
    return [
        compare(
            item["what"],
            float(item["value"]),
            float(item["tolerance"]),
            measure_values(results, item["competitor"], item["measure"]),
            item.get("not_comparable", ""),
        )
        for item in seed.get("reported", [])
    ]


def _comparison_row(c: Comparison) -> str:
    interval = f"{c.mean:.4g}" if c.replicates == 1 else f"{c.mean:.4g} [{c.low:.4g}, {c.high:.4g}]"
    verdict = c.verdict + (f": {c.why}" if c.why else "")
    return f"| {c.what} | {c.seed_value:.4g} (± {c.tolerance:.3g}) | {interval} | {c.replicates} | {verdict} |"


def _field_line(results: StudyResults, seed: dict[str, Any]) -> str:
    """Where the seed names its strategies and the study's league field draws from others, say so."""
    strategies = seed.get("strategies")
    if not strategies or list(results.study.panel) == list(strategies):
        return ""
    extra = [name for name in results.study.panel if name not in strategies]
    return (
        f"The league's *field* draws from the study's panel ({', '.join(results.study.panel)}), not from the "
        f"seed's six strategies: it adds {', '.join(extra)}, so it is this study's field, not the seed's."
    )


def section(results: StudyResults, figures: bool) -> str:
    """``## The seed``: what it reports, its settings beside the study's, and the verdicts ("" for a
    game without a seed file or a study the file does not cover)."""
    path = seed_path(results)
    if not path.is_file():
        return ""
    seed = read_seed(path)
    if results.name not in seed["studies"]:
        return ""
    if not seed["seed"]:
        return f"## The seed\n\n{seed.get('no_seed', 'This study has no seed.')}\n"
    lines = [f"## The seed\n\nSeed {seed['seed']}, *{seed.get('title', '')}*. {' '.join(seed['summary'].split())}"]
    if seed.get("reported"):
        lines += ["", "What the seed reports:\n", "| what | value | where | in the seed's words |", "|---|---|---|---|"]
        lines += [f"| {r['what']} | {r['value']} | {r['where']} | `{r['quote']}` |" for r in seed["reported"]]
        lines += ["", "Against this run (the replicates' mean and Student-t 95% interval; the seed's own"]
        lines += ["uncertainty after ±; *agrees*: the seed's number lies in the interval widened by it):\n"]
        lines += ["| what | seed | this run | replicates | verdict |", "|---|---|---|---|---|"]
        lines += [_comparison_row(c) for c in comparisons(results, seed)]
    lines += ["", "The seed's settings beside this study's:\n", *settings_table(results, seed)]
    field = _field_line(results, seed)
    return "\n".join([*lines, *(["", field] if field else [])]) + "\n"
