"""Announcing Intent: sealed, public or face down; changing a face-down action costs the GM's penalty."""

from __future__ import annotations

import pytest

from protocol.codec import encode
from protocol.errors import FOREIGN, Refused
from protocol.events import Declare, Rewind
from protocol.rulesets import contingency as c
from server.engine.names import naming
from server.engine.views import viewer_for
from server.feed.notices import notice_frame
from server.rules.contingency import codes
from server.rules.contingency.catalogue import DEFAULT_ACTIONS
from tests.rules.contingency.table import ANN, BOB, GM, SPECTATOR, Table, encounter

SECRET = "Feint"  # action cards only Rook holds
AMBUSH = "Ambush"
COMMON = ["Strike", "Shoot", "Parley", "Taunt", "Reposition", "Defend"]
ACTIONS = [
    c.ActionDef(SECRET, "Influence"),
    c.ActionDef(AMBUSH, "Combat"),
    *(a for a in DEFAULT_ACTIONS if a.name in COMMON),
]


def _table(mode: c.IntentMode) -> Table:
    return Table(
        encounter(
            [c.Zone(id="camp", name="Camp"), c.Zone(id="road", name="Road")],
            [
                c.Character(id="ann_pc", name="Rook", zone="camp", actions=[SECRET, AMBUSH, *COMMON]),
                c.Character(id="bob_pc", name="Wren", zone="camp", actions=COMMON),
                c.Character(id="bandit", name="Bandit", zone="road", actions=COMMON),
            ],
            [c.Connection(a="camp", b="road")],
            players={"ann": ["ann_pc"], "bob": ["bob_pc"]},
            intent=mode,
            actions=ACTIONS,
            players_type_faces=True,
        )
    )


def _received(table: Table, actor: object, first: int = 0) -> bytes:
    """Every notice (naming what it names as the server does) and the view this actor would receive, as bytes."""
    viewer = viewer_for(actor, table.contest.created.seats)  # type: ignore[arg-type]
    out = [encode(table.view(actor))]  # type: ignore[arg-type]
    from server.engine.contest import fold

    before = None
    for envelope in table.log:
        rules_before = before.rules if before is not None else None
        after = fold(table.rules, [envelope], before)
        if envelope.version > first:
            named = naming(table.rules, table.contest.created.seats, rules_before, after.rules)
            frame = notice_frame(table.rules, rules_before or after.rules, envelope, viewer, named, "c")
            out.append(frame or b"")
        before = after
    return b"\n".join(out)


def test_face_down_intent_shows_others_only_the_type_until_it_resolves() -> None:
    table = _table("face_down")
    table.announce({"ann_pc": (ANN, [SECRET, AMBUSH]), "bob_pc": (BOB, ["Reposition"]), "bandit": (GM, ["Shoot"])})
    for viewer in (BOB, SPECTATOR):
        seen = table.view(viewer).rules.actions
        mine = [a for a in seen if a.character == "ann_pc"]
        assert [(a.type, a.name) for a in mine] == [("Influence", None), ("Combat", None)]
        assert SECRET.encode() not in _received(table, viewer) and AMBUSH.encode() not in _received(table, viewer)
        assert b"Influence" in _received(table, viewer)
    for viewer in (ANN, GM):
        assert SECRET.encode() in _received(table, viewer) and AMBUSH.encode() in _received(table, viewer)
    # the owner sees its own, Bob his own
    assert [a.name for a in table.view(BOB).rules.actions if a.character == "bob_pc"] == ["Reposition"]

    # Influence resolves first: the card is turned over and everyone sees its name; the second stays down
    rolled = table.events(table.do(ANN, c.Roll(faces=[5, 5, 5])))[0]
    assert rolled.name == SECRET
    for viewer in (BOB, SPECTATOR):
        mine = [(a.name, a.status) for a in table.view(viewer).rules.actions if a.character == "ann_pc"]
        assert mine == [(SECRET, "resolved"), (None, "planned")]
        assert SECRET.encode() in _received(table, viewer)
        assert AMBUSH.encode() not in _received(table, viewer)
    assert [a.name for a in table.view(ANN).rules.actions if a.character == "ann_pc"] == [SECRET, AMBUSH]


