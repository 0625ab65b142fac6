"""Conformance strategy of ``extended``: 1-vs-1 contests (a PC against a GM-run or another player's PC) and
group contests (two PCs and three GM-run contestants on two or three sides), with every group command."""

from __future__ import annotations

from collections.abc import Iterable

from hypothesis import strategies as st

from protocol.common import Seat
from protocol.events import Command, CreateContest, Declare
from protocol.rulesets import extended as x
from server.engine.ruleset import Viewer
from server.rules.extended.state import ExtendedState
from tests.conformance.kit import Table, sealed_text
from tests.conformance.strategies.ap_chart import hidden_on_chart

RATINGS = ["15", "12", "5W", "1W2", "20", "8", "0"]
IDS = ["aria", "orc"]
GROUP_IDS = ["aria", "bran", "orc", "wolf", "shaman"]
BAD_RATINGS = ["W", "25", "5W0", "x"]
TYPED_RATINGS = ["9W3", "2W3"]  # typed in commands: never a contestant's rating, so the suite can trace those


@st.composite
def _contestant(draw: st.DrawFn, id_: str, side: str | None = None) -> x.Contestant:
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
        side=side,
        followers=draw(st.sampled_from([[], [], [x.Follower(name="Hound", rating="6", modifier=-1)]])),
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


@st.composite
def _group(draw: st.DrawFn) -> CreateContest:
    """Aria (Ann) and Bran (Bob) against three GM-run raiders; sometimes the shaman fights for itself."""
    sides = {"aria": "heroes", "bran": "heroes", "orc": "raiders", "wolf": "raiders"}
    sides["shaman"] = draw(st.sampled_from(["raiders", "shaman"]))
    return CreateContest(
        ruleset="extended",
        setup=x.ExtendedSetup(
            prize="the mill",
            contestants=[draw(_contestant(c, sides[c])) for c in GROUP_IDS],
            better_roll=draw(st.sampled_from(["low", "high"])),
            players_type_faces=draw(st.booleans()),
        ),
        seats=[Seat("gm", "gm"), Seat("ann", "player", ["aria"]), Seat("bob", "player", ["bran"])],
        dice=draw(st.sampled_from(["server", "physical"])),
    )


def setups() -> st.SearchStrategy[CreateContest]:
    return _setup() | _group()


def _faces(table: Table) -> st.SearchStrategy[list[int | None] | None]:
    face = st.integers(1, 20) | st.sampled_from([None, 0, 21])
    typed = st.lists(face, min_size=2, max_size=2)
    if table.dice == "server":
        return st.none() | typed  # faces are refused under server dice
    return typed | st.just([None, None]) | st.none()


def _intent(table: Table, participant: str) -> st.SearchStrategy[x.Intent]:
    state: ExtendedState = table.state
    ids = list(state.fighters)
    valid = [o for o in state.opponents(participant) if state.fighters[o].in_contest] if participant in ids else []
    targets = st.lists(st.sampled_from([*ids, "nobody"]), max_size=2)
    if valid:
        targets = st.lists(st.sampled_from(valid), min_size=1, max_size=2, unique=True) | targets
    return st.builds(
        x.Intent,
        action=st.just(sealed_text(table, participant)),
        bid=st.integers(1, 6) | st.none() | st.integers(-1, 60),
        kind=st.sampled_from(["normal", "normal", "asymmetrical", "unrelated"]),
        resistance=st.none() | st.sampled_from([*TYPED_RATINGS, *BAD_RATINGS]),
        daring=st.sampled_from(["cautious", "bold", "daring", "reckless"]),
        targets=targets,
    )


