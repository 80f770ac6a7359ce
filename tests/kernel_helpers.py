"""What the kernel tests and the driver tests share: the registered games with a kernel, their
test configurations, and a scripted ``decide`` that plays pre-drawn picks among the legal actions
and logs every observation, so that two implementations can be held to the same games."""

from __future__ import annotations

import importlib

import numpy as np

from fsmarena.games.registry import entries, resolve

KERNEL_GAMES = [e for e in entries() if e.kernel]


def kernel_of(entry):
    """The compiled single-game kernel module of a registered game."""
    return importlib.import_module(entry.kernel)


def game_of(entry, config=None):
    return resolve(entry.game, "game")(config)


def configs_of(entry):
    """The kernel's declared test configurations (``[None]``: the defaults only)."""
    module = kernel_of(entry)
    return module.test_configs() if hasattr(module, "test_configs") else [None]


#: every (game, configuration number) the kernel declares, and their test ids
CONFIG_CASES = [(e, i) for e in KERNEL_GAMES for i in range(len(configs_of(e)))]
CONFIG_IDS = [f"{e.name}-{i}" for e, i in CONFIG_CASES]


def scripted(module, mask):
    """The actions a scripted player picks from: the legal ones the game does not draw at random
    (the engine and the kernel draw chance actions from different streams)."""
    legal = np.flatnonzero(mask)
    chance = getattr(module, "CHANCE_ACTIONS", ())
    kept = legal[~np.isin(legal, chance)]
    return kept if len(kept) else legal


def logging_decide(game, module, n, picks, log):
    """A ``decide`` (the shape the engine and the driver both call) that plays the pre-drawn
    ``picks[game, seat, decision]`` among the scripted actions and logs each observation as
    ``log[(game, seat)] = [(index, features, mask, encodings, action), ...]``."""
    count = np.zeros((n, game.n_seats), dtype=np.int64)

    def decide(seat, obs, rows):
        ids = np.arange(n) if rows is None else np.asarray(rows)
        mask = obs.mask if obs.mask is not None else np.ones((len(ids), game.n_actions), dtype=bool)
        feats = obs.features if game.feature_names else np.zeros((len(ids), 0))
        index = np.broadcast_to(np.asarray(obs.index), (len(ids),))
        codes = [np.broadcast_to(np.asarray(getattr(obs, name)), (len(ids),)) for name in game.encodings]
        actions = np.empty(len(ids), dtype=np.int64)
        for j, g in enumerate(ids):
            legal = scripted(module, mask[j])
            actions[j] = legal[picks[g, seat, count[g, seat]] % len(legal)]
            entry = (int(index[j]), feats[j].tolist(), mask[j].tolist(), [int(c[j]) for c in codes], int(actions[j]))
            log.setdefault((int(g), seat), []).append(entry)
            count[g, seat] += 1
        return actions

    return decide


def part_rows(value, n):
    """An observation part as ``(kind, rows)``: its numpy kind (``b``, ``i`` or ``f``) and one
    list entry per row, a part given once for every row (the engines' ``step=turn``) repeated;
    ``None`` stays ``None`` (a mask when every action is legal)."""
    if value is None:
        return None
    array = np.asarray(value)
    kind = "i" if array.dtype.kind == "u" else array.dtype.kind
    if array.ndim == 0:
        array = np.broadcast_to(array, (n,))
    return kind, array.tolist()


def parts_decide(game, module, n, picks, log):
    """:func:`logging_decide` that also logs every part of each observation, by name, per row:
    ``log[(game, seat, "parts")] = [{name: (kind, value)}, ...]``."""
    inner = logging_decide(game, module, n, picks, log)

    def decide(seat, obs, rows):
        ids = np.arange(n) if rows is None else np.asarray(rows)
        values = {name: part_rows(getattr(obs, name), obs.n) for name in obs._parts}  # noqa: SLF001 - every part
        for j, g in enumerate(ids):
            row = {name: None if v is None else (v[0], v[1][j]) for name, v in values.items()}
            log.setdefault((int(g), seat, "parts"), []).append(row)
        return inner(seat, obs, rows)

    return decide
