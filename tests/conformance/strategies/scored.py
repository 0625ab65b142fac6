"""Conformance strategy of ``scored``: a sequence between heroes and an opposition, with followers in every
role, a late arrival, story points, both dice modes and every command, legal or not."""

from __future__ import annotations

from collections.abc import Iterable

from hypothesis import strategies as st

from protocol.common import Seat
from protocol.events import Command, CreateContest, Declare
from protocol.rulesets import scored as s
from server.engine.ruleset import Viewer
from server.rules.scored.state import ScoredState
from tests.conformance.kit import Table, sealed_text

RATINGS = ["15", "12", "5W", "20", "8", "1", "0"]
BAD_RATINGS = ["W", "25", "x"]
IDS = ["aria", "brin", "cato", "dina", "bors", "ogre", "gob"]
WHO = st.sampled_from([*IDS, "nobody"])
TACTICS = st.sampled_from(["none", "gambit", "defensive"])


@st.composite
def _setup(draw: st.DrawFn) -> CreateContest:
    rating = st.sampled_from(RATINGS)
    points = st.integers(0, 2)

    def member(id_: str, side: str, **extra: object) -> s.Contestant:
        return s.Contestant(
            id=id_, name=id_.capitalize(), side=side, rating=draw(rating), story_points=draw(points), **extra
        )  # type: ignore[arg-type]

    contestants = [
        member("aria", "heroes", ability="Sword"),
        member("brin", "heroes", follower_of="aria", role="secondary"),
        member("cato", "heroes", follower_of="aria", role="contestant"),
        member("dina", "heroes", follower_of="aria", role="supporter"),
        member("bors", "heroes", joins_later=draw(st.booleans())),
        member("ogre", "opposition", ability="Club"),
        member("gob", "opposition", follower_of="ogre", role="contestant"),
    ]
    pvp = draw(st.booleans())  # Bob plays the Ogre and its follower instead of Bors
    ann = Seat("ann", "player", ["aria", "brin", "cato", "dina"])
    bob = Seat("bob", "player", ["ogre", "gob"] if pvp else ["bors"])
    return CreateContest(
        ruleset="scored",
        setup=s.ScoredSetup(
            prize="the bridge",
            contestants=contestants,
            assist_resistance=draw(st.sampled_from(["10", "14", "5W"])),
            players_type_faces=draw(st.booleans()),
        ),
        seats=[Seat("gm", "gm"), ann, bob],
        dice=draw(st.sampled_from(["server", "physical"])),
    )


def setups() -> st.SearchStrategy[CreateContest]:
    return _setup()


def _faces(table: Table) -> st.SearchStrategy[list[int] | None]:
    typed = st.lists(st.integers(1, 20) | st.sampled_from([0, 21]), min_size=2, max_size=2)
    if table.dice == "server":
        return st.none() | typed  # faces are refused under server dice
    return typed | st.lists(st.integers(1, 20), min_size=1, max_size=3) | st.none()


def _tactic(table: Table, participant: str) -> st.SearchStrategy[s.Tactic]:
    switch = st.sampled_from([(None, None), ("Shield", "12"), ("Shield", None), ("Shield", "25")])
    return switch.flatmap(
        lambda pair: st.builds(
            s.Tactic,
            tactic=TACTICS,
            action=st.just(sealed_text(table, participant)),
            ability=st.just(pair[0]),
            rating=st.just(pair[1]),
        )
    )


