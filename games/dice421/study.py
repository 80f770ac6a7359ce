"""The 421 study: every learner scored by the exact value of its policy, not by sampling.

421 is a one-player game with a known model (:mod:`games.dice421.exact`), so the value of any
table policy or table FSM is computed exactly, and so is the optimum.  This module gives the
study its three methods and its own report (the standard report is about win rates against
opponents, which a one-player game has none of):

* ``train-exact``: a sample-based learner of :mod:`rl.train` (Monte Carlo, SARSA, Q-learning,
  expected SARSA) trained by simulation; its learning curve is the exact value of its greedy
  policy at every evaluation point against the simulated games consumed.
* ``evolve-exact``: a genetic algorithm (:mod:`evo.run`, ``score`` protocol) evolving table
  FSMs; its curve is the exact value of each measured generation's champion against the games
  simulated for fitness (none with ``exact_fitness``).
* ``plan``: value iteration or policy iteration on the model (no simulated game): the
  reference rows.

For every method the runner's record keeps, in ``curve_win``, the curve as a *fraction of the
optimum* (in [0, 1]) and, in ``info``, the exact values themselves, the optimum, and a sampled
check of the final player (mean score over ``check_games`` games with its 95% interval, which
should contain the exact value).

:func:`finish` turns a finished run into ``tables/*.csv``, figures (learning curves of exact
value against simulated games, final values, the optimal policy) and ``report.md``.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any, Sequence

import numpy as np

from fsmarena import limits
from fsmarena.errors import FsmarenaError
from fsmarena.fileio import Fields, write_text
from games.base import Game, config_to_dict
from games.capabilities import ExactModel
from games.match import play_match
from games.players import Player
from games.stats import mean_interval
from studies.adapters import _config, evolve_games, train_games
from studies.analysis import to_csv
from studies.methods import MethodContext, Params, Trained
from studies.provenance import reproduce_section, written_by
from studies.report_text import table
from studies.runner import Record, StudyData

#: the share of the optimum a learner must reach (the issue's criterion)
TARGET = 0.99
#: default number of games of the sampled check of every final player
CHECK_GAMES = 20_000


# ---- shared pieces -------------------------------------------------------------------------


def _exact_game(p: Params, game: Game) -> None:
    """Refuse games these methods cannot score exactly."""
    if game.n_seats != 1 or not isinstance(game, ExactModel):
        raise p.fail(f"needs a one-player game with a known model and exact player values (421); {game.name} has none")


def exact_model(game: Game) -> ExactModel:
    """The game's exact model (the methods and the report of this study need one)."""
    if not isinstance(game, ExactModel):
        raise FsmarenaError(f"{game.name} has no known model: the exact-values study needs one (421)")
    return game


def optimum(game: Game) -> float:
    """The optimal expected score, exact."""
    return float(exact_model(game).exact_optimum()[0])


def exact_of(game: Game, player: Player) -> float:
    return float(exact_model(game).exact_player_values(player)[0])


def _fraction(value: float, best: float) -> float:
    """``value / best`` clipped to [0, 1] (floating-point evaluation may overshoot by 1e-15)."""
    return min(1.0, max(0.0, value / best)) if best > 0 else 0.0


def sampled_check(game: Game, player: Player, games: int, seed: int) -> dict[str, float]:
    """The mean score of ``player`` over ``games`` games and its 95% interval."""
    stats = play_match(game, player, None, games, np.random.SeedSequence(seed, spawn_key=(7,)))
    low, high = mean_interval(stats.score, stats.score_sq, stats.games)
    return {
        "sampled_games": stats.games,
        "sampled_mean": stats.score / stats.games,
        "sampled_ci_low": low,
        "sampled_ci_high": high,
    }


def _trained(
    ctx: MethodContext,
    player: Player,
    games: int,
    curve: Sequence[tuple[int, float]],
    check_games: int,
    info: dict[str, Any],
) -> Trained:
    best = optimum(ctx.game)
    value = exact_of(ctx.game, player)
    player.label = ctx.label
    return Trained(
        player=player,
        games=int(games),
        curve_games=[int(g) for g, _ in curve],
        curve_win=[_fraction(v, best) for _, v in curve],
        info={
            **info,
            "exact_value": value,
            "optimum": best,
            "curve_value": [float(v) for _, v in curve],
            **sampled_check(ctx.game, player, check_games, ctx.seed),
        },
    )


def _check_games(p: Params) -> int:
    return p.positive("check_games", CHECK_GAMES)


