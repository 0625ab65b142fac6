"""A contest a connection follows, and as whom: its token's claims and actor, the contest's feed
and its table talk."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass

from protocol.common import Actor
from server.feed.followed import FollowedFeed, Follower
from server.feed.talk import TalkFeed
from server.net.auth import Claims


@dataclass(frozen=True, slots=True)
class Following:
    """A contest this connection follows, and as whom."""

    claims: Claims
    actor: Actor
    feed: FollowedFeed
    expiry: asyncio.TimerHandle  # stops the follow when the token expires
    talk: TalkFeed  # its table talk

    def leave(self, follower: Follower) -> None:
        self.expiry.cancel()
        self.feed.detach(follower)
        self.talk.detach(follower)
