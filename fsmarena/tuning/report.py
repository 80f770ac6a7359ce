"""The report section "Tuning": what each tuned family searched, chose and paid, and what it changed.

For every part and budget level that ran the tuning stage (:mod:`fsmarena.tuning.stage`):

* one row per tuned family: the settings searched, their untuned values (the method's defaults
  with the study's parameters), the chosen ones, the trials, the tuning games (beside the
  family's budget, never in it) and the chosen trial's score on the tuning seeds;
* tuned against untuned at equal cost: a tuned family whose *twin* (a competitor with the same
  method, the same parameters but for those searched, and no search space) is in the study is
  compared with it on the study's
  replicates: both families' final players (:func:`fsmarena.studies.sample_efficiency.final_values`),
  the difference with its 95% interval over replicates, and the Mann-Whitney p-value, Holm-corrected
  over the tuned pairs of the part.
"""

from __future__ import annotations

from typing import Any

from fsmarena.stats import inference as inf
from fsmarena.stats.comparisons import holm, mann_whitney
from fsmarena.studies.protocol import Competitor
from fsmarena.studies.question_answers import difference_points
from fsmarena.studies.report_text import table as markdown_table
from fsmarena.studies.runner import StudyData
from fsmarena.studies.sample_efficiency import final_measure, final_values
from fsmarena.tuning.stage import options, tuning_runs


def twin(data: StudyData, tuned: Competitor) -> Competitor | None:
    """The untuned competitor with ``tuned``'s method and, but for the settings searched, its
    parameters, if the study has one."""

    def others(c: Competitor) -> dict[str, Any]:
        return {k: v for k, v in c.params.items() if k not in tuned.tune}

    for c in data.plan.competitors:
        if not c.tune and c.method == tuned.method and others(c) == others(tuned) and c.needs == tuned.needs:
            return c
    return None


def _value(value: Any) -> str:
    """A setting as the table shows it: 4 significant digits, "unset" for the method's own rule."""
    return "unset" if value is None else f"{value:.4g}" if isinstance(value, float) else str(value)


def search_table(data: StudyData, records: dict[str, dict[str, Any]]) -> str:
    """One row per tuned family: searched, untuned, chosen, trials, games, chosen score."""
    rows = []
    for name, record in records.items():
        c = data.plan.competitor(name)
        keys = sorted(c.tune)
        rows.append(
            [
                c.label,
                ", ".join(keys),
                ", ".join(f"{k} {_value(record['defaults'].get(k))}" for k in keys),
                ", ".join(f"{k} {_value(record['chosen'][k])}" for k in keys),
                str(len(record["trials"])),
                f"{record['tuning_games']:,}",
                f"{data.budget(name):,}",
                f"{record['chosen_score']:.3f}",
            ]
        )
    head = ["family", "searched", "untuned", "chosen", "trials", "tuning games", "budget", "chosen score"]
    return markdown_table(head, rows)


def twin_rows(data: StudyData) -> list[list[str]]:
    """Tuned against untuned on the study's replicates (module docstring); [] without twins."""
    pairs = [(c, t) for c in data.plan.competitors if c.tune and (t := twin(data, c)) is not None]
    values = [(final_values(data, c.name), final_values(data, t.name)) for c, t in pairs]
    adjusted = holm([mann_whitney(xs, ys)["p"] if len(xs) and len(ys) else 1.0 for xs, ys in values])
    rows = []
    for (c, t), (xs, ys), p in zip(pairs, values, adjusted):
        if not xs or not ys:
            continue
        gap = inf.difference_interval(xs, ys, inf.generator(data.plan.seed, c.name, t.name))
        rows.append(
            [
                c.label,
                t.label,
                f"{100 * sum(ys) / len(ys):.1f}%",
                f"{100 * sum(xs) / len(xs):.1f}%",
                difference_points(gap.value, max(gap.low, -1.0), min(gap.high, 1.0)),  # rates: within ±100 pp
                f"{p:.3g}",
                f"{len(xs)} / {len(ys)}",
            ]
        )
    return rows


def part_text(results: Any, data: StudyData) -> str:
    """The tuning of one part at one level ("" when it ran no tuning)."""
    records = data.stages.get("tuning")
    if not records:
        return ""
    o = options(results.study)
    runs = tuning_runs(results.study, results.scale)
    out = [
        f"Each tuned family searched its settings before training with the games of {runs} training runs at "
        f"its budget, by {o['algorithm']} search. Each trial's player was scored over {o['eval_games']:,} games "
        f"against each of {', '.join(f'`{x}`' for x in o['opponents'])}, on seeds no other part of the study uses. "
        "The tuning games are reported beside the budget, not in it; scoring games are not counted.",
        "",
        search_table(data, records),
    ]
    rows = twin_rows(data)
    if rows:
        head = [
            "tuned",
            "untuned",
            "untuned mean",
            "tuned mean",
            "tuned − untuned",
            "Mann-Whitney p (Holm)",
            "replicates",
        ]
        out += [
            "",
            f"Tuned against untuned at equal cost ({final_measure(data)}, final players, 95% interval over replicates):",
            "",
            markdown_table(head, rows),
        ]
    return "\n".join(out)


def section(results: Any, figures: bool = True) -> str:
    """The tuning section of every report ("" for a study that tunes nothing)."""
    out = []
    for level, run in results.at_every_level().items():
        for part, data in run.parts.items():
            text = part_text(results, data)
            if not text:
                continue
            where = [results.part_name(part)] if part is not None else []
            if len(results.at_every_level()) > 1 and level is not None:
                where.append(f"every family configured for {level:,} games")
            out += ([f"### {', '.join(where)}", ""] if where else []) + [text, ""]
    return "\n".join(["## Tuning", "", *out]).rstrip() + "\n" if out else ""
