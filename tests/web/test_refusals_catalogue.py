"""Every stable error code in use has words in the browser client's catalogue (clients/web/refusals.js): a
sentence saying what went wrong and what to do. A code added to the server without words fails here.

The codes in use are read from the source: module constants such as ``BID_TOO_HIGH = "rules/bid_too_high"``
(and a store error's ``code = "store/conflict"``), literal codes given to ``Refused``, ``Problem`` or
``Error`` or as ``"code": ...``, in protocol/ and server/; and the page's own codes (``code: "net/offline"``)
in clients/web/."""

from __future__ import annotations

import ast
import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
WEB = ROOT / "clients" / "web"
CATALOGUE = WEB / "refusals.js"

CODE = re.compile(r"^[a-z]+/[a-z][a-z0-9_]*$")
CONSTANT = re.compile(r"^[A-Z][A-Z0-9_]*$")
ENTRY = re.compile(r'^\s*"([a-z]+/[a-z][a-z0-9_]*)":\s*"((?:[^"\\]|\\.)*)",?\s*$')
PAGE_CODE = re.compile(r'\bcode:\s*"([a-z]+/[a-z][a-z0-9_]*)"')


def _code(node: ast.AST | None) -> str | None:
    if isinstance(node, ast.Constant) and isinstance(node.value, str) and CODE.match(node.value):
        return node.value
    return None


