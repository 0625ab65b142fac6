"""JSON Patch (RFC 6902) over JSON Pointers (RFC 6901): a diff, an apply and a view hash (and the ops, from
``protocol.ops``). Installed, this module runs compiled by mypyc (setup.py).

Documents are plain JSON values: dicts with string keys, lists, strings, ints, floats, bools and None.
``diff`` is type-strict (``True``, ``1`` and ``1.0`` are three different values), so a patch never
loses a change of JSON type; the ``test`` op compares as RFC 6902 says (numbers numerically, but a
boolean is never a number).
"""

from __future__ import annotations

import copy
import hashlib
import math
import re
from collections.abc import Iterable
from typing import Any, assert_never

import msgspec
from msgspec.structs import astuple

from protocol.codec import canonical, to_builtins
from protocol.ops import Add, Copy, Json, Move, Op, Remove, Replace, Test

__all__ = [
    "Add",
    "Copy",
    "Json",
    "Move",
    "Op",
    "PatchError",
    "Remove",
    "Replace",
    "Shared",
    "Test",
    "apply",
    "diff",
    "diff_views",
    "escape",
    "parse_pointer",
    "to_pointer",
    "unescape",
    "view_hash",
    "view_hash_of",
]


class PatchError(ValueError):
    """A patch cannot be applied: a bad pointer, a missing target, or a failed ``test``."""

    def __init__(self, path: str, message: str) -> None:
        super().__init__(f"{path!r}: {message}")
        self.path = path
        self.message = message


# --- JSON Pointer (RFC 6901) ---------------------------------------------------------------------------

_BAD_ESCAPE = re.compile(r"~(?![01])")


def escape(token: str) -> str:
    """One reference token as it appears in a pointer: ``~`` becomes ``~0``, then ``/`` becomes ``~1``."""
    return token.replace("~", "~0").replace("/", "~1") if "~" in token or "/" in token else token


def unescape(token: str) -> str:
    """The inverse of ``escape``: ``~1`` becomes ``/``, then ``~0`` becomes ``~``."""
    return token.replace("~1", "/").replace("~0", "~")


def to_pointer(tokens: Iterable[str | int]) -> str:
    """The pointer to a location given by object keys and array indices; no tokens is the root, ``""``."""
    return "".join("/" + escape(str(token)) for token in tokens)


def parse_pointer(pointer: str) -> list[str]:
    """The unescaped reference tokens of a pointer; raises PatchError on a malformed one."""
    if pointer == "":
        return []
    if not pointer.startswith("/"):
        raise PatchError(pointer, "a JSON Pointer is empty or starts with '/'")
    raw = pointer[1:].split("/")
    if "~" not in pointer:
        return raw
    for token in raw:
        if _BAD_ESCAPE.search(token):
            raise PatchError(pointer, "'~' must be followed by '0' or '1'")
    return [unescape(token) for token in raw]


# --- diff ----------------------------------------------------------------------------------------------

_encoder = msgspec.json.Encoder()
_ABSENT: Any = object()  # a member a document does not have


def _same(a: Json, b: Json) -> bool:
    """Equal as JSON documents *and* in Python type (so ``True``, ``1`` and ``1.0`` all differ)."""
    if a is b:
        return True
    kind = type(a)
    if kind is not type(b):
        return False
    if kind is str or kind is int or kind is bool:
        return bool(a == b)
    if kind is dict or kind is list:
        # Python's equality (in C) first, then the encoded bytes, which tell apart what it does not (True,
        # 1 and 1.0; 0.0 and -0.0); only members in another order need the walk. (A NaN inside is never
        # equal to itself here: at worst the patch replaces it with itself.)
        return bool(a == b) and (_encoder.encode(a) == _encoder.encode(b) or _same_walk(a, b))
    return _same_walk(a, b)


def _same_walk(a: Json, b: Json) -> bool:
    if isinstance(a, dict):
        return len(a) == len(b) and all(k in b and _same(v, b[k]) for k, v in a.items())
    if isinstance(a, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, float):
        if math.isnan(a) and math.isnan(b):
            return True
        return a == b and math.copysign(1.0, a) == math.copysign(1.0, b)
    return bool(a == b)


