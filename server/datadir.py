"""Where Agon keeps its data when no store is named: the same place from any working directory.

``AGON_DATA`` names the folder; without it, ``$XDG_DATA_HOME/agon`` (``~/.local/share/agon``). The default
store is the sqlite file ``agon.sqlite3`` in that folder, and the server secret lives beside it.

A relative ``AGON_DATA`` would name another folder in each working directory: the command line makes it
absolute once, from the folder it was started in, and says so (``settle``).
"""

from __future__ import annotations

import os
from collections.abc import Mapping, MutableMapping
from pathlib import Path

STORE_FILE = "agon.sqlite3"


def data_dir(env: Mapping[str, str] | None = None) -> Path:
    env = os.environ if env is None else env
    given = env.get("AGON_DATA")
    if given:
        return Path(given).expanduser().absolute()
    base = env.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base).expanduser().absolute() / "agon"


def settle(env: MutableMapping[str, str]) -> str | None:
    """Make ``AGON_DATA`` absolute in ``env`` (``~`` expanded), so every reader finds the same folder.
    Returns a note for the user when it was relative, else None."""
    given = env.get("AGON_DATA")
    if not given:
        return None
    folder = str(data_dir(env))
    env["AGON_DATA"] = folder
    if Path(given).expanduser().is_absolute():
        return None
    return (
        f"AGON_DATA={given} is relative: using {folder} "
        f"(export AGON_DATA={folder} to use the same store from any folder)"
    )


def default_store(env: Mapping[str, str] | None = None) -> str:
    return f"sqlite:{data_dir(env) / STORE_FILE}"


def sqlite_path(spec: str) -> Path | None:
    """The file of a ``sqlite:PATH`` spec, None for any other store."""
    if spec.startswith("sqlite:") and spec.removeprefix("sqlite:"):
        return Path(spec.removeprefix("sqlite:"))
    return None
