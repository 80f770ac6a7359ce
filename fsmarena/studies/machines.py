"""The report section "What the machines do": effective sizes and fingerprints.

Two things a reader wants from a study's evolved machines besides their win rates:

* **effective size**: every champion's declared states, those reachable, and its effective
  states: after exact minimisation, and on the inputs it met against the study's panel
  (:mod:`fsmarena.evo.minimise`, :mod:`fsmarena.evo.usage`); written to ``tables/machine_sizes.csv``;
* **fingerprints**: the win rate of each family's best champion, machines and learners alike,
  against the game's family of probe opponents (:mod:`fsmarena.evo.fingerprint`), drawn side by side
  (``figures/fingerprints.png``) and written to ``tables/fingerprints.csv``.

Budgets follow the study's scale (at most :data:`USAGE_GAMES` usage games per opponent and
seat, :data:`FINGERPRINT_GAMES` games per probe point) and every game is seeded from the
study's master seed, so a re-run writes the same tables.  A published run keeps no players: it
keeps the size rows and fingerprints measured when it was stored (``StudyData.kept``,
:mod:`fsmarena.studies.store`), and this section reads them instead of playing.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from fsmarena.errors import FsmarenaError
from fsmarena.evo.fingerprint import Fingerprint, ProbeFamily, fingerprint, probe_family
from fsmarena.evo.usage import machine_summary, measure_usage
from fsmarena.figures.fingerprint import fingerprint_figure
from fsmarena.figures.policy_map import policy_maps, policy_visits
from fsmarena.figures.style import Drawn
from fsmarena.fileio import write_text
from fsmarena.games.players import TablePolicy, resolve_player
from fsmarena.studies.analysis import MACHINE_KINDS, Analysis, to_csv
from fsmarena.studies.report_text import figure, image, section, table
from fsmarena.studies.runner import StudyData, champion_label

USAGE_GAMES = 100
FINGERPRINT_GAMES = 200
FINGERPRINT_GRID = 5


def machines_summary_section(data: StudyData, analysis: Analysis) -> str:
    """The section's Markdown (empty when the study has neither machines nor opponents);
    writes its tables and figure into the study folder."""
    sizes = size_rows(data)
    parts = []
    if sizes:
        write_text(data.out / "tables" / "machine_sizes.csv", to_csv(sizes))
        parts += [
            "Effective size of every evolved champion: its states, those reachable from the start, and "
            "its effective states: after merging states that play alike (exact), and on the inputs it "
            f"met against the panel ({sizes[0]['usage_games']} games per opponent and seat).\n",
            table(
                ["champion", "family", "kind", "states", "reachable", "effective", "effective in play"],
                [
                    [
                        r["champion"],
                        r["family"],
                        r["kind"],
                        r["states"],
                        r["reachable_states"],
                        r["effective_states"],
                        r["effective_states_in_play"],
                    ]
                    for r in sizes
                ],
            )
            + "\n",
        ]
    parts.append(fingerprint_part(data, analysis))
    parts = [p for p in parts if p]
    return "\n".join(["### What the machines do\n", *parts]) if parts else ""


def size_rows(data: StudyData) -> list[dict[str, Any]]:
    """One row per champion of a machine kind: states, reachable, effective, inputs, usage (as
    kept, for a published run)."""
    if data.kept is not None:
        return data.kept["machine_sizes"]
    panel = [resolve_player(name, data.game) for name in data.plan.study.panel]
    games = min(USAGE_GAMES, data.plan.scale.panel_games)
    rows = []
    for (name, replicate), record in sorted(data.records.items()):
        if record.player.kind not in MACHINE_KINDS:
            continue
        usage = measure_usage(record.player, data.game, panel, games, data.plan.seed)
        summary = machine_summary(record.player, data.game, usage)
        rows.append(
            {
                "champion": champion_label(name, replicate),
                "family": data.plan.competitor(name).label,
                "kind": summary["kind"],
                "states": summary["states"],
                "reachable_states": summary["reachable_states"],
                "effective_states": summary["effective_states"],
                "effective_states_in_play": summary["effective_states_in_play"],
                "entries_used": summary["usage"]["entries_used"],
                "entries": summary["usage"]["entries"],
                "usage_games": games,
            }
        )
    return rows


def fingerprint_part(data: StudyData, analysis: Analysis) -> str:
    """Fingerprints of each family's best champion, side by side ("" for one-player games)."""
    try:
        family = probe_family(data.game)
    except FsmarenaError:
        return ""
    if not analysis.best:
        return ""
    games = fingerprint_games(data)
    prints, rows = [], []
    for (name, replicate), result in best_fingerprints(data, analysis, family).items():
        prints.append(replace(result, label=f"{analysis.labels[name]} r{replicate:03d}"))
        rows += [
            {"champion": champion_label(name, replicate), "x": x, "y": y, "win_rate": result.values[j, i]}
            for j, y in enumerate(result.y)
            for i, x in enumerate(result.x)
        ]
    write_text(data.out / "tables" / "fingerprints.csv", to_csv(rows))
    if not analysis.figures:  # a report without figures (--no-figures) gets the table only
        return f"Fingerprints of each family's best champion: `tables/fingerprints.csv` ({games} games per point).\n"
    paths = fingerprint_figure(prints, data.out / "figures" / "fingerprints")
    a, b, c = family.names
    caption = (
        f"Fingerprints: win rate of each family's best champion against probes that play, at every "
        f"decision, like {a} with probability x, like {b} with probability (1 - x) y and like {c} "
        f"otherwise ({games} games per point, seats rotated)."
    )
    return image(paths, data.out, caption)


