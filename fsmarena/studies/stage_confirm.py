"""The confirmation stage (the target question, ``fsmarena study thirtyone``): each family's best
champion, selected on its panel games against the ``reference`` (so its panel rate is biased
upwards), measured again on each scale's ``confirm_games`` *fresh* games against it, seats swapped.

Settings: the study's ``target`` (a win rate, 0.75 in 31) and ``reference`` (the curve opponent,
one of the panel's builtins), optionally ``reference_result`` and ``reference_result_label`` (a
result from elsewhere shown beside the target: the seed's neural agent's 74.6%), and each scale's
``confirm_games``.  Seeds: ``SeedSequence(master, spawn_key=(CONFIRM_KEY, crc32(competitor)))``.
The counts are cached in ``<part>/raw/confirm.json`` under everything they depend on (the
players' files, the games) and reused only when all of it is the same.
"""

from __future__ import annotations

import hashlib
import zlib
from pathlib import Path
from typing import Any, Callable, Sequence

import numpy as np

from fsmarena.errors import FsmarenaError
from fsmarena.fileio import Fields, dumps, read_json, write_json
from fsmarena.games.base import Game
from fsmarena.games.match import play_match
from fsmarena.games.players import Player, player_to_json, resolve_player
from fsmarena.stored_values import check_stored
from fsmarena.studies.protocol import FORMAT_VERSION, Study
from fsmarena.studies.runner import StudyData, champion_label
from fsmarena.studies.stage import Stage, StageContext

#: spawn key (under the master seed) of the confirmation matches
CONFIRM_KEY = 2**32 + 31
#: the most games a confirmation match or a table may take
MAX_GAMES = 10**8


def check(study: Study) -> None:
    """The target is a rate, the reference the curve opponent and a builtin of the panel, the
    result from elsewhere a rate with a text, and every scale gives its games."""
    o = study.options
    target = o.get("target")
    if isinstance(target, bool) or not isinstance(target, (int, float)) or not 0 <= target <= 1:
        raise FsmarenaError(f"{study.source}: 'target' must be a number from 0 to 1")
    reference = o.get("reference")
    if reference != study.curve_opponent or reference not in study.panel:
        raise FsmarenaError(f"{study.source}: 'reference' must be the curve opponent and one of the panel's builtins")
    if "reference_result" in o:
        value, label = o["reference_result"], o.get("reference_result_label")
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value <= 1:
            raise FsmarenaError(f"{study.source}: 'reference_result' must be a number from 0 to 1")
        if not isinstance(label, str):
            raise FsmarenaError(f"{study.source}: 'reference_result_label' must say what the reference result is")
    scale_games(study, "confirm_games")


def scale_games(study: Study, name: str) -> None:
    """Every scale of ``study`` gives a whole number of games ``name`` from 1 to :data:`MAX_GAMES`."""
    for scale, s in study.scales.items():
        value = s.options.get(name)
        if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= MAX_GAMES:
            raise FsmarenaError(
                f"{study.source}: scale '{scale}' needs a whole number '{name}' from 1 to {MAX_GAMES:,}"
            )


def reference_result(study: Study) -> tuple[float, str] | None:
    """The result from elsewhere shown beside the target, and what it is (None: none)."""
    o = study.options
    return None if "reference_result" not in o else (float(o["reference_result"]), str(o["reference_result_label"]))


def players_digest(players: Sequence[Player], game: Game) -> str:
    """A hash of the players' files: a cache is reused only for exactly the same players."""
    return hashlib.sha256(dumps([player_to_json(p, game) for p in players]).encode()).hexdigest()


def cached_rows(path: Path, key: dict[str, Any]) -> Any:
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
        "players": players_digest(players, game),
    }
    path = data.out / "raw" / "confirm.json"
    cached = cached_rows(path, key)
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


def counts_of(r: Fields, games: int) -> dict[str, int]:
    counts = {k: r.int_in(k, 0, games) for k in ("games", "wins", "draws", "losses")}
    if counts["games"] != games or counts["wins"] + counts["draws"] + counts["losses"] != games:
        raise r.fail(f"its counts must add up to the {games:,} games it played")
    return counts


def confirmed_rows(raw: Any, source: str, data: StudyData, games: int) -> list[dict[str, Any]]:
    """One confirmation match per competitor, in order, by one of its champions."""
    competitors = data.plan.competitors
    if not isinstance(raw, list) or len(raw) != len(competitors):
        raise FsmarenaError(f"{source}: must hold one confirmation match per competitor ({len(competitors)})")
    rows = []
    for i, (entry, c) in enumerate(zip(raw, competitors)):
        r = Fields(entry, f"{source}: row {i}")
        if r.get("competitor", str) != c.name:
            raise r.fail(f"must be competitor '{c.name}''s match")
        rows.append(
            {"competitor": c.name, "replicate": r.int_in("replicate", 0, c.replicates - 1), **counts_of(r, games)}
        )
    return rows


def _run(ctx: StageContext) -> list[dict[str, Any]]:
    games = ctx.study.scales[ctx.scale].options["confirm_games"]
    return confirm(ctx.data, ctx.study.options["reference"], games, ctx.jobs, ctx.log)


def _to_json(rows: list[dict[str, Any]], ctx: StageContext) -> list[dict[str, Any]]:
    return rows


def _read(raw: Any, source: str, ctx: StageContext) -> list[dict[str, Any]]:
    return confirmed_rows(raw, source, ctx.data, ctx.study.scales[ctx.scale].options["confirm_games"])


STAGE = Stage("confirm", _run, _to_json, _read, check=check)
