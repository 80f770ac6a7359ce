"""The single-game kernel contract: one game at a time, compiled: the game's rules, written once.

A *kernel* plays one game at a time, fast: textbook learners update after every decision or
every game, and the generic batched driver (:mod:`fsmarena.games.driver`, what
:meth:`fsmarena.games.base.Game.play` runs) plays thousands of games as rows of kernel states.
A game declares its kernel in its entry (``GameEntry.kernel = "fsmarena.games.<name>.kernel"``);
:func:`kernel_of` loads and checks it.

A kernel module (``fsmarena/games/<name>/kernel.py``) is plain Python over numpy arrays, decorated
with :func:`fsmarena.jit.njit` (numba).  ``NUMBA_DISABLE_JIT=1`` runs it as ordinary Python
for debugging; results are the same, random numbers included (numba's ``np.random`` is the
same Mersenne Twister as numpy's legacy global generator, seeded by :func:`seed`).

Functions (names are the contract; a module may add more):

* ``make_params(config) -> np.ndarray[int64]`` (plain Python, not compiled): the game's rule
  parameters packed into one int64 array ``p`` (fractional values scaled to integers, e.g.
  divide-the-dollar's cards as integer points; floats that must stay bit-exact may be stored
  as their int64 bit pattern and read back with ``p[i:j].view(np.float64)``).
* compiled, all taking ``p`` first:

  - ``state_size(p)``, ``deal_size(p)``, ``n_seats(p)``, ``n_actions(p)``, ``n_states(p)``,
    ``n_features(p)``, ``n_encodings(p)``, ``encoding_size(p, which)`` -> int;
  - ``draw_deal(p, deal)``: fill the int64 array ``deal`` (length ``deal_size(p)``) with a
    fresh random deal (deck order, dice, prize order...) drawn with ``np.random``; tests feed
    instead the deal a scripted batched game used;
  - ``reset(p, s, deal)``: start a game in the int64 state vector ``s`` (length
    ``state_size(p)``; its layout is documented at the top of the game's module; the state
    keeps whatever of the deal it still needs);
  - ``to_move(p, s) -> int``: the seat to decide, -1 when the game is over.  Simultaneous
    games are serialised: seats decide in seat order, pending choices stay hidden in ``s``
    and the turn resolves when the last seat has chosen; no observation shows them;
  - ``observe_index(p, s, seat) -> int``: the tabular ``index`` (the numbering of the
    game's :class:`fsmarena.games.base.Observation`);
  - ``features(p, s, seat, out)``: the float64 BDA features (no-op without features);
  - ``legal(p, s, seat, mask)``: the bool legal-action mask (all True when all are legal);
  - ``always_masked(p) -> bool``: whether every observation carries its mask, as the game
    documents it (a game whose legal actions follow the hand shows a mask even where all are
    legal); otherwise an observation's mask is ``None`` where every action is legal (players
    that draw at random draw differently in the two cases);
  - ``encoding(p, s, seat, which) -> int``: extra FSM input encoding number ``which`` (the
    order of ``game.encodings``);
  - ``step(p, s, action)``: the seat to move plays abstract action ``action``;
  - ``rewards(p, s, out)``: float64 per seat as ``Outcome.rewards`` (+1 sole winner, 0 shared
    first, -1 otherwise; one-player: the score); ``scores(p, s, out)``: ``Outcome.scores``;
  - ``builtin_action(p, s, seat, code, args) -> int``: the action of the game's builtin
    strategy number ``code`` of the module constant ``BUILTINS = ("random", ...)``, drawing with
    ``np.random`` where it plays at random; ``args`` (float64) holds its parameters in the order
    of ``BUILTIN_ARGS[name]`` (empty for one without).  This is the only code of a builtin:
    :class:`fsmarena.games.builtin_player.BuiltinPlayer` plays it, compiled or asked in Python.

Observation parts beyond ``index``, ``features``, ``mask`` and the encodings (every other
part of the game's :class:`fsmarena.games.base.Observation`: a hand, the dice, the stake, the lives,
the game's decision number ``step``...):

* ``PARTS`` (plain): ``((name, kind), ...)`` in part-number order, ``kind`` one of
  :data:`PART_KINDS` (``int`` -> int64, ``float`` -> float64, ``bool``);
* ``part_size(p, which) -> int`` (compiled): 0 for a part with one value per decision, else
  the length of its vector (a hand's counts, every seat's lives);
* ``part_data(config) -> np.ndarray`` (plain): a float64 2-D table the parts may read (31's
  lives potential), a ``(1, 1)`` zero where none does; computed once per configuration;
* ``observe_part(p, data, s, seat, which, out)`` (compiled): part ``which`` of what ``seat``
  sees, written into the float64 ``out`` (length ``max(1, part_size)``; whole numbers for
  ``int`` and ``bool`` parts, exact below 2**53).

Defaults (pgx-style: a small game writes only what it needs).  A kernel module that ends with
``complete(globals())`` gets, for every name of :data:`DEFAULTS` it does not define, the default
there: no chance (``deal_size`` 1, ``draw_deal`` one unused number), no features, no
encodings, every action legal (``legal``, ``always_masked`` False), only the ``step`` part
(``PARTS``; the game still writes ``observe_part``, which reads its decision count), no part
data, and ``random`` as its one builtin.  What remains is the game itself: ``make_params``,
``state_size``, ``n_seats``, ``n_actions``, ``n_states``, ``reset``, ``to_move``, ``observe_index``,
``observe_part``, ``step``, ``scores`` and ``rewards`` (:func:`rank_rewards` turns scores into the
ranking rewards in one call).  ``docs/examples/nim/kernel.py`` and ``fsmarena/games/ipd/kernel.py``
are written this way.

Observations are asked of the seat to move (``seat == to_move(p, s)``).
:func:`observation_of` builds the lazy :class:`~games.base.Observation` of every caller (the
batched driver, the environments' stepper) from one :class:`Layout` and the kernel's readers.

Optional, for speed:

* ``is_legal(p, s, seat, action, mask) -> bool`` (compiled, ``inline="always"``): whether
  ``action`` (``0 <= action < n_actions``) is legal for the seat to move, by the game's own
  rule, without the mask.  The compiled seats ask it after choosing (a table's, an automaton's or
  a builtin's choice; an illegal one becomes the first legal action) and need the whole mask only
  then; ``mask`` is a work array the rule may ignore.  Without it,
  :data:`fsmarena.games.kernel_calls.k_is_legal` fills the mask with ``legal`` and reads it.
  ``tests/test_kernels.py`` checks it against ``legal`` on every action of random games.

Optional, for the builtins:

* ``OWN_RANDOM`` (plain): True when the game's ``random`` builtin is the kernel's code 0 rather
  than the generic uniformly random legal action;
* ``BUILTIN_ARGS`` (plain): ``{name: ((parameter, default, low, high), ...)}`` for the builtins
  that take parameters (Stupide Vautour's probabilities, 31's knock threshold);
* ``builtin_law(p, s, seat, code, args, out)`` (compiled): the exact law of ``builtin_action``
  over the actions (float64 ``out``), for exact best responses; a game whose builtins draw at
  random and that has an exact model gives it (without it, only builtins that draw nothing have
  a known law).

Optional, plain Python, for a game whose deal holds a variable amount of chance (421's first
throws, 31's first decks, then the seed of the game's own stream, :mod:`fsmarena.games.draws`):

* ``scripted(config, deals) -> (params, deals)``: the packed rules and kernel deals that play
  the scripted deals ``deals`` (``Game.play(deals=...)``, an int64 array, one row per game) of
  any length the game accepts; a ValueError says why a script is impossible (the driver makes
  it one clear error line).  Without it, a script must be exactly ``deal_size(p)`` wide.

Optional, plain Python, for the tests that compare a kernel with its game's plain-Python
reference (``fsmarena/games/<name>/reference.py``; ``tests/test_kernels.py`` runs them for every
game whose entry names a kernel):

* ``reference_deal(config, deals) -> dict``: the deals ``deals`` (an int64 array, one kernel
  deal per row) in the reference's terms, what its game loop is given (deck orders, throws,
  prize orders), e.g. ``{"deck_order": deals}`` for divide-the-dollar.
* ``test_configs() -> list``: a few game configurations (small and default) the tests play.
* ``random_config(seed) -> config``: a random valid configuration, for the tests' search over
  rule parameters.
* ``CHANCE_ACTIONS``: actions whose outcome the game draws at random (Stupide Vautour's
  ``random`` bid); the kernel and the reference draw from different generators, so the
  comparison tests never script them (they still check that they play legal moves).
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from functools import lru_cache
from types import ModuleType
from typing import Any, Callable, Protocol

import numpy as np

from fsmarena.errors import FsmarenaError
from fsmarena.games.observation import Observation
from fsmarena.games.registry import entries, entry
from fsmarena.jit import njit

#: compiled functions every kernel module defines
COMPILED = (
    "state_size",
    "deal_size",
    "n_seats",
    "n_actions",
    "n_states",
    "n_features",
    "n_encodings",
    "encoding_size",
    "draw_deal",
    "reset",
    "to_move",
    "observe_index",
    "features",
    "legal",
    "always_masked",
    "encoding",
    "step",
    "rewards",
    "scores",
    "builtin_action",
    "part_size",
    "observe_part",
)
#: plain-Python functions and constants every kernel module defines
PLAIN = ("make_params", "BUILTINS", "PARTS", "part_data")
#: kinds of observation parts (``PARTS``) and the numpy types the observations give them
PART_KINDS = {"int": np.int64, "float": np.float64, "bool": np.bool_}


# ---- defaults for what a game does not need (module doc, "Defaults") --------------------------


@njit
def one_unused_deal_number(p):
    """``deal_size`` of a game without chance: one unused number."""
    return 1


@njit
def no_chance(p, deal):
    """``draw_deal`` of a game without chance."""
    deal[0] = 0


@njit
def none_of_them(p):
    """``n_features`` / ``n_encodings`` of a game without features or encodings."""
    return 0


@njit
def no_encoding_size(p, which):
    return 0


@njit
def no_features(p, s, seat, out):
    """``features`` of a game without features: nothing to write."""


@njit
def no_encoding(p, s, seat, which):
    return 0


@njit
def every_action_legal(p, s, seat, mask):
    """``legal`` of a game whose every action is always legal."""
    mask[:] = True


@njit
def not_always_masked(p):
    return False


@njit
def one_value_per_decision(p, which):
    """``part_size`` of a game whose parts hold one value per decision."""
    return 0


@njit
def random_only(p, s, seat, code, args):
    """``builtin_action`` of a game whose one builtin is the generic ``random`` (never asked)."""
    return 0


def no_part_data(config: Any) -> np.ndarray:
    """``part_data`` of a game whose parts read no table."""
    return np.zeros((1, 1))


@njit
def rank_rewards(out):
    """Turn the scores in ``out`` into the ranking rewards in place (+1 sole winner, 0 shared
    first place, -1 otherwise): a game's ``rewards`` is ``scores(p, s, out)`` then this."""
    best = out.max()
    winners = 0
    for value in out:
        if value == best:
            winners += 1
    for seat in range(out.shape[0]):
        out[seat] = (1.0 if winners == 1 else 0.0) if out[seat] == best else -1.0


