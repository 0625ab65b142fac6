"""Who may spend a hero point on a rolled exchange, and whose answer it waits for: a step up offered only where
it would change what the exchange does (resolving the exchange both ways)."""

from __future__ import annotations

from msgspec.structs import replace

from server.rules.extended import codes
from server.rules.extended.exchange import ExchangeParty, ExchangeResult, Party, resolve_exchange
from server.rules.extended.state import ExtendedState, Rolled
from server.rules.questworlds.hero_points import awaiting
from server.rules.questworlds.levels import Level, bump_up


def resolve(state: ExtendedState, exchange: Rolled, actor_level: Level, defender_level: Level) -> ExchangeResult:
    """The rolled exchange resolved from these (final) results."""
    return resolve_exchange(
        ExchangeParty(actor_level, exchange.actor_face, exchange.actor_value, state.fighters[exchange.actor].edge),
        ExchangeParty(defender_level, exchange.defender_face, exchange.defender_value),
        exchange.bid,
        better_roll=state.better_roll,
        asymmetrical=exchange.kind == "asymmetrical",
    )


def hero_point_matters(state: ExtendedState, exchange: Rolled, contestant: str) -> bool:
    """Whether bumping ``contestant``'s result one step would change what the exchange does: the AP each side
    loses or gains; in an asymmetrical exchange also whether the actor wins (its other goal succeeds); in a
    group contest also whether it is a Fumble-against-Fumble tie (the GM may have both lose ½ the bid). A
    step that only changes who wins an exchange that moves no AP (a stake a handicap cut to 0, against a tie)
    changes nothing."""
    actor_level, defender_level = codes.level(exchange.actor_level), codes.level(exchange.defender_level)
    now = _effect(state, exchange, actor_level, defender_level)
    if contestant == exchange.actor:
        return now != _effect(state, exchange, bump_up(actor_level), defender_level)
    return now != _effect(state, exchange, actor_level, bump_up(defender_level))


def _effect(state: ExtendedState, exchange: Rolled, actor_level: Level, defender_level: Level) -> object:
    """What an exchange with these results does, as far as a hero point could change it."""
    resolved = resolve(state, exchange, actor_level, defender_level)
    moved = {Party.ACTOR: 0, Party.DEFENDER: 0}
    if resolved.winner is not None and resolved.loser is not None:
        moved[resolved.winner] += resolved.winner_gains
        moved[resolved.loser] -= resolved.loser_loses
    asymmetrical_win = exchange.kind == "asymmetrical" and resolved.winner is Party.ACTOR
    group_tie = state.group and actor_level == defender_level == Level.FUMBLE
    return (moved[Party.ACTOR], moved[Party.DEFENDER], asymmetrical_win, group_tie)


def may_spend(state: ExtendedState, exchange: Rolled) -> list[str]:
    """The PCs of the exchange who may still spend a hero point: one left, none used on this exchange yet, and
    a step up that would change the result."""
    if exchange.kind == "unrelated":
        return []
    return [
        c
        for c in (exchange.actor, exchange.defender)
        if state.fighters[c].player
        and state.fighters[c].hero_points > 0
        and c not in exchange.spent
        and c not in exchange.passed
        and hero_point_matters(state, exchange, c)
    ]


def with_waiting(state: ExtendedState, exchange: Rolled) -> Rolled:
    """The exchange with who may spend a hero point and whose answer it waits for brought up to date."""
    eligible = may_spend(state, exchange)
    pcs = [] if exchange.kind == "unrelated" else [c for c in (exchange.actor, exchange.defender) if _pc(state, c)]
    answered = [*exchange.spent, *exchange.passed]
    return replace(exchange, eligible=eligible, waiting=awaiting(state.hero_point_window, pcs, answered, eligible))


def _pc(state: ExtendedState, contestant: str) -> bool:
    fighter = state.fighters.get(contestant)
    return fighter is not None and fighter.player
