"""Physical dice typed in for a two-sided roll: one face per side that rolls, none for a side that cannot."""

from __future__ import annotations

from protocol import errors
from protocol.errors import Refused


def typed_faces(faces: list[int | None] | None, rolling: list[bool], names: tuple[str, str]) -> list[int] | None:
    """The faces of the sides that roll, in order; None when no faces were typed (server dice)."""
    if faces is None:
        return None
    if len(faces) != 2:
        raise Refused(errors.BAD_FACE, f"faces: give two faces, the actor's then the defender's (got {len(faces)})")
    typed: list[int] = []
    for i, (face, rolls, name) in enumerate(zip(faces, rolling, names, strict=True)):
        if rolls and face is None:
            raise Refused(errors.BAD_FACE, f"faces[{i}]: {name} rolls a d20")
        if not rolls and face is not None:
            raise Refused(errors.BAD_FACE, f"faces[{i}]: {name} has no die to roll (a value of 0 or less)")
        if face is not None:
            typed.append(face)
    return typed
