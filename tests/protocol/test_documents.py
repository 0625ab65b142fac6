"""docs/protocol.md, docs/schema.json and docs/asyncapi.json against the code: every example decodes as the
message it claims to be and validates against the schema, the hashes in the examples are right, every message
and error code is documented, the committed documents are current, and the AsyncAPI document passes the
official AsyncAPI 3.0 JSON Schema."""

from __future__ import annotations

import contextlib
import copy
import hashlib
import importlib
import json
import pkgutil
import re
import typing
from pathlib import Path
from typing import Any

import jsonschema
import jwt
import msgspec
import pytest

from protocol import errors, events, messages
from protocol.codec import canonical, convert, decode, encode
from protocol.patch import apply, view_hash
from protocol.schema import GENERATED, asyncapi, schema
from protocol.views import ContestView
from server import rules
from server.net.auth import Tokens
from server.rules.extended import codes as extended_codes
from server.store import port as store_port

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
PROTOCOL = (DOCS / "protocol.md").read_text(encoding="utf-8")
ASYNCAPI_SPEC = (
    ROOT / "clients" / "node" / "node_modules" / "@asyncapi" / "specs" / "schemas" / "3.0.0-without-$id.json"
)


def message_blocks() -> list[dict[str, Any]]:
    return [json.loads(block) for block in re.findall(r"```json message\n(.*?)\n```", PROTOCOL, re.S)]


def decoded(block: dict[str, Any]) -> Any:
    text = json.dumps(block)
    for union in (messages.ClientMessage, messages.ServerMessage):
        try:
            return decode(text, union)  # type: ignore[arg-type]
        except msgspec.ValidationError:
            continue
    raise AssertionError(f"not a message: {text[:200]}")


def test_every_example_is_a_real_message_and_every_message_has_one() -> None:
    blocks = message_blocks()
    validator = jsonschema.Draft202012Validator(schema())
    tags = set()
    for block in blocks:
        message = decoded(block)
        tags.add(type(message).__struct_config__.tag)
        assert not list(validator.iter_errors(block)), block  # the schema agrees with the decoder
    every = {m.__struct_config__.tag for m in (*messages.ClientMessage.__args__, *messages.ServerMessage.__args__)}  # type: ignore[attr-defined]
    assert tags == every, f"messages without an example in docs/protocol.md: {sorted(every - tags)}"


def written(message: Any) -> Any:
    """A message as the server's encoder writes it: every member, defaulted ones included."""
    return json.loads(encode(message))


def test_every_server_example_holds_exactly_the_members_the_server_writes() -> None:
    """Decoding fills a member an example leaves out with its default: re-encoded, the example must come back
    unchanged, key for key, down to the views' members (a missing member or an extra one fails)."""
    for block in message_blocks():
        message = decoded(block)
        if not isinstance(message, messages.ServerMessage):
            continue  # a client may leave defaulted members out
        assert written(message) == block, f"the {block['type']} example differs from what the server writes"
        if block.get("view") is not None:
            view = convert(block["view"], ContestView)
            assert written(view) == block["view"], f"the {block['type']} example's view is not a whole view"
    view = next(b for b in message_blocks() if b["type"] == "welcome" and b["view"])["view"]
    for patch in (b for b in message_blocks() if b["type"] == "patch"):
        view = apply(copy.deepcopy(view), decode(json.dumps(patch), messages.Patch).ops)
        assert written(convert(view, ContestView)) == view, "a patch example does not lead to a whole view"


def test_the_examples_hashes_chain_from_welcome_to_patch_to_resume() -> None:
    by_type: dict[str, list[Any]] = {}
    for block in message_blocks():
        by_type.setdefault(block["type"], []).append(block)
    fresh, resumed = by_type["welcome"]
    assert fresh["view"] is not None and view_hash(fresh["view"]) == fresh["view_hash"]
    live, missed = by_type["patch"]
    assert live["from"] == fresh["version"]
    after = apply(copy.deepcopy(fresh["view"]), decode(json.dumps(live), messages.Patch).ops)
    assert view_hash(after) == live["view_hash"] and after["version"] == live["to"]
    assert resumed["view"] is None and resumed["version"] == live["to"] and resumed["view_hash"] == live["view_hash"]
    assert missed["from"] == resumed["version"] and "notices" not in missed  # the resume's patch tells nothing
    head = apply(after, decode(json.dumps(missed), messages.Patch).ops)
    assert view_hash(head) == missed["view_hash"] and head["version"] == missed["to"]
    spectator = fresh["view"]["rules"]["contestants"]
    assert all(c["ap"] is None for c in spectator)  # the example shows a spectator's view, as the text says


