"""The poll round of a Redis store, with a stand-in for Redis (the real one: tests/store/test_redis_idle.py): every
tail joined is renewed and told its head each round, a tail that left is not, and a round that fails does not stop
the next."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

from server.store.port import UnavailableError
from server.store.redis_channels import Heard
from server.store.redis_polls import PollRound


class Heads:
    """What Redis would answer: each contest's head, and every call's listings."""

    def __init__(self, heads: dict[str, int], failures: Sequence[Exception] = ()) -> None:
        self.heads = heads
        self.failures = list(failures)
        self.calls: list[list[tuple[str, str]]] = []

    async def renew(self, listed: Sequence[tuple[str, str]]) -> list[int | None]:
        self.calls.append(list(listed))
        if self.failures:
            raise self.failures.pop(0)
        return [self.heads.get(contest) for contest, _ in listed]


async def test_each_round_renews_every_tail_joined_and_tells_it_its_head() -> None:
    redis = Heads({"a": 3, "b": 0})
    rounds = PollRound(redis.renew, 3600)
    a, b, gone = Heard("a"), Heard("b"), Heard("a")
    rounds.join("a", "me", a)
    rounds.join("b", "me", b)
    rounds.join("a", "other", gone)
    rounds.leave("a", "other", gone)
    await rounds.round()
    assert redis.calls == [[("a", "me"), ("b", "me")]]
    assert (a.head, b.head, gone.head) == (3, 0, -1)
    await asyncio.wait_for(a.wait(lambda: 2, None), 1)  # told, as if notified


async def test_a_round_that_fails_does_not_stop_the_next() -> None:
    redis = Heads({"a": 7}, failures=[TypeError("an unexpected reply"), UnavailableError("redis: away")])
    rounds = PollRound(redis.renew, 0.01)
    heard = Heard("a")
    rounds.join("a", "me", heard)
    await asyncio.wait_for(heard.wait(lambda: 0, None), 2)
    assert heard.head == 7 and len(redis.calls) == 3
    await rounds.close()
