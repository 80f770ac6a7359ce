"""The iterated prisoner's dilemma as a plain Python loop, written from the rules in words (no
numpy, no kernel): the oracle the tests hold the kernel to.

A *chooser* is ``choose(history) -> move``: ``history`` the joint moves so far as the seat sees
them, ``[(own, opponent's), ...]``, oldest first; moves are ``"C"`` and ``"D"``.
"""

from __future__ import annotations

from typing import Callable, Sequence

Chooser = Callable[[list[tuple[str, str]]], str]


def payoff(config, own: str, other: str) -> int:
    """R for C/C, S for C against D, T for D against C, P for D/D."""
    if own == "C":
        return config.reward if other == "C" else config.sucker
    return config.temptation if other == "C" else config.punishment


def play_match(config, length: int, flips: Sequence[Sequence[bool]], choosers: Sequence[Chooser]) -> dict:
    """``length`` turns; ``flips[turn][seat]`` flips that seat's move of that turn (the noise),
    and both seats see the flipped moves.  The moves played, totals, score per turn and the
    rewards (+1 the higher total, -1 the lower, 0 each when equal)."""
    moves: list[tuple[str, str]] = []
    totals = [0, 0]
    for turn in range(length):
        chosen = [choosers[seat]([(m[seat], m[1 - seat]) for m in moves]) for seat in (0, 1)]
        played = [("D" if move == "C" else "C") if flips[turn][seat] else move for seat, move in enumerate(chosen)]
        moves.append((played[0], played[1]))
        totals = [totals[seat] + payoff(config, played[seat], played[1 - seat]) for seat in (0, 1)]
    scores = [total / length for total in totals]
    if scores[0] == scores[1]:
        rewards = [0.0, 0.0]
    else:
        rewards = [1.0, -1.0] if scores[0] > scores[1] else [-1.0, 1.0]
    return {"moves": moves, "totals": totals, "scores": scores, "rewards": rewards}


def memory_index(history: list[tuple[str, str]], memory: int) -> int:
    """The tabular state: the last ``memory`` joint moves in base 5, the latest lowest, each
    ``1 + 2 * own + opponent's`` (C = 0, D = 1), 0 where there is no such turn yet."""
    index = 0
    for back in range(memory):
        if back < len(history):
            own, other = history[-1 - back]
            index += (1 + 2 * (own == "D") + (other == "D")) * 5**back
    return index


def opp_last(history: list[tuple[str, str]]) -> int:
    """0 before the first turn, 1 when the opponent last played C, 2 when it played D."""
    return 0 if not history else 1 + (history[-1][1] == "D")


# ---- the deterministic classics, from their definitions in words ------------------------------


def cooperator(history):
    return "C"


def defector(history):
    return "D"


def tit_for_tat(history):
    """C first, then the opponent's last move."""
    return history[-1][1] if history else "C"


def suspicious_tit_for_tat(history):
    """D first, then the opponent's last move."""
    return history[-1][1] if history else "D"


def grudger(history):
    """C until the opponent defects once, D ever after."""
    return "D" if any(other == "D" for _, other in history) else "C"


def tit_for_two_tats(history):
    """D only after two defections of the opponent in a row."""
    return "D" if len(history) >= 2 and history[-1][1] == history[-2][1] == "D" else "C"


def win_stay_lose_shift(history):
    """C first; C after equal moves (C/C or D/D), D after unequal ones."""
    return "C" if not history or history[-1][0] == history[-1][1] else "D"


def alternator(history):
    """C first, then the opposite of its own last move."""
    return "C" if not history or history[-1][0] == "D" else "D"


def bully(history):
    """D first, then the opposite of the opponent's last move."""
    return ("D" if history[-1][1] == "C" else "C") if history else "D"


CLASSICS: dict[str, Chooser] = {
    "cooperator": cooperator,
    "defector": defector,
    "tit-for-tat": tit_for_tat,
    "grudger": grudger,
    "grim": grudger,
    "tit-for-two-tats": tit_for_two_tats,
    "win-stay-lose-shift": win_stay_lose_shift,
    "alternator": alternator,
    "suspicious-tit-for-tat": suspicious_tit_for_tat,
    "bully": bully,
}
