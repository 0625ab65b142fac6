"""A command typed as words, built into its msgspec type: ``lend aria bob 2 rating=14`` → ``Lend(...)``.

Words fill the fields in order, ``field=value`` names one; the last field takes the words left over (a list
field each word, a text field the words joined); a list field also takes ``a,b,c``; ``{...}`` or ``[...]``
is read as JSON. ``msgspec.convert`` checks the whole, so a bad value is one line naming its field."""

from __future__ import annotations

import json
import re
import types
import typing
from collections.abc import Callable
from typing import Any, Literal, Union

import msgspec


class Usage(ValueError):
    """A line the prompt cannot run: the message says how to write it."""


_AT = re.compile(r"^(?P<what>.*) - at `\$\.(?P<field>[A-Za-z_]\w*)(?P<rest>[^`]*)`$")
_NAMED = re.compile(r"^(?P<name>[A-Za-z_]\w*)=(?P<value>.*)$", re.S)


def _accepts(kind: Any, value: Any) -> bool:
    try:
        msgspec.convert(value, kind, strict=False)
    except (msgspec.ValidationError, TypeError):
        return False
    return True


def _is_list(kind: Any) -> bool:
    return _accepts(kind, []) and not _accepts(kind, "x")


def _value(word: str, kind: Any, field: str) -> Any:
    if word[:1] in "[{":
        try:
            return json.loads(word)
        except ValueError:
            raise Usage(f"{field}: {word!r} is not valid JSON") from None
    if _is_list(kind):
        return [part for part in word.split(",") if part]
    return word


Refer = Callable[[dict[str, Any]], dict[str, Any]]
"""What turns the names typed in a command's fields into the ids it carries (``naming.Referrer``)."""


def build(kind: type[msgspec.Struct], words: list[str], refer: Refer | None = None) -> Any:
    """The command ``kind`` from the words typed after its name (Usage naming the field otherwise); ``refer``
    turns the names among its values into ids before it is checked."""
    fields = msgspec.structs.fields(kind)
    names = {f.name: f for f in fields}
    given: dict[str, Any] = {}
    positional: list[str] = []
    for word in words:
        named = _NAMED.match(word)
        if named and named["name"] in names:
            field = names[named["name"]]
            given[field.name] = _value(named["value"], field.type, field.name)
        else:
            positional.append(word)
    free = [f for f in fields if f.name not in given]
    if len(positional) > len(free):
        if not free:
            raise Usage(f"too many words: {' '.join(positional)!r}")
        last, spare = free[-1], positional[len(free) - 1 :]
        if _is_list(last.type):
            positional = positional[: len(free) - 1]
            given[last.name] = [v for word in spare for v in _listed(_value(word, last.type, last.name))]
        elif _accepts(last.type, "x"):
            positional = [*positional[: len(free) - 1], " ".join(spare)]
        else:
            raise Usage(f"too many words: {' '.join(spare)!r} ({last.name} takes one)")
    for field, word in zip(free, positional, strict=False):
        given.setdefault(field.name, _value(word, field.type, field.name))
    if refer is not None:
        given = refer(given)
    try:
        return msgspec.convert(given, kind, strict=False)
    except msgspec.ValidationError as error:
        raise Usage(_explain(str(error), given)) from None


def _listed(value: Any) -> list[Any]:
    return value if isinstance(value, list) else [value]


def _explain(message: str, given: dict[str, Any]) -> str:
    """``Expected `int`, got `str` - at `$.bid``` as ``bid: 'many' is not valid (expected int)``."""
    at = _AT.match(message)
    if at is None:
        missing = re.match(r"Object missing required field `(\w+)`", message)
        return f"{missing[1]}: missing" if missing else message
    field, what = at["field"], at["what"]
    what = what[0].lower() + what[1:] if what else what
    if field in given and not at["rest"]:
        return f"{field}: {given[field]!r} is not valid ({what.replace('`', '')})"
    return f"{field}{at['rest']}: {what.replace('`', '')}"


def usage(kind: type[msgspec.Struct]) -> str:
    """The fields as help shows them: ``CONTESTANT BID [ability=…]``."""
    out = []
    for field in msgspec.structs.fields(kind):
        required = field.default is msgspec.NODEFAULT and field.default_factory is msgspec.NODEFAULT
        out.append(field.name.upper() if required else f"[{field.name}=…]")
    return " ".join(out)


def describe(kind: type[msgspec.Struct]) -> list[str]:
    """One line per field: its name, its type in words, its default."""
    out = []
    for field in msgspec.structs.fields(kind):
        line = f"{field.name}: {type_name(field.type)}"
        if field.default is not msgspec.NODEFAULT:
            line += f" (default {json.dumps(msgspec.to_builtins(field.default), ensure_ascii=False)})"
        elif field.default_factory is not msgspec.NODEFAULT:
            line += " (optional)"
        out.append(line)
    return out


def type_name(kind: Any) -> str:
    origin, args = typing.get_origin(kind), typing.get_args(kind)
    if origin is typing.Annotated:
        return type_name(args[0])
    if origin in (Union, types.UnionType):
        return " or ".join(dict.fromkeys(type_name(a) for a in args))
    if origin is Literal:
        return "|".join(str(a) for a in args)
    if origin is list:
        return f"list of {type_name(args[0])}"
    if origin is dict:
        return "JSON object"
    if kind is type(None):
        return "none"
    if isinstance(kind, type) and issubclass(kind, msgspec.Struct):
        return f"JSON object {{{', '.join(kind.__struct_fields__)}}}"
    return getattr(kind, "__name__", str(kind))


def literals(kind: type[msgspec.Struct]) -> list[str]:
    """Every value a Literal field of ``kind`` may take (for completion)."""
    found: list[str] = []

    def walk(t: Any) -> None:
        origin = typing.get_origin(t)
        if origin is Literal:
            found.extend(str(a) for a in typing.get_args(t))
        elif origin is not None:
            for arg in typing.get_args(t):
                walk(arg)

    for field in msgspec.structs.fields(kind):
        walk(field.type)
    return list(dict.fromkeys(found))
