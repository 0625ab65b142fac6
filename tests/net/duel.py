"""A 1 vs 1 extended contest for network tests: Ann plays Aria (15 AP), Bob plays the Orc (12 AP), no hero
points and the ``when_it_matters`` hero point window, so every roll applies at once (no player is asked to
let it stand). With physical dice the outcomes below are fixed."""

from __future__ import annotations

import typing
from typing import Any

from protocol.common import DiceMode, HeroPointWindow, Seat
from protocol.events import (
    CloseDeclarations,
    Command,
    Conclude,
    CreateContest,
    Declare,
    EngineCommand,
    Redo,
    ReissueSeat,
    Rewind,
    Undo,
)
from protocol.rulesets import extended as x
from protocol.rulesets import herowars as h

ARIA_WINS: list[int | None] = [2, 15]  # Aria's exchange: Aria succeeds, the Orc fails
ORC_FAILS: list[int | None] = [15, 2]  # the Orc's exchange: the Orc fails, Aria succeeds


def duel(dice: DiceMode = "physical", title: str = "Duel at the bridge", contest: str | None = None) -> CreateContest:
    return CreateContest(
        ruleset="extended",
        title=title,
        dice=dice,
        contest=contest,
        setup=x.ExtendedSetup(
            prize="the bridge",
            contestants=[
                x.Contestant(id="aria", name="Aria", ability="Sword", rating="15"),
                x.Contestant(id="orc", name="Orc", ability="Axe", rating="12"),
            ],
            hero_point_window="when_it_matters",
        ),
        seats=[Seat("gm", "gm"), Seat("ann", "player", ["aria"]), Seat("bob", "player", ["orc"])],
    )


def ford(
    hero_points: int = 1,
    *,
    window: HeroPointWindow = "always",
    cap_3x: bool = False,
    title: str = "At the ford",
    contest: str | None = None,
) -> CreateContest:
    """A Hero Wars duel: Ann's Erik, holding ``hero_points``, against Bob's Jonas; physical dice."""
    return CreateContest(
        ruleset="herowars",
        title=title,
        contest=contest,
        dice="physical",
        seats=[Seat("gm", "gm"), Seat("ann", "player", ["erik"]), Seat("bob", "player", ["jonas"])],
        setup=h.HerowarsSetup(
            prize="the ford",
            contestants=[
                h.Contestant(id="erik", name="Erik", ability="Sword", rating="15", hero_points=hero_points),
                h.Contestant(id="jonas", name="Jonas", ability="Spear", rating="15"),
            ],
            cap_3x=cap_3x,
            hero_point_window=window,
        ),
    )


def every_command() -> list[Command]:
    """One command of every type a client can send to an extended contest."""
    commands: list[Command] = [
        Declare(participant="aria", payload=x.Intent(action="sneak", bid=2)),
        CloseDeclarations(),
        Undo(),
        Redo(),
        Rewind(to_version=2),
        Conclude(),
        ReissueSeat(seat="ann"),
        x.SetOrder(order=["orc", "aria"]),
        x.ProposeBid(contestant="aria", bid=2),
        x.AcceptBid(contestant="aria"),
        x.Roll(faces=[2, 15]),
        x.SpendHeroPoint(contestant="aria"),
        x.PassHeroPoint(contestant="aria"),
        x.Confirm(),
        x.PartingShot(contestant="aria"),
        x.Adjust(contestant="aria", delta=1, reason="a spectator's wish"),
        x.OrderBy(mode="daring"),
        x.RankDaring(contestant="aria", daring="reckless"),
        x.Delay(contestant="aria"),
        x.JumpIn(contestant="aria"),
        x.AllowChange(contestant="aria"),
        x.ChangeIntent(contestant="aria", intent=x.Intent(bid=2)),
        x.PassTurn(contestant="aria"),
        x.FinalAction(contestant="aria", faces=[2, 15]),
        x.Disengage(contestant="aria", faces=[2, 15]),
        x.Rejoin(contestant="aria"),
        x.Lend(lender="aria", target="orc", ap=2, faces=[2, 15]),
        x.Gift(giver="a passer-by", rating="12", recipient="aria", bid=2, faces=[2, 15]),
        x.GrantHeroPoints(contestant="aria"),
        x.DeclinePartingShot(contestant="aria"),
    ]
    kinds = {type(c) for c in commands}
    assert kinds == set(_union_members(EngineCommand | x.Command)), "every_command must cover every command type"
    return commands


def _union_members(union: Any) -> list[type[Any]]:
    members: list[type[Any]] = []
    for member in typing.get_args(union):
        if typing.get_args(member):
            members.extend(_union_members(member))
        else:
            members.append(member)
    return members


def ap(doc: dict[str, Any]) -> dict[str, int | None]:
    return {c["id"]: c["ap"] for c in doc["rules"]["contestants"]}