#: what :func:`complete` gives a kernel module for each name it does not define
DEFAULTS: dict[str, Any] = {
    "deal_size": one_unused_deal_number,
    "draw_deal": no_chance,
    "n_features": none_of_them,
    "features": no_features,
    "n_encodings": none_of_them,
    "encoding_size": no_encoding_size,
    "encoding": no_encoding,
    "legal": every_action_legal,
    "always_masked": not_always_masked,
    "part_size": one_value_per_decision,
    "builtin_action": random_only,
    "BUILTINS": ("random",),
    "PARTS": (("step", "int"),),
    "part_data": no_part_data,
}


def complete(namespace: dict[str, Any]) -> None:
    """Give the kernel module whose ``globals()`` is ``namespace`` the default of every name of
    :data:`DEFAULTS` it does not define (called on its last line, so every importer sees them)."""
    for name, default in DEFAULTS.items():
        namespace.setdefault(name, default)


@njit
def seed(value: int) -> None:
    """Seed the compiled code's random stream (``np.random`` inside numba)."""
    np.random.seed(value)


def has_kernel(game: Any) -> bool:
    """Whether ``game`` is registered with a single-game kernel in its entry (games outside
    the registry, such as the learners' toy MDPs, have none)."""

    return any(item.name == game.name and item.kernel for item in entries())


