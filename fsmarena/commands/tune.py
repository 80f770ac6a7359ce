"""``fsmarena tune``: search one study family's settings for its game within a budget of games.

The engines are imported inside :func:`run`: ``fsmarena --help`` imports every command module and
must stay quick (:mod:`fsmarena.commands`).
"""

from __future__ import annotations

from pathlib import Path

from fsmarena.commands._common import (
    add_json,
    games_count,
    jobs_count,
    output_path,
    positive_int,
    print_json,
    seed_value,
)

NAME = "tune"
HELP = "search a study family's settings (a space given as TOML) within a budget of games; writes a JSON record"


def add_arguments(parser) -> None:
    parser.add_argument("study", metavar="STUDY", help="study name or a study .toml file")
    parser.add_argument("--competitor", required=True, help="the family (competitor name) to tune")
    parser.add_argument(
        "--space",
        required=True,
        help="TOML file: per parameter { int = [lo, hi] }, { float = [lo, hi], log = true } or { choice = [...] }",
    )
    parser.add_argument(
        "--budget", type=positive_int, required=True, help="games every trial's training may consume in all"
    )
    parser.add_argument("--scale", default="test", help="the study scale whose budgets give the untuned parameters")
    parser.add_argument(
        "--opponent", action="append", help="score against this player (repeatable; default: the study's panel)"
    )
    parser.add_argument("--eval-games", type=games_count, default=200, help="scoring games per trial and opponent")
    parser.add_argument(
        "--algorithm",
        choices=("auto", "random", "optuna"),
        default="auto",
        help="auto: optuna's TPE if installed, else random search",
    )
    parser.add_argument("--seed", type=seed_value, default=None, help="master seed (default: the study's own)")
    parser.add_argument(
        "--jobs",
        type=jobs_count,
        default=1,
        help="worker processes for the random search (results identical for any value)",
    )
    parser.add_argument(
        "--out", type=output_path, required=True, help="the JSON record (resumed when it is this run's)"
    )
    add_json(parser)


def run(args) -> int:
    from fsmarena.errors import FsmarenaError
    from fsmarena.fileio import check_output_file
    from fsmarena.studies.catalogue import get_study
    from fsmarena.studies.study_file import read_toml
    from fsmarena.tuning.family import FamilyObjective
    from fsmarena.tuning.record import run_tuning
    from fsmarena.tuning.search import optuna_available
    from fsmarena.tuning.space import parse_space

    study = get_study(args.study)
    plan = study.plan(args.scale, args.seed)
    found = {c.name: c for c in plan.competitors}
    if args.competitor not in found:
        raise FsmarenaError(f"unknown competitor '{args.competitor}' (known: {', '.join(found)})")
    competitor = found[args.competitor]
    if competitor.needs:
        raise FsmarenaError(
            f"competitor '{competitor.name}' trains against the champions of {', '.join(competitor.needs)}: "
            "tune a family that trains on its own"
        )
    space = parse_space(read_toml(Path(args.space)), f"search space {args.space}")
    algorithm = args.algorithm if args.algorithm != "auto" else ("optuna" if optuna_available() else "random")
    objective = FamilyObjective(
        study.game,
        competitor.method,
        dict(competitor.params),
        competitor.name,
        tuple(args.opponent or study.panel),
        args.eval_games,
        plan.seed,
        dict(study.game_params),
        study.curve_opponent,
    )
    check_output_file(args.out)
    record = run_tuning(objective, space, args.budget, algorithm, study.name, Path(args.out), args.jobs)
    if args.json:
        print_json({k: record[k] for k in ("chosen", "chosen_score", "tuning_games", "scoring_games")})
    else:
        print(
            f"tuned {competitor.name} with {record['tuning_games']:,} games in {len(record['trials'])} trials ({algorithm}): "
            f"chosen {record['chosen']} (score {record['chosen_score']:.3f}); record in {args.out}"
        )
    return 0
