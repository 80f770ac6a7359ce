"""The ``fsmarena`` command line.

Each sub-command is a module in :mod:`fsmarena.commands` defining ``NAME``, ``HELP``,
``add_arguments(parser)`` and ``run(args) -> int``; modules are discovered at start-up, so a
new command is a new file.  Every problem with the user's input ends as one line on stderr
(``fsmarena: error: ...``) and exit status 2; never a traceback.
"""

from __future__ import annotations

import argparse
import importlib
import logging
import pkgutil
import signal
import sys
import threading
from typing import Sequence

from fsmarena import __version__, allocator, commands, progress
from fsmarena.errors import FsmarenaError
from fsmarena.outdir import release_all
from fsmarena.output_guard import OutputError as OutputError  # noqa: F401 - kept importable from here
from fsmarena.output_guard import guarded
from fsmarena.parallel import protected_workers
from fsmarena.text import clean_text

EXIT_USAGE = 2
EXIT_INTERRUPTED = 130
EXIT_TERMINATED = 143


class Terminated(KeyboardInterrupt):
    """SIGTERM, raised in the main thread so that running work stops as on Ctrl-C (joblib
    terminates its workers) and the command ends with one line."""


#: set from the first SIGINT or SIGTERM of a run until the next run starts
_stopping = threading.Event()
#: the logging level switched off before the run was stopped (put back when the next run starts)
_logging_before_stop = logging.NOTSET


def _stop() -> None:
    """The run is being stopped: from here on, a background thread that trips over the worker
    pools being torn down ends silently (:func:`_quiet_once_stopping`) and library logging is
    off, so the interrupt still ends with one line.  dask's event loop, for one, logs a
    traceback through tornado's logger when the interrupt cancels a call it has not started
    (``distributed.utils.sync``); switched off here, before the interrupt is raised, there is
    no moment in which a thread can still log."""
    global _logging_before_stop
    if not _stopping.is_set():
        _logging_before_stop = logging.root.manager.disable
    _stopping.set()
    logging.disable(logging.CRITICAL)


def _start() -> None:
    """A run starts: not stopping, logging as it was before any earlier run was stopped."""
    if _stopping.is_set():
        logging.disable(_logging_before_stop)
    _stopping.clear()


def _on_sigterm(signum: int, frame: object) -> None:
    _stop()
    raise Terminated()


def _on_sigint(signum: int, frame: object) -> None:
    _stop()
    raise KeyboardInterrupt()


def _quiet_once_stopping(args: threading.ExceptHookArgs) -> None:
    """``threading.excepthook`` while the command line runs: once the run is interrupted, a
    background thread that trips over the worker pool being torn down (loky's queue manager
    can raise ``KeyError`` on a work item the shutdown already dropped) ends silently, so the
    interrupt still ends with one line; before that, every thread error is reported as usual."""
    if _stopping.is_set():
        return
    _default_excepthook(args)


_default_excepthook = threading.excepthook


class _Parser(argparse.ArgumentParser):
    """argparse with a one-line error message (no usage dump)."""

    def error(self, message: str) -> None:  # type: ignore[override]
        command = self.prog.split()[1:]  # "fsmarena play" names the command; "fsmarena" alone does not
        raise FsmarenaError(f"{command[-1]}: {message}" if command else message)


def _command_modules() -> list:
    modules = []
    for info in sorted(pkgutil.iter_modules(commands.__path__), key=lambda i: i.name):
        if info.name.startswith("_"):
            continue
        module = importlib.import_module(f"fsmarena.commands.{info.name}")
        if hasattr(module, "NAME") and hasattr(module, "run"):
            modules.append(module)
    order = ["games", "play", "tournament", "solve", "evolve", "train", "study", "draw", "bench"]
    modules.sort(key=lambda m: (order.index(m.NAME) if m.NAME in order else len(order), m.NAME))
    return modules


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="fsmarena", description=__doc__.split("\n\n")[0])
    parser.add_argument("--version", action="version", version=f"fsmarena {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    for module in _command_modules():
        command = sub.add_parser(module.NAME, help=module.HELP, description=module.HELP)
        command.add_argument("--quiet", action="store_true", help="no progress bars")
        module.add_arguments(command)
        command.set_defaults(_run=module.run)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    in_main_thread = threading.current_thread() is threading.main_thread()
    _start()
    allocator.keep_freed_memory()  # batches free and reallocate tens of MB (fsmarena.allocator)
    previous = {}
    if in_main_thread:
        previous = {signal.SIGTERM: signal.signal(signal.SIGTERM, _on_sigterm)}
        if signal.getsignal(signal.SIGINT) is signal.default_int_handler:
            previous[signal.SIGINT] = signal.signal(signal.SIGINT, _on_sigint)
        threading.excepthook = _quiet_once_stopping  # left in place: torn-down threads may report late
    code = EXIT_USAGE
    try:
        with guarded(), protected_workers():  # fsmarena.output_guard: closed, full or broken streams
            code = _main(argv)
        return code
    finally:
        release_all(failed=code != 0)  # locked for one run; a failed run that wrote nothing leaves nothing
        for signum, handler in previous.items():
            signal.signal(signum, handler)


def _main(argv: Sequence[str] | None) -> int:
    try:
        parser = build_parser()
        args = parser.parse_args(argv)
        if not getattr(args, "_run", None):
            parser.print_help(sys.stderr)
            return EXIT_USAGE
        progress.set_quiet(args.quiet)
        code = int(args._run(args) or 0)
        sys.stdout.flush()  # a full disk or a failing device shows here, not at exit
        return code
    except FsmarenaError as exc:
        print(f"fsmarena: error: {clean_text(str(exc), 4000)}", file=sys.stderr)
        return EXIT_USAGE
    except Terminated:
        print("fsmarena: terminated", file=sys.stderr)
        return EXIT_TERMINATED
    except KeyboardInterrupt:
        print("fsmarena: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED


if __name__ == "__main__":
    sys.exit(main())