def diff(old: Json, new: Json) -> list[Op]:
    """A patch turning ``old`` into ``new``; ``[]`` when they are the same document.

    Objects are compared member by member. Arrays keep their common prefix and suffix, patch the
    elements in between pairwise, then remove the surplus or add the missing elements (appending with
    ``-`` at the end); when that takes several ops that together encode no shorter than replacing the
    whole array, the array is replaced. Values in the ops may share structure with ``new``.
    """
    ops: list[Op] = []
    if not _same(old, new):
        _changed(old, new, "", ops)
    return ops


class Shared:
    """The ops worked out for the members of views diffed together, for the other views holding the same two
    values at the same place: looked up by the identity of the two objects, then by their values."""

    def __init__(self) -> None:
        self.by_id: dict[tuple[int, int, str, str], list[Op]] = {}
        self.by_place: dict[tuple[str, str], list[tuple[Any, Any, list[Op]]]] = {}


def diff_views(old: msgspec.Struct, new: msgspec.Struct, shared: Shared | None = None) -> list[Op]:
    """``diff`` of the documents of two messages (``to_builtins`` of each), without making either document.

    Structs of one type are compared member by member (in the documents' sorted order, so the ops are those
    ``diff`` writes); a member Python's equality (in C) calls unchanged is skipped unread, and only a member
    that changed is made a document and diffed. Views are typed, so the values ``diff`` tells apart and Python's
    equality does not (``True`` and ``1``; ``0.0`` and ``-0.0``) never stand in one member of two views; a
    struct with ``omit_defaults``, or two of different types, is diffed as documents.

    ``shared``: the ops already worked out for members of other views (the views of several sights share the
    members every sight sees alike, and hold equal values where sights see alike), and where this diff adds its
    own. A struct's members, and the members of a struct held in one of them, are looked up there by the
    identity of their two objects, then by their values; the caller keeps every view diffed with one ``shared``
    alive while it uses it (identities are not reused)."""
    ops: list[Op] = []
    _struct_changed(old, new, "", ops, shared)
    return ops


_FIELDS: dict[type, list[tuple[str, str, int]]] = {}


def _members(kind: type[msgspec.Struct]) -> list[tuple[str, str, int]]:
    """A struct type's members as (name in the document, attribute, place in the struct's fields), in the
    document's (sorted) order."""
    members = _FIELDS.get(kind)
    if members is None:
        fields = kind.__struct_fields__
        members = sorted(zip(kind.__struct_encode_fields__, fields, range(len(fields)), strict=True))
        _FIELDS[kind] = members
    return members


def _struct_changed(
    old: msgspec.Struct, new: msgspec.Struct, path: str, ops: list[Op], shared: Shared | None = None
) -> None:
    kind = type(old)
    if kind is not type(new) or kind.__struct_config__.omit_defaults:
        before, after = to_builtins(old), to_builtins(new)
        if not _same(before, after):
            _changed(before, after, path, ops)
        return
    olds, news = astuple(old), astuple(new)
    for name, attribute, place in _members(kind):
        a = olds[place]
        b = news[place]
        if a is b:
            continue
        if shared is None or _scalar(b):
            if not _alike(a, b):
                _value_changed(a, b, f"{path}/{escape(name)}", ops)
            continue
        key = (id(a), id(b), path, attribute)
        found = shared.by_id.get(key)
        if found is None:
            found = shared.by_id[key] = _shared_ops(a, b, path, name, attribute, shared)
        ops.extend(found)


_PAIRS = 8
"""How many pairs of values a member's lookup by value compares with at most (a contest of 64 sights, each holding
its own value, would otherwise compare each with all the others)."""


def _shared_ops(a: Any, b: Any, path: str, name: str, attribute: str, shared: Shared) -> list[Op]:
    """The ops for member ``attribute`` changing from ``a`` to ``b``: those of an equal pair of values another view
    held there, else worked out (and kept for the views after, the first ``_PAIRS`` of them)."""
    pairs = shared.by_place.get((path, attribute))
    if pairs is None:
        pairs = shared.by_place[path, attribute] = []
    for before, after, found in pairs:
        if _alike(a, before) and _alike(b, after):
            return found
    ops: list[Op] = []
    if not _alike(a, b):
        _value_changed(a, b, f"{path}/{escape(name)}", ops, shared)
    if len(pairs) < _PAIRS:
        pairs.append((a, b, ops))
    return ops


