"""The report section "Each family's best champion": its strategy card and one annotated game.

Read from what the cards stage stored (:mod:`fsmarena.studies.stage_cards`), so a published run,
which keeps no players, shows the same cards: per family, the card drawn from the stored rows
(:func:`fsmarena.figures.strategy_card.write_card`, ``figures/card_<competitor>.png`` in the
part's folder; the summary in text with ``--no-figures``) and the champion's first
:data:`fsmarena.figures.champion_story.STORY_MOVES` decisions of one game, under a caption saying
which replicate, chosen how, against whom and over how many games the frequencies were counted.
A study that did not run the stage gets no section.
"""

from __future__ import annotations

from pathlib import Path

from fsmarena.figures.champion_story import STORY_MOVES, game_markdown, summary_markdown
from fsmarena.figures.strategy_card import write_card
from fsmarena.studies.report_text import image
from fsmarena.studies.results import StudyResults
from fsmarena.studies.runner import StudyData
from fsmarena.studies.stage_cards import CHOSEN_BY, Card

HEADING = "## Each family's best champion\n"


def caption(card: Card, reference: str, replicates: int) -> str:
    """Which replicate, chosen how, against whom, over how many games."""
    chosen = CHOSEN_BY[card.chosen_by].format(reference=reference)
    against = (
        f"against {card.opponent}, the panel's builtin the champions score worst against" if card.opponent else "alone"
    )
    s = card.summary
    return (
        f"Strategy card of {card.label}'s best champion, replicate {card.replicate} of {replicates} "
        f"({chosen}; `{card.champion}`): what it does in each state, {against}; the shares are counted "
        f"over {s.games} games ({s.decisions} decisions), every seat in turn."
    )


def family_text(card: Card, data: StudyData, out: Path, figures: bool, level: str = "###") -> str:
    """One family's card (figure or text) and its annotated game, under a heading of ``level``."""
    replicates = data.plan.competitor(card.competitor).replicates
    words = caption(card, data.plan.study.curve_opponent, replicates)
    if figures:
        path = write_card(card.summary, data.out / "figures" / f"card_{card.competitor}.png")
        shown = image([path], out, words)
    else:
        shown = "\n".join([words, "", *summary_markdown(card.summary)]) + "\n"
    game = game_markdown(card.transcript, STORY_MOVES)
    return "\n".join([f"{level} {card.label}\n", shown, *game, ""])


def cards_section(results: StudyResults, figures: bool) -> str:
    """The section's Markdown ("" when no part ran the cards stage)."""
    out_of = results.out
    texts = []
    for part, data in results.parts.items():
        cards = data.stages.get("cards")
        if not cards:
            continue
        out = out_of or data.out
        if part is not None:  # each part's families under its own heading: no heading twice
            texts.append(f"### {part} {results.study.sweep[0] if results.study.sweep else ''}\n")
        level = "###" if part is None else "####"
        texts += [family_text(card, data, out, figures, level) for card in cards]
    return "\n".join([HEADING, *texts]) if texts else ""
