"""The state of a scored sequence."""

from __future__ import annotations

import msgspec

from protocol.common import HeroPointWindow
from protocol.rulesets.scored import (
    ContestKind,
    ContestResolved,
    OutReason,
    Party,
    Phase,
    Role,
    RolledView,
    SequenceDecided,
    Tactic,
)


class Member(msgspec.Struct, frozen=True, gc=False):
    """A contestant as the sequence sees it now."""

    id: str
    name: str
    side: str
    ability: str
    rating: str
    role: Role
    follower_of: str | None
    story_points: int
    player: bool  # controlled by a player seat
    present: bool  # in the sequence (false until a late arrival joins)
    tally: str  # the id of the tally it shares (its own unless it joined a comrade)
    out: OutReason | None = None

    @property
    def main(self) -> bool:
        return self.role == "main"

    @property
    def rolls_rounds(self) -> bool:
        """Main contestants and followers acting as full contestants take part in rounds."""
        return self.role in ("main", "contestant")

    @property
    def active(self) -> bool:
        return self.present and self.out is None


class Pending(msgspec.Struct, frozen=True, gc=False):
    """A rolled simple contest waiting for story points, then its resolution."""

    kind: ContestKind
    first: Party
    second: Party
    target: str | None
    waiting: list[str]  # whose player must still answer: spend story points, or let the result stand
    spent: dict[str, int] = {}
    may_spend: list[str] = []  # who may still spend a story point
    kept: list[str] = []  # who has let the result stand


class Point(msgspec.Struct, frozen=True, gc=False):
    round: int
    kind: ContestKind
    tallies: dict[str, int]


class Fall(msgspec.Struct, frozen=True, gc=False):
    """A main contestant taken out by its tally: the opponent it lost to and the RP against that opponent
    then (§5.2: five or more against it, and it has lost)."""

    opponent: str
    rp_for: int


class ScoredState(msgspec.Struct, frozen=True, gc=False):
    prize: str
    assist_resistance: str
    players_type_faces: bool
    members: dict[str, Member]
    tallies: dict[str, int]  # RP lodged against each tally
    # the dice of the newest contest resolved; no default, so a snapshot stored before the state kept it does
    # not decode and is folded again from the log (a snapshot is a cache)
    last_roll: RolledView | None
    story_point_window: HeroPointWindow = "always"
    round: int = 0
    phase: Phase = "between"
    initiative: str | None = None
    responder: str | None = None
    tactics: dict[str, Tactic] = {}
    pending: Pending | None = None
    assists: dict[str, int] = {}  # assists made so far, by the beneficiary's tally
    last_opponent: dict[str, str] = {}  # the opponent each contestant last met in a round
    met: dict[str, list[str]] = {}  # everyone each contestant has met in a round
    fallen: dict[str, Fall] = {}  # main contestants out by their tally, with the score when they went out
    # who went out by RP since the last round started (a parting shot's target), with what a comeback may
    # still win back of the RP lodged by the contest that took it out
    taken_out: dict[str, int] = {}
    shots: list[str] = []  # "shooter>target": parting shots taken since the target went out
    chart: list[Point] = []
    last: ContestResolved | None = None
    outcome: SequenceDecided | None = None

    def rp(self, contestant: str) -> int:
        return self.tallies[self.members[contestant].tally]

    def opponent(self, contestant: str) -> str:
        """The main contestant a main contestant is measured against: the one it last met in a round, else the
        first main contestant of the other side in the sequence."""
        last = self.last_opponent.get(contestant)
        if last is not None and self.members[last].main:
            return last
        side = self.members[contestant].side
        return next(m.id for m in self.members.values() if m.main and m.present and m.side != side)

    def engaged_with(self, contestant: str) -> list[str]:
        """The opponents it has met in a round that are still in the sequence: while there are any it is
        engaged, not "otherwise unengaged" (§5.2.1.3)."""
        return [other for other in self.met.get(contestant, []) if self.members[other].active]

    def sides(self) -> list[str]:
        seen: list[str] = []
        for member in self.members.values():
            if member.side not in seen:
                seen.append(member.side)
        return seen

    def other_side(self, side: str) -> str:
        return next(s for s in self.sides() if s != side)
