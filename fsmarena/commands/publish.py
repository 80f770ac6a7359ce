"""``fsmarena publish``: results pages and quoted numbers written from ``published/`` alone.

``--add DIR`` stores a finished study folder as data (:mod:`fsmarena.studies.store`); without options
every page quoting a published run is written again from the stores (:mod:`fsmarena.publish.pages`);
``--check`` writes nothing and fails, naming each page, when a page differs from its data.

The engines, studies and figures are imported inside the command's functions: ``fsmarena --help``
imports every command module and must stay quick (:mod:`fsmarena.commands`).
"""

from __future__ import annotations

import sys

from fsmarena.commands._common import output_path
from fsmarena.errors import FsmarenaError
from fsmarena.outdir import confine, inside

NAME = "publish"
HELP = (
    "write the results pages, the README's headline and every quoted number again from the "
    "published runs in published/ (nothing is re-run); --check only verifies"
)


def add_arguments(parser) -> None:
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument(
        "--add",
        metavar="DIR",
        type=output_path,
        default=None,
        help="store the finished study folder DIR (the --out of fsmarena study) as published/<study>/, "
        "replacing that study's previous store",
    )
    mode.add_argument(
        "--check",
        action="store_true",
        help="change nothing; exit 1 naming every page that differs from the published data",
    )
    mode.add_argument("--keys", action="store_true", help="list every published value and block a page may quote")
    parser.add_argument(
        "--figures",
        action="store_true",
        help="also draw every published study's figures into docs/results/<study>/ (with --check: compare "
        "them by content fingerprint); slow, it draws every figure",
    )
    parser.add_argument(
        "--root", default=".", type=output_path, help="the checkout holding README.md, docs/ and published/"
    )


def run(args) -> int:
    from fsmarena.publish.figures import publish_figures
    from fsmarena.publish.pages import add_run, publish, published_keys

    root = confine(args.root)  # its pages and stores, and a study folder added, are read through no link
    for folder in ("docs", "docs/results", "published"):  # pages under a linked folder would not even be found
        inside(root, folder)
    if args.add is not None:
        confine(args.add)
    if not (root / "docs").is_dir():
        raise FsmarenaError(f"{root} is not a checkout of fsmarena (it has no docs/ folder); give --root")
    if args.add is not None:
        target = add_run(args.add, root)
        print(f"stored {args.add} as {target}; run `fsmarena publish` to write the pages")
        return 0
    if args.keys:
        print("\n".join(published_keys(root)))
        return 0
    changed = publish_figures(root, check=args.check) if args.figures else []
    changed += publish(root, check=args.check)
    names = [page.relative_to(root).as_posix() for page in changed]
    if args.check:
        for name in names:
            print(f"fsmarena publish: {name} differs from the published data (run `fsmarena publish`)", file=sys.stderr)
        if not names:
            print("every page matches the published data")
        return 1 if names else 0
    print("\n".join(f"written: {name}" for name in names) or "every page already matches the published data")
    return 0