def kernel_of(game: Any) -> ModuleType:
    """The kernel module of ``game``, checked against the contract (FsmarenaError if the game
    has none: the sequential learners and compiled opponents need one)."""

    target = entry(game.name).kernel
    if not target:
        raise FsmarenaError(
            f"{game.name} has no single-game kernel: sequential training needs one "
            "(use --batch K for the batched algorithm)"
        )
    return _checked_kernel(target)


@lru_cache(maxsize=None)
def _checked_kernel(target: str) -> ModuleType:
    """The kernel module ``target``, checked against the contract once per process (the
    generic layers ask for it at every batch)."""
    module = importlib.import_module(target)
    missing = [name for name in COMPILED + PLAIN if not hasattr(module, name)]
    if missing:  # a programming error in the game's kernel, not user input
        hint = " (end the module with fsmarena.games.kernel.complete(globals()) for the defaults)"
        raise TypeError(f"{target} lacks {', '.join(missing)}{hint if set(missing) & set(DEFAULTS) else ''}")
    if not module.BUILTINS or module.BUILTINS[0] != "random":
        raise TypeError(f"{target}.BUILTINS must start with 'random'")
    names = [name for name, _ in module.PARTS]
    if "step" not in names or any(kind not in PART_KINDS for _, kind in module.PARTS):
        raise TypeError(f"{target}.PARTS must name 'step' and give each part a kind of {', '.join(PART_KINDS)}")
    return module


