"""Compiled loops written once and specialised per game kernel, cached on disk across processes.

A loop that calls one game kernel's functions (the sequential learners' training loop, the
compiled players' interpreter) cannot be an ordinary ``@njit(cache=True)`` function: it must call
*this* kernel's ``step``, and a closure over them is something numba will not cache, so every
process recompiled it (seconds per game and process).  Instead, the loop is written once as a
plain module-level *template* function whose per-kernel names are placeholders::

    k_step = kernel_function("step")          # in the template's module
    opponent_act = built_per_kernel(make_opponent_act)

    def play(p, s, ...):                      # the template: plain Python, not decorated
        ... k_step(p, s, action) ...

and :func:`specialise` (``specialise(play, kernel)``) writes a small generated module that imports
every name the template reads (the kernel's functions for the placeholders, everything else from
the template's own module), holds the template's source text, compiles it with
:func:`fsmarena.jit.njit` (``cache=True``) and imports it.  numba then caches it on disk like any
other function.

A template may also hold *slots*: placeholders the caller binds, besides the kernel, to any
module-level compiled function (``learner_update = slot("the learner's update")`` in the
template's module, ``specialise(play, kernel, slots={"learner_update": q_learning})``).  The
sequential learners' loop is built this way per kernel and per set of learner updates, its slot
bound to a :func:`switch` over them, each build compiled and cached like a per-kernel one: the
update is compiled into the loop, not passed to it as a first-class function (which numba calls
indirectly, slower and compiled at every call site's type).

**Cache correctness.**  numba's own cache keys a function on its file's timestamp and size and
does not notice when a function it calls, in another file, changes.  The generated module's
name therefore carries a hash of its own text and of the source of every module the compiled code
can reach: every ``.py`` file of each package involved (a subpackage of fsmarena such as
``fsmarena.games``, one of fsmarena's own modules, or a game's own top-level package; the template's, the kernel's,
the placeholders' and that of every module reached from them through the compiled functions and
modules their globals hold, transitively), plus the numba, numpy and Python versions.  Any change there gives a new
module, compiled afresh; an unchanged one is found and loaded from numba's cache.

**Where.**  ``$FSMARENA_CACHE_DIR`` if set, else ``$XDG_CACHE_HOME/fsmarena`` or
``~/.cache/fsmarena``, in the folder ``specialised``.  Deleting it is always safe.  Files are
written atomically (temporary file, then a link that never replaces a finished file), so processes
creating the same module at once all work; a file whose text differs from what it should be is
rewritten.  When the folder cannot be created or written, the module is compiled in memory
(uncached) instead.  ``NUMBA_DISABLE_JIT=1`` gives plain Python, as for every kernel.
"""

from __future__ import annotations

import dis
import hashlib
import importlib.util
import inspect
import os
import sys
import tempfile
import textwrap
import types
from functools import lru_cache
from pathlib import Path
from typing import Any, Callable, Iterable, Mapping, Sequence

import llvmlite
import numba
import numpy as np
from numba.core.extending import _Intrinsic  # where numba defines it (a private name: intrinsics have no public type)

from fsmarena.jit import announce_compile

#: environment variable naming the cache folder (docs/performance.md)
CACHE_ENV = "FSMARENA_CACHE_DIR"
#: packages whose versions, not sources, enter the hash
_VERSIONED = {"numba": numba.__version__, "numpy": np.__version__, "llvmlite": llvmlite.__version__}
_PREFIX = "fsmarena_specialised_"


class PerKernel:
    """A placeholder in a template's module: the object bound to this name for a given kernel.

    Calling it in plain Python is a programming error (the template runs only specialised)."""

    def __init__(self, resolve: Callable[[types.ModuleType], Any], what: str) -> None:
        self.resolve = resolve
        self.what = what

    def __call__(self, *args: Any) -> Any:
        raise TypeError(f"{self.what} is bound per kernel: call the function fsmarena.specialise.specialise returns")


