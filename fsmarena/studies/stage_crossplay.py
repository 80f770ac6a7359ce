"""The cross-play stage: every champion of a two-seat study against every other.

Its counts are cached in ``<part>/raw/crossplay.json`` and reused only for exactly the same
champions (a hash of their player files); a store keeps them and reading validates them against
the plan: every pairing of its champions, in order, with the games the plan gives each.
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

import numpy as np

from fsmarena.errors import FsmarenaError
from fsmarena.fileio import Fields, dumps, read_json, write_json
from fsmarena.games.crossplay import CrossplayResult, crossplay, every_pairing, pairing_games
from fsmarena.games.players import player_to_json
from fsmarena.stored_values import check_stored
from fsmarena.studies.protocol import FORMAT_VERSION, Plan
from fsmarena.studies.runner import StudyData, champion_label
from fsmarena.studies.stage import Stage, StageContext


def applies(data: StudyData) -> bool:
    """Two-seat games with at least two champions."""
    return data.game.n_seats == 2 and len(data.records) >= 2


def _keys(plan: Plan) -> list[tuple[str, int]]:
    return [(c.name, r) for c in plan.competitors for r in range(c.replicates)]


def run_crossplay(ctx: StageContext) -> CrossplayResult:
    """Every champion against every other (cached in ``raw/crossplay.json``, reused only for
    exactly the same champions)."""
    data, log = ctx.data, ctx.log
    plan = data.plan
    keys = _keys(plan)
    labels = [champion_label(name, r) for name, r in keys]
    families = [name for name, _ in keys]
    games = pairing_games(families, plan.crossplay_games_needed())
    players = [data.records[key].player for key in keys]
    champions = hashlib.sha256(dumps([player_to_json(p, data.game) for p in players]).encode()).hexdigest()
    path = data.out / "raw" / "crossplay.json"
    if path.exists():
        try:
            cached = _read_cache(path, plan, labels, games, champions)
            log("cross-play: reusing the finished tournament")
            return cached
        except FsmarenaError:
            pass
    log(f"cross-play: {len(keys)} champions, {len(games):,} pairings, {int(games.sum()):,} games")
    result = crossplay(data.game, players, families, [r for _, r in keys], games, plan.crossplay_seed(), ctx.jobs)
    result.labels = labels
    write_json(
        path,
        {"format_version": FORMAT_VERSION, "fingerprint": plan.fingerprint, "champions": champions, **result.to_json()},
    )
    return result


def _read_cache(path: Path, plan: Plan, labels: list[str], games: np.ndarray, champions: str) -> CrossplayResult:
    data = read_json(path, "cross-play file")
    f = Fields(data, f"cross-play file {path}")
    check_stored(data, f.source)
    if f.get("fingerprint", str) != plan.fingerprint:
        raise f.fail("belongs to another study protocol")
    if f.get("champions", str) != champions:
        raise f.fail("was played by other champions (some replicates were recomputed)")
    result = CrossplayResult.from_json(data, f.source)
    n = len(labels)
    if result.labels != labels or len(result.pairs) != n * (n - 1) // 2 or not np.array_equal(result.games, games):
        raise f.fail("does not match this study's champions")
    if not np.array_equal(result.pairs, every_pairing(n)):
        raise f.fail("pairings out of order")
    return result


def read(raw: Any, source: str, ctx: StageContext) -> CrossplayResult:
    """Stored counts: every pairing of the plan's champions, as many games as the plan gives it."""
    plan = ctx.data.plan
    result = CrossplayResult.from_json(raw, source)
    keys = _keys(plan)
    n = len(keys)
    if (
        result.labels != [champion_label(*key) for key in keys]
        or result.families != [name for name, _ in keys]
        or result.replicates != [r for _, r in keys]
        or not np.array_equal(result.pairs, every_pairing(n))
        or not np.array_equal(result.games, pairing_games([name for name, _ in keys], plan.crossplay_games_needed()))
    ):
        raise FsmarenaError(f"{source}: its cross-play counts are not the pairings of the plan's champions")
    return result


def to_json(result: CrossplayResult, ctx: StageContext) -> dict[str, Any]:
    return result.to_json()


STAGE = Stage("crossplay", run_crossplay, to_json, read, applies, compares=True)
