"""A study with a target and a table (``fsmarena study thirtyone``): every family against a
reference builtin, 1v1 and at a table of more players.

A definition such as ``fsmarena/games/thirtyone/thirtyone.toml`` is an ordinary study definition for the
two-player game, run by the generic runner into ``DIR`` (replicates, panel, cross-play).  More
fields are read here:

* ``target`` (0.75) and ``reference`` (greedy): the question "does a family win at least this
  share of 1v1 games against the reference?"; optionally ``reference_result`` and
  ``reference_result_label``, a result from elsewhere to show beside it (31: the seed's neural
  agent's 74.6%);
* per scale ``confirm_games``: each family's best champion (selected on its panel games
  against greedy, so its panel rate is biased upwards) is measured again on that many *fresh*
  games against greedy, seats swapped (100,000 at the paper scale);
* per scale ``table_games``: every champion, and the ``table_references`` builtins, play that
  many games of the 3-player game against the ``table_opponents`` (greedy and random) in the
  other two seats, every seating arrangement equally often (:func:`table_match`).

Seeds: the generic runner's, plus ``SeedSequence(master, spawn_key=(CONFIRM_KEY, crc32(name)))``
for each family's confirmation match and ``(TABLE_KEY, crc32(label))`` for each entrant at the
3-player table.  Both are cached in ``DIR/raw/`` with everything they depend on (the players'
files, the games) and reused only when all of it is the same, so a re-run resumes and results
are identical for any ``--jobs``.  :mod:`fsmarena.studies.target_report` writes the tables, figures
and ``DIR/report.md``; a finished run is stored and published like any study
(:mod:`fsmarena.studies.target_store`).  A game declares such a study by pointing its ``studies=`` entry
at a function returning :func:`load` of its file.
"""

from __future__ import annotations

import hashlib
import itertools
import time
import zlib
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Mapping, Sequence

import numpy as np

from fsmarena.errors import FsmarenaError
from fsmarena.fileio import Fields, dumps, read_json, write_json
from fsmarena.games.base import Game
from fsmarena.games.match import play_match
from fsmarena.games.players import Player, player_to_json, resolve_player
from fsmarena.games.runner import Block, play_blocks, rewards_int8
from fsmarena.stored_values import check_stored
from fsmarena.studies.protocol import FORMAT_VERSION, DriverRun, Study, StudyDriver, read_toml, study_from_dict
from fsmarena.studies.report_text import pct
from fsmarena.studies.runner import StudyData, champion_label, run_study
from fsmarena.studies.target_report import TargetRaw, write_target_report
from fsmarena.studies.variants import variant

#: spawn keys (under the master seed) of the confirmation matches and of the 3-player table
CONFIRM_KEY = 2**32 + 31
TABLE_KEY = 2**32 + 32
CHUNK = 20_000


@dataclass(frozen=True)
class TargetStudy(StudyDriver):
    """The two-player study and what this module adds to it (module docstring)."""

    base: Study
    target: float
    reference: str
    table_players: int
    table_opponents: tuple[str, ...]
    table_references: tuple[str, ...]
    confirm_games: Mapping[str, int]
    table_games: Mapping[str, int]
    #: a result from elsewhere shown beside the target (value, what it is); None: none
    reference_result: tuple[float, str] | None = None

    @property
    def name(self) -> str:
        return self.base.name

    def run_driver(self, run: DriverRun) -> dict[str, Any]:
        """``fsmarena study <name> ...``: run or resume, write the report, return the summary."""
        return run_target_study(self, run)

    def summary_lines(self, summary: dict[str, Any]) -> list[str]:
        lines: list[str] = []
        lines.append(
            f"1v1 against {self.reference}: best champion of each family on fresh games "
            f"(95% Wilson CI); target {pct(self.target, 0)}"
        )
        width = max(len(r["method"]) for r in summary["families"]) + 2
        for r in summary["families"]:
            lines.append(
                f"  {r['method'].ljust(width)}{pct(r['confirm_win_rate'])}  "
                f"[{pct(r['confirm_ci_low'])}, {pct(r['confirm_ci_high'])}]  {r['verdict']}"
            )
        lines.append(f"report: {summary['report']}")
        return lines