def kernel_function(name: str, default: Callable[..., Any] | None = None) -> PerKernel:
    """The kernel's function ``name`` (``default`` when the kernel has none; then it must exist)."""

    def resolve(kernel: types.ModuleType) -> Any:
        found = getattr(kernel, name, default)
        if found is None:
            raise TypeError(f"kernel {kernel.__name__} lacks {name}")
        return found

    return PerKernel(resolve, f"kernel function {name}")


def built_per_kernel(build: Callable[[types.ModuleType], Callable[..., Any]]) -> PerKernel:
    """The function ``build(kernel)`` returns (e.g. another specialised template)."""
    return PerKernel(build, f"{build.__name__}(kernel)")


class Slot:
    """A placeholder in a template's module that the caller of :func:`specialise` binds (its
    ``slots``) to a module-level compiled function, such as the learner's update of the
    sequential training loop.  Calling it in plain Python is a programming error."""

    def __init__(self, what: str) -> None:
        self.what = what

    def __call__(self, *args: Any) -> Any:
        raise TypeError(f"{self.what} is bound when the template is specialised (fsmarena.specialise.specialise)")


def slot(what: str) -> Slot:
    """A placeholder bound by :func:`specialise`'s ``slots`` (module doc); ``what`` names it in errors."""
    return Slot(what)


Slots = Mapping[str, Callable[..., Any]]
_LOADED: dict[tuple[Any, ...], Callable[..., Any]] = {}


def specialise(
    template: Callable[..., Any],
    kernel: types.ModuleType,
    inline: bool = False,
    slots: Slots | None = None,
    seconds: int | None = None,
    label: str | None = None,
) -> Callable[..., Any]:
    """``template`` compiled for ``kernel`` (module doc), once per process, from the disk cache when
    an identical build was cached before.  ``inline``: compiled into every compiled caller
    (numba's ``inline="always"``) instead of called, for a small function called at every decision.
    ``slots``: the function bound to each :func:`slot` of the template's module, by name (one
    build per combination).  ``seconds``: the rough first-compile time of a long build, which
    is then announced on stderr when numba's cache does not hold it yet
    (:func:`fsmarena.jit.announce_compile`; one line for a run, not one per helper loop), with
    ``label`` in brackets when given, else the names of the bound slots' functions."""
    chosen = dict(slots or {})
    key = (template.__module__, template.__qualname__, kernel.__name__, *sorted(_slot_keys(chosen)))
    if key not in _LOADED:
        _LOADED[key] = _build(template, kernel, inline, chosen)
        if seconds is not None:  # the builds worth a line: the long first compiles that ask for one
            announce_compile(_LOADED[key], described(template, kernel, chosen, label), seconds)
    return _LOADED[key]


def described(template: Callable[..., Any], kernel: types.ModuleType, slots: Slots, label: str | None = None) -> str:
    """What a build is, in the first-compile line: "the dtd kernel's train games (q_learning)"."""
    game = kernel.__name__.split(".")[-2] if "." in kernel.__name__ else kernel.__name__
    bound = label or ", ".join(getattr(slots[name], "py_func", slots[name]).__name__ for name in sorted(slots))
    return f"the {game} kernel's {template.__name__.replace('_', ' ')}" + (f" ({bound})" if bound else "")


def _slot_keys(slots: Slots) -> list[str]:
    """``name=module.function`` of every bound slot (what tells two builds of a template apart)."""
    keys = []
    for name, bound in slots.items():
        function = getattr(bound, "py_func", bound)
        keys.append(f"{name}={function.__module__}.{function.__qualname__}")
    return keys