# ---- methods ----------------------------------------------------------------------------------


def train_exact(ctx: MethodContext) -> Trained:
    """Train a tabular learner by simulation; curve = exact value of its greedy policy."""
    from rl.train import train as run_training

    config, check_games = _train_config(ctx)
    result = run_training(ctx.game, config, seed=ctx.seed, jobs=1, label=ctx.label)
    curve = [
        (int(r["games"]), float(r["exact_value"]))
        for r in result.curve
        if r.get("iteration") in ("", None) and r.get("exact_value") not in ("", None)
    ]
    return _trained(ctx, result.policy, result.games, curve, check_games, {"algo": config.algo})


def train_exact_games(settings: dict[str, Any], game: Game) -> int:
    """Every training game."""
    return train_games(settings, game)


def train_exact_check(ctx: MethodContext) -> dict[str, Any]:
    """Every setting the training will use (FsmarenaError naming the competitor if invalid)."""
    config, check_games = _train_config(ctx)
    return {**config.to_dict(), "check_games": check_games}


def _train_config(ctx: MethodContext) -> tuple[Any, int]:
    from rl.train import MODEL_BASED, TrainConfig

    p = Params(ctx)
    _exact_game(p, ctx.game)
    check_games = _check_games(p)
    if ctx.needs:
        raise p.fail("a one-player learner trains alone; remove 'needs'")
    config = _config(TrainConfig, p, exclude=("check_games",))
    if config.algo in MODEL_BASED:
        raise p.fail(f"{config.algo} plans on the model: use the 'plan' method")
    try:  # a parameter the algorithm does not take is refused
        return config.resolved(ctx.game, given=ctx.params), check_games
    except FsmarenaError as exc:
        raise p.fail(str(exc)) from None


def evolve_exact(ctx: MethodContext) -> Trained:
    """Evolve table FSMs with the score protocol; curve = exact value of the champions."""
    from evo.run import evolve as run_evolution

    config, check_games = _evolve_config(ctx)
    result = run_evolution(ctx.game, config, seed=ctx.seed, jobs=1)
    evaluations = result.generation * config.population
    return _trained(
        ctx,
        result.best,
        result.games,
        result.score_curve(),
        check_games,
        {
            "generations": int(result.generation),
            "exact_evaluations": evaluations if config.exact_fitness else 0,
            "best_fitness": float(result.best_fitness),
        },
    )


def evolve_exact_games(settings: dict[str, Any], game: Game) -> int:
    """Every simulated fitness game (none with exact fitness)."""
    return evolve_games(settings, game)


def evolve_exact_check(ctx: MethodContext) -> dict[str, Any]:
    """Every setting the evolution will use (FsmarenaError naming the competitor if invalid)."""
    config, check_games = _evolve_config(ctx)
    return {**config.to_dict(), "check_games": check_games}


def _evolve_config(ctx: MethodContext) -> tuple[Any, int]:
    from evo.genome import genome_spec
    from evo.run import EvolveConfig

    p = Params(ctx)
    _exact_game(p, ctx.game)
    check_games = _check_games(p)
    if ctx.needs:
        raise p.fail("evolution on a one-player game needs no other competitor; remove 'needs'")
    config = _config(EvolveConfig, p, exclude=("check_games",))
    if config.protocol != "score":
        raise p.fail('one-player evolution uses protocol = "score"')
    if config.genome != "fsm":
        raise p.fail('only table FSMs have exact values (genome = "fsm")')
    try:
        config = config.resolved(ctx.game, given=ctx.params)  # a parameter the protocol does not use is refused
        genome_spec(ctx.game, config.genome, config.states, config.inputs, config.max_tests)
    except FsmarenaError as exc:
        raise p.fail(str(exc)) from None
    return config, check_games


def plan(ctx: MethodContext) -> Trained:
    """Value or policy iteration on the model: the optimum as a reference (no simulated game)."""
    from rl.train import train as run_training

    config, check_games = _plan_config(ctx)
    result = run_training(ctx.game, config, seed=ctx.seed, jobs=1, label=ctx.label)
    iterations = sum(1 for r in result.curve if r.get("iteration") not in ("", None))
    return _trained(ctx, result.policy, 0, [], check_games, {"algo": config.algo, "iterations": iterations})


def plan_games(settings: dict[str, Any], game: Game) -> int:
    """Planning on the model simulates no game."""
    return 0