def _group_commands(table: Table) -> list[st.SearchStrategy[Command]]:
    """The commands of group contests and of the options (most are refused in a duel)."""
    state: ExtendedState = table.state
    ids = list(state.fighters)
    who = st.sampled_from([*ids, "nobody"])
    rating = st.none() | st.sampled_from([*TYPED_RATINGS, "Q"])
    faces = _faces(table)
    daring = st.sampled_from(["cautious", "bold", "daring", "reckless"])
    actor = [state.actor] if state.actor is not None else ids
    acting = st.sampled_from(actor)
    options: list[st.SearchStrategy[Command]] = [
        st.builds(x.OrderBy, mode=st.sampled_from(["daring", "bid", "ap"])),
        st.builds(x.RankDaring, contestant=who, daring=daring),
        st.builds(x.Delay, contestant=who),
        st.builds(x.JumpIn, contestant=who),
        st.builds(x.AllowChange, contestant=who),
        st.builds(x.PassTurn, contestant=acting),
        st.builds(x.Confirm, group_tie=st.booleans()),
        st.builds(x.DeclinePartingShot, contestant=who),
        st.builds(x.FinalAction, contestant=who, faces=faces),
        st.builds(x.Disengage, contestant=acting, opponent=st.none() | who, rating=rating, faces=faces),
        st.builds(x.Rejoin, contestant=who),
        st.builds(x.Lend, lender=acting, target=who, ap=st.integers(-1, 20), faces=faces),
        st.builds(
            x.Gift,
            giver=st.sampled_from(["the miller", "Hound", *ids]),
            rating=st.sampled_from(["14", "4W3", "x"]),
            recipient=who,
            bid=st.integers(0, 16),
            opponent=st.none() | who,
            faces=faces,
        ),
        st.builds(x.GrantHeroPoints, contestant=who, points=st.integers(0, 2)),
        who.flatmap(lambda c: st.builds(x.ChangeIntent, contestant=st.just(c), intent=_intent(table, c))),
        st.builds(x.PartingShot, contestant=who, target=st.none() | who, bid=st.none() | st.integers(1, 6)),
    ]
    if state.phase == "ready":
        options += [st.builds(x.OrderBy, mode=st.sampled_from(["daring", "bid", "ap"]))]
    if state.actor is not None and state.exchange is None:  # on its turn: leave against its own opponent's rating
        opponents = [o for o in state.opponents(state.actor) if state.fighters[o].in_contest]
        if opponents:
            disengage = st.builds(x.Disengage, contestant=acting, opponent=st.sampled_from(opponents), faces=faces)
            options += [disengage] * 3
    return options


def commands(table: Table) -> st.SearchStrategy[Command]:
    state: ExtendedState = table.state
    ids = list(state.fighters)
    who = st.sampled_from([*ids, "nobody"])
    options: list[st.SearchStrategy[Command]] = [
        st.builds(x.Roll, faces=_faces(table)),
        st.builds(x.Adjust, contestant=who, delta=st.integers(-8, 8), reason=st.sampled_from(["fudge", " "])),
        st.builds(x.SpendHeroPoint, contestant=who),
        st.builds(x.PassHeroPoint, contestant=who),
        st.just(x.Confirm()),
        st.builds(x.ProposeBid, contestant=who, bid=st.integers(0, 30)),
        st.builds(x.AcceptBid, contestant=who),
        st.builds(x.SetOrder, order=st.permutations(state.order) | st.just(["aria"])),
        st.builds(x.PartingShot, contestant=who, bid=st.none() | st.integers(0, 12)),
        *_group_commands(table),
    ]
    # a correction that takes a contestant back to the chart's newest point (a GM undoing a slip by hand)
    back = [(c, column[-1] - state.fighters[c].ap) for c, column in state.chart.ap.items() if c in state.fighters]
    options += [st.just(x.Adjust(contestant=c, delta=delta, reason="back")) for c, delta in back if delta] * 3
    if state.phase == "declaring":
        declare = st.sampled_from([*ids, "nobody"]).flatmap(
            lambda p: st.builds(Declare, participant=st.just(p), payload=_intent(table, p))
        )
        options += [declare] * (30 if state.group else 12)
    if state.phase == "ready":
        options += [st.builds(x.Roll, faces=_faces(table))] * (12 if state.group else 6)
    if state.exchange is not None:
        eligible = st.sampled_from(state.exchange.eligible or ids)
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
        yield from hidden_on_chart(state.chart, state.fighters, fighter.id)  # and on the chart, point by point


def check_event(before: ExtendedState, event: object, after: ExtendedState) -> None:
    """Whoever is to act is still in the contest; a contest is decided only with at most one side left; the
    round's order names each contestant once."""
    actor = after.actor
    assert actor is None or after.fighters[actor].in_contest or after.parting_shot, f"{actor} acts while out"
    assert len(set(after.order)) == len(after.order), f"order repeats a contestant: {after.order}"
    if isinstance(event, x.ContestDecided):
        assert after.phase == "decided" and after.outcome is not None
        assert len({f.side for f in after.fighters.values() if f.in_contest}) <= 1, "decided with two sides in"


def public(event: object) -> frozenset[str]:
    """A loan's offer is public, and so is the simple contest against it (§5.3.11: the resistance is the AP
    offered): a hidden AP or rating equal to the offer is equal by chance."""
    return frozenset({"ap", "resistance"}) if isinstance(event, x.LoanResolved) else frozenset()
