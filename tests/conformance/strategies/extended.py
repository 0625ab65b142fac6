"""Conformance strategy of ``extended``: 1-vs-1 contests, a PC against a GM-run or another player's PC."""

from __future__ import annotations

from collections.abc import Iterable

from hypothesis import strategies as st

from protocol.common import Seat
from protocol.events import Command, CreateContest, Declare
from protocol.rulesets import extended as x
from server.engine.ruleset import Viewer
from server.rules.extended.state import ExtendedState
from tests.conformance.kit import Table, sealed_text

RATINGS = ["15", "12", "5W", "1W2", "20", "8", "0"]
IDS = ["aria", "orc"]
BAD_RATINGS = ["W", "25", "5W0", "x"]


@st.composite
def _contestant(draw: st.DrawFn, id_: str) -> x.Contestant:
    rating = draw(st.sampled_from(RATINGS))
    no_die = rating == "0"  # rolls no die; its followers give it the AP to start with
    return x.Contestant(
        id=id_,
        name=id_.capitalize(),
        ability="Sword",
        rating=rating,
        modifier=0 if no_die else draw(st.sampled_from([0, 0, -5, 3])),
        followers_ap=4 if no_die else draw(st.sampled_from([0, 0, 4])),
        edge=draw(st.sampled_from([0, 0, 2, -2])),
        hero_points=draw(st.integers(0, 2)),
    )


@st.composite
def _setup(draw: st.DrawFn) -> CreateContest:
    pvp = draw(st.booleans())
    seats = [Seat("gm", "gm"), Seat("ann", "player", ["aria"])]
    seats.append(Seat("bob", "player", ["orc"] if pvp else []))
    return CreateContest(
        ruleset="extended",
        setup=x.ExtendedSetup(
            prize="the bridge",
            contestants=[draw(_contestant(i)) for i in IDS],
            better_roll=draw(st.sampled_from(["low", "high"])),
            players_type_faces=draw(st.booleans()),
        ),
        seats=seats,
        dice=draw(st.sampled_from(["server", "physical"])),
    )


def setups() -> st.SearchStrategy[CreateContest]:
    return _setup()


def _faces(table: Table) -> st.SearchStrategy[list[int | None] | None]:
    face = st.integers(1, 20) | st.sampled_from([None, 0, 21])
    typed = st.lists(face, min_size=2, max_size=2)
    if table.dice == "server":
        return st.none() | typed  # faces are refused under server dice
    return typed | st.just([None, None]) | st.none()


def _intent(table: Table, participant: str) -> st.SearchStrategy[x.Intent]:
    return st.builds(
        x.Intent,
        action=st.just(sealed_text(table, participant)),
        bid=st.none() | st.integers(-1, 60),
        kind=st.sampled_from(["normal", "normal", "asymmetrical", "unrelated"]),
        resistance=st.none() | st.sampled_from(["10", "3W", *BAD_RATINGS]),
    )


def commands(table: Table) -> st.SearchStrategy[Command]:
    state: ExtendedState = table.state
    who = st.sampled_from([*IDS, "nobody"])
    options: list[st.SearchStrategy[Command]] = [
        st.builds(x.Roll, faces=_faces(table)),
        st.builds(x.Adjust, contestant=who, delta=st.integers(-8, 8), reason=st.sampled_from(["fudge", " "])),
        st.builds(x.SpendHeroPoint, contestant=who),
        st.builds(x.PassHeroPoint, contestant=who),
        st.just(x.Confirm()),
        st.builds(x.ProposeBid, contestant=who, bid=st.integers(0, 30)),
        st.builds(x.AcceptBid, contestant=who),
        st.builds(x.SetOrder, order=st.permutations(IDS) | st.just(["aria"])),
        st.builds(x.PartingShot, contestant=who, bid=st.none() | st.integers(0, 12)),
    ]
    if state.phase == "declaring":
        declare = st.sampled_from([*IDS, "nobody"]).flatmap(
            lambda p: st.builds(Declare, participant=st.just(p), payload=_intent(table, p))
        )
        options += [declare] * 6
    if state.phase == "ready":
        options += [st.builds(x.Roll, faces=_faces(table))] * 3
    if state.exchange is not None:
        eligible = st.sampled_from(state.exchange.eligible or IDS)
        options += [st.builds(x.SpendHeroPoint, contestant=eligible), st.builds(x.PassHeroPoint, contestant=eligible)]
    return st.one_of(options)


def hidden(state: ExtendedState, viewer: Viewer) -> Iterable[str]:
    """A contestant's rating, starting AP and hero points are its controller's and the GM's; its AP too,
    until it has changed (AP knowledge, seed 000 §5.3.2.3)."""
    if viewer.omniscient:
        return
    for i, fighter in enumerate(state.fighters.values()):
        if viewer.controls(fighter.id):
            continue
        yield from (f"/rules/contestants/{i}/{field}" for field in ("rating", "starting_ap", "hero_points"))
        if not fighter.ap_known:
            yield f"/rules/contestants/{i}/ap"
