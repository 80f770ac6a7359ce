"""``fsmarena study``: run a named study end to end (resumable) and write its report.

The engines, studies and figures are imported inside the command's functions: ``fsmarena --help``
imports every command module and must stay quick (:mod:`fsmarena.commands`).
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

from fsmarena import progress
from fsmarena.commands._common import (
    add_dask,
    add_json,
    jobs_count,
    output_path,
    parallel_backend,
    print_json,
    seed_value,
)
from fsmarena.outdir import claim_folder

NAME = "study"
HELP = (
    "run a named study (e.g. dtd-thesis) end to end: replicates, cross-play, statistics, "
    "figures and DIR/report.md; re-running resumes"
)


def add_arguments(parser) -> None:
    parser.add_argument("name", metavar="NAME", help="study name (e.g. dtd-thesis) or a study .toml file")
    parser.add_argument(
        "--scale", default="quick", help="budget scale defined by the study: test (seconds), quick (minutes), paper"
    )
    parser.add_argument(
        "--jobs", type=jobs_count, default=1, help="worker processes (results are identical for any value)"
    )
    add_dask(parser)
    parser.add_argument(
        "--seed", type=seed_value, default=None, help="master seed (default: the study's own, recorded in the report)"
    )
    parser.add_argument(
        "--out", type=output_path, required=True, help="output folder (new, empty, or this study's own to resume)"
    )
    parser.add_argument("--no-figures", action="store_true", help="skip the figures (tables and report only)")
    add_json(parser)


def command_line(args) -> str:
    """The canonical command that reproduces this run."""
    parts = ["fsmarena", "study", args.name, "--scale", args.scale, "--jobs", str(args.jobs)]
    if args.seed is not None:
        parts += ["--seed", str(args.seed)]
    return " ".join(parts + ["--out", args.out])


def run(args) -> int:
    from fsmarena.studies.analysis import analyse
    from fsmarena.studies.protocol import DriverRun, StudyDriver, get_study
    from fsmarena.studies.report import write_report
    from fsmarena.studies.report_text import summary_cell
    from fsmarena.studies.runner import run_study

    def log(message: str) -> None:
        if not args.quiet:
            print(f"fsmarena study: {message}", file=sys.stderr)

    study = get_study(args.name)
    if isinstance(study, StudyDriver):
        claim_folder(args.out, "study")  # a study with its own driver (vautour: 2 and 3 players; thirtyone)
        with parallel_backend(args):
            run = DriverRun(
                args.scale, Path(args.out), args.seed, args.jobs, not args.no_figures, command_line(args), log
            )
            summary = study.run_driver(run)
        if args.json:
            print_json(summary)
        else:
            print("\n".join(study.summary_lines(summary)))
        return 0
    plan = study.plan(args.scale, args.seed)  # run_study claims the folder once every setting is checked
    start = time.perf_counter()

    with parallel_backend(args):  # --dask: replicate tasks and cross-play chunks run on the cluster
        data = run_study(plan, args.out, args.jobs, log)
        if study.report:  # a study with a report of its own kind (e.g. 421: exact values)
            from fsmarena.studies.study_reports import report_builder

            log("tables, figures and report")
            summary = report_builder(study.report)(
                data, not args.no_figures, command_line(args), time.perf_counter() - start
            )
            if args.json:
                print_json(
                    {
                        "study": study.name,
                        "scale": plan.scale.name,
                        "seed": plan.seed,
                        "fingerprint": plan.fingerprint,
                        **{k: v for k, v in summary.items() if k != "lines"},
                    }
                )
            else:
                print("\n".join(summary["lines"]))
            return 0
        log("statistics, figures and report")
        with progress.bar(None, "analysis"):
            analysis = analyse(data, figures=not args.no_figures)
        report = write_report(data, analysis, command_line(args), time.perf_counter() - start)
    opponent = study.curve_opponent if study.curve_opponent in study.panel else study.panel[0]
    rows = [r for r in analysis.tables["panel_summary"] if r["opponent"] == opponent]
    if args.json:
        print_json(
            {
                "study": study.name,
                "scale": plan.scale.name,
                "seed": plan.seed,
                "fingerprint": plan.fingerprint,
                "report": str(report),
                "panel_summary": analysis.tables["panel_summary"],
                "crossplay_family": analysis.tables.get("crossplay_family", []),
            }
        )
    else:
        width = max(len(r["method"]) for r in rows) + 2
        print(f"win rate vs {opponent} (mean over replicates, 95% CI)")
        for r in rows:
            print(f"  {r['method'].ljust(width)}{summary_cell(r)}")
        print(f"report: {report}")
    return 0