def _alike(a: Any, b: Any) -> bool:
    return a is b or (type(a) is type(b) and bool(a == b))


def _value_changed(a: Any, b: Any, path: str, ops: list[Op], shared: Shared | None = None) -> None:
    """The ops for two members of messages that Python's equality calls different: structs and lists of structs
    are walked as ``diff`` walks their documents, anything else is made a document and diffed."""
    if isinstance(a, msgspec.Struct) and isinstance(b, msgspec.Struct):
        _struct_changed(a, b, path, ops, shared)
    elif type(a) is list and type(b) is list and _structs(a) and _structs(b):
        _list_changed(a, b, path, ops, structs=True)
    elif _scalar(a) and _scalar(b):
        if not _same(a, b):
            ops.append(Replace(path, b))
    else:
        before, after = to_builtins(a), to_builtins(b)
        if not _same(before, after):
            _changed(before, after, path, ops)


def _scalar(value: Any) -> bool:
    kind = type(value)
    return value is None or kind is str or kind is int or kind is bool or kind is float


def _structs(values: list[Any]) -> bool:
    return all(isinstance(value, msgspec.Struct) for value in values)


def _changed(old: Json, new: Json, path: str, ops: list[Op]) -> None:
    """The ops for ``old`` and ``new``, which differ (each value is compared once, by its parent)."""
    if isinstance(old, dict) and isinstance(new, dict):
        if old.keys() == new.keys():
            _changed_members(old, new, path, ops)
            return
        for key in old:
            if key not in new:
                ops.append(Remove(f"{path}/{escape(key)}"))
        for key, value in new.items():
            before = old.get(key, _ABSENT)
            if before is _ABSENT:
                ops.append(Add(f"{path}/{escape(key)}", value))
            elif not _same(before, value):
                _changed(before, value, f"{path}/{escape(key)}", ops)
    elif isinstance(old, list) and isinstance(new, list):
        _list_changed(old, new, path, ops, structs=False)
    else:
        ops.append(Replace(path, new))


def _changed_members(old: dict[str, Json], new: dict[str, Json], path: str, ops: list[Op]) -> None:
    """The ops for two objects with the same members. Python's equality (in C) tells most unchanged members
    at once; only a container it calls equal is encoded, to tell apart what it does not (``_same``)."""
    for key, value in new.items():
        before = old[key]
        if before == value:
            kind = type(value)
            if kind is type(before):
                if kind is str or kind is int or kind is bool or value is None:
                    continue  # the same scalar
                if (kind is dict or kind is list) and (not value or _encoder.encode(before) == _encoder.encode(value)):
                    continue  # the same container (empty, or encoded alike)
            if _same(before, value):
                continue
        elif type(value) is float and _same(before, value):
            continue  # NaN, equal to nothing, not even itself
        _changed(before, value, f"{path}/{escape(key)}", ops)


def _list_changed(old: list[Any], new: list[Any], path: str, ops: list[Op], *, structs: bool) -> None:
    """The ops for two lists that differ: documents, or (``structs``) lists of messages' structs, walked alike and
    giving the same ops. When that takes several ops that together encode no shorter than replacing the whole
    list, the list is replaced (a struct encodes as long as its document)."""
    local: list[Op] = []
    _diff_list(old, new, path, local, structs)
    if len(local) > 1 and len(_encoder.encode(local)) >= len(_encoder.encode(Replace(path, new))):
        ops.append(Replace(path, to_builtins(new) if structs else new))
    else:
        ops.extend(local)


def _equal(a: Any, b: Any, structs: bool) -> bool:
    """Elements (or runs of them) the same: by Python's equality for structs, as documents otherwise."""
    return _alike(a, b) if structs else _same(a, b)


