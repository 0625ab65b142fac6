"""The seed's dice and helpers: what a face counts as, the scene's twenty dice, the GM's guides."""

from __future__ import annotations

from protocol.rulesets.karbon import ChallengeGuide, ConsequenceGuide, DieSpec, Result

POOL = ((6, 7), (8, 5), (10, 3))  # the main pool: 7 d6, 5 d8, 3 d10
RESERVE = ((6, 5),)  # the reserve: 5 d6
RISK_DICE = 3  # "all on the line": three d8
EXTRA_SIDES = 8  # risk and peril dice are d8
STACK = 5  # a stack of five chips pays out


def result(face: int) -> Result:
    """1–3 hit, 4–5 miss, 6+ turncoat."""
    if face <= 3:
        return "hit"
    if face <= 5:
        return "miss"
    return "turncoat"


def scene_dice() -> tuple[list[DieSpec], list[DieSpec]]:
    """The main pool and the reserve as a scene starts, every die with its id."""
    pool = [DieSpec(id=f"d{sides}-{n}", sides=sides) for sides, count in POOL for n in range(1, count + 1)]
    reserve = [DieSpec(id=f"r{sides}-{n}", sides=sides) for sides, count in RESERVE for n in range(1, count + 1)]
    return pool, reserve


def challenge(guide: ChallengeGuide) -> int:
    """Determining Challenge: 1/2/3 for an easy/moderate/difficult goal, +1 for a profile, +1 for its
    applicable element, +1 for several opponents or +2 for many, +1 per significant other factor."""
    base = {"easy": 1, "moderate": 2, "difficult": 3}[guide.difficulty]
    opposition = {"one": 0, "several": 1, "many": 2}[guide.opposition]
    return base + int(guide.profile) + int(guide.element) + opposition + guide.factors


def consequence(guide: ConsequenceGuide) -> int:
    """Setting Consequence: minor 1 win, moderate 2, major 3 or more; +1 per profile and per requisite
    asset; +0 to +2 for fictional work."""
    base = {"minor": 1, "moderate": 2, "major": 3}[guide.scope]
    return base + guide.major_extra + guide.profiles + guide.assets + guide.fictional
