"""The cards stage: each family's best champion as a strategy card and one annotated game.

For every family of the study it picks the **best champion**: the replicate with the most panel
wins against the study's curve opponent (the selection the confirmation stage re-measures,
:func:`fsmarena.studies.stage_confirm.best_champions`; ties: the lowest replicate; a study whose
curve opponent is not on the panel ranks by the mean panel win rate; a one-player game by the
last point of the learning curve).  A game whose objective is the score (the iterated
prisoner's dilemma, :attr:`fsmarena.games.base.Game.objective`) ranks by the mean panel score
per game instead: there a win says little (tit for tat never wins a match).  It plays that
champion against the panel's **strongest builtin** (the builtin the families' champions score
worst against, mean panel win rate, or score, over every champion; alone in a one-player game)
and stores

* its strategy summary (:func:`fsmarena.evo.strategy_summary.summarise`, :data:`CARD_GAMES`
  games per seat at most), every count and situation in words, enough to redraw the strategy
  card without the player (a published store keeps no players), and
* one game against the same opponent (:func:`fsmarena.evo.transcript.rotated_transcripts`).

Seeds: ``SeedSequence(master, spawn_key=(CARDS_KEY, crc32(competitor)))``, so a card does not
depend on ``--jobs`` or on the other families.  The result is cached in ``<part>/raw/cards.json``
under the players it describes; :func:`read_cards` validates a stored one (one clear error).
The report's section is :mod:`fsmarena.studies.cards_section`.
"""

from __future__ import annotations

import zlib
from dataclasses import dataclass
from typing import Any

import numpy as np

from fsmarena.errors import FsmarenaError
from fsmarena.evo.strategy_summary import StrategySummary, summarise
from fsmarena.evo.summary_json import read_summary, read_transcript, summary_to_json
from fsmarena.evo.transcript import Transcript, rotated_transcripts
from fsmarena.fileio import write_json
from fsmarena.games.players import resolve_player
from fsmarena.stored_values import check_stored
from fsmarena.studies.runner import Record, StudyData, champion_label
from fsmarena.studies.stage import Stage, StageContext
from fsmarena.studies.stage_confirm import cached_rows, players_digest

#: spawn key (under the master seed) of the cards' games
CARDS_KEY = 2**32 + 49
#: games per seat a card's frequencies come from, at most (the scale's panel games if fewer)
CARD_GAMES = 200
#: how the best champion is chosen, in the words of a caption
CHOSEN_BY = {
    "reference": "most panel wins against {reference}",
    "panel": "highest mean panel win rate",
    "curve": "highest last learning-curve point",
    "score": "highest mean panel score per turn",
}


@dataclass(frozen=True)
class Card:
    """One family's card: its best champion (``replicate``, chosen by ``chosen_by``, a key of
    :data:`CHOSEN_BY`), the opponent its summary and game are played against ("" alone), the
    summary and the game."""

    competitor: str
    label: str
    replicate: int
    chosen_by: str
    opponent: str
    summary: StrategySummary
    transcript: Transcript

    @property
    def champion(self) -> str:
        return champion_label(self.competitor, self.replicate)


def panel_rate(record: Record, opponent: str) -> float:
    """A champion's panel win rate against ``opponent``."""
    entry = record.panel[opponent]
    return entry["wins"] / entry["games"] if entry["games"] else 0.0


def panel_score(record: Record, opponent: str) -> float:
    """A champion's mean panel score per game against ``opponent`` (per turn in the iterated
    prisoner's dilemma, whose game score is the score per turn)."""
    entry = record.panel[opponent]
    return float(entry.get("score", 0.0)) / entry["games"] if entry["games"] else 0.0


def best_replicate(records: list[Record], reference: str, objective: str = "rank") -> tuple[int, str]:
    """The best champion of one family and how it was chosen (module docstring): most panel
    wins against ``reference`` if it is on the panel, else the mean panel win rate, else the
    last curve point; the mean panel score under the ``score`` objective; ties go to the
    lowest replicate."""
    panel = list(records[0].panel)
    if objective == "score" and panel:
        top = max(records, key=lambda r: (float(np.mean([panel_score(r, o) for o in panel])), -r.replicate))
        return top.replicate, "score"
    if reference in panel:
        top = max(records, key=lambda r: (r.panel[reference]["wins"], -r.replicate))
        return top.replicate, "reference"
    if panel:
        top = max(records, key=lambda r: (float(np.mean([panel_rate(r, o) for o in panel])), -r.replicate))
        return top.replicate, "panel"
    top = max(records, key=lambda r: (r.curve_win[-1] if r.curve_win else 0.0, -r.replicate))
    return top.replicate, "curve"


def strongest_builtin(records: list[Record], objective: str = "rank") -> str:
    """The panel's builtin the champions score worst against (mean panel win rate over all of
    them, or mean score under the ``score`` objective; ties: the first on the panel); "" without
    a panel."""
    panel = list(records[0].panel) if records else []
    if not panel:
        return ""
    measure = panel_score if objective == "score" else panel_rate
    return min(panel, key=lambda o: (float(np.mean([measure(r, o) for r in records])), panel.index(o)))