def _diff_list(old: list[Any], new: list[Any], path: str, ops: list[Op], structs: bool) -> None:
    n_old, n_new = len(old), len(new)
    prefix = 0
    while prefix < n_old and prefix < n_new and _equal(old[prefix], new[prefix], structs):
        prefix += 1
    suffix = 0
    while (
        suffix < n_old - prefix
        and suffix < n_new - prefix
        and _equal(old[n_old - 1 - suffix], new[n_new - 1 - suffix], structs)
    ):
        suffix += 1
    mid_old, mid_new = n_old - prefix - suffix, n_new - prefix - suffix
    if mid_old > 1 and _slid(old, new, path, ops, prefix, suffix, structs):
        return
    common = min(mid_old, mid_new)
    for i in range(prefix, prefix + common):
        if i == prefix or not _equal(old[i], new[i], structs):  # the first differs: the prefix stopped there
            if structs:
                _struct_changed(old[i], new[i], f"{path}/{i}", ops)
            else:
                _changed(old[i], new[i], f"{path}/{i}", ops)
    if mid_old > mid_new:
        for i in reversed(range(prefix + common, prefix + mid_old)):
            ops.append(Remove(f"{path}/{i}"))
    else:
        _added(new, path, ops, prefix + common, prefix + mid_new, suffix, structs)


def _added(new: list[Any], path: str, ops: list[Op], start: int, end: int, suffix: int, structs: bool) -> None:
    """Add ``new[start:end]`` (appended with ``-`` when nothing follows them)."""
    for i in range(start, end):
        ops.append(Add(f"{path}/-" if suffix == 0 else f"{path}/{i}", to_builtins(new[i]) if structs else new[i]))


_SLIDE = 4
"""How many elements a list may drop from its front, as a window sliding along, for ``diff`` to notice."""


def _slid(old: list[Any], new: list[Any], path: str, ops: list[Op], prefix: int, suffix: int, structs: bool) -> bool:
    """The ops of a window that slid (the middle dropped a few elements from its front and gained some at its
    end), when it did: a long chart that keeps its newest points costs two ops a point, not the whole list."""
    mid_old, mid_new = len(old) - prefix - suffix, len(new) - prefix - suffix
    for dropped in range(1, min(mid_old - 1, _SLIDE) + 1):
        kept = mid_old - dropped
        if kept > mid_new or not _equal(old[prefix + dropped : prefix + mid_old], new[prefix : prefix + kept], structs):
            continue
        ops.extend(Remove(f"{path}/{prefix}") for _ in range(dropped))
        _added(new, path, ops, prefix + kept, prefix + mid_new, suffix, structs)
        return True
    return False


# --- apply ---------------------------------------------------------------------------------------------


def _json_equal(a: Json, b: Json) -> bool:
    """Equality as RFC 6902's ``test`` defines it: numbers by value, objects regardless of member order."""
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    if isinstance(a, int | float) and isinstance(b, int | float):
        return a == b
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return len(a) == len(b) and all(k in b and _json_equal(v, b[k]) for k, v in a.items())
    if isinstance(a, list):
        return len(a) == len(b) and all(_json_equal(x, y) for x, y in zip(a, b, strict=True))
    return bool(a == b)


def _index(container: list[Json], token: str, pointer: str, *, end_ok: bool) -> int:
    """The array index a token names; ``end_ok`` allows ``len`` and ``-`` (for ``add``)."""
    if token == "-":
        if end_ok:
            return len(container)
        raise PatchError(pointer, "'-' names no existing array element")
    if not (token.isascii() and token.isdigit() and (token[0] != "0" or token == "0")):
        raise PatchError(pointer, f"{token!r} is not an array index")
    index = int(token)
    if index > len(container) or (index == len(container) and not end_ok):
        raise PatchError(pointer, f"index {index} is out of range for an array of length {len(container)}")
    return index


