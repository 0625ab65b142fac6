"""The JavaScript clients hash a view as the server does: the browser's ``canonical`` (clients/web/net.js) and the
Node spectator's (clients/node/spectator.mjs), run by node, write the same bytes as the server's canonical JSON,
member names sorted by code point — also names beyond U+FFFF, which UTF-16 strings hold as surrogate pairs."""

from __future__ import annotations

import json
import random
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from protocol.codec import canonical

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = """
import { canonical as web } from "./clients/web/net.js";
import { canonical as node } from "./clients/node/spectator.mjs";
let text = "";
for await (const chunk of process.stdin) text += chunk;
const document = JSON.parse(text);
process.stdout.write(JSON.stringify({ web: web(document), node: node(document) }));
"""


def canonical_in_javascript(document: Any) -> dict[str, str]:
    node = shutil.which("node")
    if node is None or not (ROOT / "clients" / "node" / "node_modules" / "fast-json-patch").is_dir():
        pytest.fail("node and clients/node/node_modules are needed: tests/run installs them", pytrace=False)
    done = subprocess.run(
        [node, "--input-type=module", "-e", SCRIPT],
        input=json.dumps(document),  # ASCII: every other character escaped, surrogate pairs included
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=30,
        check=True,
    )
    written: dict[str, str] = json.loads(done.stdout)
    return written


def test_names_beyond_u_ffff_sort_after_the_last_characters_below_it() -> None:
    # "ａ" is U+FF41, "𝔬" U+1D52C: by code point "ａ" comes first; by UTF-16 units "𝔬" (D835 DD2C) would
    document = {"𝔬": 2, "ａ": 1, "chart": {"ap": {"𝔬": [9], "ａ": [12], "b": [3]}}, "𝔬ａ": None, "": True}
    expected = '{"":true,"chart":{"ap":{"b":[3],"ａ":[12],"𝔬":[9]}},"ａ":1,"𝔬":2,"𝔬ａ":null}'
    assert canonical(document).decode() == expected  # the server's order, by the rule in docs/protocol.md
    assert canonical_in_javascript(document) == {"web": expected, "node": expected}


def test_any_names_are_written_as_the_server_writes_them() -> None:
    rng = random.Random(7)
    ranges = [(0x20, 0x7E), (0xA0, 0x2FF), (0xE000, 0xFFFD), (0x10000, 0x1F9FF), (0x20000, 0x2A6DF)]

    def name() -> str:
        return "".join(chr(rng.randint(*rng.choice(ranges))) for _ in range(rng.randint(1, 3)))

    document = {name(): {name(): i, name(): [i, {name(): "x"}]} for i in range(200)}
    expected = canonical(document).decode()
    assert canonical_in_javascript(document) == {"web": expected, "node": expected}
