from __future__ import annotations

import copy
import hashlib
import json
from typing import Any

import msgspec
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import protocol.patch as jp


def canon(doc: Any) -> bytes:
    return msgspec.json.encode(doc, order="sorted")


def ops_of(text: str) -> list[jp.Op]:
    return msgspec.json.decode(text, type=list[jp.Op])


def apply_text(doc: Any, patch: str) -> Any:
    return jp.apply(doc, ops_of(patch))


# --- RFC 6902, Appendix A ------------------------------------------------------------------------------

RFC_EXAMPLES = [
    pytest.param(
        {"foo": "bar"},
        '[{ "op": "add", "path": "/baz", "value": "qux" }]',
        {"baz": "qux", "foo": "bar"},
        id="A.1 adding an object member",
    ),
    pytest.param(
        {"foo": ["bar", "baz"]},
        '[{ "op": "add", "path": "/foo/1", "value": "qux" }]',
        {"foo": ["bar", "qux", "baz"]},
        id="A.2 adding an array element",
    ),
    pytest.param(
        {"baz": "qux", "foo": "bar"},
        '[{ "op": "remove", "path": "/baz" }]',
        {"foo": "bar"},
        id="A.3 removing an object member",
    ),
    pytest.param(
        {"foo": ["bar", "qux", "baz"]},
        '[{ "op": "remove", "path": "/foo/1" }]',
        {"foo": ["bar", "baz"]},
        id="A.4 removing an array element",
    ),
    pytest.param(
        {"baz": "qux", "foo": "bar"},
        '[{ "op": "replace", "path": "/baz", "value": "boo" }]',
        {"baz": "boo", "foo": "bar"},
        id="A.5 replacing a value",
    ),
    pytest.param(
        {"foo": {"bar": "baz", "waldo": "fred"}, "qux": {"corge": "grault"}},
        '[{ "op": "move", "from": "/foo/waldo", "path": "/qux/thud" }]',
        {"foo": {"bar": "baz"}, "qux": {"corge": "grault", "thud": "fred"}},
        id="A.6 moving a value",
    ),
    pytest.param(
        {"foo": ["all", "grass", "cows", "eat"]},
        '[{ "op": "move", "from": "/foo/1", "path": "/foo/3" }]',
        {"foo": ["all", "cows", "eat", "grass"]},
        id="A.7 moving an array element",
    ),
    pytest.param(
        {"baz": "qux", "foo": ["a", 2, "c"]},
        '[{ "op": "test", "path": "/baz", "value": "qux" }, { "op": "test", "path": "/foo/1", "value": 2 }]',
        {"baz": "qux", "foo": ["a", 2, "c"]},
        id="A.8 testing a value: success",
    ),
    pytest.param(
        {"foo": "bar"},
        '[{ "op": "add", "path": "/child", "value": { "grandchild": { } } }]',
        {"foo": "bar", "child": {"grandchild": {}}},
        id="A.10 adding a nested member object",
    ),
    pytest.param(
        {"/": 9, "~1": 10},
        '[{"op": "test", "path": "/~01", "value": 10}]',
        {"/": 9, "~1": 10},
        id="A.14 ~ escape ordering",
    ),
    pytest.param(
        {"foo": ["bar"]},
        '[{ "op": "add", "path": "/foo/-", "value": ["abc", "def"] }]',
        {"foo": ["bar", ["abc", "def"]]},
        id="A.16 adding an array value",
    ),
    pytest.param(
        {"baz": "qux"},
        '[{ "op": "copy", "from": "/baz", "path": "/boo" }]',
        {"baz": "qux", "boo": "qux"},
        id="copying a value",
    ),
]


@pytest.mark.parametrize(("doc", "patch", "expected"), RFC_EXAMPLES)
def test_rfc_examples(doc: Any, patch: str, expected: Any) -> None:
    before = copy.deepcopy(doc)
    assert apply_text(doc, patch) == expected
    assert doc == before


RFC_ERRORS = [
    pytest.param({"baz": "qux"}, '[{ "op": "test", "path": "/baz", "value": "bar" }]', id="A.9 test: error"),
    pytest.param(
        {"foo": "bar"},
        '[{ "op": "add", "path": "/baz/bat", "value": "qux" }]',
        id="A.12 adding to a nonexistent target",
    ),
    pytest.param(
        {"/": 9, "~1": 10},
        '[{"op": "test", "path": "/~01", "value": "10"}]',
        id="A.15 comparing strings and numbers",
    ),
]


