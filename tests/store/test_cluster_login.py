"""A Redis Cluster whose operator gives Agon a user of its own (Redis ACLs) and a password with the URL's own
characters in it, percent-encoded as in a ``redis://`` URL: every connection to every node logs in as that user."""

from __future__ import annotations

import uuid
from typing import TYPE_CHECKING
from urllib.parse import quote

import pytest
import redis

from server.store import Record, UnavailableError
from server.store.readiness import Credentials
from server.store.redis import RedisStore, cluster_nodes

if TYPE_CHECKING:
    from tests.conftest import RedisClusterServers

USER = "agon-ops"
PASSWORD = "p@ss:w/rd%2F#?"  # every character with a meaning in a URL, and a percent sign of its own


@pytest.mark.parametrize(
    ("written", "login"),
    [
        ("", Credentials()),
        (":secret@", Credentials(None, "secret")),
        ("secret@", Credentials(None, "secret")),  # the form this URL always took for a password alone
        (f"{USER}:{quote(PASSWORD, safe='')}@", Credentials(USER, PASSWORD)),
        (f"{quote('ops@site', safe='')}:x@", Credentials("ops@site", "x")),
    ],
)
def test_the_cluster_url_names_its_user_and_password_percent_decoded(written: str, login: Credentials) -> None:
    nodes, said = cluster_nodes(f"redis-cluster://{written}10.0.0.1:6379,10.0.0.2:7000")
    assert said == login
    assert [(node.host, node.port) for node in nodes] == [("10.0.0.1", 6379), ("10.0.0.2", 7000)]


async def test_a_cluster_user_of_its_own_writes_reads_and_is_ready(redis_cluster: RedisClusterServers) -> None:
    admins = [redis.Redis(host="127.0.0.1", port=node.port) for node in redis_cluster.nodes]
    for admin in admins:  # ACLs are each node's own
        admin.acl_setuser(
            USER, enabled=True, passwords=[f"+{PASSWORD}"], keys=["*"], channels=["*"], commands=["+@all"]
        )
    hosts = ",".join(f"127.0.0.1:{node.port}" for node in redis_cluster.nodes)
    store = RedisStore(f"redis-cluster://{USER}:{quote(PASSWORD, safe='')}@{hosts}")
    wrong = RedisStore(f"redis-cluster://{USER}:not-it@{hosts}", timeout=2)
    try:
        contest = f"login-{uuid.uuid4().hex}"
        assert await store.append(contest, [Record(1, "e1", b"first")], 0) == [1]
        assert [r.data for r in await store.read(contest)] == [b"first"]
        shards = await store.ready()
        assert len(shards) == len(redis_cluster.nodes) and all(shard.ready for shard in shards), shards
        users = {client["user"] for admin in admins for client in admin.client_list()}
        assert USER in users  # logged in as the operator's user, not as the default one
        with pytest.raises(UnavailableError):
            await wrong.append(contest, [Record(2, "e2", b"second")], 1)
        assert not any(shard.ready for shard in await wrong.ready())
        assert [r.version for r in await store.read(contest)] == [1]  # nothing the wrong login tried was written
    finally:
        await store.close()
        await wrong.close()
        for admin in admins:
            admin.acl_deluser(USER)
            admin.close()
