"""Output folders: one run at a time, one kind of run per folder, no stale temporary files.

A command that writes a folder (``evolve``, ``train``, ``tournament``, ``study``) claims it with
:func:`claim_folder` before it writes anything else:

* an exclusive ``flock`` on ``DIR/.fsmarena.lock``, held until the process ends (the kernel
  releases it even after SIGKILL): a second run into the same folder is refused with
  ``DIR is in use by another fsmarena run (pid N)`` instead of silently racing the first;
* the folder's kind in ``DIR/.fsmarena-folder`` (``evolve``, ``train``, ``tournament`` or
  ``study``): the commands refuse each other's folders, so their files never mix.  Folders
  written before the kind file existed are recognised by their signature files;
* temporary files left by a killed run (the atomic writer's ``.NAME.tmp-XXXXXXXX`` files) are
  removed, which is safe because the lock guarantees no other run is writing there.

**No link inside an output folder is followed.**  A folder a command reads back or rewrites
(a study's ``players/``, ``replicates/``, ``raw/``, ``tables/``, ``figures/``; an evolution's or a
training run's folder; a checkout's ``published/`` and ``docs/`` for ``publish``) is *confined*
(:func:`confine`, done by :func:`claim_folder` too): every file the atomic writer writes and the
bounded reader reads below it (:mod:`fsmarena.fileio`) is reached through real folders only
(:func:`check_no_links`).  A symbolic link in place of one of its folders is refused in one line,
before anything is read or written through it: a study re-run once followed a ``players/`` link
and rewrote the files of the folder it pointed to.  A file that is a link is never read through
(it is refused, or, for a study's reused files, treated as damaged) and a writer replaces the link
itself, never what it points to.  :func:`inside` names a path below a folder after the same check.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import os
import re
import stat
from pathlib import Path

from fsmarena import fileio
from fsmarena.errors import FsmarenaError
from fsmarena.fileio import read_bytes, write_text

LOCK = ".fsmarena.lock"
KIND_FILE = ".fsmarena-folder"
CONTROL_FILES = (LOCK, KIND_FILE)
#: the most a control file holds (a kind, or a process id and a line break)
MAX_CONTROL_BYTES = 64
KINDS = ("evolve", "train", "tournament", "study", "search")
#: files that identify a folder written before kind files existed
SIGNATURES = {
    "evolve": ("checkpoint.json", "population.json"),
    "train": ("checkpoint.npz", "tables.npz"),
    "tournament": ("tournament.json", "matrix.csv"),
    "study": ("study.json",),
    "search": ("search.json", "policy.json"),
}
#: the atomic writer's temporary names (see :func:`fsmarena.fileio.atomic_path`)
TEMP_NAME = re.compile(r"^\..+\.tmp-[a-z0-9_]{8}(\.[A-Za-z0-9]+)?$")

#: folders held by this process, by resolved path: (lock descriptor, what this run created)
_held: dict[Path, tuple[int, list[Path]]] = {}


#: confined folders (see the module docstring): their absolute paths, as given and resolved
_confined: set[str] = set()


def confine(path: str | os.PathLike) -> Path:
    """From now until :func:`release_all`, no file below ``path`` is read or written through a
    symbolic link (module docstring).  ``path`` itself may be a link: it is the user's."""
    folder = Path(path)
    _confined.update({os.path.abspath(folder), os.path.realpath(folder)})
    return folder


def inside(out: str | os.PathLike, *parts: str) -> Path:
    """``out / parts``, after checking that none of ``parts`` is a symbolic link (one
    FsmarenaError otherwise): the path of a folder (or file) of an output folder to open."""
    path = Path(out, *parts)
    check_no_links(Path(out), path, reading=True)
    return path


def check_no_links(root: Path, path: Path, reading: bool) -> None:
    """FsmarenaError if a folder between ``root`` and ``path`` is a symbolic link, or, when
    ``reading``, if ``path`` itself is one (a writer replaces a link, never follows it)."""
    relative = Path(os.path.relpath(os.path.abspath(path), os.path.abspath(root)))
    if relative.parts[:1] == ("..",):
        return
    step = root
    for index, part in enumerate(relative.parts):
        step = step / part
        last = index == len(relative.parts) - 1
        if (last and not reading) or not os.path.islink(step):
            continue
        kind = "file" if last else "folder"
        raise FsmarenaError(
            f"{step} is a symbolic link: fsmarena reads and writes nothing inside {root} through a link "
            f"(it would reach where the link points); replace it by a real {kind}"
        )


def _confined_check(path: Path, reading: bool) -> None:
    """The fileio hook: :func:`check_no_links` below every confined folder holding ``path``."""
    if not _confined:
        return
    absolute = os.path.abspath(path)
    for root in sorted(_confined):
        if absolute.startswith(root.rstrip(os.sep) + os.sep):
            check_no_links(Path(root), Path(absolute), reading)