def switch(cases: Sequence[Callable[..., Any]]) -> Callable[..., Any]:
    """One compiled function over ``cases`` (module-level compiled functions with the same
    parameters): ``switch(which, *arguments)`` returns ``cases[which](*arguments)`` (the last case
    for any ``which`` past it; a single case ignores ``which``).  It is compiled into its callers
    (``inline="always"``), so a template slot bound to it gives one build that can run every case,
    where a slot bound to each case would give one build per case (the training loop's shared
    build, :mod:`fsmarena.rl.sequential`).  Generated as a module in the cache folder like a
    specialised template, its name carrying a hash of its text and of its cases' sources."""
    cases = tuple(cases)
    if not cases:
        raise TypeError("a switch needs at least one case")
    parameters = _shared_parameters(cases)
    imports = [_import_line(f"case_{i}", case) for i, case in enumerate(cases)]
    named = getattr(cases[0], "py_func", cases[0]).__name__ if len(cases) == 1 else f"any_of_{len(cases)}"
    key = ("switch", *imports)
    if key not in _LOADED:
        text = _switch_source(named, imports, parameters)
        owners = frozenset(getattr(case, "py_func", case).__module__ for case in cases)
        digest = hashlib.sha256(text.encode())
        digest.update(_fingerprint(owners).encode())
        name = f"{_PREFIX}switch__{named}__{digest.hexdigest()[:24]}"
        if name not in sys.modules:  # as in _build: a module this process loaded is not loaded again
            path = _write(cache_folder(), name, text)
            _load(name, text, str(path) if path else f"<{name}>")
        _LOADED[key] = getattr(sys.modules[name], named)
    return _LOADED[key]


def _shared_parameters(cases: tuple[Callable[..., Any], ...]) -> list[str]:
    """The parameter names every case has (a TypeError naming the first case that differs)."""
    names = [list(inspect.signature(getattr(case, "py_func", case)).parameters) for case in cases]
    for case, own in zip(cases, names):
        if own != names[0]:
            raise TypeError(f"{getattr(case, '__name__', case)!r}: a switch's cases take the same parameters")
    if "which" in names[0]:
        raise TypeError("a switch's cases cannot take a parameter named which: the switch's own")
    return names[0]


def _switch_source(named: str, imports: list[str], parameters: list[str]) -> str:
    """The text of a switch module (:func:`switch`)."""
    arguments = ", ".join(parameters)
    body = [f"    if which == {i}:\n        return case_{i}({arguments})" for i in range(len(imports) - 1)]
    lines = [
        f'"""A switch over {len(imports)} compiled functions (generated by fsmarena.specialise; do not edit)."""',
        "",
        "from fsmarena.jit import njit as _fsmarena_njit",
        *imports,
        "",
        "",
        '@_fsmarena_njit(cache=False, inline="always")',  # never called alone: its callers are cached
        f"def {named}(which, {arguments}):",
        *body,
        f"    return case_{len(imports) - 1}({arguments})",
        "",
    ]
    return "\n".join(lines)


def cache_folder() -> Path:
    """The folder of the generated modules (module doc)."""
    chosen = os.environ.get(CACHE_ENV)
    if chosen:
        return Path(chosen).expanduser() / "specialised"
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base).expanduser() / "fsmarena" / "specialised"


def generated_name(
    template: Callable[..., Any], kernel: types.ModuleType, inline: bool = False, slots: Slots | None = None
) -> str:
    """The module name ``template`` gets for ``kernel``: it changes with any reachable source."""
    return _plan(template, kernel, inline, dict(slots or {}))[0]


def _build(template: Callable[..., Any], kernel: types.ModuleType, inline: bool, slots: Slots) -> Callable[..., Any]:
    name, bindings = _plan(template, kernel, inline, slots)
    if name in sys.modules:
        return getattr(sys.modules[name], template.__name__)
    text = _source(template, bindings, cached=True, inline=inline)
    path = _write(cache_folder(), name, text)
    if path is None:  # no writable cache folder: compile in memory, uncached
        module = _load(name, _source(template, bindings, cached=False, inline=inline), f"<{name}>")
    else:
        module = _load(name, text, str(path))
    return getattr(module, template.__name__)