def test_a_skipped_face_down_card_is_never_turned_over() -> None:
    table = _table("face_down")
    table.announce({"ann_pc": (ANN, [SECRET, "Strike"]), "bob_pc": (BOB, []), "bandit": (GM, [])})
    first = table.contest.version
    assert table.refused(BOB, c.Skip(action="ann_pc.1")) == codes.NOT_YOUR_CHARACTER
    table.do(ANN, c.Skip(action="ann_pc.1"))
    for viewer in (BOB, SPECTATOR):
        mine = [(a.type, a.name, a.status) for a in table.view(viewer).rules.actions if a.character == "ann_pc"]
        assert mine == [("Influence", None, "skipped"), ("Combat", None, "planned")]
        assert SECRET.encode() not in _received(table, viewer)
        assert b"Rook cannot perform its face-down Influence action" in _received(table, viewer, first)
    for viewer in (ANN, GM):
        assert [a.name for a in table.view(viewer).rules.actions if a.character == "ann_pc"] == [SECRET, "Strike"]
        assert b"Rook cannot perform Feint" in _received(table, viewer, first)

    # her next card, changed (with the GM's leave) to another only she holds, is skipped too
    table.do(ANN, c.ChangeAction(action="ann_pc.2", to=AMBUSH))
    table.do(GM, c.RuleOnChange(action="ann_pc.2", allow=True, penalty=1))
    table.do(GM, c.Skip(action="ann_pc.2"))
    assert table.state.phase == "environment"
    for viewer in (BOB, SPECTATOR):
        assert [a.name for a in table.view(viewer).rules.actions] == [None, None]
        shown = _received(table, viewer)
        assert SECRET.encode() not in shown and AMBUSH.encode() not in shown
    assert AMBUSH.encode() in _received(table, ANN, first)

    # rewound to before the skips, the cards are down again; the undone lines still name nothing
    table.do(GM, Rewind(to_version=first))
    assert [(a.name, a.status) for a in table.view(BOB).rules.actions] == [(None, "planned"), (None, "planned")]
    for viewer in (BOB, SPECTATOR):
        shown = _received(table, viewer)
        assert SECRET.encode() not in shown and AMBUSH.encode() not in shown


def test_a_removed_characters_face_down_cards_stay_face_down() -> None:
    table = _table("face_down")
    table.announce({"ann_pc": (ANN, [SECRET]), "bob_pc": (BOB, ["Strike"]), "bandit": (GM, [])})
    table.do(GM, c.RemoveCharacter(character="ann_pc"))
    table.do(BOB, c.Roll(faces=[5, 5, 5]))  # the round goes on without her
    for viewer in (BOB, SPECTATOR):
        assert SECRET.encode() not in _received(table, viewer)
        assert [(a.name, a.status) for a in table.view(viewer).rules.actions if a.character == "ann_pc"] == [
            (None, "planned")
        ]


def test_public_intent_shows_every_name_at_the_reveal() -> None:
    table = _table("public")
    table.announce({"ann_pc": (ANN, [SECRET]), "bob_pc": (BOB, []), "bandit": (GM, [])})
    assert [a.name for a in table.view(SPECTATOR).rules.actions] == [SECRET]
    assert SECRET.encode() in _received(table, SPECTATOR)


def test_intent_is_sealed_until_everyone_has_announced() -> None:
    table = _table("public")
    table.do(GM, c.OpenIntent())
    table.do(ANN, Declare(participant="ann_pc", payload=c.Intent(actions=[SECRET])))
    assert SECRET.encode() not in _received(table, BOB)
    assert SECRET.encode() in _received(table, ANN)