fileio.PATH_CHECKS.append(_confined_check)


def claim_folder(path: str | os.PathLike, kind: str) -> Path:
    """Create ``path`` if needed and make it this run's ``kind`` folder, or refuse in one line.

    Idempotent within a process (a command may claim the folder it already holds).
    """
    if kind not in KINDS:
        raise ValueError(f"unknown folder kind {kind!r}")
    out = Path(path)
    if out.exists() and not out.is_dir():
        raise FsmarenaError(f"output path {out} is not a folder")
    if out.is_dir():
        _check_kind(out, kind)
    created = [] if out.exists() else [out]
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise FsmarenaError(f"cannot create output folder {out}: {exc.strerror or exc}") from None
    if not os.access(out, os.W_OK | os.X_OK):
        raise FsmarenaError(f"output folder {out} is not writable")
    confine(out)
    key = out.resolve()
    if key not in _held:
        created += [path for path in (out / LOCK, out / KIND_FILE) if not path.exists()]
        _held[key] = (_lock(out), created)
        _write_kind(out, kind)
        remove_stale_temp_files(out)
    return out


def folder_kind(out: Path) -> str | None:
    """The kind recorded in ``out`` (or recognised from its files), None for a new folder."""
    marker = out / KIND_FILE
    if os.path.lexists(marker):
        text = read_bytes(marker, "the folder's kind file", MAX_CONTROL_BYTES, follow_links=False)
        kind = text.decode("ascii", "replace").strip()
        return kind if kind in KINDS else "unknown"
    for kind, names in SIGNATURES.items():
        if any((out / name).exists() for name in names):
            return kind
    return None


def has_user_files(out: Path) -> bool:
    """Whether ``out`` holds anything besides this module's control files."""
    return out.is_dir() and any(entry.name not in CONTROL_FILES for entry in out.iterdir())


def remove_stale_temp_files(out: Path) -> int:
    """Delete the atomic writer's leftover temporary files under ``out``; their number."""
    removed = 0
    for folder, _, files in os.walk(out):
        for name in files:
            if TEMP_NAME.match(name):
                try:
                    os.unlink(os.path.join(folder, name))
                    removed += 1
                except OSError:
                    pass
    return removed


def release_all(failed: bool = False) -> None:
    """Release every folder this process holds (the kernel would do it at exit).

    ``failed``: the run ended with an error; the control files it created are removed, and
    the folder too if it created it and nothing else was written, so a refused run leaves
    nothing behind (outputs it did write keep identifying the folder's kind, see SIGNATURES).
    """
    for _key, (fd, created) in list(_held.items()):
        if failed:
            for path in reversed(created):
                with contextlib.suppress(OSError):
                    path.rmdir() if path.is_dir() else path.unlink()  # rmdir only if empty
        os.close(fd)
    _held.clear()
    _confined.clear()


def _check_kind(out: Path, kind: str) -> None:
    found = folder_kind(out)
    if found not in (None, kind):
        what = "an unknown kind of run" if found == "unknown" else f"an 'fsmarena {found}' run"
        raise FsmarenaError(f"{out} holds the output of {what}, not of '{kind}': choose another folder")


def _lock(out: Path) -> int:
    path = out / LOCK
    try:  # never blocks (a FIFO), never follows a link; then only a regular file will do
        fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC | os.O_NOFOLLOW | os.O_NONBLOCK, 0o644)
    except OSError as exc:
        raise FsmarenaError(f"cannot lock output folder {out}: {exc.strerror or exc}") from None
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        raise FsmarenaError(f"cannot lock output folder {out}: {LOCK} is not a regular file")
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError as exc:
        holder = re.sub(r"\D", "", os.pread(fd, 32, 0).decode("ascii", "replace")) or "unknown"
        os.close(fd)
        if exc.errno in (errno.EWOULDBLOCK, errno.EAGAIN, errno.EACCES):
            raise FsmarenaError(f"{out} is in use by another fsmarena run (pid {holder})") from None
        raise FsmarenaError(f"cannot lock output folder {out}: {exc.strerror or exc}") from None
    stamp = f"{os.getpid()}\n".encode("ascii")
    if os.pread(fd, 64, 0) != stamp:  # unchanged (same mtime) when this process held it before
        os.ftruncate(fd, 0)
        os.pwrite(fd, stamp, 0)
    return fd


def _write_kind(out: Path, kind: str) -> None:
    if os.path.lexists(out / KIND_FILE):  # checked by folder_kind when the folder was claimed
        return
    write_text(out / KIND_FILE, kind + "\n")
