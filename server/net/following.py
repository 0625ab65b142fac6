"""A contest a connection follows, and as whom: its token's claims, its actor and viewer, the contest's feed
and its table talk."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass

from protocol.common import Actor
from server.engine.ruleset import Viewer
from server.feed.fanout import ContestFeed, Follower
from server.net.auth import Claims
from server.net.talk import TalkFeed


@dataclass(frozen=True, slots=True)
class Following:
    """A contest this connection follows, and as whom."""

    claims: Claims
    actor: Actor
    viewer: Viewer
    feed: ContestFeed
    expiry: asyncio.TimerHandle  # stops the follow when the token expires
    talk: TalkFeed  # its table talk

    def leave(self, follower: Follower) -> None:
        self.expiry.cancel()
        self.feed.detach(follower)
        self.talk.detach(follower)