def _plan(
    template: Callable[..., Any], kernel: types.ModuleType, inline: bool, slots: Slots
) -> tuple[str, dict[str, str]]:
    """The generated module's name and its import lines by bound name."""
    _check_template(template)
    home = sys.modules[template.__module__]
    bindings: dict[str, str] = {}
    owners = {template.__module__, kernel.__name__}
    for name in sorted(_global_names(template.__code__)):
        value = getattr(home, name, None)
        if isinstance(value, (PerKernel, Slot)):
            bound = value.resolve(kernel) if isinstance(value, PerKernel) else _bound_slot(name, value, slots)
            bindings[name] = _import_line(name, bound)
            owners.add(getattr(bound, "py_func", bound).__module__)
        elif hasattr(home, name):
            bindings[name] = f"from {template.__module__} import {name}"
    unknown = set(slots) - {name for name in bindings if isinstance(getattr(home, name, None), Slot)}
    if unknown:
        raise TypeError(f"{template.__name__} has no slot {', '.join(sorted(unknown))}")
    digest = hashlib.sha256(_source(template, bindings, cached=True, inline=inline).encode())
    digest.update(_fingerprint(frozenset(owners)).encode())
    parts = [template.__module__, template.__name__, "", kernel.__name__]
    parts += ["", *(getattr(slots[name], "py_func", slots[name]).__name__ for name in sorted(slots))] if slots else []
    stem = "_".join(parts).replace(".", "_")
    return f"{_PREFIX}{stem}__{digest.hexdigest()[:24]}", bindings


def _bound_slot(name: str, placeholder: Slot, slots: Slots) -> Any:
    """The function the caller bound to slot ``name`` (a TypeError when it bound none)."""
    if name not in slots:
        raise TypeError(f"{placeholder.what} ({name}) needs a function: specialise(..., slots={{{name!r}: ...}})")
    return slots[name]


def _check_template(template: Callable[..., Any]) -> None:
    if not inspect.isfunction(template) or "." in template.__qualname__ or template.__closure__:
        raise TypeError(f"{template!r}: a template is a plain module-level function")


def _global_names(code: types.CodeType) -> set[str]:
    """The global names ``code`` (and any code nested in it) reads."""
    names = {op.argval for op in dis.get_instructions(code) if op.opname in ("LOAD_GLOBAL", "LOAD_NAME")}
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            names |= _global_names(const)
    return names


def _import_line(alias: str, bound: Any) -> str:
    """``from <module> import <name> as <alias>`` for a module-level function (or compiled function)."""
    function = getattr(bound, "py_func", bound)
    module, name = getattr(function, "__module__", None), getattr(function, "__name__", None)
    if module is None or name is None or getattr(sys.modules.get(module), name, None) is not bound:
        raise TypeError(f"{alias}: {bound!r} is not a module-level function")
    return f"from {module} import {name} as {alias}"


def _source(template: Callable[..., Any], bindings: dict[str, str], cached: bool, inline: bool) -> str:
    """The generated module's text."""
    options = ([] if cached else ["cache=False"]) + (['inline="always"'] if inline else [])
    decorator = f"@_fsmarena_njit({', '.join(options)})" if options else "@_fsmarena_njit"
    lines = [
        f'"""{template.__module__}.{template.__name__} specialised (generated by fsmarena.specialise; do not edit)."""',
        "",
        "from fsmarena.jit import njit as _fsmarena_njit",
        *(bindings[name] for name in sorted(bindings)),
        "",
        "",
        decorator,
        textwrap.dedent(inspect.getsource(template)),
    ]
    return "\n".join(lines)


