"""``fsmarena study``: run a named study end to end (resumable) and write its report.

The engines, studies and figures are imported inside the command's functions: ``fsmarena --help``
imports every command module and must stay quick (:mod:`fsmarena.commands`).
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

from fsmarena.commands._common import (
    add_dask,
    add_json,
    jobs_count,
    output_path,
    parallel_backend,
    print_json,
    seed_value,
)

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
        "--out",
        type=output_path,
        required=True,
        help="output folder (new, empty, or this study's own to resume; a family added to the study since is trained there, the others kept)",
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
    from fsmarena.studies.catalogue import get_study
    from fsmarena.studies.pipeline import run_pipeline, write_run_record
    from fsmarena.studies.report import write_report

    def log(message: str) -> None:
        if not args.quiet:
            print(f"fsmarena study: {message}", file=sys.stderr)

    study = get_study(args.name)
    start = time.perf_counter()
    with parallel_backend(args):  # --dask: replicate tasks, cross-play and league chunks run on the cluster
        results = run_pipeline(study, args.scale, Path(args.out), args.seed, args.jobs, log)
        log("tables, figures and report")
        results.command, results.wall_seconds = command_line(args), time.perf_counter() - start
        summary = write_report(results, not args.no_figures)
    write_run_record(Path(args.out), results.command, results.wall_seconds)
    if args.json:
        identity = {"study": study.name, "scale": results.scale, "seed": results.seed}
        print_json(
            {**identity, "fingerprint": results.fingerprint, **{k: v for k, v in summary.items() if k != "lines"}}
        )
    else:
        print("\n".join(summary["lines"]))
    return 0
