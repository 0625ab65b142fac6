"""Where Agon keeps its data when no store is named: the same place from any working directory.

``AGON_DATA`` names the folder; without it, ``$XDG_DATA_HOME/agon`` (``~/.local/share/agon``). The default
store is the sqlite file ``agon.sqlite3`` in that folder, and the server secret lives beside it.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

STORE_FILE = "agon.sqlite3"


def data_dir(env: Mapping[str, str] | None = None) -> Path:
    env = os.environ if env is None else env
    given = env.get("AGON_DATA")
    if given:
        return Path(given).expanduser().absolute()
    base = env.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base).expanduser().absolute() / "agon"


def default_store(env: Mapping[str, str] | None = None) -> str:
    return f"sqlite:{data_dir(env) / STORE_FILE}"


def sqlite_path(spec: str) -> Path | None:
    """The file of a ``sqlite:PATH`` spec, None for any other store."""
    if spec.startswith("sqlite:") and spec.removeprefix("sqlite:"):
        return Path(spec.removeprefix("sqlite:"))
    return None