def plan_check(ctx: MethodContext) -> dict[str, Any]:
    """The planner and the sampled check's size (FsmarenaError naming the competitor if invalid)."""
    config, check_games = _plan_config(ctx)
    return {"algo": config.algo, "tolerance": config.tolerance, "check_games": check_games}


def _plan_config(ctx: MethodContext) -> tuple[Any, int]:
    from rl.train import MODEL_BASED, TrainConfig

    p = Params(ctx)
    _exact_game(p, ctx.game)
    check_games = _check_games(p)
    algo = p.get("algo", str)
    p.check_unused()
    if algo not in MODEL_BASED:
        raise p.fail(f"plan runs one of: {', '.join(MODEL_BASED)}")
    return TrainConfig(algo=algo, eval_games=1).resolved(ctx.game), check_games


# ---- tables -----------------------------------------------------------------------------------


def _quartiles(values: Sequence[float]) -> tuple[float, float, float]:
    q1, median, q3 = np.percentile(np.asarray(values, float), [25, 50, 75])
    return float(q1), float(median), float(q3)


def stored_info(rec: Record) -> dict[str, Any]:
    """What a task of this study stored beside its curve (:func:`_trained`), validated: a
    damaged result file or published store is one clear error, not a wrong table."""
    f = Fields(rec.info, f"result {rec.competitor}/r{rec.replicate:03d}: info")
    numbers = {
        key: f.number_in(key, -1e9, 1e9) for key in ("exact_value", "sampled_mean", "sampled_ci_low", "sampled_ci_high")
    }
    return {
        **numbers,
        "sampled_games": f.int_in("sampled_games", 1, limits.MAX_GAMES),
        "exact_evaluations": f.int_in("exact_evaluations", 0, 2**62, 0),
        "curve_value": f.float_array("curve_value", (len(rec.curve_games),), -1e9, 1e9).tolist(),
    }


def tables(data: StudyData) -> dict[str, list[dict[str, Any]]]:
    """Every table of the report, from the result files only."""
    plan_, game = data.plan, data.game
    best = optimum(game)
    values, curves, timing, summary = [], [], [], []
    for c in plan_.competitors:
        family = data.family(c.name)
        for rec in family:
            info = stored_info(rec)
            value = info["exact_value"]  # exact_of(the final player), stored with the result
            inside = info["sampled_ci_low"] <= value <= info["sampled_ci_high"]
            values.append(
                {
                    "competitor": c.name,
                    "method": c.label,
                    "replicate": rec.replicate,
                    "kind": c.method,
                    "games": rec.games,
                    "exact_evaluations": info["exact_evaluations"],
                    "exact_value": value,
                    "gap": best - value,
                    "gap_pct": 100 * (best - value) / best,
                    "fraction": value / best,
                    "reaches_target": value >= TARGET * best,
                    "sampled_games": info["sampled_games"],
                    "sampled_mean": info["sampled_mean"],
                    "sampled_ci_low": info["sampled_ci_low"],
                    "sampled_ci_high": info["sampled_ci_high"],
                    "exact_inside_ci": inside,
                    "train_seed": rec.seed,
                }
            )
            for games, exact in zip(rec.curve_games, info["curve_value"]):
                curves.append(
                    {
                        "competitor": c.name,
                        "method": c.label,
                        "replicate": rec.replicate,
                        "games": games,
                        "exact_value": exact,
                        "fraction": exact / best,
                    }
                )
            timing.append(
                {
                    "competitor": c.name,
                    "replicate": rec.replicate,
                    "train_seconds": rec.train_seconds,
                    "cpu_seconds": getattr(rec, "cpu_seconds", 0.0),
                }
            )
        mine = [row for row in values if row["competitor"] == c.name]
        exact = [row["exact_value"] for row in mine]
        q1, median, q3 = _quartiles(exact)
        summary.append(
            {
                "competitor": c.name,
                "method": c.label,
                "replicates": len(mine),
                "games_median": int(np.median([row["games"] for row in mine])),
                "median": median,
                "q1": q1,
                "q3": q3,
                "min": min(exact),
                "max": max(exact),
                "gap_median": best - median,
                "gap_median_pct": 100 * (best - median) / best,
                "fraction_median": median / best,
                "fraction_min": min(exact) / best,
                "reaching_target": sum(row["reaches_target"] for row in mine),
                "exact_inside_ci": sum(row["exact_inside_ci"] for row in mine),
            }
        )
    optimal = exact_model(game).exact_optimum()[1]
    policy = exact_model(game).policy_rows(optimal)
    return {
        "values": values,
        "values_summary": summary,
        "curves": curves,
        "optimal_policy": [
            {**row, "dice": "".join(map(str, row["dice"])), "keep": "".join(map(str, row["keep"]))} for row in policy
        ],
        "timing": timing,
    }


