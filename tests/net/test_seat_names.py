"""A seat's name, the player's name the GM typed, reaches the pages that show the seat: the seat's own welcome,
and the seats a GM's welcome lists; a seat without one is shown by its id."""

from __future__ import annotations

import json

import msgspec

from clients.python.client import AgonClient
from protocol.common import Seat
from protocol.messages import Follow
from tests.net.conftest import Start
from tests.net.duel import duel


def welcome_of(client: AgonClient) -> dict[str, object]:
    return next(m for m in map(json.loads, client.frames) if m["type"] == "welcome")


async def test_a_seats_name_is_in_its_welcome_and_in_the_gms_list_of_seats(start: Start) -> None:
    server = await start()
    named = msgspec.structs.replace(
        duel(),
        seats=[Seat("gm", "gm"), Seat("ann", "player", ["aria"], name="Ann Aubert"), Seat("bob", "player", ["orc"])],
    )
    gm = await AgonClient.connect(server.ws_url, record_frames=True)
    created = await gm.create(named)
    await gm.follow(created.contest, created.invitations.gm)
    listed = welcome_of(gm)["seats"]
    assert [s.get("name") for s in listed] == [None, "Ann Aubert", None]
    seen = {}
    for seat, token in [*created.invitations.seats.items(), ("~spectator", created.invitations.spectator)]:
        client = await AgonClient.connect(server.ws_url, follow=[Follow(created.contest, token)], record_frames=True)
        seen[seat] = welcome_of(client)
        await client.close()
    assert seen["ann"]["name"] == "Ann Aubert" and seen["ann"]["seats"] is None
    assert "name" not in seen["bob"] and "name" not in seen["~spectator"]
    await gm.close()