@pytest.mark.parametrize(("doc", "patch"), RFC_ERRORS)
def test_rfc_error_examples(doc: Any, patch: str) -> None:
    with pytest.raises(jp.PatchError):
        apply_text(doc, patch)


def test_rfc_a11_unrecognized_members_are_rejected_not_ignored() -> None:
    # The wire format is strict: RFC 6902 A.11 would ignore "xyz", Agon refuses the patch.
    with pytest.raises(msgspec.ValidationError):
        ops_of('[{ "op": "add", "path": "/baz", "value": "qux", "xyz": 123 }]')


def test_rfc_a13_duplicate_op_member_is_rejected() -> None:
    with pytest.raises(msgspec.ValidationError):
        ops_of('[{ "op": "add", "path": "/baz", "value": "qux", "op": "remove" }]')


# --- JSON Pointer --------------------------------------------------------------------------------------


def test_escape_round_trip_and_order() -> None:
    assert jp.escape("a/b~c") == "a~1b~0c"
    assert jp.unescape("~01") == "~1"  # not "/"
    assert jp.unescape(jp.escape("~1/~0")) == "~1/~0"
    assert jp.to_pointer(["a/b", "m~n", 0]) == "/a~1b/m~0n/0"
    assert jp.parse_pointer("/a~1b/m~0n/0") == ["a/b", "m~n", "0"]


def test_rfc6901_pointer_examples() -> None:
    doc = {"foo": ["bar", "baz"], "": 0, "a/b": 1, "c%d": 2, "e^f": 3, "g|h": 4, "i\\j": 5, 'k"l': 6, " ": 7, "m~n": 8}
    expected = {
        "": doc,
        "/foo": ["bar", "baz"],
        "/foo/0": "bar",
        "/": 0,
        "/a~1b": 1,
        "/c%d": 2,
        "/e^f": 3,
        "/g|h": 4,
        "/i\\j": 5,
        '/k"l': 6,
        "/ ": 7,
        "/m~0n": 8,
    }
    for pointer, value in expected.items():
        assert jp.apply(doc, [jp.Test(pointer, value)]) == doc


@pytest.mark.parametrize("pointer", ["a", "/a~2", "/a~"])
def test_malformed_pointers(pointer: str) -> None:
    with pytest.raises(jp.PatchError, match=r"Pointer|'~'"):
        jp.parse_pointer(pointer)
    with pytest.raises(jp.PatchError):
        jp.apply({"a": 1}, [jp.Remove(pointer)])


# --- apply ---------------------------------------------------------------------------------------------


def test_add_array_index_rules() -> None:
    doc = {"a": [1, 2]}
    assert jp.apply(doc, [jp.Add("/a/2", 3)]) == {"a": [1, 2, 3]}
    assert jp.apply(doc, [jp.Add("/a/-", 3)]) == {"a": [1, 2, 3]}
    assert jp.apply(doc, [jp.Add("/a/0", 0)]) == {"a": [0, 1, 2]}
    for bad in ["/a/3", "/a/01", "/a/-1", "/a/x", "/a/1.0", "/a/"]:
        with pytest.raises(jp.PatchError, match="/a/"):
            jp.apply(doc, [jp.Add(bad, 3)])


@pytest.mark.parametrize("op", [jp.Remove("/a/2"), jp.Replace("/a/2", 0), jp.Remove("/a/-"), jp.Replace("/a/-", 0)])
def test_remove_and_replace_need_an_existing_element(op: jp.Op) -> None:
    with pytest.raises(jp.PatchError, match="'/a/"):
        jp.apply({"a": [1, 2]}, [op])


@pytest.mark.parametrize(
    "op",
    [
        jp.Remove("/nope"),
        jp.Replace("/nope", 1),
        jp.Move("/nope", "/b"),
        jp.Copy("/nope", "/b"),
        jp.Test("/nope", 1),
        jp.Add("/nope/x", 1),
        jp.Add("/a/x/y", 1),
        jp.Test("/a/0", 1),
    ],
)
def test_missing_targets_name_the_path(op: jp.Op) -> None:
    with pytest.raises(jp.PatchError) as info:
        jp.apply({"a": 1}, [op])
    path = op.path if isinstance(op, jp.Add | jp.Test) else getattr(op, "from_", op.path)
    assert info.value.path == path
    assert repr(path) in str(info.value)