def test_changing_a_face_down_action_takes_the_gms_penalty() -> None:
    table = _table("face_down")
    table.announce({"ann_pc": (ANN, ["Strike"]), "bob_pc": (BOB, []), "bandit": (GM, [])})
    first = len(table.log)
    table.do(ANN, c.ChangeAction(action="ann_pc.1", to=SECRET))
    assert table.refused(ANN, c.ChangeAction(action="ann_pc.1", to="Parley")) == codes.CHANGE_PENDING
    assert SECRET.encode() not in _received(table, BOB, first) and SECRET.encode() in _received(table, ANN, first)
    assert table.refused(ANN, c.RuleOnChange(action="ann_pc.1", allow=True, penalty=2)) == "auth/forbidden"
    table.do(GM, c.RuleOnChange(action="ann_pc.1", allow=True, penalty=2))
    assert table.view(BOB).rules.actions[0].name is None and table.view(BOB).rules.actions[0].change_penalty == 2
    rolled = table.events(table.do(ANN, c.Roll(faces=[9, 9, 9])))[0]
    assert (rolled.name, rolled.penalty) == (SECRET, 2)  # the first action of the round, with the GM's 2


def test_a_refused_change_keeps_the_action_and_costs_nothing() -> None:
    table = _table("face_down")
    table.announce({"ann_pc": (ANN, ["Strike"]), "bob_pc": (BOB, []), "bandit": (GM, [])})
    table.do(ANN, c.ChangeAction(action="ann_pc.1", to="Shoot"))
    table.do(GM, c.RuleOnChange(action="ann_pc.1", allow=False, penalty=3))
    rolled = table.events(table.do(ANN, c.Roll(faces=[9, 9, 9])))[0]
    assert (rolled.name, rolled.penalty) == ("Strike", 0)


@pytest.mark.parametrize("mode", ["public", "face_down"])
def test_a_change_asked_for_is_its_players_and_the_gms_in_either_mode(mode: c.IntentMode) -> None:
    from server.audit import render_replay

    table = _table(mode)
    table.announce({"ann_pc": (ANN, ["Strike"]), "bob_pc": (BOB, []), "bandit": (GM, [])})
    first = len(table.log)
    table.do(ANN, c.ChangeAction(action="ann_pc.1", to=SECRET))
    table.do(GM, c.RuleOnChange(action="ann_pc.1", allow=False))  # refused: the card is never played
    for viewer in (BOB, SPECTATOR):
        assert SECRET.encode() not in _received(table, viewer, first)
        assert b"asks to change to another action" in _received(table, viewer, first)
    for viewer in (ANN, GM):
        assert SECRET.encode() in _received(table, viewer, first)
    for shape in ("text", "markdown", "json"):
        assert SECRET not in render_replay(table.log, None, "player:bob", shape), shape
        assert SECRET in render_replay(table.log, None, "player:ann", shape), shape


def _refusal(table: Table, actor: object, command: object) -> tuple[str, str]:
    try:
        table.do(actor, command)  # type: ignore[arg-type]
    except Refused as refused:
        return refused.code, refused.message
    raise AssertionError(f"{command} was accepted")


