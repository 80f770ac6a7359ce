"""The table stage (``fsmarena study thirtyone``): every champion, and the ``table_references``
builtins, at a table of ``table_players`` seats against the ``table_opponents`` builtins in the
other seats, each scale's ``table_games`` games each, every seating arrangement equally often
(:func:`table_match`).  Seeds: ``SeedSequence(master, spawn_key=(TABLE_KEY, crc32(label)))`` per
entrant; the counts are cached in ``<part>/raw/table.json`` under everything they depend on.
"""

from __future__ import annotations

import itertools
import math
import zlib
from typing import Any, Sequence

import numpy as np

from fsmarena.errors import FsmarenaError
from fsmarena.fileio import Fields, write_json
from fsmarena.games.base import Game
from fsmarena.games.players import Player, resolve_player
from fsmarena.games.runner import Block, play_blocks, rewards_int8
from fsmarena.methods.variants import variant
from fsmarena.studies.protocol import FORMAT_VERSION, Study
from fsmarena.studies.runner import StudyData, champion_label
from fsmarena.studies.stage import Stage, StageContext
from fsmarena.studies.stage_confirm import cached_rows, counts_of, players_digest, scale_games

#: spawn key (under the master seed) of the table of more players
TABLE_KEY = 2**32 + 32
CHUNK = 20_000


def check(study: Study) -> None:
    """``table_players`` from 3 to 6, that many less one builtins in ``table_opponents``, builtin
    names in ``table_references``, and every scale's ``table_games``."""
    o = study.options
    seats = o.get("table_players")
    opponents, references = o.get("table_opponents"), o.get("table_references", [])
    if isinstance(seats, bool) or not isinstance(seats, int) or not 3 <= seats <= 6:
        raise FsmarenaError(f"{study.source}: 'table_players' must be a whole number from 3 to 6")
    if (
        not isinstance(opponents, list)
        or not isinstance(references, list)
        or len(opponents) != seats - 1
        or not all(isinstance(x, str) for x in opponents + references)
    ):
        raise FsmarenaError(f"{study.source}: 'table_opponents' must name the {seats - 1} builtins in the other seats")
    scale_games(study, "table_games")


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


def table_rows_read(raw: Any, source: str, data: StudyData, study: Study, games: int) -> list[dict[str, Any]]:
    """One row per table entrant (every champion, then every reference builtin), in order."""
    plan, seats, references = data.plan, study.options["table_players"], study.options.get("table_references", [])
    entrants = [(champion_label(c.name, r), c.label) for c in plan.competitors for r in range(c.replicates)]
    entrants += [(name, name) for name in references]
    per = len(arrangements(seats))
    played = math.ceil(games / per) * per
    if not isinstance(raw, list) or len(raw) != len(entrants):
        raise FsmarenaError(f"{source}: must hold one row per table entrant ({len(entrants)})")
    rows = []
    for i, (entry, (label, group)) in enumerate(zip(raw, entrants)):
        r = Fields(entry, f"{source}: row {i}")
        if r.get("entrant", str) != label or r.get("group", str) != group:
            raise r.fail(f"must be the row of '{label}' (group '{group}')")
        counts = counts_of(r, played)
        other = r.int_array("other_wins", (seats - 1,), 0, played + 1).tolist()
        if sum(other) > counts["losses"]:
            raise r.fail("its opponents won more games than it lost")
        rows.append({"entrant": label, "group": group, **counts, "other_wins": other})
    return rows


def run_table(ctx: StageContext) -> list[dict[str, Any]]:
    """Every entrant at the table (cached in ``raw/table.json``)."""
    data, o, log = ctx.data, ctx.study.options, ctx.log
    plan, seats, games = data.plan, o["table_players"], ctx.study.scales[ctx.scale].options["table_games"]
    table_game = variant(data.game, {"players": seats})
    players, groups, labels = table_entrants(data, o.get("table_references", []))
    others = [resolve_player(name, table_game) for name in o["table_opponents"]]
    key = {
        "fingerprint": plan.fingerprint,
        "players": seats,
        "games": games,
        "opponents": list(o["table_opponents"]),
        "labels": labels,
        "entrants": players_digest(players, data.game),
    }
    path = data.out / "raw" / "table.json"
    cached = cached_rows(path, key)
    if cached is not None:
        log(f"{seats}-player table: reusing the finished games")
        return cached
    log(
        f"{seats}-player table: {len(players)} entrants, {games:,} games each against "
        + " + ".join(o["table_opponents"])
    )
    rows = []
    for player, group, label in zip(players, groups, labels):
        seed = np.random.SeedSequence(plan.seed, spawn_key=(TABLE_KEY, zlib.crc32(label.encode())))
        counts = table_match(table_game, player, others, games, seed, ctx.jobs)
        rows.append({"entrant": label, "group": group, **counts})
    write_json(path, {"format_version": FORMAT_VERSION, "key": key, "results": rows})
    return rows


def _to_json(rows: list[dict[str, Any]], ctx: StageContext) -> list[dict[str, Any]]:
    return rows


def _read(raw: Any, source: str, ctx: StageContext) -> list[dict[str, Any]]:
    games = ctx.study.scales[ctx.scale].options["table_games"]
    return table_rows_read(raw, source, ctx.data, ctx.study, games)


STAGE = Stage("table", run_table, _to_json, _read, check=check)
