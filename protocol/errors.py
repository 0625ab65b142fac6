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
REVOKED = "auth/revoked"  # the invitation was re-issued: the old link no longer works

# contests
NO_SUCH_CONTEST = "contest/not_found"
CONTEST_EXISTS = "contest/exists"
CONTEST_OVER = "contest/over"
UNKNOWN_RULESET = "contest/unknown_ruleset"
BAD_SETUP = "contest/bad_setup"
READ_ONLY = "contest/read_only"  # an imported contest: it can be replayed, never changed
NO_SUCH_SEAT = "contest/no_such_seat"
FOREIGN = "contest/foreign_ruleset"  # a setup, command or declaration of another ruleset than the contest's

# engine mechanics shared by every ruleset
NO_WINDOW = "seal/no_window"
NOT_EXPECTED = "seal/not_expected"
NOTHING_TO_UNDO = "undo/nothing_to_undo"
NOTHING_TO_REDO = "undo/nothing_to_redo"
BAD_REWIND = "undo/bad_version"
DICE_MODE = "dice/wrong_mode"
BAD_FACE = "dice/bad_face"

# table talk (protocol/talk.py)
TALK_EMPTY = "talk/empty"  # nothing left to say once trimmed
TALK_TOO_LONG = "talk/too_long"  # more than 500 characters once trimmed
TALK_TOO_FAST = "talk/too_fast"  # a seat saying more than 8 lines in 10 seconds
TALK_FULL = "talk/full"  # the contest holds the most lines it keeps (5,000)
TALK_NOT_ALLOWED = "talk/not_allowed"  # a spectator or an auditor speaking, a whisper the roles do not allow
TALK_UNKNOWN_SEAT = "talk/unknown_seat"  # a whisper to a seat the contest does not have
TALK_BAD_ROLL = "talk/bad_roll"  # a /roll whose dice do not read (the message says what is wrong)

# storage
CONFLICT = "store/conflict"
UNAVAILABLE = "store/unavailable"

RATE_LIMITED = "rate/limited"
INTERNAL = "server/internal"

PERMANENT = frozenset({REVOKED, EXPIRED_TOKEN, BAD_TOKEN, NO_SUCH_CONTEST})
"""Codes refusing a follow (or a resume) that no retry can mend: a new invitation is needed, or there is no contest.
Any other refusal of a follow is worth trying again."""


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