def load(path: Path) -> TargetStudy:
    """Read and validate the definition (the generic fields by the generic reader)."""
    data = read_toml(path)
    base = study_from_dict(
        data,
        f"study file {path.name}",
        extra_fields=(
            "target",
            "reference",
            "table_players",
            "table_opponents",
            "table_references",
            "reference_result",
            "reference_result_label",
        ),
        extra_scale_fields=("confirm_games", "table_games"),
    )
    source = Fields(data, f"study file {path.name}")
    target = source.number_in("target", 0.0, 1.0)
    reference = source.get("reference", str)
    if reference != base.curve_opponent or reference not in base.panel:
        raise source.fail("'reference' must be the curve opponent and one of the panel's builtins")
    table_players = source.int_in("table_players", 3, 6)
    opponents = tuple(source.get("table_opponents", list))
    references = tuple(source.get("table_references", list))
    if len(opponents) != table_players - 1 or not all(isinstance(x, str) for x in opponents + references):
        raise source.fail(f"'table_opponents' must name the {table_players - 1} builtins in the other seats")
    confirm, table = {}, {}
    for scale, entry in data.get("scales", {}).items():
        fields = Fields(entry, f"study file {path.name}: scale '{scale}'")
        confirm[scale] = fields.int_in("confirm_games", 1, 10**8)
        table[scale] = fields.int_in("table_games", 1, 10**8)
    result = None
    if "reference_result" in data:
        result = (source.number_in("reference_result", 0.0, 1.0), source.get("reference_result_label", str))
    return TargetStudy(base, target, reference, table_players, opponents, references, confirm, table, result)


# ---- 3-player table -----------------------------------------------------------------------------


def arrangements(seats: int) -> list[tuple[int, ...]]:
    """Every seating: ``arrangement[s]`` is who sits in seat ``s`` (0 = the entrant, ``k`` =
    the ``k``-th other player), each permutation once (6 for three seats)."""
    return list(itertools.permutations(range(seats)))


