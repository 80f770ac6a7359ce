"""A champion's strategy for a report: its strategy card (a PNG) and, in markdown, its
strategy summary and one short annotated game against a named opponent.

:func:`champion_story` is what a study report calls for each family's best champion (the
opponent: the panel's strongest builtin); it reads the player file, so any player kind serves.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from fsmarena.evo.strategy_summary import StrategySummary, summarise
from fsmarena.evo.transcript import Move, Transcript, rotated_transcripts
from fsmarena.figures.machine_index import content_hash, note_drawing
from fsmarena.figures.strategy_card import write_card
from fsmarena.games.players import load_player, player_to_json, resolve_player
from fsmarena.text import percent

if TYPE_CHECKING:
    from fsmarena.games.base import Game

#: the champion's decisions a story's game shows (the rest are counted)
STORY_MOVES = 12


def champion_story(
    player_file: str | Path,
    game: "Game",
    opponent: str | None,
    card_path: str | Path,
    games: int = 200,
    seed: int = 0,
    moves: int = STORY_MOVES,
) -> str:
    """Write the strategy card of the champion in ``player_file`` to ``card_path`` (PNG; it
    carries the player's content hash, :mod:`fsmarena.figures.machine_index`) and return the
    markdown of its summary (``games`` games in every seat against ``opponent``, a builtin name
    or player file; None in a one-player game) and of one game against it, its first ``moves``
    decisions annotated.  The markdown links the card by its file name: put it next to the card."""
    champion = load_player(player_file, game)
    rival = resolve_player(opponent, game) if opponent is not None and game.n_seats > 1 else None
    panel = [rival] if rival is not None else None
    summary = summarise(champion, game, panel, games, seed)
    card = Path(card_path)
    write_card(summary, card)
    note_drawing(card, content_hash(player_to_json(champion, game)))
    (transcript,) = rotated_transcripts(game, champion, rival, 1, seed)
    title = f"Strategy card of {champion.kind} '{champion.label}'"
    return "\n".join(
        [f"![{title}]({card.name})", "", *summary_markdown(summary), "", *game_markdown(transcript, moves)]
    )


def summary_markdown(summary: StrategySummary) -> list[str]:
    """A table of every state used: its share of the decisions, what it plays in which situations
    and where it moves (a table, not bullets: one state's situations would make a sentence no one
    reads)."""
    lines = [
        f"What '{summary.label}' does in {summary.games} games {summary.against()} ({summary.decisions} decisions), "
        "state by state, the most frequent first:",
        "",
        "| state | share of decisions | plays or moves | share of the state | in these situations |",
        "|---|---|---|---|---|",
    ]
    for state in summary.states:
        rows = [
            (f"plays **{summary.actions[g.key]}**", percent(g.count, state.decisions), summary.named(g, 2))
            for g in state.actions
        ]
        for g in state.moves[:2]:
            always = g.count == state.decisions
            where = "always" if always else f"after {summary.named(g, 2)}"
            rows.append((f"moves to S{g.key}", percent(g.count, state.decisions), where))
        name = f"S{state.state}" + (" (start)" if state.state == 0 else "")
        share = percent(state.decisions, summary.decisions)
        for k, (what, how_often, where) in enumerate(rows):
            first = (name, share) if k == 0 else ("", "")
            lines.append(f"| {first[0]} | {first[1]} | {what} | {how_often} | {_cell(where)} |")
    return lines


def _cell(text: str) -> str:
    return text.replace("|", "/")


def _note(move: Move) -> str:
    """The annotation of one of the champion's moves: whether it changed state."""
    if move.before is None or move.before == move.after:
        return ""
    return f"switches S{move.before} \u2192 S{move.after}"


def game_markdown(transcript: Transcript, moves: int = STORY_MOVES) -> list[str]:
    """The champion's first ``moves`` decisions of one game as a table, and the result; the
    champion is in seat 0 (the first game of :func:`fsmarena.evo.transcript.rotated_transcripts`)."""
    mine = [m for m in transcript.moves if m.seat == 0]
    opponents = sorted(set(transcript.players[1:]))
    against = f" against {', '.join(opponents)}" if opponents else ""
    lines = [f"One game{against} (the champion in seat 0; its first {min(moves, len(mine))} decisions):", ""]
    lines += ["| # | it saw | state | it played | note |", "|---|---|---|---|---|"]
    for number, move in enumerate(mine[:moves], 1):
        state = "" if move.before is None else f"S{move.before}"
        lines.append(f"| {number} | {_cell(move.situation)} | {state} | {move.action_name} | {_note(move)} |")
    if len(mine) > moves:
        lines.append(f"| ... | {len(mine) - moves} more decisions | | | |")
    if not opponents:
        return [*lines, "", f"Final score {transcript.scores[0]:g}."]
    result = {1.0: "wins", 0.0: "draws", -1.0: "loses"}[transcript.rewards[0]]
    scores = ", ".join(f"{score:g}" for score in transcript.scores)
    return [*lines, "", f"Final scores {scores} (seat by seat): the champion {result}."]
