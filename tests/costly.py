"""The most expensive commands of every ruleset at its table limits, measured in CPU seconds.

Each ruleset's worst case is built at the limits its page documents (``docs/rules/<name>.md``, "Table limits"):
the most contestants and seats (each player seat playing one, so each is a sight of its own), zones, planned
actions and chart points, every id, name and text at its longest. The contest is served in this process as
``agon serve`` serves it: the service decides, appends to a store and folds; the contest's feed
(``server.feed.fanout``) builds, encodes and diffs the view of every sight — every seat, the GM, an auditor and a
spectator follow it — and queues each follower its patch and notices. The cost of a command is the CPU time
(not the wall time) from the service taking it to the last follower's frame being queued.

``costly_commands()`` returns one row per command measured (``tests/net/test_worst_case_cost.py`` checks each
against ``BUDGET``); ``python -m tests.costly [ruleset ...]`` prints them.
"""

from __future__ import annotations

import asyncio
import gc
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from protocol.common import AUDITOR, MAX_CONTESTANTS, SPECTATOR, Actor, Seat
from protocol.events import CreateContest, Declare
from protocol.rulesets import contingency as c
from protocol.rulesets import extended as x
from protocol.rulesets import herowars as h
from protocol.rulesets import karbon as k
from protocol.rulesets import scored as s
from server.feed.fanout import ContestFeed
from server.net.metrics import ServerMetrics
from server.net.settings import Settings
from server.rules.contingency import skill
from server.rules.questworlds.chart import CHART_POINTS
from server.service import ContestService
from server.store.memory import MemoryStore

BUDGET = 0.5
"""The CPU seconds one frame may cost at most (docs/security.md)."""

GM = Actor("gm", "gm")
SEATS = 63
"""Player seats a contest may have (``CreateContest.seats`` holds 64, one of them the GM's)."""


@dataclass(frozen=True)
class Cost:
    """What one command cost: its ruleset, the command (its type tag, and what it does) and its CPU seconds."""

    ruleset: str
    command: str
    cpu: float


def _long(prefix: str, i: int, length: int) -> str:
    """A distinct id, name or text of exactly ``length`` characters (the longest the wire lets through)."""
    head = f"{prefix}{i}-"
    return head + "x" * (length - len(head))


class _Follower:
    """A follower as the feed sees a connection: frames are queued (here counted)."""

    def __init__(self) -> None:
        self.frames = 0
        self.sent = 0

    def send(self, frame: bytes) -> None:
        self.frames += 1
        self.sent += len(frame)


@dataclass
class Bench:
    """A contest served in this process: the service, and while followed, the contest's feed with one follower
    per seat, an auditor and a spectator."""

    service: ContestService
    contest: str
    seats: list[Seat]
    feed: ContestFeed | None = None
    followers: list[_Follower] = field(default_factory=list)
    commands: int = 0

    @classmethod
    async def open(cls, request: CreateContest) -> Bench:
        # the same dice every run (the seed comes from the service's entropy): the same branches are measured
        service = ContestService(MemoryStore(), snapshot_every=10**9, entropy=lambda size: bytes(range(size)))
        result = await service.create(GM, request)
        return cls(service, result.contest, list(request.seats))

    async def follow(self) -> None:
        """Every seat, an auditor and a spectator follow the contest, as connections that said hello do."""
        feed = ContestFeed(
            self.contest, self.service, self.service.store, ServerMetrics(), Settings(port=0), lambda feed: None
        )
        await feed.start()

        def appended(contest: str, envelopes: Any, before: Any, states: Any) -> None:
            feed.offer(envelopes, before, states)  # as server.backend does with this process's appends

        self.service.on_appended = appended
        actors = [Actor(seat.id, seat.role) for seat in self.seats]
        actors += [Actor(AUDITOR, "auditor"), Actor(SPECTATOR, "spectator")]
        for actor in actors:
            follower = _Follower()
            await feed.attach(follower, actor, actor.role, None)  # type: ignore[arg-type]
            self.followers.append(follower)
        self.feed = feed

    async def leave(self) -> None:
        """Nobody follows the contest any more: a command then costs only its decision, append and fold."""
        if self.feed is not None:
            await self.feed.stop()
        self.feed = None
        self.followers = []
        self.service.on_appended = None

    async def rules(self) -> Any:
        """The contest's rule state now."""
        return (await self.service.load(self.contest))[1].rules

    async def do(self, actor: Actor, command: Any) -> None:
        self.commands += 1
        await self.service.execute(self.contest, actor, f"c{self.commands}", command)

    async def cost(self, actor: Actor, command: Any) -> float:
        """The CPU seconds of one command, its fan-out to every follower included."""
        if self.feed is None:
            raise AssertionError("nobody follows the contest: follow() first")
        version = self.feed.version
        gc.collect()
        started = time.process_time()
        await self.do(actor, command)
        spent = time.process_time() - started
        if self.feed.version <= version:
            raise AssertionError(f"{type(command).__name__}: the feed did not publish the command")
        return spent