def test_root_operations() -> None:
    assert jp.apply({"a": 1}, [jp.Replace("", [1])]) == [1]
    assert jp.apply({"a": 1}, [jp.Add("", "x")]) == "x"
    assert jp.apply(3, [jp.Test("", 3.0)]) == 3
    with pytest.raises(jp.PatchError, match="whole document"):
        jp.apply({"a": 1}, [jp.Remove("")])
    with pytest.raises(jp.PatchError, match="not an object or array"):
        jp.apply(3, [jp.Add("/a", 1)])


def test_move_rules() -> None:
    doc = {"a": {"b": 1}, "c": [1, 2, 3]}
    assert jp.apply(doc, [jp.Move("/a", "/a")]) == doc
    assert jp.apply(doc, [jp.Move("/c/0", "/c/-")]) == {"a": {"b": 1}, "c": [2, 3, 1]}
    assert jp.apply(doc, [jp.Move("/a/b", "/ab")]) == {"a": {}, "ab": 1, "c": [1, 2, 3]}
    with pytest.raises(jp.PatchError, match="own children"):
        jp.apply(doc, [jp.Move("/a", "/a/b/c")])
    with pytest.raises(jp.PatchError):
        jp.apply(doc, [jp.Move("/zz", "/zz")])


def test_copy_is_independent_of_its_source() -> None:
    doc = {"a": {"b": [1]}}
    out = jp.apply(doc, [jp.Copy("/a", "/c"), jp.Add("/c/b/-", 2), jp.Replace("/a/b/0", 9)])
    assert out == {"a": {"b": [9]}, "c": {"b": [1, 2]}}
    assert doc == {"a": {"b": [1]}}


def test_test_op_equality() -> None:
    doc = {"n": 1, "f": 1.0, "t": True, "o": {"x": 1, "y": [1, 2]}, "z": None}
    ok = [
        jp.Test("/n", 1.0),  # numbers compare numerically
        jp.Test("/f", 1),
        jp.Test("/t", True),
        jp.Test("/o", {"y": [1, 2], "x": 1}),  # member order does not matter
        jp.Test("/z", None),
    ]
    assert jp.apply(doc, ok) == doc
    for bad in [
        jp.Test("/n", True),  # a boolean is not a number
        jp.Test("/t", 1),
        jp.Test("/o", {"x": 1, "y": [2, 1]}),  # array order does
        jp.Test("/o", {"x": 1}),
        jp.Test("/z", False),
        jp.Test("/z", 0),
        jp.Test("/n", "1"),
    ]:
        with pytest.raises(jp.PatchError, match="test failed"):
            jp.apply(doc, [bad])


def test_failed_patch_is_all_or_nothing_and_leaves_input_alone() -> None:
    doc = {"a": [1, 2], "b": {"c": 1}}
    before = canon(doc)
    with pytest.raises(jp.PatchError):
        jp.apply(doc, [jp.Add("/a/-", 3), jp.Remove("/b/c"), jp.Test("/a/0", 99)])
    assert canon(doc) == before


def test_apply_does_not_mutate_input_or_op_values() -> None:
    doc: dict[str, Any] = {"a": {"b": [1, {"c": 2}]}, "d": [{"e": 1}], "f": {"g": 1}}
    value: dict[str, Any] = {"x": [1]}
    ops: list[jp.Op] = [
        jp.Add("/a/b/1/new", 3),
        jp.Remove("/a/b/0"),
        jp.Replace("/d/0/e", 5),
        jp.Move("/f/g", "/a/moved"),
        jp.Copy("/a", "/copy"),
        jp.Add("/v", value),
        jp.Add("/v/x/-", 2),
        jp.Add("/v/y", 3),
        jp.Add("/copy/b/0/c2", 4),
    ]
    before, value_before = canon(doc), canon(value)
    out = jp.apply(doc, ops)
    assert canon(doc) == before
    assert canon(value) == value_before
    assert out == {
        "a": {"b": [{"c": 2, "new": 3}], "moved": 1},
        "d": [{"e": 5}],
        "f": {},
        "copy": {"b": [{"c": 2, "new": 3, "c2": 4}], "moved": 1},
        "v": {"x": [1, 2], "y": 3},
    }


def test_many_appends_in_one_patch() -> None:
    out = jp.apply({"log": []}, [jp.Add("/log/-", i) for i in range(1000)])
    assert out == {"log": list(range(1000))}


# --- diff ----------------------------------------------------------------------------------------------


