"""The one codec: every byte Agon writes or reads goes through here."""

from __future__ import annotations

from typing import Any, TypeVar

import msgspec

T = TypeVar("T")

_json = msgspec.json.Encoder()
_canonical = msgspec.json.Encoder(order="sorted")


def encode(obj: Any) -> bytes:
    """JSON bytes of a message, in declaration order."""
    return _json.encode(obj)


def canonical(obj: Any) -> bytes:
    """JSON bytes with object keys sorted: the same value gives the same bytes on any machine."""
    return _canonical.encode(obj)


_decoders: dict[Any, msgspec.json.Decoder[Any]] = {}


def _decoder(type: Any) -> msgspec.json.Decoder[Any]:
    """One decoder per type, made on first use: ``msgspec.json.decode`` reads a union or a generic type
    (``ClientMessage``, ``list[Op]``) again on every call, twenty times the cost of the decoding itself."""
    decoder = _decoders.get(type)
    if decoder is None:
        decoder = _decoders[type] = msgspec.json.Decoder(type, strict=True)
    return decoder


def decode(data: bytes | str, type: type[T]) -> T:
    """Decode and validate; raises msgspec.ValidationError / msgspec.DecodeError on bad input."""
    result: T = _decoder(type).decode(data)
    return result


def document(canonical_json: bytes) -> Any:
    """The plain JSON value (dicts, lists, strings, numbers) that ``canonical`` encoded: the same as
    ``to_builtins`` of what it encoded, for less work than that."""
    return msgspec.json.decode(canonical_json)


def to_builtins(obj: Any) -> Any:
    """Plain JSON values (dicts, lists, strings, numbers) of a message."""
    return msgspec.to_builtins(obj, order="sorted")


def convert(obj: Any, type: type[T]) -> T:
    """Validate plain values as a message type."""
    return msgspec.convert(obj, type=type, strict=True)


def decode_untrusted(data: bytes | str, type: type[T]) -> T:
    """Decode bytes from the network, turning every failure into a Refused with a stable code:
    ``protocol/bad_frame`` (not JSON, or JSON nested deeper than the decoder recurses), ``protocol/unknown_message``
    (a tag no message has) or ``protocol/bad_field`` (a field missing or of the wrong type; the message names
    the field)."""
    from protocol import errors

    try:
        result: T = _decoder(type).decode(data)
        return result
    except msgspec.ValidationError as exc:
        text = str(exc)
        top_level_tag = text.startswith("Invalid value") and text.endswith("`$.type`")
        if top_level_tag or text == "Object missing required field `type`":
            raise errors.Refused(errors.UNKNOWN_MESSAGE, f"unknown message type: {text}") from None
        raise errors.Refused(errors.BAD_FIELD, text) from None
    except msgspec.DecodeError as exc:
        raise errors.Refused(errors.BAD_FRAME, f"not a JSON message: {exc}") from None
    except UnicodeDecodeError as exc:  # msgspec raises it for a tag that is not UTF-8
        raise errors.Refused(errors.BAD_FRAME, f"not UTF-8: {exc.reason} at byte {exc.start}") from None
    except RecursionError:  # msgspec recurses once per level of nesting, up to the interpreter's limit
        raise errors.Refused(errors.BAD_FRAME, "not a message: its JSON is nested too deeply") from None