def fingerprint_games(data: StudyData) -> int:
    """Games per probe point at this study's scale."""
    return min(FINGERPRINT_GAMES, data.plan.scale.panel_games)


def best_fingerprints(data: StudyData, analysis: Analysis, family: ProbeFamily) -> dict[tuple[str, int], Fingerprint]:
    """The fingerprint of each family's best champion: measured, or as a published run kept it
    (one clear error when it kept none for that champion)."""
    found = {}
    for name, replicate in analysis.best.items():
        if data.kept is not None:
            kept = data.kept["fingerprints"].get(champion_label(name, replicate))
            if kept is None:
                raise FsmarenaError(f"the published run keeps no fingerprint of {champion_label(name, replicate)}")
            found[(name, replicate)] = kept
            continue
        player = data.records[(name, replicate)].player
        found[(name, replicate)] = fingerprint(
            player, data.game, FINGERPRINT_GRID, fingerprint_games(data), data.plan.seed, family=family
        )
    return found


def masked_policy_map(data: StudyData, analysis: Analysis) -> Drawn | None:
    """The analysis's policy map drawn again with each replicate's visits of every state
    (:func:`fsmarena.figures.policy_map.policy_visits`, :data:`USAGE_GAMES` games per seat at
    most against the curve opponent, or the panel's first builtin), so cells met too seldom are
    masked and the caption gives the threshold; None when no map was drawn or the players are
    not at hand (a published run)."""
    if "policy_map" not in analysis.figures or data.kept is not None or not data.plan.study.panel:
        return None
    study, game = data.plan.study, data.game
    opponent = study.curve_opponent if study.curve_opponent in study.panel else study.panel[0]
    rival = resolve_player(opponent, game)
    games = min(USAGE_GAMES, data.plan.scale.panel_games)
    tables = {
        analysis.labels[c.name]: [r.player.table[0] for r in data.family(c.name)]  # type: ignore[attr-defined]
        for c in data.plan.competitors
        if all(isinstance(r.player, TablePolicy) for r in data.family(c.name))
    }
    if not tables:
        return None
    visits = {name: policy_visits(game, rows, rival, games, data.plan.seed) for name, rows in tables.items()}
    labels = [game.state_label(s) for s in range(game.n_states)]
    stem = data.out / "figures" / "policy_map"
    return policy_maps(tables, labels, game.action_names, stem, visits=visits, opponent=opponent)


def machines_section(data: StudyData, analysis: Analysis, heading: str = "### Policies and machines\n") -> str:
    """The policy map (when the study has tabular families), each family's best automaton, and
    what the machines do (:mod:`fsmarena.studies.machines`: effective sizes, fingerprints)."""
    masked = masked_policy_map(data, analysis)
    if masked is not None:
        analysis.figures["policy_map"] = masked
    text = [
        figure(
            analysis,
            "policy_map",
            "Tabular policies over the game's states: the action most "
            "replicates chose (colour) and the share that chose it (text).",
            data.out,
        )
    ]
    for name, replicate in analysis.best.items():
        text.append(
            figure(
                analysis,
                f"best_{name}",
                f"Best {analysis.labels[name]} (replicate {replicate}, highest "
                f"win rate against {data.plan.study.curve_opponent}); player file "
                f"`players/{name}/r{replicate:03d}.json`.",
                data.out,
            )
        )
    # the heading only above drawings: the summary of what the machines do has its own
    return "\n".join(t for t in (section(heading, *text), machines_summary_section(data, analysis)) if t)