def table_match(
    game: Game, entrant: Player, others: Sequence[Player], games: int, seed: np.random.SeedSequence, jobs: int = 1
) -> dict[str, Any]:
    """``entrant`` against the fixed ``others`` (one per other seat), every seating equally
    often: ``games`` rounded up to a multiple of the number of seatings, each seating's games
    cut into chunks, chunk ``k`` playing with ``seed``'s ``k``-th child stream.  Counts from the entrant's side, and how
    often each other player was the sole winner (``other_wins``, in ``others`` order)."""
    seats = game.n_seats
    if len(others) != seats - 1:
        raise FsmarenaError(f"a {seats}-player table needs {seats - 1} other players, got {len(others)}")
    plans = arrangements(seats)
    per = -(-games // len(plans))
    cast = [entrant, *others]
    blocks = [Block(tuple(cast[who] for who in order), per, tag=order) for order in plans]
    # children of a fresh copy: the same streams however often ``seed`` has spawned before
    fresh = np.random.SeedSequence(seed.entropy, spawn_key=seed.spawn_key)
    results = play_blocks(game, [(fresh, blocks)], rewards_int8, jobs=jobs, chunk=CHUNK)
    wins = draws = losses = 0
    other_wins = [0] * len(others)
    for result in results:
        rewards, order = result.value, result.tag
        mine = rewards[:, order.index(0)]
        wins += int((mine > 0).sum())
        draws += int((mine == 0).sum())
        losses += int((mine < 0).sum())
        for k in range(len(others)):
            other_wins[k] += int((rewards[:, order.index(k + 1)] > 0).sum())
    return {"games": per * len(plans), "wins": wins, "draws": draws, "losses": losses, "other_wins": other_wins}


# ---- the run ------------------------------------------------------------------------------------


def _digest(players: Sequence[Player], game: Game) -> str:
    """A hash of the players' files: a cache is reused only for exactly the same players."""
    return hashlib.sha256(dumps([player_to_json(p, game) for p in players]).encode()).hexdigest()


def _cached(path: Path, key: dict[str, Any]) -> Any:
    """The ``results`` of a raw file written under exactly ``key``, else None."""
    if not path.exists():
        return None
    try:
        raw = Fields(read_json(path, "study raw file"), f"study raw file {path}")
        check_stored(raw.data, raw.source)  # a damaged value: computed again
        if raw.get("key", dict) == key:
            return raw.get("results", list)
    except FsmarenaError:
        pass
    return None


def best_champions(data: StudyData, reference: str) -> dict[str, int]:
    """Per competitor, the replicate with the most panel wins against ``reference`` (ties:
    the lowest replicate) - the selection the confirmation match re-measures."""
    best = {}
    for c in data.plan.competitors:
        records = data.family(c.name)
        top = max(records, key=lambda rec: (rec.panel[reference]["wins"], -rec.replicate))
        best[c.name] = top.replicate
    return best


def confirm(data: StudyData, reference: str, games: int, jobs: int, log: Callable[[str], None]) -> list[dict]:
    """Each family's best champion against ``reference`` on fresh games (cached in
    ``raw/confirm.json``)."""
    plan, game = data.plan, data.game
    best = best_champions(data, reference)
    players = [data.records[(c.name, best[c.name])].player for c in plan.competitors]
    key = {
        "fingerprint": plan.fingerprint,
        "reference": reference,
        "games": games,
        "champions": [champion_label(c.name, best[c.name]) for c in plan.competitors],
        "players": _digest(players, game),
    }
    path = data.out / "raw" / "confirm.json"
    cached = _cached(path, key)
    if cached is not None:
        log("confirmation matches: reusing the finished games")
        return cached
    log(f"confirmation matches: each family's best champion against {reference}, {games:,} fresh games")
    opponent = resolve_player(reference, game)
    rows = []
    for c, player in zip(plan.competitors, players):
        seed = np.random.SeedSequence(plan.seed, spawn_key=(CONFIRM_KEY, zlib.crc32(c.name.encode())))
        stats = play_match(game, player, opponent, games, seed, jobs=jobs, desc=f"confirm {c.name}")
        rows.append(
            {
                "competitor": c.name,
                "replicate": best[c.name],
                "games": stats.games,
                "wins": stats.wins,
                "draws": stats.draws,
                "losses": stats.losses,
            }
        )
    write_json(path, {"format_version": FORMAT_VERSION, "key": key, "results": rows})
    return rows


def table_entrants(data: StudyData, references: Sequence[str]) -> tuple[list[Player], list[str], list[str]]:
    """Every champion (group = its competitor's label) and every reference builtin."""
    players, groups, labels = [], [], []
    for c in data.plan.competitors:
        for rec in data.family(c.name):
            players.append(rec.player)
            groups.append(c.label)
            labels.append(champion_label(c.name, rec.replicate))
    for name in references:
        players.append(resolve_player(name, data.game))
        groups.append(name)
        labels.append(name)
    return players, groups, labels


def run_table(
    data: StudyData, study: TargetStudy, games: int, jobs: int, log: Callable[[str], None]
) -> tuple[Game, list[dict]]:
    """Every entrant at the 3-player table (cached in ``raw/table.json``)."""
    plan = data.plan
    table_game = variant(data.game, {"players": study.table_players})
    players, groups, labels = table_entrants(data, study.table_references)
    others = [resolve_player(name, table_game) for name in study.table_opponents]
    key = {
        "fingerprint": plan.fingerprint,
        "players": study.table_players,
        "games": games,
        "opponents": list(study.table_opponents),
        "labels": labels,
        "entrants": _digest(players, data.game),
    }
    path = data.out / "raw" / "table.json"
    cached = _cached(path, key)
    if cached is not None:
        log(f"{study.table_players}-player table: reusing the finished games")
        return table_game, cached
    log(
        f"{study.table_players}-player table: {len(players)} entrants, {games:,} games each against "
        + " + ".join(study.table_opponents)
    )
    rows = []
    for player, group, label in zip(players, groups, labels):
        seed = np.random.SeedSequence(plan.seed, spawn_key=(TABLE_KEY, zlib.crc32(label.encode())))
        counts = table_match(table_game, player, others, games, seed, jobs)
        rows.append({"entrant": label, "group": group, **counts})
    write_json(path, {"format_version": FORMAT_VERSION, "key": key, "results": rows})
    return table_game, rows


def run_target_study(study: TargetStudy, run: DriverRun) -> dict[str, Any]:
    """Run (or resume) the two-player study, the confirmation matches and the table; write
    every table, figure and the report."""
    started = time.perf_counter()
    scale, out, jobs, log = run.scale, run.out, run.jobs, run.log
    study.check_scale(scale, study.confirm_games)
    plan = study.base.plan(scale, run.seed)
    data = run_study(plan, out, jobs, log)
    confirmed = confirm(data, study.reference, study.confirm_games[scale], jobs, log)
    _, table = run_table(data, study, study.table_games[scale], jobs, log)
    log("tables, figures and report")
    return write_target_report(
        study, data, TargetRaw(confirmed, table), run.figures, run.command, time.perf_counter() - started
    )
