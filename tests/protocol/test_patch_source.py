"""``protocol/patch.py`` both ways: installed, it runs compiled by mypyc (setup.py); where no C compiler built it,
its source runs as Python. Every test of ``test_patch.py`` runs here again on the source, so both give the same
patches, and a checkout runs the compiled module built from the source it holds."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import protocol.patch

HERE = Path(__file__).resolve().parent
SOURCE = HERE.parents[1] / "protocol" / "patch.py"


def _load(name: str, path: Path, patch: ModuleType | None = None) -> ModuleType:
    """The module at ``path`` executed as ``name`` (with ``protocol.patch`` standing for ``patch`` meanwhile)."""
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # msgspec resolves the Structs' annotations through it
    installed = sys.modules["protocol.patch"]
    if patch is not None:  # ``import protocol.patch as jp`` reads the package's attribute first
        sys.modules["protocol.patch"] = protocol.patch = patch
    try:
        spec.loader.exec_module(module)
    finally:
        sys.modules["protocol.patch"] = protocol.patch = installed
    return module


source = _load("protocol.patch_source", SOURCE)
_again = _load("tests.protocol.test_patch_on_source", HERE / "test_patch.py", patch=source)
globals().update({name: test for name, test in vars(_again).items() if name.startswith("test_")})


def test_the_tests_above_ran_on_the_source() -> None:
    assert _again.jp is source
    assert Path(source.__file__ or "").suffix == ".py"
    ops: Any = source.diff({"a": 1}, {"a": 2})
    assert ops == [source.Replace("/a", 2)]


def test_the_installed_module_is_compiled_from_the_source_in_this_checkout() -> None:
    compiled = Path(protocol.patch.__file__ or "")
    assert compiled.suffix == ".so", (
        f"{compiled} runs as Python source: `pip install -e .` compiles it with mypyc (it needs a C compiler)"
    )
    assert compiled.stat().st_mtime >= SOURCE.stat().st_mtime, (
        f"{compiled} is older than {SOURCE}: `pip install -e .` compiles it again"
    )