def _fingerprint(owners: frozenset[str]) -> str:
    """A hash of the source of every package the compiled code can reach, and of the versions."""
    digest = hashlib.sha256(repr(sorted(_VERSIONED.items())).encode())
    digest.update(sys.version.encode())
    for path in _reachable_files(owners):
        digest.update(str(path).encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()


def _reachable_files(owners: Iterable[str]) -> list[Path]:
    """The ``.py`` files of the top-level packages of ``owners`` and of every module their compiled
    code can call into: modules reached from ``owners`` through compiled functions, numba
    intrinsics (such as :func:`fsmarena.jit.borrowed`) and module objects their globals hold,
    transitively.  Only the code's own imports decide it, never what
    else a process happened to import, so every process computes the same set."""
    seen: set[str] = set()
    todo = [*owners, __name__]
    while todo:
        name = todo.pop()
        module = sys.modules.get(name)
        if name in seen or module is None or not _is_source(name.split(".")[0]):
            continue
        seen.add(name)
        for value in list(vars(module).values()):
            if isinstance(value, types.ModuleType):
                todo.append(value.__name__)
            elif hasattr(value, "py_func"):
                todo.append(value.py_func.__module__)
            elif isinstance(value, _Intrinsic):  # its code is compiled into its callers
                todo.append(value.__module__)
    files: list[Path] = []
    for unit in sorted({_source_unit(name) for name in seen}):
        files += _package_files(unit)
    for name in sorted(seen):  # a module of a folder that is no package (a test's own learner)
        origin = getattr(sys.modules[name], "__file__", None)
        if _package_root(_source_unit(name)) is None and origin and origin.endswith(".py"):
            files.append(Path(origin))
    return files


#: the toolkit's own package, whose subpackages are hashed one by one (:func:`_source_unit`)
_ROOT = __name__.split(".")[0]


def _source_unit(name: str) -> str:
    """The package whose sources stand for module ``name`` in the hash: a subpackage of the
    toolkit (``fsmarena.games``, ``fsmarena.rl``) or one of its own modules (``fsmarena.jit``),
    else the module's top-level package (a game kept outside).  Not the whole toolkit: an edit
    to a report or a command cannot change a compiled loop, and must not recompile them all."""
    parts = name.split(".")
    return ".".join(parts[:2]) if parts[0] == _ROOT else parts[0]


def _is_source(top: str) -> bool:
    return top not in _VERSIONED and top not in sys.stdlib_module_names and not top.startswith(_PREFIX)


@lru_cache(maxsize=None)
def _package_root(top: str) -> Path | None:
    spec = importlib.util.find_spec(top)
    if spec is None or spec.origin is None or not spec.origin.endswith(".py"):
        return None
    return Path(spec.origin)


def _package_files(top: str) -> list[Path]:
    origin = _package_root(top)
    if origin is None:
        return []
    if origin.name != "__init__.py" or top == _ROOT:  # a module, or the toolkit's own __init__
        return [origin]
    return sorted(path for path in origin.parent.rglob("*.py") if "__pycache__" not in path.parts)


def _write(folder: Path, name: str, text: str) -> Path | None:
    """``folder/name.py`` holding ``text`` (written atomically if missing or different), or None
    when the folder cannot be written."""
    path = folder / f"{name}.py"
    try:
        if path.is_file() and path.read_text(encoding="utf-8") == text:
            return path
        folder.mkdir(parents=True, exist_ok=True)
        handle, temporary = tempfile.mkstemp(prefix=f".{name}.", suffix=".tmp", dir=folder)
        try:
            with os.fdopen(handle, "w", encoding="utf-8") as out:
                out.write(text)
            os.chmod(temporary, 0o644)  # mkstemp's 0o600 would hide it from a shared cache's other users
            _publish(Path(temporary), path)
        finally:
            Path(temporary).unlink(missing_ok=True)
    except OSError:
        return None
    return path


def _publish(temporary: Path, path: Path) -> None:
    """Move the finished ``temporary`` to ``path`` without disturbing a finished identical file
    (another process may be compiling from it; numba's cache keys on its timestamp)."""
    try:
        os.link(temporary, path)
    except FileExistsError:
        if path.read_text(encoding="utf-8") != temporary.read_text(encoding="utf-8"):
            os.replace(temporary, path)  # a damaged or foreign file: replace it whole
    except OSError:  # no hard links on this file system
        os.replace(temporary, path)


def _load(name: str, text: str, filename: str) -> types.ModuleType:
    """Execute ``text`` as module ``name`` (registered, so other generated modules can import it).

    The text run is always the one just generated; the file only gives numba a real source file
    (and timestamp) to key its cache on."""
    module = types.ModuleType(name)
    module.__file__ = filename
    sys.modules[name] = module
    try:
        exec(compile(text, filename, "exec"), module.__dict__)
    except BaseException:
        del sys.modules[name]
        raise
    return module