def test_the_worked_view_hash_example_is_right() -> None:
    document = json.loads(re.search(r"Worked example\. The document\n\n```json\n(.*?)\n```", PROTOCOL, re.S)[1])  # type: ignore[index]
    shown = re.search(r"has the canonical JSON \((\d+) bytes.*?\n\n```\n(.*?)\n```", PROTOCOL, re.S)
    assert shown is not None
    assert canonical(document) == shown[2].encode() and len(canonical(document)) == int(shown[1])
    assert json.dumps(document, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode() == shown[2].encode()
    digest = hashlib.sha256(shown[2].encode()).hexdigest()
    assert f"SHA-256 is `{digest}`" in PROTOCOL
    assert f"**`{view_hash(document)}`**" in PROTOCOL and view_hash(document) == digest[:16]
    # the example shows the pitfall it warns of: sorted by UTF-16 code units, its names come in another order
    by_units = by_utf16_units(document)
    assert by_units != shown[2].encode()
    wrong = re.search(r"Sorted by UTF-16 code units .*? would hash to\s+`([0-9a-f]{16})`", PROTOCOL, re.S)
    assert wrong is not None and wrong[1] == hashlib.sha256(by_units).hexdigest()[:16]


def by_utf16_units(value: Any) -> bytes:
    """Canonical JSON but for the order of member names: by UTF-16 code units, as JavaScript's ``sort()``."""

    def ordered(value: Any) -> Any:
        if isinstance(value, dict):
            return {k: ordered(value[k]) for k in sorted(value, key=lambda k: k.encode("utf-16-be"))}
        return [ordered(v) for v in value] if isinstance(value, list) else value

    return json.dumps(ordered(value), separators=(",", ":"), ensure_ascii=False).encode()


def test_the_token_claims_example_matches_the_example_token() -> None:
    token = message_blocks()[0]["follow"][0]["token"]
    shown = json.loads(re.search(r"The claims of the spectator token below:\n\n```json\n(.*?)\n```", PROTOCOL, re.S)[1])  # type: ignore[index]
    assert jwt.decode(token, options={"verify_signature": False}) == shown


def example_tokens() -> list[tuple[str, str, str, int | None]]:
    """(token, contest, seat, expires) of every token in the examples, from the message around it."""
    found: list[tuple[str, str, str, int | None]] = []
    for block in message_blocks():
        for follow in block.get("follow", []):
            found.append((follow["token"], follow["contest"], "", None))
        if block["type"] == "created":
            invitations = block["invitations"]
            expires = invitations["expires"]
            found += [(t, block["contest"], seat, expires) for seat, t in invitations["seats"].items()]
            found += [(invitations["gm"], block["contest"], "gm", expires)]
            found += [(invitations["spectator"], block["contest"], "~spectator", expires)]
            found += [(invitations["owner"], "", "", None)]
        if block["type"] == "invited":
            found.append((block["token"], block["contest"], block["seat"], block["expires"]))
    return found


def test_every_example_token_is_a_jwt_agon_accepts_with_the_documented_secret() -> None:
    secret = re.search(r"The examples on this page are signed with the secret\s+`([^`]+)`", PROTOCOL)
    assert secret is not None
    tokens = example_tokens()
    assert len(tokens) >= 7
    for token, contest, seat, expires in tokens:
        claims = Tokens(secret[1].encode(), clock=lambda: 1_800_000_000).verify(token)
        assert jwt.get_unverified_header(token) == {"alg": "HS256"}
        assert claims.contest == contest and (not seat or claims.seat == seat), token
        assert expires is None or claims.exp == expires, token
    documented = re.search(r"`jwt\.encode\((\{.*?\}), secret", PROTOCOL)
    assert documented is not None  # the PyJWT example mints a token Agon accepts
    minted = jwt.encode(json.loads(documented[1]), secret[1].encode(), algorithm="HS256")
    assert Tokens(secret[1].encode(), clock=lambda: 1_800_000_000).verify(minted).seat == "ann"


def codes_in(module: Any) -> set[str]:
    return {v for k, v in vars(module).items() if k.isupper() and isinstance(v, str) and "/" in v}


def store_codes() -> set[str]:
    """The codes of the store's refusals, which reach a client as they are (``StoreError.code``)."""
    found = {
        error.code
        for error in vars(store_port).values()
        if isinstance(error, type) and issubclass(error, store_port.StoreError)
    }
    assert "store/error" in found
    return found


def test_every_error_code_is_documented() -> None:
    """The engine's and the store's codes in docs/protocol.md's table; a ruleset's own codes there or on its page
    in docs/rules/."""
    engine = codes_in(errors) | store_codes()
    missing = sorted(code for code in engine if f"| `{code}` |" not in PROTOCOL)
    assert codes_in(extended_codes)
    for ruleset in pkgutil.iter_modules(rules.__path__):
        with contextlib.suppress(ModuleNotFoundError):
            page = DOCS / "rules" / f"{ruleset.name}.md"
            documented = PROTOCOL + (page.read_text(encoding="utf-8") if page.exists() else "")
            own = codes_in(importlib.import_module(f"server.rules.{ruleset.name}.codes"))
            missing += sorted(f"{code} ({ruleset.name})" for code in own if f"`{code}`" not in documented)
    assert not missing, f"error codes missing from docs/protocol.md or the ruleset's page: {missing}"


def tags(union: Any) -> set[str]:
    """The type tags of every member of a (nested) union of tagged Structs."""
    members = typing.get_args(union)
    if not members:
        return {str(union.__struct_config__.tag)}
    return set().union(*(tags(member) for member in members))


def test_the_kinds_of_notices_standing_for_many_events_are_named_everywhere_and_by_no_event() -> None:
    assert set(messages.SUMMARY_KINDS) == {"earlier", "catch_up"}
    documents = (schema()["$defs"], asyncapi()["components"]["schemas"])
    for kind in (document["Notice"]["properties"]["kind"] for document in documents):
        assert all(f"`{name}`" in kind["description"] for name in messages.SUMMARY_KINDS), kind
        assert set(messages.SUMMARY_KINDS) <= set(kind["examples"]), kind
    examples = {b["kind"] for b in message_blocks() if b["type"] == "notice" and not b["actor"] and not b["at"]}
    assert examples == set(messages.SUMMARY_KINDS)  # docs/protocol.md shows one notice of each
    assert "seat.reissued" in tags(events.Event)
    assert not set(messages.SUMMARY_KINDS) & tags(events.Event), "an event type is named like a summary notice"


@pytest.mark.parametrize("name", sorted(GENERATED))
def test_the_committed_documents_are_current(name: str) -> None:
    committed = (DOCS / name).read_text(encoding="utf-8")
    assert committed == GENERATED[name]() + "\n", f"docs/{name} is stale: run `agon schema --write docs`"


def test_welcome_view_is_typed_as_the_contest_view() -> None:
    view = schema()["$defs"]["Welcome"]["properties"]["view"]
    assert {"$ref": "#/$defs/ContestView"} in view["anyOf"]
    validator = jsonschema.Draft202012Validator(schema())
    fresh = next(b for b in message_blocks() if b["type"] == "welcome" and b["view"])
    assert not list(validator.iter_errors(fresh))
    broken = copy.deepcopy(fresh)
    broken["view"]["rules"] = "not a view"
    assert list(validator.iter_errors(broken)), "a welcome whose view is not a ContestView must not validate"


@pytest.fixture(scope="module")
def asyncapi_validator() -> jsonschema.protocols.Validator:
    if not ASYNCAPI_SPEC.is_file():
        pytest.fail("the AsyncAPI JSON Schema is missing: run `npm ci` in clients/node (tests/run does)")
    spec = json.loads(ASYNCAPI_SPEC.read_text(encoding="utf-8"))
    validator: jsonschema.protocols.Validator = jsonschema.validators.validator_for(spec)(spec)
    return validator


def test_the_asyncapi_document_is_valid_asyncapi_3(asyncapi_validator: jsonschema.protocols.Validator) -> None:
    document = asyncapi()
    problems = [f"{list(e.absolute_path)}: {e.message[:200]}" for e in asyncapi_validator.iter_errors(document)]
    assert not problems, problems
    assert document["asyncapi"] == "3.0.0"
    sent = {ref["$ref"].rsplit("/", 1)[1] for ref in document["operations"]["sendClientMessage"]["messages"]}
    assert sent == {m.__struct_config__.tag for m in messages.ClientMessage.__args__}  # type: ignore[attr-defined]
    welcome = document["components"]["schemas"]["Welcome"]["properties"]["view"]
    assert {"$ref": "#/components/schemas/ContestView"} in welcome["anyOf"]


def test_the_asyncapi_validator_catches_a_broken_document(asyncapi_validator: jsonschema.protocols.Validator) -> None:
    for break_it in (
        lambda d: d.pop("info"),
        lambda d: d["operations"]["sendClientMessage"].__setitem__("action", "publish"),  # AsyncAPI 2 wording
        lambda d: d["channels"]["contests"].__setitem__("publish", {}),
    ):
        document = asyncapi()
        break_it(document)
        assert list(asyncapi_validator.iter_errors(document))
