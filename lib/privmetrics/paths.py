"""Where things live: files that ship with the package, and folders that belong to a checkout.

**Package data** (read with :mod:`importlib.resources`, so they work from an installed wheel):
the dataset manifests (``resources/datasets/<name>.yml``), the catalogue of readings
(``resources/catalogue``) and the paper's tables, statements, errata and the PrivEval definitions
(``resources/paper``). :func:`resource` names one.

**A checkout** (a clone of the compendium, with ``notebooks/``, ``book/`` and ``results/``) is
needed only by what builds the book or stores results. :func:`checkout_root` finds it from, in
order: ``$PRIVMETRICS_HOME``; the folder this package was installed from in editable mode; the
working directory or one of its parents. Without one, :class:`CheckoutNotFoundError` names the
variable to set.

**Caches** (downloaded datasets, generated tables): ``data/cache`` of the checkout when there is
one, else the user's cache folder (``$XDG_CACHE_HOME/privmetrics``, by default
``~/.cache/privmetrics``); ``$PRIVMETRICS_CACHE`` moves the synthetic-table cache on its own.
"""

from __future__ import annotations

import os
from importlib.resources import files
from importlib.resources.abc import Traversable
from pathlib import Path

HOME_VARIABLE = "PRIVMETRICS_HOME"


class CheckoutNotFoundError(RuntimeError):
    """A command that needs the compendium's checkout was run outside one."""


def resource(*parts: str) -> Traversable:
    """A file shipped inside the package, e.g. ``resource("paper", "errata.yml")``."""
    return files("privmetrics.resources").joinpath(*parts)


def _is_checkout(folder: Path) -> bool:
    return (folder / "_config.yml").is_file() and (folder / "notebooks").is_dir()


def checkout_root(required: bool = True) -> Path | None:
    """The compendium checkout (see the module doc); ``None`` when there is none and not ``required``."""
    if os.environ.get(HOME_VARIABLE):
        home = Path(os.environ[HOME_VARIABLE]).expanduser().resolve()
        if not _is_checkout(home):
            raise CheckoutNotFoundError(
                f"${HOME_VARIABLE} is {home}, which holds no _config.yml and notebooks/ folder; "
                "point it at a clone of the privmetrics compendium"
            )
        return home
    source = Path(__file__).resolve().parents[2]  # lib/privmetrics/paths.py in a checkout
    here = Path.cwd().resolve()
    for folder in (source, here, *here.parents):
        if _is_checkout(folder):
            return folder
    if required:
        raise CheckoutNotFoundError(
            f"this needs a checkout of the privmetrics compendium (a folder with _config.yml and "
            f"notebooks/), and none was found from {here}; run it inside a clone or set "
            f"${HOME_VARIABLE} to one"
        )
    return None


def cache_home() -> Path:
    """Folder for downloaded datasets and generated tables (see the module doc)."""
    root = checkout_root(required=False)
    if root is not None:
        return root / "data" / "cache"
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "privmetrics"
