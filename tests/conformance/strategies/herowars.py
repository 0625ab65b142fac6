"""Conformance strategy of ``herowars``: 1-vs-1 contests, a PC against a GM-run or another player's PC."""

from __future__ import annotations

from collections.abc import Iterable

from hypothesis import strategies as st

from protocol.common import Seat
from protocol.events import Command, CreateContest, Declare
from protocol.rulesets import herowars as h
from server.engine.ruleset import Viewer
from server.rules.herowars.state import HerowarsState
from tests.conformance.kit import Table, sealed_text
from tests.conformance.strategies.ap_chart import hidden_on_chart

RATINGS = ["15", "12", "5W", "1W2", "17W", "8", "0"]  # masteries on both sides make both Failures Successes
IDS = ["erik", "jonas"]


@st.composite
def _contestant(draw: st.DrawFn, id_: str) -> h.Contestant:
    rating = draw(st.sampled_from(RATINGS))
    no_die = rating == "0"  # rolls no die; its followers give it the AP to start with
    return h.Contestant(
        id=id_,
        name=id_.capitalize(),
        ability="Sword",
        rating=rating,
        modifier=0 if no_die else draw(st.sampled_from([0, 0, -5, 3])),
        followers_ap=4 if no_die else draw(st.sampled_from([0, 0, 4])),
        edge=draw(st.sampled_from([0, 0, 2, -2, -5])),
        hero_points=draw(st.integers(0, 2)),
    )


@st.composite
def _setup(draw: st.DrawFn) -> CreateContest:
    pvp = draw(st.booleans())
    seats = [Seat("gm", "gm"), Seat("ann", "player", ["erik"]), Seat("bob", "player", ["jonas"] if pvp else [])]
    return CreateContest(
        ruleset="herowars",
        setup=h.HerowarsSetup(
            prize="the ford",
            contestants=[draw(_contestant(i)) for i in IDS],
            cap_3x=draw(st.booleans()),
            players_type_faces=draw(st.booleans()),
        ),
        seats=seats,
        dice=draw(st.sampled_from(["server", "physical"])),
    )


def setups() -> st.SearchStrategy[CreateContest]:
    return _setup()


def _faces(table: Table) -> st.SearchStrategy[list[int | None] | None]:
    # the same face on both dice makes ties; 1 and 20 make Criticals and Fumbles
    face = st.sampled_from([1, 1, 2, 5, 10, 15, 19, 20, 20]) | st.sampled_from([None, 0, 21])
    typed = st.lists(face, min_size=2, max_size=2) | face.map(lambda f: [f, f])
    if table.dice == "server":
        return st.none() | typed  # faces are refused under server dice
    return typed | st.none()


def commands(table: Table) -> st.SearchStrategy[Command]:
    state: HerowarsState = table.state
    who = st.sampled_from([*IDS, "nobody"])
    options: list[st.SearchStrategy[Command]] = [
        st.builds(h.Roll, faces=_faces(table)),
        st.builds(h.Adjust, contestant=who, delta=st.integers(-12, 12), reason=st.sampled_from(["fudge", " "])),
        st.builds(h.SpendHeroPoint, contestant=who),
        st.builds(h.PassHeroPoint, contestant=who),
        st.just(h.Confirm()),
        st.builds(h.SetOrder, order=st.permutations(IDS) | st.just(["erik"])),
        st.builds(
            h.SettleTie,
            winner=st.none() | who,
            loss=st.integers(-1, 50),
            transfer=st.booleans(),
            reason=st.just("from the stated intents"),
        ),
    ]
    if state.phase == "declaring":
        declare = st.sampled_from([*IDS, "nobody"]).flatmap(
            lambda p: st.builds(
                Declare,
                participant=st.just(p),
                payload=st.builds(h.Intent, action=st.just(sealed_text(table, p)), bid=st.none() | st.integers(-1, 60)),
            )
        )
        options += [declare] * 6
    if state.phase == "ready":
        options += [st.builds(h.Roll, faces=_faces(table))] * 3
    if state.phase == "tied":
        options += [st.builds(h.SettleTie, winner=st.none() | st.sampled_from(IDS), loss=st.integers(0, 12))] * 3
    if state.exchange is not None:
        eligible = st.sampled_from(state.exchange.eligible or IDS)
        options += [st.builds(h.SpendHeroPoint, contestant=eligible), st.builds(h.PassHeroPoint, contestant=eligible)]
    return st.one_of(options)


def hidden(state: HerowarsState, viewer: Viewer) -> Iterable[str]:
    """A contestant's rating, starting AP, hero points and edge are its controller's and the GM's; its AP
    too, until it has changed (AP knowledge, as in the extended contest)."""
    if viewer.omniscient:
        return
    for i, fighter in enumerate(state.fighters.values()):
        if viewer.controls(fighter.id):
            continue
        yield from (f"/rules/contestants/{i}/{f}" for f in ("rating", "starting_ap", "hero_points", "edge"))
        if not fighter.ap_known:
            yield f"/rules/contestants/{i}/ap"
        yield from hidden_on_chart(state.chart, state.fighters, fighter.id)  # and on the chart, point by point


def check_event(before: HerowarsState, event: object, after: HerowarsState) -> None:
    """Seed 001's arithmetic bounds every exchange: nobody loses more than four times the modified bid
    (three with the optional rule), and only a transfer gives AP, exactly what the loser lost."""
    if not isinstance(event, h.ExchangeApplied) or event.case == "tie" or before.exchange is None:
        return
    rolled = before.exchange
    most = (3 if before.cap_3x else 4) * max(rolled.bid + max(before.fighters[rolled.actor].edge, 0), rolled.bid)
    assert all(0 < n <= most for n in event.lost.values()), f"{event} loses more than {most}"
    if event.gained:
        assert event.case == "transfer" and event.winner is not None
        assert [event.gained] == list(event.lost.values())
    for c in before.fighters:
        delta = after.fighters[c].ap - before.fighters[c].ap
        assert delta == (event.gained if c == event.winner else 0) - event.lost.get(c, 0)