Measure = Callable[[str, Actor, Any], Awaitable[None]]
"""Measure one command: what it is called in the rows, who sends it, the command."""


def _seats(contestants: Sequence[str], seats: int) -> list[Seat]:
    """The GM's seat and ``seats`` player seats, the first ones playing a contestant each (a sight each)."""
    players = [
        Seat(_long("p", i, 64), "player", [contestants[i]] if i < len(contestants) else []) for i in range(seats)
    ]
    return [Seat("gm", "gm"), *players]


def _controller(request: CreateContest) -> dict[str, Actor]:
    """Who sends each contestant's commands: the player seat naming it (the GM sends the others')."""
    return {
        one: Actor(seat.id, "player") for seat in request.seats if seat.role == "player" for one in seat.contestants
    }


# --- contingency --------------------------------------------------------------------------------------------


def contingency_request(
    zones: int = c.MAX_ZONES,
    characters: int = c.MAX_CHARACTERS,
    seats: int = SEATS,
    connections: int = c.MAX_CONNECTIONS,
    things: int = c.MAX_THINGS,
    traits: int = c.MAX_TRAITS,
    skills: int = c.MAX_SKILLS,
    actions: int = c.MAX_ACTIONS,
) -> CreateContest:
    """An encounter at the limits, face down: every character in one zone and engaged with every other, every
    connection behind a barrier, every sheet full; the table's last action card a repeatable Triggered one."""
    zone_ids = [_long("z", i, 64) for i in range(zones)]
    kinds: list[c.ActionType] = ["Influence", "Movement", "Interaction", "Combat"]
    attribute, skill_name = _long("at", 0, 80), _long("sk", 0, 80)
    cards = [
        c.ActionDef(name=_long("a", i, 80), type=kinds[i % 4], attribute=attribute, skill=skill_name)
        for i in range(actions - 1)
    ]
    cards.append(c.ActionDef(name=_long("tr", 0, 80), type="Triggered", repeatable=True))
    sheet = [
        c.SkillDice(attribute=_long("at", i, 80), skill=_long("sk", i, 80), dice=[100, 100, 100]) for i in range(skills)
    ]
    people = [
        c.Character(id=_long("k", i, 64), name=_long("K", i, 80), zone=zone_ids[0], skills=sheet)
        for i in range(characters)
    ]
    links = [
        c.Connection(
            a=zone_ids[a], b=zone_ids[b], barrier=c.Barrier(difficulty=5, action=_long("b", a, 80), note="n" * 500)
        )
        for a in range(zones)
        for b in range(a + 1, zones)
    ][:connections]
    setup = c.ContingencySetup(
        zones=[
            c.Zone(id=zone, name=_long("Z", i, 80), traits=[_long("t", t, 80) for t in range(traits)])
            for i, zone in enumerate(zone_ids)
        ],
        characters=people,
        connections=links,
        things=[
            c.Thing(id=_long("th", i, 64), name=_long("T", i, 80), zone=zone_ids[i % zones]) for i in range(things)
        ],
        engagements=[[p.id, q.id] for i, p in enumerate(people) for q in people[i + 1 :]],
        actions=cards,
        intent="face_down",
    )
    return CreateContest(ruleset="contingency", setup=setup, seats=_seats([p.id for p in people], seats), dice="server")