def test_diff_examples() -> None:
    assert jp.diff({"a": 1}, {"a": 1}) == []
    assert jp.diff({"a": 1, "b": 2}, {"a": 1, "c": 3}) == [jp.Remove("/b"), jp.Add("/c", 3)]
    assert jp.diff({"a/b": {"~": 1}}, {"a/b": {"~": 2}}) == [jp.Replace("/a~1b/~0", 2)]
    assert jp.diff(1, "1") == [jp.Replace("", "1")]


@pytest.mark.parametrize(
    ("old", "new"),
    [
        (1, True),
        (True, 1),
        (1, 1.0),
        (1.0, 1),
        (0, False),
        (0.0, -0.0),
        ([1], [True]),
        ({"a": 1}, {"a": 1.0}),
        ({"a": [1], "b": 2}, {"a": [True], "b": 2}),
        ({"a": {"x": 0.0}, "b": "s"}, {"a": {"x": -0.0}, "b": "s"}),
        ({"a": [], "b": {"x": [0]}}, {"a": [], "b": {"x": [False]}}),
    ],
)
def test_diff_keeps_type_changes(old: Any, new: Any) -> None:
    ops = jp.diff(old, new)
    assert ops != []
    assert canon(jp.apply(old, ops)) == canon(new)


def test_diff_list_common_cases_are_compact() -> None:
    log = [{"turn": i, "who": f"p{i}"} for i in range(20)]
    entry = {"turn": 20, "who": "p20"}
    assert jp.diff({"log": log}, {"log": [*log, entry]}) == [jp.Add("/log/-", entry)]
    changed = [dict(e) for e in log]
    changed[7]["who"] = "gm"
    assert jp.diff({"log": log}, {"log": changed}) == [jp.Replace("/log/7/who", "gm")]
    assert jp.diff({"log": log}, {"log": log[:-1]}) == [jp.Remove("/log/19")]
    assert jp.diff(log, log[:5] + log[6:]) == [jp.Remove("/5")]
    assert jp.diff(log, [entry, *log]) == [jp.Add("/0", entry)]


def test_diff_of_a_window_that_slides_drops_from_the_front_and_adds_at_the_end() -> None:
    points = list(range(200))  # a chart that keeps its newest 200 points
    assert jp.diff({"ap": points}, {"ap": [*points[1:], 7]}) == [jp.Remove("/ap/0"), jp.Add("/ap/-", 7)]
    assert jp.diff(points, [*points[2:], 7, 8]) == [jp.Remove("/0"), jp.Remove("/0"), jp.Add("/-", 7), jp.Add("/-", 8)]
    # inside a list whose ends stay: the window is the middle
    framed = ["start", *points, "end"]
    assert jp.diff(framed, ["start", *points[1:], 7, "end"]) == [jp.Remove("/1"), jp.Add("/200", 7)]
    for new in ([*points[1:], 7], [*points[2:], 7, 8], ["start", *points[1:], 7, "end"]):
        old = framed if new[0] == "start" else points
        assert jp.apply(old, jp.diff(old, new)) == new


def test_diff_replaces_a_list_when_that_is_shorter() -> None:
    assert jp.diff({"l": [1, 2, 3]}, {"l": [4, 5, 6]}) == [jp.Replace("/l", [4, 5, 6])]


# --- properties ----------------------------------------------------------------------------------------

scalars = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**63), max_value=2**63 - 1)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=5)
)
keys = st.text(alphabet="ab~/0-", max_size=3) | st.text(max_size=3)
documents = st.recursive(
    scalars,
    lambda children: st.lists(children, max_size=5) | st.dictionaries(keys, children, max_size=5),
    max_leaves=25,
)


def _twin(value: Any) -> list[Any]:
    """Values equal to ``value`` in Python but different as typed JSON."""
    if isinstance(value, bool):
        return [int(value), float(value)]
    if isinstance(value, int):
        return [float(value), *([bool(value)] if value in (0, 1) else [])]
    if isinstance(value, float):
        return [-value, *([int(value)] if value.is_integer() and abs(value) < 2**63 else [])]
    return []