def _codes_in(tree: ast.AST) -> set[str]:
    found: set[str] = set()

    def add(node: ast.AST | None) -> None:
        code = _code(node)
        if code is not None:
            found.add(code)

    for node in ast.walk(tree):
        if isinstance(node, ast.Assign | ast.AnnAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            if any(isinstance(t, ast.Name) and (CONSTANT.match(t.id) or t.id == "code") for t in targets):
                add(node.value)
        elif isinstance(node, ast.Call):
            callee = node.func
            name = getattr(callee, "id", None) or getattr(callee, "attr", "")
            if name in ("Refused", "Problem", "Error") and node.args:
                add(node.args[0])
            for keyword in node.keywords:
                if keyword.arg == "code":
                    add(keyword.value)
        elif isinstance(node, ast.Dict):
            for key, value in zip(node.keys, node.values, strict=True):
                if isinstance(key, ast.Constant) and key.value == "code":
                    add(value)
    return found


def codes_in_use() -> dict[str, str]:
    """Every stable code in use, with a file that uses it."""
    found: dict[str, str] = {}
    for folder in ("protocol", "server"):
        for path in sorted((ROOT / folder).rglob("*.py")):
            for code in _codes_in(ast.parse(path.read_text(encoding="utf-8"), filename=str(path))):
                found.setdefault(code, str(path.relative_to(ROOT)))
    for path in sorted(WEB.glob("*.js")):
        if path != CATALOGUE:
            for code in PAGE_CODE.findall(path.read_text(encoding="utf-8")):
                found.setdefault(code, str(path.relative_to(ROOT)))
    return found


def catalogue() -> dict[str, str]:
    """The catalogue's entries, one a line; a code listed twice is an error."""
    entries: dict[str, str] = {}
    for line in CATALOGUE.read_text(encoding="utf-8").splitlines():
        match = ENTRY.match(line)
        if match:
            code, text = match.groups()
            assert code not in entries, f"{code} is in refusals.js twice"
            entries[code] = json.loads(f'"{text}"')
    return entries


def test_the_codes_are_found_where_they_are_defined() -> None:
    found = codes_in_use()
    for code in ("protocol/bad_field", "auth/revoked", "rules/bid_too_high", "rules/no_hero_point", "net/offline"):
        assert code in found
    assert "attribute/skill" not in found  # a comment's words, not a code
    assert len(found) > 100


def test_every_code_in_use_has_words() -> None:
    words = catalogue()
    missing = {code: where for code, where in sorted(codes_in_use().items()) if code not in words}
    assert missing == {}, f"codes without words in clients/web/refusals.js: {missing}"


# Field paths, snake_case, dotted paths, codes, quoted ids and code formatting: what a sentence never shows.
NOT_WORDS = [
    (re.compile(r"^\w+(?:, \w+)*:"), "a field prefix"),
    (re.compile(r"\b[A-Za-z]+_[A-Za-z0-9_]*\b"), "snake_case"),
    (re.compile(r"\w\[\d*\]"), "a field path"),
    (re.compile(r"\b[a-z]+\.[a-z]"), "a dotted path"),
    (re.compile(r"\b[a-z]+/[a-z]"), "a code"),
    (re.compile(r"'[a-z0-9_-]+'"), "a quoted id"),
    (re.compile(r"[`{}<>$]"), "code formatting"),
    (re.compile(r"\b[a-z]+-[a-z0-9-]*\d"), "an id"),
]


@pytest.mark.parametrize("code", sorted(catalogue()))
def test_each_entry_is_a_sentence(code: str) -> None:
    text = catalogue()[code]
    assert text[:1].isupper(), f"{code}: {text!r} does not start with a capital"
    assert text.endswith((".", "!", "?")), f"{code}: {text!r} does not end a sentence"
    assert text.strip() == text and "  " not in text, f"{code}: {text!r}"
    for pattern, what in NOT_WORDS:
        found = pattern.search(text)
        assert found is None, f"{code}: {text!r} shows {what} ({found.group(0) if found else ''})"


def test_the_catalogue_has_no_entry_for_a_code_nobody_uses() -> None:
    stale = sorted(set(catalogue()) - set(codes_in_use()))
    assert stale == [], f"words for codes no longer in use: {stale}"


NODE = shutil.which("node")

# What the page shows for a refusal: the sentence, then the message's specific in words.
SAMPLES = [
    (
        {"code": "rules/bid_too_high", "message": "bid: 99 is above aria's limit of 15"},
        "99 is above Aria's limit of 15.",
    ),
    ({"code": "dice/bad_face", "message": "faces[0]: aria rolls a d20"}, "Aria rolls a d20."),
    ({"code": "rules/out_of_turn", "message": "contestant: it is not 'sir-bran''s turn"}, "It is not Sir Bran's turn."),
    (
        {"code": "contest/bad_setup", "message": "contestants[1].rating: starting AP -4 is below 1"},
        "Starting AP -4 is below 1.",
    ),
    ({"code": "protocol/bad_field", "message": "Expected `int` <= 99 - at `$.command.bid`"}, "At most 99."),
]


def test_a_refusal_reads_as_its_sentence_and_its_specific(tmp_path: Path) -> None:
    if NODE is None:
        pytest.fail("node is needed to run the page's module: tests/run installs it", pytrace=False)
    script = tmp_path / "explain.mjs"
    script.write_text(
        f"import {{ refusalWords }} from {json.dumps(CATALOGUE.as_uri())};\n"
        "const names = { aria: 'Aria', 'sir-bran': 'Sir Bran' };\n"
        f"const samples = {json.dumps([error for error, _ in SAMPLES])};\n"
        "console.log(JSON.stringify(samples.map((e) => refusalWords(e, names))));\n"
        "console.log(JSON.stringify([refusalWords({ code: 'auth/revoked', message: 'token: re-issued' }),"
        " refusalWords({ code: 'x/new', message: 'field_name: a thing' }), refusalWords(new Error('boom'))]));\n",
        encoding="utf-8",
    )
    assert NODE is not None
    run = subprocess.run([NODE, str(script)], capture_output=True, text=True, timeout=60, check=True)
    shown, others = (json.loads(line) for line in run.stdout.splitlines())
    words = catalogue()
    for (error, specific), text in zip(SAMPLES, shown, strict=True):
        assert text == f"{words[error['code']]} {specific}"
    revoked, unknown, broken = others
    assert revoked == words["auth/revoked"]  # nothing specific in the message: the sentence alone
    assert unknown.endswith("A thing.") and "field_name" not in unknown
    assert broken and "boom" not in broken