async def contingency(
    measure: Measure,
    bench: Bench,
    request: CreateContest,
    intent: int = c.MAX_INTENT,
    actions: int = c.MAX_ROUND_ACTIONS,
) -> None:
    """A round in which every character announced ``intent`` actions and performed a triggered one until it holds
    ``actions`` (the last character one fewer, to measure one more)."""
    setup = request.setup
    assert isinstance(setup, c.ContingencySetup)
    who = _controller(request)
    people = [p.id for p in setup.characters]
    cards = [a.name for a in setup.actions]
    announced = c.Intent(actions=cards[:intent], note="n" * 500)
    await bench.do(GM, c.OpenIntent())
    for character in people[:-1]:
        await bench.do(who.get(character, GM), Declare(participant=character, payload=announced))
    await bench.follow()
    await measure(
        "seal.declare (the reveal)", who.get(people[-1], GM), Declare(participant=people[-1], payload=announced)
    )
    await bench.leave()

    async def perform(character: str) -> c.Perform:
        """A triggered action, and its penalty taken."""
        command = c.Perform(character=character, action=cards[-1], kind="triggered")
        await bench.do(GM, command)
        rolling = (await bench.rules()).rolling
        if rolling is not None:
            await bench.do(GM, c.TakePenalty(reductions=list(skill.choices(rolling.faces, rolling.penalty)[0])))
        return command

    for i, character in enumerate(people):
        for _ in range(actions - intent - (1 if i == len(people) - 1 else 0)):
            await perform(character)
    await bench.follow()
    await measure("contingency.set_scene", GM, c.SetScene(text="s" * 2000, foreshadow="f" * 2000))
    await measure("contingency.set_target", GM, c.SetTarget(action=f"{people[0]}.1", target=people[1]))
    await measure(
        "contingency.perform", GM, c.Perform(character=people[-1], action=cards[-1], kind="triggered", faces=None)
    )
    rolling = (await bench.rules()).rolling
    if rolling is not None:
        choice = list(skill.choices(rolling.faces, rolling.penalty)[-1])
        await measure("contingency.take_penalty", GM, c.TakePenalty(reductions=choice))
    await measure("contingency.roll (next action)", GM, c.Roll())
    rolling = (await bench.rules()).rolling
    if rolling is not None:
        await bench.do(GM, c.TakePenalty(reductions=list(skill.choices(rolling.faces, rolling.penalty)[0])))
    await measure("contingency.disengage", GM, c.Disengage(a=people[0], b=people[1]))
    await measure("contingency.place", GM, c.Place(character=people[0], zone=setup.zones[1].id))
    await measure("contingency.end_round", GM, c.EndRound())


# --- extended -----------------------------------------------------------------------------------------------


def extended_request(
    contestants: int = MAX_CONTESTANTS, seats: int = SEATS, followers: int = x.MAX_FOLLOWERS
) -> CreateContest:
    """A group contest at the limits: two sides, every contestant with the most followers and the longest names
    (and AP enough that nobody is ever out)."""
    people = [
        x.Contestant(
            id=_long("c", i, 64),
            name=_long("N", i, 200),
            ability=_long("A", i, 200),
            rating="20W2",
            hero_points=100,
            side=f"side{i % 2}",
            followers_ap=1_000_000,
            followers=[x.Follower(name=_long("F", j, 200), rating="1") for j in range(followers)],
        )
        for i in range(contestants)
    ]
    setup = x.ExtendedSetup(prize="p" * 2000, contestants=people)
    return CreateContest(ruleset="extended", setup=setup, seats=_seats([p.id for p in people], seats), dice="server")