@st.composite
def edited(draw: st.DrawFn, doc: Any) -> Any:
    """A document like ``doc`` with a few random edits, so diffs recurse instead of replacing the root."""
    choice = draw(st.integers(0, 9))
    if choice == 0:
        return draw(documents)
    if choice == 1:
        return doc
    if isinstance(doc, dict):
        out: dict[str, Any] = {}
        for key, value in doc.items():
            action = draw(st.sampled_from(["keep", "drop", "edit"]))
            if action == "keep":
                out[key] = value
            elif action == "edit":
                out[key] = draw(edited(value))
        for key, value in draw(st.dictionaries(keys, documents, max_size=2)).items():
            out.setdefault(key, value)
        return out
    if isinstance(doc, list):
        items: list[Any] = []
        for value in doc:
            action = draw(st.sampled_from(["keep", "drop", "edit", "insert"]))
            if action == "insert":
                items.append(draw(documents))
            if action != "drop":
                items.append(draw(edited(value)) if action == "edit" else value)
        items.extend(draw(st.lists(documents, max_size=2)))
        return items
    twins = _twin(doc)
    return draw(st.sampled_from(twins)) if twins and choice < 6 else draw(scalars)


@st.composite
def pairs(draw: st.DrawFn) -> tuple[Any, Any]:
    a = draw(documents)
    return a, draw(edited(a) | documents)


@settings(max_examples=500)
@given(pairs())
def test_apply_diff_gives_the_target(pair: tuple[Any, Any]) -> None:
    a, b = pair
    a_bytes, b_bytes = canon(a), canon(b)
    ops = jp.diff(a, b)
    assert canon(jp.apply(a, ops)) == b_bytes
    assert canon(a) == a_bytes  # neither diff nor apply touched the inputs
    assert canon(b) == b_bytes
    wire = msgspec.json.decode(msgspec.json.encode(ops), type=list[jp.Op])
    assert canon(jp.apply(a, wire)) == b_bytes
    assert (ops == []) == (a_bytes == b_bytes)


@given(documents)
def test_diff_of_a_document_with_itself_is_empty(a: Any) -> None:
    assert jp.diff(a, a) == []
    assert jp.diff(a, copy.deepcopy(a)) == []
    assert jp.diff(a, msgspec.json.decode(msgspec.json.encode(a))) == []


@given(documents)
def test_view_hash_is_canonical(a: Any) -> None:
    again = msgspec.json.decode(msgspec.json.encode(a))
    if isinstance(again, dict):
        again = dict(reversed(list(again.items())))
    h = jp.view_hash(a)
    assert h == jp.view_hash(again)
    assert len(h) == 16
    assert all(c in "0123456789abcdef" for c in h)


def test_view_hash_value() -> None:
    doc = {"b": [1, 2.5, None], "a": {"d": True, "c": "x"}}
    expected = hashlib.sha256(b'{"a":{"c":"x","d":true},"b":[1,2.5,null]}').hexdigest()[:16]
    assert jp.view_hash(doc) == expected
    assert jp.view_hash({"a": 1}) != jp.view_hash({"a": 1.0}) != jp.view_hash({"a": True})


# --- wire format ---------------------------------------------------------------------------------------


def test_ops_encode_to_rfc_shaped_json() -> None:
    ops: list[jp.Op] = [
        jp.Add("/a", {"x": [1]}),
        jp.Remove("/a"),
        jp.Replace("/a", None),
        jp.Move("/a", "/b"),
        jp.Copy("/a", "/b"),
        jp.Test("/a", 1.5),
    ]
    data = msgspec.json.encode(ops)
    assert json.loads(data) == [
        {"op": "add", "path": "/a", "value": {"x": [1]}},
        {"op": "remove", "path": "/a"},
        {"op": "replace", "path": "/a", "value": None},
        {"op": "move", "from": "/a", "path": "/b"},
        {"op": "copy", "from": "/a", "path": "/b"},
        {"op": "test", "path": "/a", "value": 1.5},
    ]
    assert msgspec.json.encode(jp.Move("/a", "/b")) == b'{"op":"move","from":"/a","path":"/b"}'
    assert msgspec.json.decode(data, type=list[jp.Op]) == ops


@pytest.mark.parametrize(
    "data",
    [
        '[{"op": "append", "path": "/a", "value": 1}]',
        '[{"path": "/a", "value": 1}]',
        '[{"op": "move", "from_": "/a", "path": "/b"}]',
        '[{"op": "move", "path": "/b"}]',
        '[{"op": "add", "path": "/a"}]',
        '[{"op": "remove", "path": 3}]',
    ],
)
def test_bad_ops_fail_to_decode(data: str) -> None:
    with pytest.raises(msgspec.ValidationError):
        ops_of(data)


def test_null_value_is_a_value() -> None:
    assert ops_of('[{"op": "add", "path": "/a", "value": null}]') == [jp.Add("/a", None)]


# --- diffing messages ------------------------------------------------------------------------------------


class Point(msgspec.Struct, frozen=True, tag="point"):
    x: int
    label: str | None = None


