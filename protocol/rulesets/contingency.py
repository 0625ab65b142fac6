"""Public types of the `contingency` ruleset (Contingency RPG combat): setup, commands, events, view.

An encounter is one log. It runs in rounds (Setting the Scene → Announcing Intent → Resolving Actions →
Environmental Actions) over a graph of zones until the GM concludes it.
"""

from __future__ import annotations

from typing import Annotated, Literal

import msgspec

from protocol.common import Dice, Id

ActionType = Literal["Influence", "Movement", "Interaction", "Combat", "Triggered"]
Range = Literal["engaged", "close", "near", "far", "distant"]
IntentMode = Literal["public", "face_down"]
OmenRule = Literal["per_roll", "per_die"]
Phase = Literal["scene", "intent", "resolving", "environment"]
ActionStatus = Literal["planned", "rolled", "resolved", "skipped"]

# Every text a client sends is bounded here, at decoding: a longer one gets ``protocol/bad_field`` naming the
# field, and the encounter never grows by more than a line or a paragraph a command.
Name = Annotated[str, msgspec.Meta(max_length=80)]
"""A name: of a zone, a character, a thing, an action card, an attribute, a skill, a trait, an omen; an action id."""
Note = Annotated[str, msgspec.Meta(max_length=500)]
Text = Annotated[str, msgspec.Meta(max_length=2000)]
"""The scene, its foreshadowing, an environmental action."""

# What one table holds (docs/rules/contingency.md, "Table limits"): a battle map a GM keeps in view, far beyond
# any combat a table plays, and small enough that every viewer's view (the whole map, every character, the range
# between every two of them and the round's actions) is built, encoded and diffed for every seat at once well
# within a frame's budget. The setup and every change that adds to the map are refused beyond them by the rules
# (``contest/bad_setup``, ``rules/table_full``); the lists a command carries are refused at decoding.
MAX_ZONES = 32
MAX_CHARACTERS = 24
MAX_CONNECTIONS = 64
MAX_THINGS = 32
MAX_TRAITS = 8
"""Per zone."""
MAX_ACTIONS = 32
"""The table's action cards (and so any character's hand)."""
MAX_SKILLS = 16
"""Attribute and skill pairs on one character's sheet."""
MAX_INTENT = 8
"""Actions one character announces for a round."""
MAX_ROUND_ACTIONS = 12
"""Actions one character performs in a round: announced, triggered and instant together."""
MAX_ENVIRONMENTAL = 16
"""Environmental actions in a round."""


class _Msg(msgspec.Struct, frozen=True, forbid_unknown_fields=True, tag_field="type"):
    pass


