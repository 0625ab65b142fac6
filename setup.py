"""The build's one addition to pyproject.toml: the JSON Patch module compiled to C by mypyc.

``protocol/patch.py`` (the diff behind every live patch: as Python, ~20 % of the event loop's time under load;
compiled, about half that) is compiled from the same source by mypyc, the compiler of the mypy project, wherever a
C compiler is at hand: an extension module beside the source, which Python imports instead of it. Where none is
(or with ``AGON_PURE_PYTHON=1``) the extension is skipped and the source runs as it is: same results, slower.
After changing ``protocol/patch.py`` in a checkout, ``pip install -e .`` compiles it again (``tests/run`` and
``deploy/serve`` do).
"""

from __future__ import annotations

import os
import sys

from setuptools import Extension, setup

COMPILED = ["protocol/patch.py"]


def compiled() -> list[Extension]:
    if os.environ.get("AGON_PURE_PYTHON"):
        return []
    try:
        from mypyc.build import mypycify

        extensions: list[Extension] = mypycify(COMPILED, opt_level="3")
    except (Exception, SystemExit) as error:  # mypyc refused the source: install it as Python
        print(f"setup.py: {COMPILED} stay Python source: mypyc failed ({error})", file=sys.stderr)
        return []
    for extension in extensions:
        extension.optional = True  # no C compiler: the pure-Python source, not a failed install
    return extensions


setup(ext_modules=compiled())