def params_of(game: Any) -> np.ndarray:
    """The kernel's packed rule parameters of ``game``'s configuration."""
    params = np.ascontiguousarray(kernel_of(game).make_params(game.config), dtype=np.int64)
    return params


def default_args(kernel: ModuleType, code: int) -> np.ndarray:
    """The default parameters of builtin ``code`` of ``kernel`` (``BUILTIN_ARGS``), as the float64
    array ``builtin_action`` takes (empty for a builtin without parameters)."""
    declared = getattr(kernel, "BUILTIN_ARGS", {}).get(kernel.BUILTINS[code], ())
    return np.array([default for _, default, *_ in declared], dtype=np.float64)


_PART_DATA: dict[tuple[str, Any], np.ndarray] = {}


def part_data_of(game: Any) -> np.ndarray:
    """The table ``game``'s observation parts read (``part_data``), computed once per process
    and configuration (31's lives potential takes a while for six seats)."""
    module = kernel_of(game)
    try:
        key = (game.name, game.config)
        hash(key)
    except TypeError:  # an unhashable configuration: no reuse
        return np.ascontiguousarray(module.part_data(game.config), dtype=np.float64)
    if key not in _PART_DATA:
        _PART_DATA[key] = np.ascontiguousarray(module.part_data(game.config), dtype=np.float64)
    return _PART_DATA[key]