class _Doc:
    """A document being patched: containers are copied on first write, so the input is never mutated.

    ``_owned`` holds the containers this patch created (and keeps them alive, so their ids stay
    unique); only those are written in place. Every other container may be shared with the input
    document or an op's value, and is copied before it is changed.
    """

    def __init__(self, root: Json) -> None:
        self.root = root
        self._owned: dict[int, dict[str, Json] | list[Json]] = {}

    def _own(self, node: dict[str, Json] | list[Json]) -> dict[str, Json] | list[Json]:
        if id(node) in self._owned:
            return node
        mine = node.copy()
        self._owned[id(mine)] = mine
        return mine

    @staticmethod
    def _container(node: Json, pointer: str, tokens: list[str], depth: int) -> dict[str, Json] | list[Json]:
        if isinstance(node, dict | list):
            return node
        where = to_pointer(tokens[:depth]) or "the document"
        raise PatchError(pointer, f"{where} is not an object or array")

    @staticmethod
    def _member(node: dict[str, Json], pointer: str, tokens: list[str], depth: int) -> str:
        """The name of an existing member of ``node``."""
        token = tokens[depth]
        if token not in node:
            raise PatchError(pointer, f"no member {token!r} in {to_pointer(tokens[:depth]) or 'the document'}")
        return token

    def get(self, pointer: str, tokens: list[str]) -> Json:
        node = self.root
        for depth, token in enumerate(tokens):
            container = self._container(node, pointer, tokens, depth)
            if isinstance(container, dict):
                node = container[self._member(container, pointer, tokens, depth)]
            else:
                node = container[_index(container, token, pointer, end_ok=False)]
        return node

    def parent(self, pointer: str, tokens: list[str]) -> dict[str, Json] | list[Json]:
        """The writable container holding the last token's location, copying the way down to it."""
        node = self.root = self._own(self._container(self.root, pointer, tokens, 0))
        for depth, token in enumerate(tokens[:-1]):
            child: dict[str, Json] | list[Json]
            if isinstance(node, dict):
                key = self._member(node, pointer, tokens, depth)
                child = node[key] = self._own(self._container(node[key], pointer, tokens, depth + 1))
            else:
                index = _index(node, token, pointer, end_ok=False)
                child = node[index] = self._own(self._container(node[index], pointer, tokens, depth + 1))
            node = child
        return node

    def add(self, pointer: str, tokens: list[str], value: Json) -> None:
        if not tokens:
            self.root = value
            return
        node, last = self.parent(pointer, tokens), tokens[-1]
        if isinstance(node, dict):
            node[last] = value
        else:
            node.insert(_index(node, last, pointer, end_ok=True), value)

    def remove(self, pointer: str, tokens: list[str]) -> Json:
        if not tokens:
            raise PatchError(pointer, "cannot remove the whole document")
        node, last = self.parent(pointer, tokens), tokens[-1]
        if isinstance(node, dict):
            return node.pop(self._member(node, pointer, tokens, len(tokens) - 1))
        return node.pop(_index(node, last, pointer, end_ok=False))

    def replace(self, pointer: str, tokens: list[str], value: Json) -> None:
        if not tokens:
            self.root = value
            return
        node, last = self.parent(pointer, tokens), tokens[-1]
        if isinstance(node, dict):
            node[self._member(node, pointer, tokens, len(tokens) - 1)] = value
        else:
            node[_index(node, last, pointer, end_ok=False)] = value


def apply(doc: Json, ops: Iterable[Op]) -> Json:
    """The document ``ops`` turn ``doc`` into; raises PatchError if any op fails (all or nothing).

    Pure: ``doc`` is never mutated. The result may share unchanged parts with ``doc`` and with the
    values in ``ops``, so treat documents as immutable.
    """
    state = _Doc(doc)
    for op in ops:
        match op:
            case Add(path=path, value=value):
                state.add(path, parse_pointer(path), value)
            case Remove(path=path):
                state.remove(path, parse_pointer(path))
            case Replace(path=path, value=value):
                state.replace(path, parse_pointer(path), value)
            case Move(from_=source, path=path):
                from_tokens, tokens = parse_pointer(source), parse_pointer(path)
                if from_tokens == tokens:
                    state.get(source, from_tokens)
                    continue
                if tokens[: len(from_tokens)] == from_tokens:
                    raise PatchError(path, f"cannot move {source!r} into one of its own children")
                state.add(path, tokens, state.remove(source, from_tokens))
            case Copy(from_=source, path=path):
                value = copy.deepcopy(state.get(source, parse_pointer(source)))
                state.add(path, parse_pointer(path), value)
            case Test(path=path, value=value):
                actual = state.get(path, parse_pointer(path))
                if not _json_equal(actual, value):
                    raise PatchError(path, f"test failed: expected {value!r}, found {actual!r}")
            case _:
                assert_never(op)
    return state.root


# --- desync check --------------------------------------------------------------------------------------


def view_hash(doc: Json) -> str:
    """First 16 hex digits of the SHA-256 of the canonical (sorted-key) JSON of ``doc``."""
    return view_hash_of(canonical(doc))


def view_hash_of(canonical_json: bytes) -> str:
    """``view_hash`` of a document already encoded canonically (``protocol.codec.canonical``)."""
    return hashlib.sha256(canonical_json).hexdigest()[:16]