async def extended(measure: Measure, bench: Bench, request: CreateContest) -> None:
    """A round whose every contestant targets every opponent, its AP chart full."""
    setup = request.setup
    assert isinstance(setup, x.ExtendedSetup)
    who = _controller(request)
    people = [p.id for p in setup.contestants]
    side = {p.id: p.side for p in setup.contestants}
    intents = {
        one: x.Intent(action="a" * 2000, bid=1, targets=[o for o in people if side[o] != side[one]], daring="daring")
        for one in people
    }
    while (await bench.rules()).exchanges < CHART_POINTS:
        for one in people:
            await bench.do(who.get(one, GM), Declare(participant=one, payload=intents[one]))
        while (await bench.rules()).phase != "declaring":
            await bench.do(GM, x.Roll())
            await bench.do(GM, x.Confirm())
    for one in people[:-1]:
        await bench.do(who.get(one, GM), Declare(participant=one, payload=intents[one]))
    await bench.follow()
    last = people[-1]
    await measure("seal.declare (the reveal)", who.get(last, GM), Declare(participant=last, payload=intents[last]))
    await measure("extended.order_by", GM, x.OrderBy(mode="daring"))
    await measure("extended.roll", GM, x.Roll())
    await measure("extended.confirm", GM, x.Confirm())
    await measure("extended.adjust", GM, x.Adjust(contestant=people[0], delta=-1, reason="r" * 2000))


# --- herowars -----------------------------------------------------------------------------------------------


def herowars_request(seats: int = SEATS) -> CreateContest:
    people = [
        h.Contestant(
            id=_long("c", i, 64),
            name=_long("N", i, 200),
            ability=_long("A", i, 200),
            rating="20W2",
            hero_points=100,
            followers_ap=1_000_000,
        )
        for i in range(2)
    ]
    setup = h.HerowarsSetup(prize="p" * 2000, contestants=people)
    return CreateContest(ruleset="herowars", setup=setup, seats=_seats([p.id for p in people], seats), dice="server")


async def herowars(measure: Measure, bench: Bench, request: CreateContest) -> None:
    """A contest whose AP chart is full."""
    setup = request.setup
    assert isinstance(setup, h.HerowarsSetup)
    who = _controller(request)
    people = [p.id for p in setup.contestants]
    intent = h.Intent(action="a" * 2000, bid=1)
    while (await bench.rules()).exchanges < CHART_POINTS:
        for one in people:
            await bench.do(who[one], Declare(participant=one, payload=intent))
        while (phase := (await bench.rules()).phase) != "declaring":
            await bench.do(GM, h.SettleTie(winner=None) if phase == "tied" else h.Roll())
            if (await bench.rules()).phase == "rolled":
                await bench.do(GM, h.Confirm())
    await bench.do(who[people[0]], Declare(participant=people[0], payload=intent))
    await bench.follow()
    await measure("seal.declare (the reveal)", who[people[1]], Declare(participant=people[1], payload=intent))
    await measure("herowars.roll", GM, h.Roll())
    await measure("herowars.confirm", GM, h.Confirm())
    await measure("herowars.adjust", GM, h.Adjust(contestant=people[0], delta=-1, reason="r" * 2000))


# --- scored -------------------------------------------------------------------------------------------------


def scored_request(contestants: int = MAX_CONTESTANTS, seats: int = SEATS) -> CreateContest:
    """A sequence at the limits: two sides, the longest names."""
    people = [
        s.Contestant(
            id=_long("c", i, 64),
            name=_long("N", i, 200),
            side=f"side{i % 2}",
            ability=_long("A", i, 200),
            rating="20W2",
            story_points=100,
        )
        for i in range(contestants)
    ]
    setup = s.ScoredSetup(prize="p" * 2000, contestants=people)
    return CreateContest(ruleset="scored", setup=setup, seats=_seats([p.id for p in people], seats), dice="server")