# ---- figures ----------------------------------------------------------------------------------


def figures(data: StudyData, result: dict[str, list[dict[str, Any]]]) -> dict[str, list[Path]]:
    """Learning curves, final values and the optimal policy (PNG and PDF in ``figures/``)."""
    from figures.outcomes import outcome_ecdfs
    from figures.style import family_colors
    from games.dice421.figures import exact_value_curves, final_gaps, optimal_policy_figure

    folder = data.out / "figures"
    best = optimum(data.game)
    drawn: dict[str, list[Path]] = {}
    palette = family_colors([c.label for c in data.plan.competitors])  # one colour per family in every figure
    families = {}
    for c in data.plan.competitors:
        runs = [(r["games"], r["exact_value"]) for r in result["curves"] if r["competitor"] == c.name]
        if not runs or all(g == 0 for g, _ in runs):
            continue  # planners and exact-fitness evolution simulate no game: nothing to draw on this axis
        families[c.label] = [
            (
                [r["games"] for r in result["curves"] if r["competitor"] == c.name and r["replicate"] == k],
                [r["exact_value"] for r in result["curves"] if r["competitor"] == c.name and r["replicate"] == k],
            )
            for k in range(c.replicates)
        ]
    drawn["learning_curves"] = exact_value_curves(
        families, best, folder / "learning_curves", target=TARGET, colors=palette
    )
    finals = {
        c.label: [r["exact_value"] for r in result["values"] if r["competitor"] == c.name]
        for c in data.plan.competitors
    }
    drawn["final_values"] = final_gaps(finals, best, folder / "final_values", target=TARGET, colors=palette)
    shares = {label: [v / best for v in values] for label, values in finals.items()}
    drawn["reliability"] = outcome_ecdfs(
        {"final policy": shares}, folder / "reliability", xlabel="exact value (% of the optimum)", colors=palette
    )
    game = data.game
    drawn["optimal_policy"] = optimal_policy_figure(
        game, exact_model(game).exact_optimum()[1], folder / "optimal_policy"
    )
    return drawn


# ---- report -----------------------------------------------------------------------------------


def _f(x: float, digits: int = 4) -> str:
    return "–" if x is None or not math.isfinite(x) else f"{x:.{digits}f}"


def _figure(paths: list[Path] | None, caption: str, out: Path) -> str:
    if not paths:
        return ""
    png = next(p for p in paths if p.suffix == ".png")
    pdf = next((p for p in paths if p.suffix == ".pdf"), None)
    link = f" ([PDF]({pdf.relative_to(out).as_posix()}))" if pdf else ""
    return f"![{caption}]({png.relative_to(out).as_posix()})\n\n*{caption}*{link}\n"


