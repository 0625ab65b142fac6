"""The store named by the environment, for commands run without ``--store``.

A Redis URL may carry a password (``redis://:PASSWORD@HOST:6379/0``). On a command line it is readable by
every user of the host (``ps``, ``/proc/PID/cmdline``) and stays in shell history; in the environment it is
readable only by the process's own user. ``AGON_STORE`` holds the URL itself; ``AGON_STORE_FILE`` names a
file whose first line is the URL (a Docker or Kubernetes secret mounted as a file). ``--store`` wins over
both.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from server.user_error import USAGE_ERROR, UserError

STORE = "AGON_STORE"
STORE_FILE = "AGON_STORE_FILE"


def store_from_env(env: Mapping[str, str]) -> str | None:
    """The store ``AGON_STORE`` or ``AGON_STORE_FILE`` names, or None when neither is set. A file that cannot
    be read or holds no URL, or both variables at once, is a mistake the user can fix (exit 2)."""
    given = env.get(STORE, "").strip()
    named = env.get(STORE_FILE, "").strip()
    if given and named:
        raise UserError(f"{STORE} and {STORE_FILE} are both set: keep one of them", USAGE_ERROR)
    if given:
        return given
    if not named:
        return None
    path = Path(named).expanduser()
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise UserError(f"{STORE_FILE}={named}: no such file", USAGE_ERROR) from None
    except IsADirectoryError:
        raise UserError(f"{STORE_FILE}={named} is a folder: name the file that holds the URL", USAGE_ERROR) from None
    except PermissionError:
        raise UserError(f"{STORE_FILE}={named}: this user may not read it", USAGE_ERROR) from None
    except UnicodeDecodeError:
        raise UserError(f"{STORE_FILE}={named} is not a text file", USAGE_ERROR) from None
    except OSError as error:
        raise UserError(f"{STORE_FILE}={named}: {error.strerror or error}", USAGE_ERROR) from None
    lines = text.splitlines()
    first = lines[0].strip() if lines else ""
    if not first:
        raise UserError(f"{STORE_FILE}={named}: its first line is empty: write the store URL there", USAGE_ERROR)
    return first