def commands(table: Table) -> st.SearchStrategy[Command]:
    state: ScoredState = table.state
    faces = _faces(table)
    options: list[st.SearchStrategy[Command]] = [
        st.builds(s.StartRound, initiative=WHO, responder=WHO),
        st.builds(s.Roll, faces=faces),
        st.builds(s.SpendStoryPoint, contestant=WHO),
        st.builds(s.KeepStoryPoints, contestant=WHO),
        st.just(s.Confirm()),
        st.builds(s.Assist, helper=WHO, beneficiary=WHO, faces=faces),
        st.builds(s.ShiftPoints, contestant=WHO, follower=WHO, points=st.integers(-1, 6)),
        st.builds(
            s.EngageFollower,
            opponent=WHO,
            follower=WHO,
            ability=st.none() | st.just("Grab"),
            rating=st.none() | st.sampled_from(["6", *BAD_RATINGS]),
            faces=faces,
        ),
        st.builds(s.PartingShot, shooter=WHO, target=WHO, faces=faces),
        st.builds(s.Join, contestant=WHO, comrade=WHO),
        st.builds(s.Adjust, contestant=WHO, delta=st.integers(-4, 6), reason=st.sampled_from(["fudge", " "])),
    ]
    focus: list[st.SearchStrategy[Command]] = []  # what moves the sequence on from where it stands
    good = st.none() if table.dice == "server" else st.lists(st.integers(1, 20), min_size=2, max_size=2)
    if state.phase == "between":
        pairs = st.sampled_from(
            [(hero, foe) for hero in ("aria", "cato", "bors") for foe in ("ogre", "gob")]
            + [(foe, hero) for hero in ("aria", "cato", "bors") for foe in ("ogre", "gob")]
        )
        focus.append(pairs.map(lambda p: s.StartRound(initiative=p[0], responder=p[1])))
        heroes = st.sampled_from(["aria", "brin", "cato", "dina", "bors"])
        focus += [
            st.builds(s.Assist, helper=heroes, beneficiary=heroes, faces=good),
            st.builds(s.ShiftPoints, contestant=st.just("aria"), follower=st.just("brin"), points=st.integers(1, 3)),
            st.builds(
                s.EngageFollower, opponent=st.sampled_from(["aria", "brin", "ogre", "gob"]), follower=WHO, faces=good
            ),
            st.builds(s.Join, contestant=st.just("bors"), comrade=heroes),
            st.builds(
                s.Adjust, contestant=st.sampled_from(["aria", "ogre"]), delta=st.integers(1, 5), reason=st.just("x")
            ),
        ]
    if state.phase == "declaring":
        focus.append(
            st.sampled_from([state.initiative or "aria", state.responder or "ogre", "nobody"]).flatmap(
                lambda p: st.builds(Declare, participant=st.just(p), payload=_tactic(table, p))
            )
        )
    if state.phase == "ready":
        focus.append(st.builds(s.Roll, faces=good))
    if state.pending is not None:
        waiting = st.sampled_from(state.pending.waiting or IDS)
        focus += [st.builds(s.SpendStoryPoint, contestant=waiting), st.builds(s.KeepStoryPoints, contestant=waiting)]
    taken = sorted(m.id for m in state.members.values() if m.out in ("tally", "round"))
    if taken:  # just taken out (state.taken_out), or out since an earlier round: too late
        target = st.sampled_from(taken)
        focus.append(st.builds(s.PartingShot, shooter=WHO, target=target, faces=good))
    anything = st.one_of(options)
    if not focus:
        return anything
    # two draws in three go to a command that fits the phase
    return st.integers(0, 2).flatmap(lambda i: anything if i == 0 else st.one_of(focus))


def hidden(state: ScoredState, viewer: Viewer) -> Iterable[str]:
    """Story points are their controller's and the GM's; everything else of a scored sequence is public."""
    if viewer.omniscient:
        return
    for i, member in enumerate(state.members.values()):
        if not viewer.controls(member.id):
            yield f"/rules/contestants/{i}/story_points"


def check_event(before: ScoredState, event: object, after: ScoredState) -> None:
    """Tallies are never negative; nobody out of the sequence is in the round under way; a parting shot
    strikes a target taken out since the last round started, never from the beaten side nor by a supporter,
    and what it may still win back only shrinks; a late arrival joins only a main contestant; only an opponent
    engaged with nobody still in engages a follower; a main contestant out of the sequence is never named a
    victor."""
    assert all(points >= 0 for points in after.tallies.values()), after.tallies
    for contestant in (after.initiative, after.responder):
        if contestant is not None and after.phase in ("declaring", "ready"):
            assert after.members[contestant].active, (contestant, event)
    if isinstance(event, s.ContestRolled) and event.kind == "parting_shot":
        shooter, target = event.first.contestant, event.second.contestant
        assert target in before.taken_out, event
        assert before.outcome is None or before.members[shooter or ""].side != before.outcome.loser, event
    if isinstance(event, s.ContestRolled) and event.kind == "parting_shot":
        assert before.members[event.first.contestant or ""].role != "supporter", event
    if isinstance(event, s.Joined):
        assert before.members[event.comrade].main, event
    if isinstance(event, s.ContestRolled) and event.kind == "engage":
        assert not before.engaged_with(event.first.contestant or ""), event
    if isinstance(event, s.SequenceDecided):
        assert all(not o.victory for o in event.outcomes if after.members[o.contestant].out is not None), event
    for target, left in after.taken_out.items():
        assert 0 <= left <= before.taken_out.get(target, left), (target, event)