# ---- observations from a kernel ----------------------------------------------------------------


@dataclass(frozen=True)
class Part:
    """One observation part beyond index, features, mask and encodings: ``size`` 0 for one
    value per decision, else the length of its vector; ``kind`` a key of :data:`PART_KINDS`."""

    name: str
    kind: str
    size: int


@dataclass(frozen=True)
class Layout:
    """What a kernel's observations hold under one configuration (plain data: it pickles)."""

    n_actions: int
    n_features: int
    encodings: tuple[str, ...]
    parts: tuple[Part, ...]
    always_masked: bool

    @classmethod
    def of(cls, game: Any, kernel: ModuleType, p: np.ndarray) -> "Layout":
        parts = tuple(
            Part(name, kind, int(kernel.part_size(p, which))) for which, (name, kind) in enumerate(kernel.PARTS)
        )
        sizes = int(kernel.n_actions(p)), int(kernel.n_features(p))
        return cls(*sizes, tuple(game.encodings), parts, bool(kernel.always_masked(p)))


class Reader(Protocol):
    """Fills the arrays of one observation for its ``n`` rows (the kernel's readers, called
    over the rows that decide): row ``j`` of each ``out`` is row ``j`` of the observation."""

    def index(self, out: np.ndarray) -> None: ...

    def mask(self, out: np.ndarray) -> None: ...

    def features(self, out: np.ndarray) -> None: ...

    def encoding(self, which: int, out: np.ndarray) -> None: ...

    def part(self, which: int, out: np.ndarray) -> None: ...

    def builtin(self, code: int, args: np.ndarray, out: np.ndarray) -> None:
        """Builtin ``code``'s actions (``builtin_action``, drawing from the compiled stream)."""

    def builtin_law(self, code: int, args: np.ndarray, out: np.ndarray) -> None:
        """Builtin ``code``'s law over the actions, ``out`` of shape ``(n, n_actions)``."""

    def subset(self, rows: np.ndarray) -> "Reader":
        """The readers of rows ``rows`` (positions among this reader's rows)."""

    def frozen(self) -> "Reader":
        """These readers on a copy of the states as they are now."""


def observation_of(layout: Layout, n: int, read: Reader) -> Observation:
    """The lazy observation of ``n`` rows: each part read on first use, in the shapes and
    types the game's observations have (``mask`` None where every action is legal, unless the layout is
    ``always_masked``)."""

    def index() -> np.ndarray:
        out = np.zeros(n, dtype=np.int64)
        read.index(out)
        return out

    def mask() -> np.ndarray | None:
        out = np.zeros((n, layout.n_actions), dtype=np.bool_)
        read.mask(out)
        return None if not layout.always_masked and out.all() else out

    parts: dict[str, Callable[[], Any]] = {"index": index, "mask": mask}
    if layout.n_features:

        def features() -> np.ndarray:
            out = np.zeros((n, layout.n_features))
            read.features(out)
            return out

        parts["features"] = features
    for which, name in enumerate(layout.encodings):
        parts[name] = _encoding_reader(read, n, which)
    for which, part in enumerate(layout.parts):
        parts[part.name] = _part_reader(read, n, which, part)
    return Observation(n, layout.n_actions, read, **parts)


def _encoding_reader(read: Reader, n: int, which: int) -> Callable[[], np.ndarray]:
    def encoding() -> np.ndarray:
        out = np.zeros(n, dtype=np.int64)
        read.encoding(which, out)
        return out

    return encoding


def _part_reader(read: Reader, n: int, which: int, part: Part) -> Callable[[], np.ndarray]:
    def value() -> np.ndarray:
        out = np.zeros((n, max(1, part.size)))
        read.part(which, out)
        shaped = out if part.size else out[:, 0]
        return shaped.astype(PART_KINDS[part.kind])

    return value