async def scored(measure: Measure, bench: Bench, request: CreateContest, points: int = s.CHART_POINTS) -> None:
    """A round after ``points`` resolved contests (assists), so the chart the view shows is full."""
    setup = request.setup
    assert isinstance(setup, s.ScoredSetup)
    who = _controller(request)
    people = [p.id for p in setup.contestants]
    for i in range(points):
        await bench.do(GM, s.Assist(helper=people[2 + i % 2], beneficiary=people[i % 2], action="a" * 2000))
        await bench.do(GM, s.Confirm())
        tallies = (await bench.rules()).tallies
        for one in people[:2]:
            if tallies[one]:  # a failed assist lodged points: taken off again, so nobody leaves the sequence
                await bench.do(GM, s.Adjust(contestant=one, delta=-tallies[one], reason="kept in"))
    await bench.follow()
    await measure("scored.start_round", GM, s.StartRound(initiative=people[0], responder=people[1]))
    tactic = s.Tactic(tactic="gambit", action="a" * 2000)
    await bench.do(who[people[0]], Declare(participant=people[0], payload=tactic))
    await measure("seal.declare (the reveal)", who[people[1]], Declare(participant=people[1], payload=tactic))
    await measure("scored.roll", GM, s.Roll())
    await measure("scored.confirm", GM, s.Confirm())
    await measure("scored.assist", GM, s.Assist(helper=people[3], beneficiary=people[1], action="a" * 2000))
    await measure("scored.confirm (the assist)", GM, s.Confirm())


# --- karbon -------------------------------------------------------------------------------------------------


def karbon_request(seats: int = SEATS) -> CreateContest:
    agent = _long("v", 0, 64)
    setup = k.KarbonSetup(agent=agent, name="N" * 80, fortune=k.MAX_FORTUNE)
    return CreateContest(ruleset="karbon", setup=setup, seats=_seats([agent], seats), dice="server")


async def karbon(measure: Measure, bench: Bench, request: CreateContest) -> None:
    """A contest of the scene: its start, the risk revealed, the roll."""
    setup = request.setup
    assert isinstance(setup, k.KarbonSetup)
    agent = _controller(request)[setup.agent]
    await bench.follow()
    stats = k.StartContest(goal="g" * 200, ability="a" * 200, level=7, challenge=5, consequence=3, peril=2)
    await measure("karbon.start_contest", GM, stats)
    risk = k.Risk(all_in=True, move="m" * 500)
    await measure("seal.declare (the reveal)", agent, Declare(participant=setup.agent, payload=risk))
    await measure("karbon.roll", GM, k.Roll())
    await measure("karbon.adjust", GM, k.Adjust(target="fortune", delta=-1, reason="r" * 500))


# --- every ruleset ------------------------------------------------------------------------------------------

Play = Callable[[Measure, Bench, CreateContest], Awaitable[None]]

WORST_CASES: dict[str, tuple[Callable[[], CreateContest], Play]] = {
    "contingency": (contingency_request, contingency),
    "extended": (extended_request, extended),
    "herowars": (herowars_request, herowars),
    "scored": (scored_request, scored),
    "karbon": (karbon_request, karbon),
}
"""Each ruleset's worst case at the documented limits: the contest's request, and the play that measures it."""


async def measure_ruleset(ruleset: str, request: CreateContest | None = None, **play: Any) -> list[Cost]:
    """The rows of one ruleset's worst case (``request`` and ``play``: other sizes than the documented ones)."""
    build, playing = WORST_CASES[ruleset]
    request = request or build()
    bench = await Bench.open(request)
    rows: list[Cost] = []

    async def measure(command: str, actor: Actor, body: Any) -> None:
        rows.append(Cost(ruleset, command, await bench.cost(actor, body)))

    try:
        await playing(measure, bench, request, **play)
    finally:
        await bench.leave()
    return rows


def costly_commands(rulesets: Sequence[str] | None = None) -> list[Cost]:
    """The CPU seconds of the most expensive commands of each ruleset (all of them by default) at its table
    limits, every seat, the GM, an auditor and a spectator following: one row per command measured."""
    rows: list[Cost] = []
    for ruleset in rulesets or list(WORST_CASES):
        rows += asyncio.run(measure_ruleset(ruleset))
    return rows


if __name__ == "__main__":
    import sys

    for row in costly_commands(sys.argv[1:] or None):
        print(f"{row.ruleset:12} {row.command:34} {row.cpu:6.3f} s")