class _Part(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    pass


# --- the setup ------------------------------------------------------------------------------------------


class ActionDef(_Part, frozen=True):
    """An action the table plays, with its type (the back of its action card)."""

    name: Name
    type: ActionType
    instant: bool = False  # the Instant trait: part of the action it follows, no penalty, may repeat
    repeatable: bool = False  # a talent or condition lets it be performed more than once a round
    attribute: Name | None = None  # the attribute and skill it is rolled with, unless a roll names others
    skill: Name | None = None


class Barrier(_Part, frozen=True):
    """What stands in a connection: crossing it takes ``action`` rolled against ``difficulty``."""

    difficulty: int
    action: Name  # e.g. "Leap" (a movement action crosses) or "Lockpick" (an interaction action opens it)
    note: Note = ""


class Zone(_Part, frozen=True):
    """An area of the map. ``forced_to`` (the Forced Movement trait: "forcing the players to make a movement
    action each round or be swept downstream"): at the end of each round everyone standing in the zone who
    performed no Movement action that round is placed there. A step is movement but no action ("Taking a step
    does count as movement, but is not considered a standalone action"): a character that stepped into the
    zone, or engaged or reached something within it, is swept unless it also performed a Movement action;
    one that stepped out is no longer in it."""

    id: Id
    name: Name
    traits: list[Name] = []
    modifier: int = 0  # movement modifier: extra movement points to move into, out of or across it
    forced_to: Id | None = None  # Forced Movement: who takes no movement action is swept into this zone


class Connection(_Part, frozen=True):
    a: Id
    b: Id
    barrier: Barrier | None = None


class SkillDice(_Part, frozen=True):
    """The sizes of the three dice a character rolls with one attribute and one skill."""

    attribute: Name
    skill: Name
    dice: list[int]


class Character(_Part, frozen=True):
    id: Id
    name: Name
    zone: Id
    dice: list[int] = msgspec.field(default_factory=lambda: [10, 10, 10])  # a roll with no attribute and skill
    actions: list[Name] = []  # its action cards (names from the table's actions); empty: all of them
    skills: list[SkillDice] = []  # its dice per attribute and skill (a roll made with them uses these sizes)


class Thing(_Part, frozen=True):
    """A device or object in a zone, which a character can step to."""

    id: Id
    name: Name
    zone: Id


class ContingencySetup(_Msg, frozen=True, tag="contingency.setup"):
    zones: list[Zone]
    characters: list[Character]
    connections: list[Connection] = []
    things: list[Thing] = []
    engagements: list[list[Id]] = []  # pairs of character ids engaged at the start
    actions: list[ActionDef] = []  # the table's actions; empty: the actions the rules text names
    intent: IntentMode = "public"  # face_down: others see only each action's type until it resolves
    omens: OmenRule = "per_roll"
    omen_at: int = 8  # a die showing this or more after penalties gives an omen
    players_type_faces: bool = False  # physical dice: players may type in the faces of their own rolls


# --- the sealed declaration -----------------------------------------------------------------------------


class Intent(_Msg, frozen=True, tag="contingency.intent"):
    """The actions a character announces for the round, in order, without their targets; ``note``: what
    the player says they are about (free text, revealed with the intent; face down, never shown to others)."""

    actions: list[Name]
    note: Note = ""


class FaceDownIntent(_Msg, frozen=True, tag="contingency.face_down"):
    """What others see of a face-down intent at the reveal: only each action's type (never declared)."""

    types: list[ActionType]


# --- commands: the landscape (GM, at any time) ----------------------------------------------------------


class AddZone(_Msg, frozen=True, tag="contingency.add_zone"):
    zone: Zone
    connections: Annotated[list[Connection], msgspec.Meta(max_length=MAX_CONNECTIONS)] = []


class RemoveZone(_Msg, frozen=True, tag="contingency.remove_zone"):
    """Remove a zone; everyone in it is placed by the GM (``placements``: character → zone)."""

    zone: Id
    placements: dict[Id, Id] = {}


class SplitZone(_Msg, frozen=True, tag="contingency.split_zone"):
    """Split a zone into smaller ones. Without ``connections`` the parts join each other and every
    neighbour of the old zone (keeping its barriers). Everyone in it is placed (``placements``)."""

    zone: Id
    into: Annotated[list[Zone], msgspec.Meta(max_length=MAX_ZONES)]
    placements: dict[Id, Id] = {}
    connections: Annotated[list[Connection], msgspec.Meta(max_length=MAX_CONNECTIONS)] | None = None


class MergeZones(_Msg, frozen=True, tag="contingency.merge_zones"):
    """Combine zones into one: everyone in them stands in it; it keeps their outside connections."""

    zones: Annotated[list[Id], msgspec.Meta(max_length=MAX_ZONES)]
    into: Zone


class AddTrait(_Msg, frozen=True, tag="contingency.add_trait"):
    zone: Id
    trait: Name


class RemoveTrait(_Msg, frozen=True, tag="contingency.remove_trait"):
    zone: Id
    trait: Name


class SetModifier(_Msg, frozen=True, tag="contingency.set_modifier"):
    zone: Id
    modifier: int
    forced_to: Id | None = None


class Connect(_Msg, frozen=True, tag="contingency.connect"):
    connection: Connection


class Disconnect(_Msg, frozen=True, tag="contingency.disconnect"):
    a: Id
    b: Id


class SetBarrier(_Msg, frozen=True, tag="contingency.set_barrier"):
    """Create, alter (``barrier``) or destroy (None) the barrier of a connection."""

    a: Id
    b: Id
    barrier: Barrier | None


class AddCharacter(_Msg, frozen=True, tag="contingency.add_character"):
    character: Character


class RemoveCharacter(_Msg, frozen=True, tag="contingency.remove_character"):
    character: Id


class Place(_Msg, frozen=True, tag="contingency.place"):
    """GM: put a character in a zone (forced movement, a fall, someone joining)."""

    character: Id
    zone: Id


class Engage(_Msg, frozen=True, tag="contingency.engage"):
    a: Id
    b: Id


class Disengage(_Msg, frozen=True, tag="contingency.disengage"):
    a: Id
    b: Id


# --- commands: the round --------------------------------------------------------------------------------


class SetScene(_Msg, frozen=True, tag="contingency.set_scene"):
    """GM: describe the scene and foreshadow what may come this round."""

    text: Text
    foreshadow: Text = ""


class OpenIntent(_Msg, frozen=True, tag="contingency.open_intent"):
    """GM: the scene is set; every character announces its intent (sealed)."""


class Reorder(_Msg, frozen=True, tag="contingency.reorder"):
    """GM: the order in which the actions still to resolve are resolved (action ids, all of them)."""

    order: list[Name]


class SetTarget(_Msg, frozen=True, tag="contingency.set_target"):
    """Name the target of an announced action (a character, a zone or a thing)."""

    action: Name
    target: Id


class SetDifficulty(_Msg, frozen=True, tag="contingency.set_difficulty"):
    """GM: the difficulty of an announced action (Easy 3, Tricky 5, Hard 6, or any number)."""

    action: Name
    difficulty: int


class Step(_Part, frozen=True):
    """Taking a step with an action: into an adjacent zone, to engage someone, or to reach a thing. It is
    movement but no Movement action: it does not keep a character in a Forced Movement zone from being swept
    (see ``Zone``)."""

    zone: Id | None = None
    engage: Id | None = None
    reach: Id | None = None


class Roll(_Msg, frozen=True, tag="contingency.roll"):
    """Resolve an action: the next one (``action`` None) or the one named. Physical dice: ``faces``.
    ``attribute`` and ``skill``: what it is rolled with, if not the action's own (the dice's sizes)."""

    action: Name | None = None
    step: Step | None = None
    faces: list[int] | None = None
    attribute: Name | None = None
    skill: Name | None = None


class Perform(_Msg, frozen=True, tag="contingency.perform"):
    """Perform an action now: a Triggered action when its trigger is met, or an Instant action right
    after the character's last action (an Instant-trait action, or one an omen grants)."""

    character: Id
    action: Name
    kind: Literal["triggered", "instant"]
    target: Id | None = None
    difficulty: int | None = None
    faces: list[int] | None = None
    attribute: Name | None = None
    skill: Name | None = None


class TakePenalty(_Msg, frozen=True, tag="contingency.take_penalty"):
    """How the rolled action's penalty is taken: points off each die, in the order rolled ("Each penalty
    either reduces a single dice result's face value by 2 or the face value result of two dice by 1. Each dice
    can only be reduced down to a minimum of 1."). Any split whose points add up is made of such units; no
    die goes below 1. When the dice cannot take the whole penalty they lose all they can above 1 and the rest
    is dropped (faces 2, 1, 1 under −2: the 2 loses 1). A roll with only one way to take the penalty (none,
    or a split the dice force) resolves without this command."""

    reductions: list[int]


class Skip(_Msg, frozen=True, tag="contingency.skip"):
    """The character cannot perform this action (not a failed roll): it is turned over unresolved."""

    action: Name


class ChangeAction(_Msg, frozen=True, tag="contingency.change_action"):
    """A player asks to change an announced action; the GM sets the penalty."""

    action: Name
    to: Name


class RuleOnChange(_Msg, frozen=True, tag="contingency.rule_on_change"):
    """GM: allow the asked change with a penalty (points, taken like the multi-action penalty), or not."""

    action: Name
    allow: bool
    penalty: int = 0


class Move(_Msg, frozen=True, tag="contingency.move"):
    """Spend the movement points of the character's last Reposition along a path of zones."""

    character: Id
    path: Annotated[list[Id], msgspec.Meta(max_length=MAX_ZONES)]


class TakeOmen(_Msg, frozen=True, tag="contingency.take_omen"):
    """Spend an omen of the character's last roll on a named benefit."""

    character: Id
    omen: Name
    repeatable: bool = False
    grants: Name | None = None  # an action this omen lets the character perform as an Instant action


class Environmental(_Msg, frozen=True, tag="contingency.environmental"):
    """GM: an environmental action at the end of the round."""

    text: Text


class EndRound(_Msg, frozen=True, tag="contingency.end_round"):
    """GM: end the round (the forced-movement zones sweep) and set the next scene."""


Command = (
    AddZone
    | RemoveZone
    | SplitZone
    | MergeZones
    | AddTrait
    | RemoveTrait
    | SetModifier
    | Connect
    | Disconnect
    | SetBarrier
    | AddCharacter
    | RemoveCharacter
    | Place
    | Engage
    | Disengage
    | SetScene
    | OpenIntent
    | Reorder
    | SetTarget
    | SetDifficulty
    | Roll
    | Perform
    | TakePenalty
    | Skip
    | ChangeAction
    | RuleOnChange
    | Move
    | TakeOmen
    | Environmental
    | EndRound
)


# --- events ---------------------------------------------------------------------------------------------


class ZoneAdded(_Msg, frozen=True, tag="contingency.zone_added"):
    zone: Zone
    connections: list[Connection]


class ZoneRemoved(_Msg, frozen=True, tag="contingency.zone_removed"):
    zone: str
    placements: dict[str, str]


class ZoneSplit(_Msg, frozen=True, tag="contingency.zone_split"):
    zone: str
    into: list[Zone]
    connections: list[Connection]  # every connection of the parts
    placements: dict[str, str]


class ZonesMerged(_Msg, frozen=True, tag="contingency.zones_merged"):
    zones: list[str]
    into: Zone
    connections: list[Connection]  # every connection of the merged zone


class TraitAdded(_Msg, frozen=True, tag="contingency.trait_added"):
    zone: str
    trait: str


class TraitRemoved(_Msg, frozen=True, tag="contingency.trait_removed"):
    zone: str
    trait: str


class ModifierSet(_Msg, frozen=True, tag="contingency.modifier_set"):
    zone: str
    modifier: int
    forced_to: str | None


class Connected(_Msg, frozen=True, tag="contingency.connected"):
    connection: Connection


class Disconnected(_Msg, frozen=True, tag="contingency.disconnected"):
    a: str
    b: str


class BarrierSet(_Msg, frozen=True, tag="contingency.barrier_set"):
    a: str
    b: str
    barrier: Barrier | None


class CharacterAdded(_Msg, frozen=True, tag="contingency.character_added"):
    character: Character


class CharacterRemoved(_Msg, frozen=True, tag="contingency.character_removed"):
    character: str


class Placed(_Msg, frozen=True, tag="contingency.placed"):
    character: str
    zone: str
    reason: Literal["gm", "swept", "crossed"] = "gm"


class Engaged(_Msg, frozen=True, tag="contingency.engaged"):
    a: str
    b: str


class Disengaged(_Msg, frozen=True, tag="contingency.disengaged"):
    a: str
    b: str


class RoundStarted(_Msg, frozen=True, tag="contingency.round_started"):
    """Setting the Scene of a round begins."""

    round: int


class SceneSet(_Msg, frozen=True, tag="contingency.scene_set"):
    text: str
    foreshadow: str


class IntentOpened(_Msg, frozen=True, tag="contingency.intent_opened"):
    """Announcing Intent: the sealed window ``round-<n>`` is open for ``expected``."""

    round: int
    expected: list[str]


class OrderSet(_Msg, frozen=True, tag="contingency.order_set"):
    order: list[str]


class TargetSet(_Msg, frozen=True, tag="contingency.target_set"):
    action: str
    target: str


class DifficultySet(_Msg, frozen=True, tag="contingency.difficulty_set"):
    action: str
    difficulty: int


class StepTaken(_Msg, frozen=True, tag="contingency.step_taken"):
    character: str
    action: str
    step: Step


class ActionRolled(_Msg, frozen=True, tag="contingency.action_rolled"):
    """An action resolves: its card is turned over (the name is public from here) and the dice rolled."""

    action: str  # the action id; "<character>.<n>" for announced actions
    character: str
    name: str
    action_type: ActionType
    kind: Literal["announced", "triggered", "instant"]
    target: str | None
    difficulty: int | None
    penalty: int  # points to take off the dice: −2 per earlier action this round, plus a change penalty
    dice: Dice
    attribute: str | None = None  # rolled with (None: the character's default dice)
    skill: str | None = None


class ActionResolved(_Msg, frozen=True, tag="contingency.action_resolved"):
    """The dice after the penalty, the result (the middle die), omens and success."""

    action: str
    character: str
    reductions: list[int]
    faces: list[int]  # after the penalty
    result: int
    omens: int
    success: bool | None  # None: no difficulty was set


class ActionSkipped(_Msg, frozen=True, tag="contingency.action_skipped"):
    """The character cannot perform an action. A skipped card is never turned over: face down, everyone but
    its player and the GM gets ``name`` None and sees only ``action_type``."""

    action: str
    character: str
    name: str | None
    action_type: ActionType | None = None  # None only in events stored before it was recorded


class ChangeAsked(_Msg, frozen=True, tag="contingency.change_asked"):
    """A player asks to change an action; ``to`` and its type are hidden from all but its player and the GM."""

    action: str
    to: str | None
    action_type: ActionType | None


class ChangeRuled(_Msg, frozen=True, tag="contingency.change_ruled"):
    action: str
    allow: bool
    penalty: int


class Moved(_Msg, frozen=True, tag="contingency.moved"):
    character: str
    path: list[str]
    cost: int  # movement points spent


class OmenTaken(_Msg, frozen=True, tag="contingency.omen_taken"):
    character: str
    omen: str
    repeatable: bool
    grants: str | None


class PhaseChanged(_Msg, frozen=True, tag="contingency.phase_changed"):
    phase: Phase


class EnvironmentalActed(_Msg, frozen=True, tag="contingency.environmental_acted"):
    text: str


class RoundEnded(_Msg, frozen=True, tag="contingency.round_ended"):
    round: int


Event = (
    ZoneAdded
    | ZoneRemoved
    | ZoneSplit
    | ZonesMerged
    | TraitAdded
    | TraitRemoved
    | ModifierSet
    | Connected
    | Disconnected
    | BarrierSet
    | CharacterAdded
    | CharacterRemoved
    | Placed
    | Engaged
    | Disengaged
    | RoundStarted
    | SceneSet
    | IntentOpened
    | OrderSet
    | TargetSet
    | DifficultySet
    | StepTaken
    | ActionRolled
    | ActionResolved
    | ActionSkipped
    | ChangeAsked
    | ChangeRuled
    | Moved
    | OmenTaken
    | PhaseChanged
    | EnvironmentalActed
    | RoundEnded
)


# --- what a viewer sees ---------------------------------------------------------------------------------


class ZoneView(msgspec.Struct, frozen=True):
    id: str
    name: str
    traits: list[str]
    modifier: int
    forced_to: str | None
    characters: list[str]
    things: list[str]


class CharacterView(msgspec.Struct, frozen=True):
    id: str
    name: str
    zone: str
    engaged_with: list[str]
    controlled_by_you: bool
    actions_taken: int  # actions performed this round (each adds −2 to the next)
    stepped: bool
    movement_points: int | None  # left from this round's Reposition
    omens: int  # omens of the last roll not yet taken
    granted: list[str]  # actions an omen taken lets it perform as Instant actions now
    dice: list[int]  # the sizes of a roll made with no attribute and skill
    skills: list[str]  # "attribute/skill" pairs it has dice for (a roll names one with attribute and skill)
    skill_dice: dict[str, list[int]] = {}  # the sizes of the three dice of each of ``skills``


class ActionView(msgspec.Struct, frozen=True):
    id: str
    character: str
    type: ActionType
    name: str | None  # None: face down and not turned over, planned or skipped (only its type shows)
    status: ActionStatus
    target: str | None
    difficulty: int | None
    change_penalty: int
    change_asked: str | None  # the action asked for (shown to its player and the GM)
    result: int | None
    success: bool | None


class RollView(msgspec.Struct, frozen=True):
    """A rolled action waiting for its player to choose how to take the penalty."""

    action: str
    character: str
    faces: list[int]
    sides: list[int]
    penalty: int


class ContingencyView(msgspec.Struct, frozen=True, tag_field="type", tag="contingency.view"):
    round: int
    phase: Phase
    intent_mode: IntentMode
    scene: str
    foreshadow: str
    zones: list[ZoneView]
    connections: list[Connection]
    characters: list[CharacterView]
    things: list[Thing]
    ranges: dict[str, dict[str, Range]]  # between every two characters
    actions: list[ActionView]  # this round's, in the order they resolve (resolved first)
    next_action: str | None
    rolling: RollView | None
    last: ActionResolved | None
    environmental: list[str]
    catalogue: list[ActionDef]  # the action cards of the characters you play (all of them for the GM)
    last_sides: list[int] = []  # the sizes of ``last``'s dice, in the order of its faces