def test_a_refused_card_does_not_tell_whether_someone_else_holds_it() -> None:
    """Only Rook holds Feint; nobody holds Fireball: Wren's player, naming either, is told the same."""
    table = _table("public")
    table.do(GM, c.OpenIntent())

    def told(commands: list[object], name: str) -> list[tuple[str, str]]:
        return [(code, message.replace(name, "?")) for code, message in (_refusal(table, BOB, k) for k in commands)]

    def intent(name: str) -> list[object]:
        return [Declare(participant="bob_pc", payload=c.Intent(actions=["Strike", name]))]

    assert told(intent(SECRET), SECRET) == told(intent("Fireball"), "Fireball")
    assert told(intent(SECRET), SECRET)[0][0] == codes.UNKNOWN_ACTION
    table.announce({"ann_pc": (ANN, []), "bob_pc": (BOB, ["Strike", "Shoot"]), "bandit": (GM, [])})
    table.do(BOB, c.Roll(faces=[9, 9, 9]))  # Strike resolves with an omen; Shoot is still to come

    def later(name: str) -> list[object]:
        return [
            c.ChangeAction(action="bob_pc.2", to=name),
            c.Perform(character="bob_pc", action=name, kind="triggered"),
            c.Perform(character="bob_pc", action=name, kind="instant"),
            c.TakeOmen(character="bob_pc", omen="Edge", grants=name),
        ]

    assert told(later(SECRET), SECRET) == told(later("Fireball"), "Fireball")
    assert {code for code, _ in told(later(SECRET), SECRET)} == {codes.UNKNOWN_ACTION}


def test_the_same_action_twice_is_refused_unless_instant_or_repeatable() -> None:
    table = _table("public")
    table.do(GM, c.OpenIntent())
    twice = Declare(participant="ann_pc", payload=c.Intent(actions=["Strike", "Strike"]))
    assert table.refused(ANN, twice) == codes.REPEATED_ACTION
    unknown = Declare(participant="ann_pc", payload=c.Intent(actions=["Intimidate"]))
    assert table.refused(ANN, unknown) == codes.UNKNOWN_ACTION
    shown = Declare(participant="ann_pc", payload=c.FaceDownIntent(types=["Combat"]))
    assert table.refused(ANN, shown) == FOREIGN

    not_mine = Declare(participant="bob_pc", payload=c.Intent(actions=[SECRET]))
    assert table.refused(BOB, not_mine) == codes.UNKNOWN_ACTION

    flurry = c.ActionDef(name="Flurry", type="Combat", repeatable=True)
    repeatable = Table(
        encounter(
            [c.Zone(id="camp", name="Camp")],
            [c.Character(id="ann_pc", name="Rook", zone="camp")],
            players={"ann": ["ann_pc"]},
            actions=[flurry, c.ActionDef(name="Strike", type="Combat")],
        )
    )
    repeatable.announce({"ann_pc": (ANN, ["Flurry", "Flurry"])})
    assert [a.name for a in repeatable.view(ANN).rules.actions] == ["Flurry", "Flurry"]


def test_the_gm_reorders_and_ties_go_by_announcement() -> None:
    table = _table("public")
    table.do(GM, c.OpenIntent())
    table.do(BOB, Declare(participant="bob_pc", payload=c.Intent(actions=["Strike"])))
    table.do(ANN, Declare(participant="ann_pc", payload=c.Intent(actions=["Shoot", "Taunt"])))
    table.do(GM, Declare(participant="bandit", payload=c.Intent(actions=["Reposition"])))
    order = [a.id for a in table.view(GM).rules.actions]
    # Influence, Movement, then Combat; Bob announced before Ann
    assert order == ["ann_pc.2", "bandit.1", "bob_pc.1", "ann_pc.1"]
    table.do(ANN, c.SetTarget(action="ann_pc.1", target="ann_pc"))  # acting where she stands: close
    table.do(BOB, c.SetTarget(action="bob_pc.1", target="bandit"))  # near
    assert [a.id for a in table.view(GM).rules.actions][2:] == ["ann_pc.1", "bob_pc.1"]
    assert table.refused(GM, c.Reorder(order=["bob_pc.1"])) == codes.BAD_ORDER
    table.do(GM, c.Reorder(order=["bob_pc.1", "ann_pc.2", "ann_pc.1", "bandit.1"]))
    assert table.view(SPECTATOR).rules.next_action == "bob_pc.1"
    assert table.refused(ANN, c.Roll(action="ann_pc.2", faces=[3, 3, 3])) == codes.OUT_OF_TURN


