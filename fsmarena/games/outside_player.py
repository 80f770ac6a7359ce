"""A player made by outside code with no file form of its own, kept in files by name only.

A study may name an outside agent (method ``python``, ``entry = "package.module:make_player"``).
When the player the entry returns can be written as a player file (a table policy, a network
exported from Stable-Baselines3), the study stores it as such.  When it cannot (a function of the
Gymnasium observation, a model asked at every decision: :mod:`fsmarena.deep.adapter`), the study
wraps it in an :class:`OutsidePlayer`, whose file records only the entry that makes it.  Only the
study that names that entry rebuilds it: reading such a file alone would mean running the code a
file names, which fsmarena never does (:meth:`OutsidePlayer.from_fields` refuses).
"""

from __future__ import annotations

from typing import Any

from fsmarena.games.players import Player
from fsmarena.games.registry import player_kinds


class OutsidePlayer(Player):
    """``inner``, made by the outside function ``entry``; plays exactly as ``inner`` does."""

    kind = "outside"

    def __init__(self, inner: Player, entry: str, label: str | None = None):
        super().__init__(label or inner.label)
        self.inner, self.entry = inner, entry

    def begin(self, game, n, members, rng):
        return self.inner.begin(game, n, members, rng)

    def act(self, obs, memory, rows, rng):
        return self.inner.act(obs, memory, rows, rng)

    def finish(self, memory, outcome, seat):
        self.inner.finish(memory, outcome, seat)

    def to_dict(self) -> dict[str, Any]:
        return {"entry": self.entry}

    @classmethod
    def from_fields(cls, fields, game):
        raise fields.fail(
            f"holds the outside player made by '{fields.get('entry', str)}': only the study that names it rebuilds it "
            "(fsmarena never runs code a file names)"
        )


def storable(player: Player) -> bool:
    """Whether ``player`` has a player file of its own (its kind is registered and it writes one)."""
    if player.kind not in player_kinds() or player.kind == OutsidePlayer.kind:
        return False
    try:
        player.to_dict()
    except Exception:  # noqa: BLE001 - any refusal to write means: no file of its own
        return False
    return True
