"""One command of every contingency type (for tests that send every command a client can send)."""

from __future__ import annotations

from protocol.rulesets import contingency as c

ZONE = c.Zone(id="z", name="Z")


def every_contingency_command() -> list[c.Command]:
    return [
        c.AddZone(zone=ZONE),
        c.RemoveZone(zone="z"),
        c.SplitZone(zone="z", into=[ZONE]),
        c.MergeZones(zones=["z"], into=ZONE),
        c.AddTrait(zone="z", trait="Exposed"),
        c.RemoveTrait(zone="z", trait="Exposed"),
        c.SetModifier(zone="z", modifier=1),
        c.Connect(connection=c.Connection(a="z", b="y")),
        c.Disconnect(a="z", b="y"),
        c.SetBarrier(a="z", b="y", barrier=None),
        c.AddCharacter(character=c.Character(id="k", name="K", zone="z")),
        c.RemoveCharacter(character="k"),
        c.Place(character="k", zone="z"),
        c.Engage(a="k", b="j"),
        c.Disengage(a="k", b="j"),
        c.SetScene(text="dusk"),
        c.OpenIntent(),
        c.Reorder(order=[]),
        c.SetTarget(action="k.1", target="z"),
        c.SetDifficulty(action="k.1", difficulty=3),
        c.Roll(),
        c.Perform(character="k", action="Defend", kind="triggered"),
        c.TakePenalty(reductions=[0, 0, 0]),
        c.Skip(action="k.1"),
        c.ChangeAction(action="k.1", to="Strike"),
        c.RuleOnChange(action="k.1", allow=True),
        c.Move(character="k", path=["z"]),
        c.TakeOmen(character="k", omen="o"),
        c.Environmental(text="rain"),
        c.EndRound(),
    ]