def report(
    data: StudyData,
    result: dict[str, list[dict[str, Any]]],
    drawn: dict[str, list[Path]],
    command: str,
    wall_seconds: float | None,
) -> Path:
    """Write ``DIR/report.md`` from the tables."""
    plan_, study, game = data.plan, data.plan.study, data.game
    best_fraction = exact_model(game).exact_optimum()[0]
    best = optimum(game)
    summary = result["values_summary"]
    competitor_rows = [
        [
            f"`{c.name}`",
            c.label,
            f"`{c.method}`",
            ", ".join(f"{k}={v}" for k, v in c.params.items()) or "–",
            c.replicates,
        ]
        for c in plan_.competitors
    ]
    value_rows = []
    for row in summary:
        evaluations = max(v["exact_evaluations"] for v in result["values"] if v["competitor"] == row["competitor"])
        effort = (
            f"{row['games_median']:,}"
            if row["games_median"]
            else f"0 ({evaluations:,} exact evaluations)"
            if evaluations
            else "0 (model)"
        )
        value_rows.append(
            [
                row["method"],
                row["replicates"],
                effort,
                f"{_f(row['median'])} [{_f(row['q1'])}, {_f(row['q3'])}]",
                f"{_f(row['min'])}–{_f(row['max'])}",
                f"{_f(row['gap_median'])} ({row['gap_median_pct']:.2f}%)",
                f"{100 * row['fraction_median']:.2f}%",
                f"{100 * row['fraction_min']:.2f}%",
                f"{row['reaching_target']} of {row['replicates']}",
                f"{row['exact_inside_ci']} of {row['replicates']}",
            ]
        )
    learners = [r for r in summary if r["games_median"] > 0]
    reached = [r["method"] for r in learners if r["reaching_target"] == r["replicates"]]
    missed = [r for r in learners if r["reaching_target"] < r["replicates"]]
    conclusions = []
    if reached:
        names = reached[0] if len(reached) == 1 else ", ".join(reached[:-1]) + " and " + reached[-1]
        conclusions.append(
            f"- Every replicate of {names} reached at least {100 * TARGET:.0f}% of the "
            f"optimum (exact value) with its budget of simulated games."
        )
    for r in missed:
        conclusions.append(
            f"- {r['method']}: {r['reaching_target']} of {r['replicates']} replicates reached "
            f"{100 * TARGET:.0f}% of the optimum (median {100 * r['fraction_median']:.2f}%, worst "
            f"{100 * r['fraction_min']:.2f}%)."
        )
    exact_refs = [r for r in summary if r["games_median"] == 0]
    for r in exact_refs:
        conclusions.append(
            f"- {r['method']} (no simulated game): median {100 * r['fraction_median']:.2f}% of the optimum."
        )
    total_inside = sum(r["exact_inside_ci"] for r in summary)
    total = sum(r["replicates"] for r in summary)
    conclusions.append(
        f"- Sampled check: the exact value lies inside the 95% interval of the sampled mean score for "
        f"{total_inside} of {total} final players (about 95% expected)."
    )
    spread = [r for r in result["values"] if r["kind"] == "plan"]
    if spread:
        r = spread[0]
        sd = (r["sampled_ci_high"] - r["sampled_ci_low"]) / (2 * 1.959964) * math.sqrt(r["sampled_games"])
        why = (
            f"- Why sampling is costly here: one game's score under the optimal policy has a standard deviation "
            f"of about {sd:.1f} points, while a 1% gap is {0.01 * best:.3f} points; the learners average every "
            "state-action's returns over the whole run."
        )
        if any(c.method == "evolve-exact" for c in plan_.competitors):
            why += (
                " A genetic algorithm with sampled fitness gets one noisy number per individual and generation "
                "(standard error about sd / sqrt(games per individual)), far larger than the difference between "
                "a parent and its mutated child, so selection is nearly blind at this budget; with the exact "
                "value as fitness the same algorithm gets close to the optimum."
            )
        conclusions.append(why)
    parts = [
        f"# {study.title}\n",
        f"Study `{study.name}` (version {study.version}), scale `{plan_.scale.name}`, written by fsmarena "
        f"{written_by(data)}.\n",
        "## Question\n",
        study.question.strip() + "\n",
        "## Protocol\n",
        f"- **Game** `{study.game}` with parameters: "
        + ", ".join(f"{k}={val}" for k, val in config_to_dict(game.config).items())
        + ".",
        f"- **Scale** {plan_.scale.name}"
        + (f": {plan_.scale.description}" if plan_.scale.description else "")
        + f"; protocol fingerprint `{plan_.fingerprint}`.",
        f"- **Master seed** {plan_.seed}: replicate *r* of a competitor trains with a seed derived from "
        f"`SeedSequence({plan_.seed})` keyed by *r* and the competitor's name (`tables/values.csv`, column "
        "`train_seed`); results do not depend on `--jobs`.",
        "- **Scoring**: the exact expected score of every final policy (backward induction over the known "
        "model), never a sample; the learning curves are the exact value of the policy of the moment against "
        "the simulated games consumed so far. Each final player also plays "
        f"{result['values'][0]['sampled_games']:,} games as a sampled check.",
        "- Parameters not listed take the defaults of `rl.train.TrainConfig` with 421's own training defaults "
        "(`Dice421.train_defaults`) and of `evo.run.EvolveConfig`.\n",
        table(["name", "method", "kind", "parameters", "replicates"], competitor_rows),
        "",
        "## Results\n",
        f"The optimum is {best_fraction} ≈ {best:.6f} (exact). Values are the exact expected score of each "
        "replicate's final policy: median [inter-quartile range] and range over replicates; the gap is the "
        f"optimum minus the median. *≥ {100 * TARGET:.0f}%*: replicates whose exact value reaches "
        f"{100 * TARGET:.0f}% of the optimum (`tables/values.csv`, `tables/values_summary.csv`).\n",
        table(
            [
                "method",
                "replicates",
                "simulated games",
                "exact value: median [IQR]",
                "range",
                "gap (median)",
                "% of optimum (median)",
                "% of optimum (worst)",
                f"≥ {100 * TARGET:.0f}%",
                "exact value inside sampled 95% CI",
            ],
            value_rows,
        ),
        "",
        _figure(
            drawn.get("learning_curves"),
            "Exact value of the current policy against simulated games "
            "consumed (left) and its gap to the optimum in % (right, log scale): median and inter-quartile "
            f"band over replicates. Dashed: the optimum; dotted: {100 * TARGET:.0f}% of it (a 1% gap).",
            data.out,
        ),
        _figure(
            drawn.get("final_values"),
            "Gap of every final policy to the optimum, in % of the optimum (log "
            "scale; one dot per replicate, bar: median). Dotted: the 1% gap of the 99% criterion; gaps "
            "below 0.001% (the planners: rounding only) are drawn at 0.001%.",
            data.out,
        ),
        _figure(drawn.get("reliability"), getattr(drawn.get("reliability"), "caption", ""), data.out),
        "## The optimal policy\n",
        "Which dice to keep, by dice (best scores first) and throws left; *stop* keeps all three. "
        "Full table with state values: `tables/optimal_policy.csv`.\n",
        _figure(
            drawn.get("optimal_policy"),
            "The optimal policy of 421: colour = number of dice thrown again, text = the dice kept.",
            data.out,
        ),
        "<details><summary>The optimal policy as text</summary>\n\n```\n"
        + exact_model(game).policy_text(exact_model(game).exact_optimum()[1])
        + "\n```\n\n</details>\n",
        "## Conclusions\n",
        "\n".join(conclusions) + "\n",
        "## Compute\n",
        "Seconds per replicate task (training, scoring and the sampled check), wall clock and CPU time of its "
        "process; wall-clock times depend on the machine's load (`tables/timing.csv`).\n",
        table(
            ["method", "median wall s / replicate", "median CPU s / replicate", "total CPU s"],
            [
                [c.label, f"{np.median(w):.1f}", f"{np.median(t):.1f}", f"{sum(t):.1f}"]
                for c in plan_.competitors
                for w, t in [
                    (
                        [r["train_seconds"] for r in result["timing"] if r["competitor"] == c.name],
                        [r["cpu_seconds"] for r in result["timing"] if r["competitor"] == c.name],
                    )
                ]
            ],
        ),
        (f"\nWall-clock time of this invocation: {wall_seconds / 60:.1f} min.\n" if wall_seconds is not None else ""),
        reproduce_section(
            command,
            [
                "`study.json`: the protocol and its fingerprint",
                "`tables/values.csv`, `tables/values_summary.csv`, `tables/curves.csv`, `tables/optimal_policy.csv`: "
                "every number in this report (`tables/timing.csv`: compute times)",
                "`figures/*.png`, `figures/*.pdf`: the figures",
                "`players/<competitor>/rNNN.json`: every final player (`fsmarena play 421 FILE` plays it)",
                "`replicates/<competitor>/rNNN.json`: raw per-replicate results",
            ],
            environment=data.environment,
        ),
    ]
    path = data.out / "report.md"
    write_text(path, "\n".join(p for p in parts if p is not None) + "\n")
    return path


def finish(data: StudyData, draw: bool, command: str, wall_seconds: float | None) -> dict[str, Any]:
    """Tables, figures and report of a finished run; returns a summary for the command line."""
    result = tables(data)
    for name, rows in result.items():
        write_text(data.out / "tables" / f"{name}.csv", to_csv(rows))
    drawn = figures(data, result) if draw else {}
    path = report(data, result, drawn, command, wall_seconds)
    best = optimum(data.game)
    lines = [
        f"exact value of the final policies (optimum {best:.6f}): median, % of optimum, replicates >= "
        f"{100 * TARGET:.0f}%"
    ]
    width = max(len(r["method"]) for r in result["values_summary"]) + 2
    for r in result["values_summary"]:
        lines.append(
            f"  {r['method'].ljust(width)}{r['median']:.4f}  {100 * r['fraction_median']:6.2f}%  "
            f"{r['reaching_target']}/{r['replicates']}"
        )
    lines.append(f"report: {path}")
    return {"report": str(path), "optimum": best, "values_summary": result["values_summary"], "lines": lines}
