"""What a contest's host and its relays say to each other over the bus (MessagePack; between the processes of one
deployment only, never from a client).

A relay asks the host to ``Attach`` each of its viewers of the contest (and ``Detach`` them), and to ``Run`` the
commands they send; the host sends each relay ``Frames``: the encoded frames its viewers get, in order, numbered
per relay and contest so a relay sees a lost message; the answers to its attaches and commands ride in the same
message, after its frames. ``Gone`` says the host stops
hosting the contest (it is shutting down, or lost it): its relays take the contest over or find the new host.
"""

from __future__ import annotations

import msgspec

from protocol.common import Actor
from protocol.events import Command
from protocol.messages import TokenRole


class Attach(msgspec.Struct, tag="attach", frozen=True):
    contest: str
    relay: str  # the relay process
    follower: int  # the viewer's number at the relay
    actor: Actor
    role: TokenRole
    after: int | None
    generation: int


class Detach(msgspec.Struct, tag="detach", frozen=True):
    contest: str
    relay: str
    follower: int


class Run(msgspec.Struct, tag="run", frozen=True):
    """A command a relay's viewer sent, for the host to decide and append."""

    contest: str
    relay: str
    request: int  # the relay's number for this request
    actor: Actor
    id: str  # the command's id (its idempotency key)
    command: Command
    generation: int


class Done(msgspec.Struct, frozen=True):
    """A forwarded command's outcome, sent once its batch's frames are sent: ``code`` empty when it was appended
    (at ``version``; ``repeated``: by an earlier try), else the refusal."""

    request: int
    version: int = 0
    repeated: bool = False
    code: str = ""
    message: str = ""


class Answer(msgspec.Struct, frozen=True):
    """An attach's outcome: ``code`` empty when the viewer is attached, else the refusal."""

    follower: int
    code: str = ""
    message: str = ""


class Frames(msgspec.Struct, tag="frames", frozen=True):
    contest: str
    host: str
    seq: int  # 1, 2, … per (host, relay, contest)
    version: int  # the host's published version after these frames
    generations: dict[str, int]  # each re-issued seat's invitation generation
    frames: list[tuple[list[int], bytes]]  # each frame once, with the followers it goes to, in order
    answers: list[Answer]
    done: list[Done]
    sent: float  # when the host sent it (unix seconds, for the relay lag)
    dropped: list[int]  # followers the host dropped (their invitation was re-issued: the error frame came first)


class Gone(msgspec.Struct, tag="gone", frozen=True):
    contest: str
    host: str


Message = Attach | Detach | Run | Frames | Gone

encoder = msgspec.msgpack.Encoder()
decoder = msgspec.msgpack.Decoder(Message)
