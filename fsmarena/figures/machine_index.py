"""Which drawings show a player: found by the player's content hash, wherever they were written.

Every PNG that ``fsmarena draw`` or a study writes of a player (its machine drawing or its
strategy card) carries the player's content hash in a PNG text chunk (:data:`HASH_KEY`) and is
noted in a small index of drawings (:func:`index_path`: ``$FSMARENA_DRAWINGS`` if set, else
``$XDG_CACHE_HOME/fsmarena/drawings.json`` or ``~/.cache/fsmarena/drawings.json``).
``fsmarena inspect`` lists the drawings whose embedded hash is the player's: those of the index
that still exist, and the PNGs next to the player file and in the ``figures`` folders of a
study around it.  A drawing renamed, moved into a study, or left elsewhere is still found, and
a drawing of another player with the same file name is not.

The hash is of the player's JSON without its label (a relabelled copy draws the same machine).
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path
from typing import Any, Iterable

from fsmarena.fileio import atomic_path, dumps, loads, read_text, write_text

#: the PNG text chunk holding the player's content hash
HASH_KEY = "fsmarena-player"
#: environment variable naming the index file
INDEX_ENV = "FSMARENA_DRAWINGS"
#: drawings the index keeps (the oldest are forgotten first)
MAX_INDEXED = 2_000


def content_hash(player_json: dict[str, Any]) -> str:
    """The SHA-256 of a player's JSON object without its ``label``."""
    content = {key: value for key, value in player_json.items() if key != "label"}
    return hashlib.sha256(dumps(content).encode("utf-8")).hexdigest()


def index_path() -> Path:
    """The index of drawings (module docstring)."""
    chosen = os.environ.get(INDEX_ENV)
    if chosen:
        return Path(chosen).expanduser()
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base).expanduser() / "fsmarena" / "drawings.json"


def mark_png(path: Path, digest: str) -> None:
    """Write ``digest`` into the PNG ``path`` (its text chunk :data:`HASH_KEY`), atomically;
    nothing when no file was written there."""
    from PIL import Image, PngImagePlugin

    if not path.is_file():
        return

    with Image.open(path) as image:
        image.load()
        info = PngImagePlugin.PngInfo()
        for key, value in image.text.items():  # type: ignore[attr-defined]
            if key != HASH_KEY:
                info.add_text(key, value)
        info.add_text(HASH_KEY, digest)
        with atomic_path(path) as tmp:
            image.save(tmp, format="PNG", pnginfo=info, dpi=image.info.get("dpi", (300, 300)))


def png_hash(path: Path) -> str | None:
    """The player hash a PNG carries, None if it carries none (or is no readable PNG)."""
    from PIL import Image, UnidentifiedImageError

    try:
        with Image.open(path) as image:
            return getattr(image, "text", {}).get(HASH_KEY)
    except (OSError, UnidentifiedImageError, ValueError):
        return None


def _read_index() -> list[dict[str, str]]:
    path = index_path()
    try:
        data = loads(read_text(path, "index of drawings"), str(path))
    except Exception:  # a missing or damaged index is an empty one: it is only a convenience
        return []
    if not isinstance(data, list):
        return []
    return [
        e for e in data if isinstance(e, dict) and isinstance(e.get("hash"), str) and isinstance(e.get("path"), str)
    ]


def note_drawing(path: str | Path, digest: str) -> None:
    """Mark the PNG ``path`` with ``digest`` and note it in the index (other formats: index only).
    An index that cannot be written is skipped: the drawing itself is what was asked for."""
    path = Path(path).resolve()
    if path.suffix.lower() == ".png":
        mark_png(path, digest)
    kept = [e for e in _read_index() if e["path"] != str(path)]
    kept.append({"hash": digest, "path": str(path)})
    try:
        index = index_path()
        index.parent.mkdir(parents=True, exist_ok=True)
        write_text(index, dumps(kept[-MAX_INDEXED:]))
    except OSError:
        pass


def _nearby(player_file: Path) -> Iterable[Path]:
    """PNGs next to the player file and in the ``figures`` folder of a study around it
    (``<study>/players/<family>/rNNN.json`` -> ``<study>/figures``)."""
    folder = player_file.resolve().parent
    yield from folder.glob("*.png")
    for parent in (folder.parent, folder.parent.parent):
        yield from (parent / "figures").glob("*.png")


def drawings_of(player_file: Path, digest: str) -> list[str]:
    """Every drawing that carries ``digest``: in the index (still there) and near the file."""
    candidates = {Path(e["path"]) for e in _read_index() if e["hash"] == digest}
    candidates.update(_nearby(player_file))
    found = []
    for path in sorted(candidates):
        if path.suffix.lower() == ".png":
            if path.is_file() and png_hash(path) == digest:
                found.append(str(path))
        elif path.is_file():  # svg, pdf, dot, graphml: the index's word
            found.append(str(path))
    return found
