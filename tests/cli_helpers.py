"""Running ``fsmarena`` inside a test: its exit code and what it printed."""

from __future__ import annotations

import contextlib
import io

from fsmarena.cli import main


def run_cli(capsys, *argv) -> tuple[int, str, str]:
    """``fsmarena ARGV`` (arguments turned into strings): exit code, stdout and stderr."""
    code = main([str(a) for a in argv])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def cli(*argv) -> tuple[int, str]:
    """``fsmarena ARGV`` where pytest's capsys is not available (module-scoped fixtures): exit
    code and stdout."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = main([str(a) for a in argv])
    return code, out.getvalue()