class Line(msgspec.Struct, frozen=True, tag="line"):
    points: list[Point]


class Sparse(msgspec.Struct, frozen=True, omit_defaults=True):
    note: str = ""
    count: int = 0


class Board(msgspec.Struct, frozen=True, rename={"turn": "whose_turn"}):
    turn: str
    shape: Point | Line
    tags: dict[str, int]
    history: list[int]
    sparse: Sparse
    spare: Point | None = None
    marks: list[Point] = []


labels = st.none() | st.sampled_from(["a", "b", "a/b", "~c"])
points = st.builds(Point, x=st.integers(-3, 3), label=labels)
boards = st.builds(
    Board,
    turn=st.sampled_from(["ann", "bob"]),
    shape=points | st.builds(Line, points=st.lists(points, max_size=4)),
    tags=st.dictionaries(st.sampled_from(["x", "y", "z/w"]), st.integers(0, 3), max_size=3),
    history=st.lists(st.integers(0, 5), max_size=8),
    sparse=st.builds(Sparse, note=st.sampled_from(["", "hi"]), count=st.integers(0, 2)),
    spare=st.none() | points,
    marks=st.lists(st.builds(Point, x=st.integers(0, 6)), max_size=7),  # windows that slide, lists that grow
)


@settings(max_examples=400)
@given(boards, boards)
def test_diffing_two_messages_writes_the_ops_of_diffing_their_documents(old: Board, new: Board) -> None:
    """Member by member, renamed members, a union member changing type, a struct that omits its defaults, an
    optional member coming and going, lists of structs growing, shrinking and sliding: op for op what ``diff``
    writes for the two documents."""
    before, after = msgspec.to_builtins(old, order="sorted"), msgspec.to_builtins(new, order="sorted")
    ops = jp.diff_views(old, new)
    assert ops == jp.diff(before, after)
    assert jp.apply(before, ops) == after


def _copy(board: Board) -> Board:
    """An equal board made of objects of its own."""
    return msgspec.json.decode(msgspec.json.encode(board), type=Board)


@settings(max_examples=200)
@given(st.lists(st.tuples(boards, boards), min_size=1, max_size=3), boards)
def test_views_diffed_together_each_get_their_own_ops(pairs: list[tuple[Board, Board]], other: Board) -> None:
    """Several sights' views diffed with one ``Shared`` (as the feeds do): a view holding the same objects as
    another, or equal values, or an equal old value and a different new one, gets the ops of its own two
    documents."""
    together = [*pairs, *((old, new) for old, new in pairs), *((_copy(old), _copy(new)) for old, new in pairs)]
    together += [(_copy(old), other) for old, _ in pairs] + [(other, _copy(new)) for _, new in pairs]
    shared = jp.Shared()
    for old, new in together:
        before, after = msgspec.to_builtins(old, order="sorted"), msgspec.to_builtins(new, order="sorted")
        assert jp.diff_views(old, new, shared) == jp.diff(before, after)


def test_a_message_diff_reads_only_what_changed() -> None:
    """An unchanged member is never made a document (here: one that cannot be)."""

    class Opaque:
        def __eq__(self, other: object) -> bool:
            return isinstance(other, Opaque)

        __hash__ = None  # type: ignore[assignment]

    class View(msgspec.Struct, frozen=True):
        version: int
        secret: Any

    with pytest.raises(TypeError):
        msgspec.to_builtins(Opaque())
    assert jp.diff_views(View(1, Opaque()), View(2, Opaque())) == [jp.Replace("/version", 2)]


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ([0, 1, 2, 3, 4, 5], [2, 3, 4, 5, 6]),  # a window that slid: two dropped at the front, one added
        ([0, 1, 2, 3], [0, 1, 9, 3]),  # one element changed inside
        ([0, 1, 2, 3], [0, 9, 8, 7]),  # most changed: the list is replaced if that is shorter
        ([0, 1], [0, 1, 2, 3]),  # grown at the end
        ([0, 1, 2, 3], [3]),  # shrunk
    ],
)
def test_a_list_of_structs_is_diffed_as_its_document(old: list[int], new: list[int]) -> None:
    def board(marks: list[int]) -> Board:
        return Board("ann", Point(0), {}, [], Sparse(), marks=[Point(x, label=f"mark {x}") for x in marks])

    before, after = msgspec.to_builtins(board(old), order="sorted"), msgspec.to_builtins(board(new), order="sorted")
    assert jp.diff_views(board(old), board(new)) == jp.diff(before, after)