def test_a_replay_as_another_player_shows_face_down_intent_as_types() -> None:
    from server.audit import render_replay

    table = _table("face_down")
    table.announce({"ann_pc": (ANN, [SECRET, AMBUSH]), "bob_pc": (BOB, []), "bandit": (GM, [])})
    table.do(ANN, c.Skip(action="ann_pc.1"))
    for shape in ("text", "markdown", "json"):
        shown = render_replay(table.log, None, "player:bob", shape)
        assert "Rook: face down: Influence, Combat" in shown and SECRET not in shown, shape
        assert "Rook cannot perform its face-down Influence action" in shown and AMBUSH not in shown, shape
        assert SECRET in render_replay(table.log, None, "player:ann", shape)


def test_what_a_player_says_with_a_face_down_intent_stays_theirs() -> None:
    table = _table("face_down")
    table.do(GM, c.OpenIntent())
    said = "circle-behind-the-wagon"
    table.do(ANN, Declare(participant="ann_pc", payload=c.Intent(actions=["Strike"], note=said)))
    table.do(BOB, Declare(participant="bob_pc", payload=c.Intent(actions=[])))
    table.do(GM, Declare(participant="bandit", payload=c.Intent(actions=[])))
    assert said.encode() not in _received(table, BOB) and said.encode() not in _received(table, SPECTATOR)
    assert said.encode() in _received(table, ANN)

    public = _table("public")
    public.do(GM, c.OpenIntent())
    public.do(ANN, Declare(participant="ann_pc", payload=c.Intent(actions=["Strike"], note=said)))
    assert said.encode() not in _received(public, BOB)  # sealed until the reveal
    public.do(BOB, Declare(participant="bob_pc", payload=c.Intent(actions=[])))
    public.do(GM, Declare(participant="bandit", payload=c.Intent(actions=[])))
    assert said.encode() in _received(public, BOB)  # public mode: revealed with the intent


def test_a_face_down_omens_grant_is_named_to_others_only_when_it_is_played() -> None:
    """Rook's Feint resolves with an omen, taken to grant her Ambush as an Instant action: Wren's player and
    spectators learn that she took the omen, not which card it grants, until she performs it."""
    table = _table("face_down")
    table.announce({"ann_pc": (ANN, [SECRET]), "bob_pc": (BOB, []), "bandit": (GM, [])})
    table.do(ANN, c.Roll(faces=[9, 9, 9]))
    first = table.contest.version
    table.do(ANN, c.TakeOmen(character="ann_pc", omen="Opening", grants=AMBUSH))
    for viewer in (BOB, SPECTATOR):
        rook = next(k for k in table.view(viewer).rules.characters if k.id == "ann_pc")
        assert rook.granted == []
        shown = _received(table, viewer, first)
        assert AMBUSH.encode() not in shown
        assert b"Rook takes the omen Opening" in shown
    for viewer in (ANN, GM):
        rook = next(k for k in table.view(viewer).rules.characters if k.id == "ann_pc")
        assert rook.granted == [AMBUSH]
        assert b"takes the omen Opening, granting Ambush" in _received(table, viewer, first)

    table.do(ANN, c.Perform(character="ann_pc", action=AMBUSH, kind="instant", faces=[5, 5, 5]))
    for viewer in (BOB, SPECTATOR):
        assert AMBUSH.encode() in _received(table, viewer, first)  # played: turned over for everyone


def test_a_public_omens_grant_is_everyones() -> None:
    table = _table("public")
    table.announce({"ann_pc": (ANN, [SECRET]), "bob_pc": (BOB, []), "bandit": (GM, [])})
    table.do(ANN, c.Roll(faces=[9, 9, 9]))
    table.do(ANN, c.TakeOmen(character="ann_pc", omen="Opening", grants=AMBUSH))
    rook = next(k for k in table.view(SPECTATOR).rules.characters if k.id == "ann_pc")
    assert rook.granted == [AMBUSH]