def card_seed(master: int, competitor: str) -> int:
    """The seed of one family's card games (module docstring)."""
    sequence = np.random.SeedSequence(master, spawn_key=(CARDS_KEY, zlib.crc32(competitor.encode())))
    return int(sequence.generate_state(1, np.uint32)[0])


def make_cards(data: StudyData, games: int) -> list[Card]:
    """Every family's card, in the study's order (module docstring)."""
    plan, game = data.plan, data.game
    records = list(data.records.values())
    opponent = strongest_builtin(records, game.objective) if game.n_seats > 1 else ""
    rival = resolve_player(opponent, game) if opponent else None
    cards = []
    for c in plan.competitors:
        replicate, chosen_by = best_replicate(data.family(c.name), plan.study.curve_opponent, game.objective)
        player = data.records[(c.name, replicate)].player
        seed = card_seed(plan.seed, c.name)
        summary = summarise(player, game, [rival] if rival else None, games, seed)
        (transcript,) = rotated_transcripts(game, player, rival, 1, seed)
        cards.append(Card(c.name, c.label, replicate, chosen_by, opponent, summary, transcript))
    return cards


def card_to_json(card: Card) -> dict[str, Any]:
    return {
        "competitor": card.competitor,
        "label": card.label,
        "replicate": card.replicate,
        "chosen_by": card.chosen_by,
        "opponent": card.opponent,
        "summary": summary_to_json(card.summary),
        "transcript": card.transcript.to_dict(),
    }


def cards_to_json(cards: list[Card]) -> list[dict[str, Any]]:
    return [card_to_json(card) for card in cards]


def read_cards(raw: Any, source: str, data: StudyData) -> list[Card]:
    """Stored cards, checked against the part's plan: one card per family, in order, each
    naming one of its replicates; one clear error for anything else."""
    competitors = data.plan.competitors
    check_stored(raw, source)
    if not isinstance(raw, list) or len(raw) != len(competitors):
        raise FsmarenaError(f"{source}: expected a list of {len(competitors)} cards, one per family")
    cards = []
    for k, (item, c) in enumerate(zip(raw, competitors)):
        where = f"{source}: card {k + 1}"
        if not isinstance(item, dict):
            raise FsmarenaError(f"{where}: expected a JSON object")
        if item.get("competitor") != c.name:
            raise FsmarenaError(f"{where}: expected the card of '{c.name}', got {item.get('competitor')!r}")
        replicate = item.get("replicate")
        if isinstance(replicate, bool) or not isinstance(replicate, int) or not 0 <= replicate < c.replicates:
            raise FsmarenaError(f"{where}: 'replicate' must be one of the family's {c.replicates} replicates")
        chosen_by, opponent, label = item.get("chosen_by"), item.get("opponent"), item.get("label")
        if chosen_by not in CHOSEN_BY:
            raise FsmarenaError(f"{where}: 'chosen_by' must be one of {', '.join(CHOSEN_BY)}")
        if not isinstance(opponent, str) or not isinstance(label, str):
            raise FsmarenaError(f"{where}: 'opponent' and 'label' must be texts")
        summary = read_summary(item.get("summary"), f"{where}: summary")
        transcript = read_transcript(item.get("transcript"), f"{where}: transcript", summary.actions)
        cards.append(Card(c.name, label, replicate, chosen_by, opponent, summary, transcript))
    return cards


def _games(ctx: StageContext) -> int:
    """The card's games per seat: the scale's panel games, at most :data:`CARD_GAMES`; a
    one-player game has no panel (its panel games count nothing), so it plays :data:`CARD_GAMES`."""
    if ctx.data.game.n_seats == 1:
        return CARD_GAMES
    return max(1, min(CARD_GAMES, ctx.data.plan.scale.panel_games))


def _run(ctx: StageContext) -> list[Card]:
    data = ctx.data
    players = [record.player for _key, record in sorted(data.records.items())]
    key = {"fingerprint": data.plan.fingerprint, "games": _games(ctx), "players": players_digest(players, data.game)}
    path = data.out / "raw" / "cards.json"
    cached = cached_rows(path, key)
    if cached is not None:
        try:
            ctx.log("strategy cards: reusing the stored cards")
            return read_cards(cached, f"study raw file {path}", data)
        except FsmarenaError:
            pass  # damaged: made again
    ctx.log("strategy cards: each family's best champion")
    cards = make_cards(data, _games(ctx))
    write_json(path, {"key": key, "results": cards_to_json(cards)})
    return cards


def _to_json(cards: list[Card], ctx: StageContext) -> list[dict[str, Any]]:
    return cards_to_json(cards)


def _read(raw: Any, source: str, ctx: StageContext) -> list[Card]:
    return read_cards(raw, source, ctx.data)


def applies(data: StudyData) -> bool:
    """Every study with champions."""
    return bool(data.records)


STAGE = Stage("cards", _run, _to_json, _read, applies)
