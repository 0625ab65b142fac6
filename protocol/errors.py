"""Stable error codes. Codes never change meaning; messages are for people."""

from __future__ import annotations

import msgspec

# decoding and validation of what came over the wire
BAD_FRAME = "protocol/bad_frame"  # not JSON, or not a message at all
UNKNOWN_MESSAGE = "protocol/unknown_message"  # a tag no message type has
BAD_FIELD = "protocol/bad_field"  # a field of the wrong type or value
WRONG_PATH = "protocol/wrong_path"  # a WebSocket opened elsewhere than /ws (the error names /ws, then 1008)

# who may do what
UNAUTHENTICATED = "auth/unauthenticated"
BAD_TOKEN = "auth/bad_token"
EXPIRED_TOKEN = "auth/expired_token"
FORBIDDEN = "auth/forbidden"
WRONG_CONTEST = "auth/wrong_contest"
NOT_YOUR_SEAT = "auth/not_your_seat"

# contests
NO_SUCH_CONTEST = "contest/not_found"
CONTEST_EXISTS = "contest/exists"
CONTEST_OVER = "contest/over"
UNKNOWN_RULESET = "contest/unknown_ruleset"
BAD_SETUP = "contest/bad_setup"

# engine mechanics shared by every ruleset
NO_WINDOW = "seal/no_window"
NOT_EXPECTED = "seal/not_expected"
NOTHING_TO_UNDO = "undo/nothing_to_undo"
NOTHING_TO_REDO = "undo/nothing_to_redo"
BAD_REWIND = "undo/bad_version"
DICE_MODE = "dice/wrong_mode"
BAD_FACE = "dice/bad_face"

# storage
CONFLICT = "store/conflict"
UNAVAILABLE = "store/unavailable"

RATE_LIMITED = "rate/limited"
INTERNAL = "server/internal"


class Problem(msgspec.Struct, frozen=True):
    """An error as a value: a stable code and a message naming the field or rule."""

    code: str
    message: str


class Refused(Exception):
    """Raised by pure code to refuse a command; carries a stable code."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message

    @property
    def problem(self) -> Problem:
        return Problem(self.code, self.message)


# the network layer
SHUTTING_DOWN = "server/shutting_down"  # the server is draining: reconnect (to another process) and resume
TOO_SLOW = "server/too_slow"  # the connection could not keep up and is dropped: reconnect and resume
