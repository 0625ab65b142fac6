"""The Redis EventStore: a stream per contest, appended by one Lua script, notified over pub/sub.

Keys of one contest share the hash tag ``{<contest>}`` so they live on one Redis Cluster slot:

- ``agon:{c}:events``  the stream; entry id ``0-<version>``, fields ``id``, ``data``, ``hash`` and ``prev``
- ``agon:{c}:ids``     hash event_id -> version (idempotency index)
- ``agon:{c}:snapshot`` hash with ``version`` and ``data`` (the newest snapshot only)
- ``agon:{c}:secret:<name>`` string
- ``agon:{c}:notify``  channel carrying the new head version after each append that another store listens to
- ``agon:{c}:listeners`` sorted set of the stores whose tails listen to the contest, each scored with the time
  (Redis's clock, ms) its listing expires unless renewed
- ``agon:index:<name>`` set of members of a named index (e.g. the contests of one owner)
- ``agon:contests:{NN}`` the list of contests, sharded into ``BUCKETS`` (64) sorted sets by the CRC-32 of the id;
  ``agon:contests``, the single set earlier versions kept, is still listed (``server.store.redis_contest_list``)
- ``agon:{c}:~<name>:…`` the keys above of the contest's sibling stream ``<c>~<name>`` (its table talk): in the
  contest's hash tag, so on its slot, and removed with it

Against a Redis Cluster (spec ``redis-cluster://HOST:PORT[,HOST:PORT...]``, any of its nodes) the same
keys, script and channels are used through redis-py's cluster client, which follows MOVED / ASK and
failovers; the append script touches only the two keys of one hash tag, so one slot, and notifications use
sharded pub/sub, delivered by the node owning the contest's slot. When the slot moves to another master
(resharding), the old owner drops its sharded subscribers (``sunsubscribe``) and a reader then learns the
slots again and listens on the new owner.

Pub/sub is at-most-once, so a notification only says "read now": tailing readers always read the stream
itself, on start, on any notification newer than what they have, after every reconnect, and whenever the store's
poll round (every ``poll`` seconds, ``POLL``: every tail's listing renewed and its stream's head learnt, in one
round trip to each server; ``server.store.redis_polls``) finds the head past what they hold, or, while Redis has
not confirmed a tail's subscription, its own poll every ``CONFIRM`` seconds does. They can therefore be late,
but never skip or repeat a version. Every tail of a store listens on
one pub/sub connection to the server (in a cluster, one to each node), not on one of its own
(``server.store.redis_channels``).

An append is published only when a store other than the appending one lists itself as listening: a store's
own appends reach its own readers without Redis (they are published from the append), and reading back a
notification nobody needs costs a process as much as a sixth of a command. A tail lists itself after its
subscription is confirmed and before it first reads, and the script checks the listing in the same atomic step
as the append, so an append it does not publish is already in the stream when that reader reads.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import functools
import logging
import uuid
from collections.abc import AsyncIterator, Callable, Sequence
from typing import Any
from urllib.parse import unquote, urlsplit

from redis.asyncio import Redis, RedisCluster
from redis.asyncio.cluster import ClusterNode
from redis.asyncio.retry import Retry
from redis.backoff import NoBackoff
from redis.commands.core import AsyncScript
from redis.exceptions import ClusterError, RedisClusterException, ResponseError
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError

from server.ending import stop_if_cancelled
from server.store import redis_contest_list as contest_list
from server.store.batch import check_batch
from server.store.fanout import PAGE
from server.store.port import (
    CONFLICT_TAIL,
    CONTEST_PAGE,
    SIBLING,
    BehindError,
    ConflictError,
    DuplicateError,
    EventStore,
    Record,
    Snapshot,
    UnavailableError,
    is_sibling,
)
from server.store.readiness import Credentials, Shard, cluster_ready, redis_ready
from server.store.redis_channels import Channels, Heard
from server.store.redis_line import ScriptLine
from server.store.redis_polls import PollRound

log = logging.getLogger(__name__)

POLL = 10.0
"""Seconds between two poll rounds of a store: every tail's listing renewed and its stream's head learnt, all in one
round trip to each Redis server (``server.store.redis_polls``); a tail reads its stream when the head is past what it
holds. A notification is lost only in a failure that Redis does not report by closing the connection (a publish that
failed inside the append script, a cluster bus that lost a classic PUBLISH): the poll bounds how late a reader may
then be. Reading every second, 300 idle tables (each with its talk) cost a process 30 % of a core and Redis 600 reads
a second; each tail polling on its own every 10 s, 4.6 % of a core; in one round, about 2.7 % (``agon bench
idle-tables``, 20 s runs)."""

CONFIRM = 1.0
"""Seconds a tail waits for Redis to confirm its subscription before it reads anyway; until the confirmation comes
it polls at this interval (an append meanwhile may be published before the subscription holds)."""

LISTING = 30.0
"""For how many seconds (at least; three poll intervals if longer) a tail's listing lasts unless renewed: a
store that stops without unlisting its tails is published to until then. The store's poll round renews every
listing it holds."""

LOOPBACK = ("127.0.0.1", "localhost", "::1")
"""The names of this host's loopback interface."""

_NOW_MS = """
local function now_ms()
  local now = redis.call('TIME')
  return tonumber(now[1]) * 1000 + math.floor(tonumber(now[2]) / 1000)
end
"""
"""The Redis server's clock in ms, for the scripts that read the listener sets (listings expire by it)."""

_APPEND = (
    _NOW_MS
    + """
-- KEYS[1]: the contest's stream; KEYS[2]: its event-id index (event_id -> version); KEYS[3]: a flag set for
-- a second after a writer lost a race (a conflict).
-- KEYS[4]: the contest's listener set (store -> when its listing expires, in ms of the server's clock).
-- ARGV[1]: the expected version; then event id, data, hash and prev_hash of each record, in order; then
-- how many stored records a conflict returns; then the appending store's name; last, the command (SPUBLISH or
-- PUBLISH, or '' for none) and the channel that tell readers the new head, in the same round trip, sent only
-- when a store other than the appending one is listed (a failed notification fails nothing: readers poll).
-- Returns {'acked', {versions}} when every id is already stored with the same content (nothing written),
-- {'other', id} when an id is stored with other content, {'duplicate', n} when n but not all ids are
-- stored, {'conflict', head, records after the expected version} when the stream is not at the expected
-- version, {'forked', head} when its head's hash is not the batch's prev_hash, else appends the batch as
-- versions expected+1.. and returns {'appended', head, 1 while another writer lately lost a race, else 0}.
local function field(fields, name)
  for j = 1, #fields, 2 do
    if fields[j] == name then return fields[j + 1] end
  end
  return ''
end
local expected = tonumber(ARGV[1])
local count = (#ARGV - 5) / 4
local stored = {}
for i = 1, count do
  local version = redis.call('HGET', KEYS[2], ARGV[4 * i - 2])
  if version then stored[#stored + 1] = tonumber(version) end
end
if #stored == count then
  for i = 1, count do
    local entry = redis.call('XRANGE', KEYS[1], '0-' .. stored[i], '0-' .. stored[i])
    if #entry == 0 then return {'other', ARGV[4 * i - 2]} end
    local fields = entry[1][2]
    if field(fields, 'data') ~= ARGV[4 * i - 1] or field(fields, 'hash') ~= ARGV[4 * i]
        or field(fields, 'prev') ~= ARGV[4 * i + 1] then
      return {'other', ARGV[4 * i - 2]}
    end
  end
  return {'acked', stored}
end
if #stored > 0 then return {'duplicate', #stored} end
local last = redis.call('XREVRANGE', KEYS[1], '+', '-', 'COUNT', 1)
local head = 0
if #last > 0 then head = tonumber(string.match(last[1][1], '%-(%d+)$')) end
if head ~= expected then
  redis.call('SET', KEYS[3], '1', 'PX', 1000)
  return {'conflict', head, redis.call('XRANGE', KEYS[1], '0-' .. (expected + 1), '+', 'COUNT', ARGV[#ARGV - 3])}
end
if #last > 0 then
  local head_hash = field(last[1][2], 'hash')
  if head_hash ~= '' and head_hash ~= ARGV[5] then return {'forked', head} end
end
for i = 1, count do
  local version = string.format('%d', expected + i)
  redis.call('XADD', KEYS[1], '0-' .. version, 'id', ARGV[4 * i - 2], 'data', ARGV[4 * i - 1],
    'hash', ARGV[4 * i], 'prev', ARGV[4 * i + 1])
  redis.call('HSET', KEYS[2], ARGV[4 * i - 2], version)
end
if ARGV[#ARGV - 1] ~= '' then
  local ms = now_ms()
  local others = redis.call('ZCOUNT', KEYS[4], '(' .. ms, '+inf')
  local mine = redis.call('ZSCORE', KEYS[4], ARGV[#ARGV - 2])
  if mine and tonumber(mine) > ms then others = others - 1 end
  if others > 0 then redis.pcall(ARGV[#ARGV - 1], ARGV[#ARGV], expected + count) end
end
return {'appended', expected + count, redis.call('EXISTS', KEYS[3])}
"""
)

_LIST = (
    _NOW_MS
    + """
-- KEYS[1]: a contest's listener set; KEYS[2]: its stream; ARGV[1]: a store; ARGV[2]: for how many ms it stays
-- listed (0: unlist it). Listings past their time are dropped on the way (a store that stopped without
-- unlisting). Returns the id of the stream's last entry ('0-0' when it has none), so a tail that renews its
-- listing learns in the same round trip whether there is anything to read.
local ms = now_ms()
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ms)
if tonumber(ARGV[2]) > 0 then
  redis.call('ZADD', KEYS[1], ms + tonumber(ARGV[2]), ARGV[1])
else
  redis.call('ZREM', KEYS[1], ARGV[1])
end
local last = redis.call('XREVRANGE', KEYS[2], '+', '-', 'COUNT', 1)
if #last == 0 then return '0-0' end
return last[1][1]
"""
)

_SAVE_SNAPSHOT = """
-- KEYS[1]: the snapshot hash; ARGV[1]: version; ARGV[2]: data. An older snapshot never replaces a newer.
local current = redis.call('HGET', KEYS[1], 'version')
if current and tonumber(current) > tonumber(ARGV[1]) then return 0 end
redis.call('HSET', KEYS[1], 'version', ARGV[1], 'data', ARGV[2])
return 1
"""


ScriptCall = tuple[str, Sequence[str], Sequence[str | int | bytes]]
"""A script's call about one contest: the contest, the keys, the arguments."""


def _listing_keys(contest: str) -> list[str]:
    """The keys of the listing script (``_LIST``): the contest's listener set and its stream."""
    return [_key(contest, "listeners"), _key(contest, "events")]


def _newest(held: int, known: Callable[[], int]) -> int:
    return max(held, known())


def _key(contest: str, suffix: str) -> str:
    """A key of a contest, or of one of its sibling streams (``<contest>~<name>``: ``agon:{<contest>}:~<name>:…``,
    in its contest's hash tag, so on its slot, and removed with it)."""
    owner, tilde, name = contest.partition(SIBLING)
    if tilde:
        return f"agon:{{{owner}}}:{SIBLING}{name}:{suffix}"
    return f"agon:{{{contest}}}:{suffix}"


def _bytes(value: object) -> bytes:
    if isinstance(value, bytes):
        return value
    if isinstance(value, str):
        return value.encode()
    raise TypeError(f"unexpected redis reply {value!r}")


def _version(entry_id: object) -> int:
    return int(_bytes(entry_id).rpartition(b"-")[2])


def _scripted_record(entry: Any) -> Record:
    """A stream entry as a script returns it: its fields a flat list of names and values."""
    entry_id, flat = entry
    return _record((entry_id, dict(zip(flat[::2], flat[1::2], strict=True))))


def _record(entry: Any) -> Record:
    entry_id, fields = entry
    hash_, prev = fields.get(b"hash", b""), fields.get(b"prev", b"")
    return Record(
        _version(entry_id),
        _bytes(fields[b"id"]).decode(),
        _bytes(fields[b"data"]),
        _bytes(hash_).decode(),
        _bytes(prev).decode(),
    )


CLUSTER_SCHEME = "redis-cluster://"


def cluster_nodes(spec: str) -> tuple[list[ClusterNode], Credentials]:
    """The seed nodes of ``redis-cluster://[[USER]:PASSWORD@]HOST:PORT[,HOST:PORT...]`` and whom to log in as: the
    user and password percent-decoded, as ``redis://`` URLs are (a password with ``@``, ``:`` or ``/`` written
    ``%40``, ``%3A``, ``%2F``); a lone ``SECRET@`` is a password, as it always was here."""
    rest = spec.removeprefix(CLUSTER_SCHEME)
    credentials, _, rest = rest.rpartition("@")
    nodes = []
    for host in rest.split("/", 1)[0].split(","):
        parts = urlsplit(f"//{host}")
        if not parts.hostname:
            raise ValueError(f"{_redacted(spec)}: {host!r} is not HOST:PORT")
        nodes.append(ClusterNode(parts.hostname, parts.port or 6379))
    user, colon, password = credentials.partition(":")
    if not colon:
        user, password = "", user
    return nodes, Credentials(unquote(user) or None, unquote(password) or None)


def _redacted(url: str) -> str:
    """The URL without its credentials, for messages."""
    parts = urlsplit(url)
    return parts._replace(netloc=parts.netloc.rpartition("@")[2]).geturl()


COMMANDS = 64
"""The most commands a store has in flight at once; more wait their turn (at most the store's ``timeout``, then
Redis is unavailable for them: a Redis that stops answering refuses a queue of commands within two timeouts, not
one timeout for every ``COMMANDS`` of them). A process may ask about hundreds of contests at once (a crowd's
welcomes after a restart, every contest's presence at a heartbeat): each command in flight holds a connection, and
redis-py's pools refuse a connection past their size (100 by default) at once."""


class RedisStore(EventStore):
    """``poll``: how often tailing readers re-read without a notification. ``sharded_pubsub``: use
    SPUBLISH/SSUBSCRIBE (True) or PUBLISH/SUBSCRIBE (False); None asks the server (sharded from Redis 7).
    Every store talking to one server must make the same choice, which detection guarantees. ``timeout``:
    how many seconds a command waits for Redis's answer before the store calls Redis unavailable. ``commands``:
    how many commands may be in flight at once (``COMMANDS``).

    Connections to Redis (to each node of a cluster): up to ``commands`` for commands, one for appends (on one
    server), and one on which every tail listens (``server.store.redis_channels``)."""

    def __init__(
        self,
        url: str,
        *,
        poll: float = POLL,
        sharded_pubsub: bool | None = None,
        timeout: float = 10.0,
        commands: int = COMMANDS,
    ) -> None:
        self._url = _redacted(url)
        self._poll = poll
        self._commands = asyncio.Semaphore(commands)
        self._timeout = timeout
        self._cluster: RedisCluster | None = None
        self._login = Credentials()  # a cluster's: every connection to one of its nodes logs in as it
        self._client: Redis | RedisCluster
        if url.startswith(CLUSTER_SCHEME):
            nodes, self._login = cluster_nodes(url)
            self._cluster = RedisCluster(
                startup_nodes=nodes,
                username=self._login.username,
                password=self._login.password,
                socket_connect_timeout=5,
                socket_timeout=timeout,
                max_connections=2 * commands,  # to each node: never reached, commands wait their turn first
            )
            self._client = self._cluster
            self._listeners = Redis()  # unused: each tail listens on the node owning its contest's slot
        else:
            # A command on a connection Redis closed (its idle `timeout`, a restart) is sent once more on a fresh
            # one: every command here is a read or idempotent. Not after a timeout, which would double the wait.
            self._client = Redis.from_url(
                url,
                socket_connect_timeout=5,
                socket_timeout=timeout,
                retry=Retry(NoBackoff(), 1, supported_errors=(RedisConnectionError,)),
                max_connections=2 * commands,  # never reached: commands wait their turn first
            )
            # Listeners get no silent retry: a dropped connection must surface so the reader catches up.
            self._listeners = Redis.from_url(url, socket_connect_timeout=5, retry=Retry(NoBackoff(), 0))
        self._append_script = self._client.register_script(_APPEND)
        # On one server, appends go back to back on a connection of their own (a cluster routes each by its slot).
        self._line = None if self._cluster is not None else ScriptLine(url, _APPEND, name=self._url, timeout=timeout)
        self._list_script = self._client.register_script(_LIST)
        self._name = uuid.uuid4().hex  # how this store's tails are listed, and how its appends name it
        self._listing_ms = int(1000 * max(LISTING, 3 * poll))
        self._listed_tails: collections.Counter[tuple[str, str]] = collections.Counter()  # (contest, name)
        self._polls = PollRound(self._list_many, poll)  # renews every tail's listing, tells it its head
        self._channels: Channels | None = None  # on one server: every tail's notifications, on one connection
        self._node_channels: dict[tuple[str, int], Channels] = {}  # in a cluster: the same, one a node
        self._snapshot_script = self._client.register_script(_SAVE_SNAPSHOT)
        self._sharded = sharded_pubsub
        self._closed = False
        self._listed: set[str] = set()  # contests this process has added to the contest list
        self._initializing = asyncio.Lock()
        self._initialized = False

    @contextlib.asynccontextmanager
    async def _reachable(self) -> AsyncIterator[None]:
        """Around a command (one of ``COMMANDS`` in flight at once): a lost or refusing Redis raises
        ``UnavailableError``."""
        if self._closed:
            raise UnavailableError("store is closed")
        if not self._commands.locked():
            await self._commands.acquire()  # a place free: no timer
        else:
            try:
                async with asyncio.timeout(self._timeout):
                    await self._commands.acquire()
            except TimeoutError:
                raise UnavailableError(f"redis {self._url}: no answer to the commands before this one") from None
        try:
            try:
                if self._cluster is not None and not self._initialized:
                    # Learn the slots once before any command: concurrent first commands would each do it.
                    async with self._initializing:
                        if not self._initialized:
                            await self._cluster.initialize()  # the first time; later (a no-op then) ask again:
                            await self._cluster.nodes_manager.initialize()
                            self._initialized = True
                yield
            except (RedisConnectionError, RedisTimeoutError, ClusterError, RedisClusterException, OSError) as error:
                self._initialized = False  # in a cluster: learn the slots again next time (a failover may move them)
                raise UnavailableError(f"redis {self._url}: {error}") from error
        finally:
            self._commands.release()

    async def _sharded_pubsub(self) -> bool:
        """Whether the server has sharded pub/sub (SPUBLISH/SSUBSCRIBE, Redis >= 7)."""
        if self._sharded is None:
            async with self._reachable():
                if self._cluster is not None:
                    info = await self._cluster.info("server", target_nodes=RedisCluster.RANDOM)
                else:
                    info = await self._client.info("server")
            major = str(info.get("redis_version", "0")).split(".")[0]
            self._sharded = major.isdigit() and int(major) >= 7
        return self._sharded

    async def _publishing(self, contest: str) -> list[str]:
        """The command and channel the append script tells readers the new head with."""
        return ["SPUBLISH" if await self._sharded_pubsub() else "PUBLISH", _key(contest, "notify")]

    async def _notify(self, contest: str, head: int) -> None:
        channel = _key(contest, "notify")
        try:
            if await self._sharded_pubsub():
                await self._client.spublish(channel, head)
            else:
                await self._client.publish(channel, head)
        except (UnavailableError, RedisConnectionError, RedisTimeoutError, OSError) as error:
            log.warning("notification for %s at %d not sent (readers will poll): %s", contest, head, error)

    async def append(self, contest: str, records: Sequence[Record], expected_version: int) -> list[int]:
        check_batch(records, expected_version)
        args: list[bytes | str | int] = [expected_version]
        for record in records:
            args += [record.event_id, record.data, record.hash, record.prev_hash]
        args += [CONFLICT_TAIL, self._name, *await self._publishing(contest)]
        keys = [_key(contest, suffix) for suffix in ("events", "ids", "contended", "listeners")]
        reply: list[Any]
        if self._line is not None:
            if self._closed:
                raise UnavailableError("store is closed")
            reply = await self._line(keys, args)
        else:
            async with self._reachable():
                reply = await self._append_script(keys=keys, args=args)
        status = reply[0].decode()
        if status == "conflict":
            raise ConflictError(
                f"{contest} is at version {reply[1]}, not {expected_version}", [_scripted_record(e) for e in reply[2]]
            )
        if status == "forked":
            raise ConflictError(
                f"{contest}: the stored head's hash is not the batch's prev_hash (another history took this version)"
            )
        if status == "other":
            raise ConflictError(f"{contest}: event id {reply[1].decode()} is already stored with other content")
        if status == "duplicate":
            raise DuplicateError(f"{reply[1]} of {len(records)} event ids are already in {contest}")
        versions = [int(v) for v in reply[1]] if status == "acked" else [r.version for r in records]
        # One ZADD to one bucket per contest, not per append; a sibling stream (its talk) is never listed. The list
        # is outside the contest's hash tag, so not in the script (one slot only): added after it, retries included,
        # so a writer that dies between the two is repaired by its retry.
        if (expected_version == 0 or contest not in self._listed) and not is_sibling(contest):
            async with self._reachable():
                await contest_list.add(self._client, contest)
            self._listed.add(contest)
        if status == "acked":  # a retry: the first attempt's notification may never have gone out
            await self._notify(contest, max(versions))
        elif reply[2]:
            # Another writer lost a race for this contest a moment ago: wait one round trip before answering,
            # so that its retry (which already holds what we appended) reaches Redis before our next append.
            # Without it, a writer appending back to back stays one step ahead and starves the other.
            async with self._reachable():
                await self._client.exists(_key(contest, "contended"))
        return versions

    async def read(self, contest: str, after: int = 0, limit: int | None = None) -> list[Record]:
        if limit is not None and limit <= 0:
            return []
        async with self._reachable():
            entries = await self._client.xrange(
                _key(contest, "events"), min=f"0-{max(after, 0) + 1}", max="+", count=limit
            )
        return [_record(entry) for entry in entries or []]

    async def head(self, contest: str) -> int:
        async with self._reachable():
            last = await self._client.xrevrange(_key(contest, "events"), count=1)
        return _version(last[0][0]) if last else 0

    async def find(self, contest: str, event_id: str) -> int | None:
        async with self._reachable():
            version = await self._client.hget(_key(contest, "ids"), event_id)
        return None if version is None else int(version)

    def subscribe(self, contest: str, after: int = 0, known: Callable[[], int] | None = None) -> AsyncIterator[Record]:
        # A reader that holds this store's own appends by other means (``known``) is listed under the store's
        # name, so they are not published for it; any other is listed under a name of its own.
        name = self._name if known is not None else uuid.uuid4().hex
        return self._tail(contest, after, known or (lambda: 0), name)

    async def _tail(self, contest: str, after: int, known: Callable[[], int], name: str) -> AsyncIterator[Record]:
        self._listed_tails[contest, name] += 1
        try:
            async for record in self._listening_tail(contest, after, known, name):
                yield record
        finally:
            self._listed_tails[contest, name] -= 1
            if not self._listed_tails[contest, name]:
                del self._listed_tails[contest, name]
                if not self._closed:  # else close() unlisted it
                    with contextlib.suppress(Exception):
                        await self._list(contest, name, 0)

    async def _listening_tail(
        self, contest: str, after: int, known: Callable[[], int], name: str
    ) -> AsyncIterator[Record]:
        backoff = 0.05
        reconnected = False
        while not self._closed:
            stop_if_cancelled()
            channels: Channels | None = None
            heard: Heard | None = None
            try:
                channels = await self._channels_for(contest)
                heard = await channels.join(_key(contest, "notify"), min(self._poll, CONFIRM))
                head = await self._list(contest, name, self._listing_ms)  # listening first: then listed, then reading
                if reconnected:  # a Redis restarted from a cut file, or a replica promoted, may be behind
                    held, reconnected = max(after, known()), False
                    if held > 0 and head < held:
                        raise BehindError(f"redis came back with {contest} at version {head}, not {held}")
                # Listening now: from here on, read the stream whenever there may be something new. The store's
                # poll round renews the listing and tells the tail a head past the last notification.
                self._polls.join(contest, name, heard)
                while not self._closed:
                    stop_if_cancelled()
                    after = max(after, known())  # what the reader holds already is not read again
                    batch = await self.read(contest, after, PAGE)
                    for record in batch:
                        after = record.version
                        yield record
                    backoff = 0.05
                    holding = functools.partial(_newest, after, known)
                    while len(batch) < PAGE and not self._closed:  # until there may be something new
                        stop_if_cancelled()
                        if heard.confirmed:
                            await heard.wait(holding, None)  # told, by a notification or by the poll round
                            break
                        await heard.wait(holding, min(self._poll, CONFIRM))
                        if heard.head > holding():
                            break  # told
                        # Not yet sure to be told: poll now, learning the head as the listing is renewed.
                        head = await self._list(contest, name, self._listing_ms)
                        if head > holding():
                            break  # appended before the subscription held
            except UnavailableError as error:
                if self._closed:
                    return
                log.info("tail of %s lost redis, retrying in %.2fs: %s", contest, backoff, error)
                reconnected = True
                await asyncio.sleep(backoff)
                backoff = min(backoff * 2, self._poll, CONFIRM)
            finally:
                if channels is not None and heard is not None:
                    self._polls.leave(contest, name, heard)
                    channels.leave(heard)

    async def _channels_for(self, contest: str) -> Channels:
        """Where a tail of ``contest`` listens: the server's channels, or in a cluster those of the node now owning
        the contest's slot (asked again after every lost connection, so a failover moves the tail with the slot)."""
        if self._cluster is None:
            if self._channels is None:
                self._channels = Channels(self._url, self._listeners, self._sharded_pubsub)
            return self._channels
        return self._channels_at(*await self._node_of(contest))

    async def _node_client(self, contest: str) -> Redis:
        """A client of the server, or in a cluster a new one of the node now owning the contest's slot (for its
        caller to close)."""
        if self._cluster is None:
            return self._listeners
        return self._node(*await self._node_of(contest))

    def _node(self, host: str, port: int) -> Redis:
        """A new client of one node of the cluster, without silent retries (a lost connection must surface)."""
        return self._login.node(host, port, socket_connect_timeout=5, retry=Retry(NoBackoff(), 0))

    async def _node_of(self, contest: str) -> tuple[str, int]:
        """In a cluster, the node owning the contest's slot, as this process knows it (the slots learnt again
        after a lost connection)."""
        await self._slots_known()
        return self._slot_node(contest)

    async def _slots_known(self) -> None:
        """In a cluster, the slots are known (learnt again after a lost connection)."""
        async with self._reachable():
            pass

    def _slot_node(self, contest: str) -> tuple[str, int]:
        """The node owning the contest's slot, as the slots were last learnt (``_slots_known`` first)."""
        assert self._cluster is not None
        try:
            node = self._cluster.get_node_from_key(_key(contest, "notify"))
        except (ClusterError, RedisClusterException, IndexError):
            node = None
        if node is None:
            raise UnavailableError(f"redis {self._url}: no node serves the slot of {contest}")
        return str(node.host), int(node.port)

    async def _list(self, contest: str, name: str, ms: int) -> int:
        """List ``name`` as listening to ``contest`` for ``ms`` more milliseconds (0: unlist it); the contest's
        head version."""
        async with self._reachable():
            return await self._listing(contest, name, ms)

    async def _listing(self, contest: str, name: str, ms: int) -> int:
        """``_list`` as it is, without the store's checks (a closing store unlists its tails)."""
        last = await self._list_script(keys=_listing_keys(contest), args=[name, ms])
        return _version(last)

    async def _list_many(self, listed: Sequence[tuple[str, str]]) -> list[int | None]:
        """Renew the listings ``listed`` ((contest, name) each) for ``LISTING`` seconds more: each contest's head
        version (None where it could not be renewed: a cluster node away, a slot just moved)."""
        calls: list[ScriptCall] = [
            (contest, _listing_keys(contest), [name, self._listing_ms]) for contest, name in listed
        ]
        replies = await self.scripts(self._list_script, calls)
        return [None if isinstance(reply, Exception) else _version(reply) for reply in replies]

    async def scripts(self, script: AsyncScript, calls: Sequence[ScriptCall]) -> list[Any]:
        """Run ``script`` once for each call (its contest, keys and arguments): each call's reply, or the exception
        it met (``UnavailableError`` for a node that could not be reached, a ``ResponseError`` where a slot just
        moved). One round trip to a server; in a cluster, one to each node holding some of the contests, all at
        once (a script touches one slot)."""
        replies: list[Any] = [None] * len(calls)
        client = self._client
        if not isinstance(client, RedisCluster):
            await self._scripts_on(client, script, calls, range(len(calls)), replies)
            return replies
        await self._slots_known()  # once for the round, not once a call
        nodes: dict[tuple[str, int], list[int]] = {}
        for index, (contest, _, _) in enumerate(calls):
            nodes.setdefault(self._slot_node(contest), []).append(index)
        on_nodes = [
            self._scripts_on(self._channels_at(*node).client, script, calls, at, replies) for node, at in nodes.items()
        ]
        for at, failure in zip(nodes.values(), await asyncio.gather(*on_nodes, return_exceptions=True), strict=True):
            if isinstance(failure, UnavailableError):
                for index in at:
                    replies[index] = failure
            elif isinstance(failure, BaseException):
                raise failure
        moved = [index for index, reply in enumerate(replies) if isinstance(reply, ResponseError)]
        if moved:  # a slot this process placed on a node that no longer holds it (MOVED, ASK): the cluster's way
            self._relearn()
            await asyncio.gather(*(self._script_again(script, calls[index], index, replies) for index in moved))
        return replies

    async def _script_again(self, script: AsyncScript, call: ScriptCall, index: int, replies: list[Any]) -> None:
        """One call on its own, through the cluster's client (which follows a moved slot): its reply into
        ``replies[index]``, or the exception it met."""
        _, keys, args = call
        try:
            async with self._reachable():
                replies[index] = await script(keys=keys, args=args)
        except (UnavailableError, ResponseError) as error:
            replies[index] = error

    async def _scripts_on(
        self,
        client: Redis,
        script: AsyncScript,
        calls: Sequence[ScriptCall],
        indexes: Sequence[int],
        replies: list[Any],
    ) -> None:
        """The calls ``calls[i]`` for each ``i`` of ``indexes``, in one round trip to ``client``'s server: their
        replies into ``replies[i]``."""
        async with self._reachable():
            pipe = client.pipeline(transaction=False)
            for index in indexes:
                _, keys, args = calls[index]
                await script(keys=keys, args=args, client=pipe)
            try:
                async with asyncio.timeout(self._timeout):  # a node's client has no timeout of its own
                    answered = await pipe.execute(raise_on_error=False)
            except TimeoutError:
                raise UnavailableError(f"redis {self._url}: no answer to a round of {len(indexes)} calls") from None
        for index, reply in zip(indexes, answered, strict=True):
            replies[index] = reply

    def _channels_at(self, host: str, port: int) -> Channels:
        """The channels of one node of the cluster, and the client they listen with (made when first needed)."""
        channels = self._node_channels.get((host, port))
        if channels is None:
            client = self._node(host, port)
            channels = Channels(f"{host}:{port}", client, self._sharded_pubsub, lambda error: self._relearn())
            self._node_channels[host, port] = channels
        return channels

    @property
    def on_loopback(self) -> bool:
        """Whether every node named in the store's URL is on this host (so are the processes sharing it)."""
        if self._cluster is not None:
            hosts = [str(node.host) for node in cluster_nodes(self._url)[0]]
        else:
            hosts = [urlsplit(self._url).hostname or "localhost"]
        return all(host in LOOPBACK for host in hosts)

    @property
    def client(self) -> Redis | RedisCluster:
        """The store's client (for what runs beside the store on the same Redis: ``server.store.redis_bus``)."""
        return self._client

    def reachable(self) -> contextlib.AbstractAsyncContextManager[None]:
        """Around a command: a lost or refusing Redis raises ``UnavailableError``."""
        return self._reachable()

    async def save_snapshot(self, contest: str, snapshot: Snapshot) -> None:
        async with self._reachable():
            await self._snapshot_script(keys=[_key(contest, "snapshot")], args=[snapshot.version, snapshot.data])

    async def load_snapshot(self, contest: str) -> Snapshot | None:
        async with self._reachable():
            version, data = await self._client.hmget(_key(contest, "snapshot"), ["version", "data"])
        return None if version is None or data is None else Snapshot(int(version), _bytes(data))

    async def delete_snapshots(self, contest: str) -> None:
        async with self._reachable():
            await self._client.delete(_key(contest, "snapshot"))

    async def save_secret(self, contest: str, name: str, value: bytes) -> None:
        async with self._reachable():
            await self._client.set(_key(contest, f"secret:{name}"), value)

    async def load_secret(self, contest: str, name: str) -> bytes | None:
        async with self._reachable():
            value = await self._client.get(_key(contest, f"secret:{name}"))
        return None if value is None else _bytes(value)

    async def contests_page(self, after: str = "", limit: int = CONTEST_PAGE) -> list[str]:
        async with self._reachable():
            return await contest_list.page(self._client, after, limit)

    async def count_contests(self) -> int:
        async with self._reachable():
            return await contest_list.count(self._client)

    async def index_add(self, index: str, member: str) -> None:
        async with self._reachable():
            await self._client.sadd(f"agon:index:{index}", member)

    async def index_members(self, index: str) -> list[str]:
        async with self._reachable():
            members = await self._client.smembers(f"agon:index:{index}")
        return sorted(_bytes(member).decode() for member in members)

    async def durability(self) -> list[str]:
        """Why acknowledged events could be lost on this Redis (every primary of a cluster): empty when the
        append-only file is on and fsynced before each answer. A server that refuses CONFIG GET (renamed
        command, ACL) cannot be checked, which is said rather than assumed either way."""
        if self._cluster is None:
            servers: list[tuple[str, Redis]] = [(self._url, self._client)]  # type: ignore[list-item]
        else:
            async with self._reachable():
                primaries = self._cluster.get_primaries()
            servers = [
                (f"{node.host}:{node.port}", self._login.node(str(node.host), int(node.port))) for node in primaries
            ]
        warnings: list[str] = []
        try:
            for name, server in servers:
                warnings += await _durability_of(name, server, self._reachable)
        finally:
            for _, server in servers:
                if server is not self._client:
                    await server.aclose()
        return warnings

    async def remove(self, contest: str) -> None:
        pattern = _key(contest, "*")
        server = await self._node_client(contest)  # in a cluster: the node owning the contest's slot
        async with self._reachable():
            try:
                keys = [key async for key in server.scan_iter(match=pattern)]
            finally:
                if server is not self._listeners:
                    await server.aclose()
            for key in keys:  # one by one: in a cluster, a multi-key DEL must stay in one slot anyway
                await self._client.delete(key)
            await contest_list.remove(self._client, contest)

    async def ping(self) -> None:
        async with self._reachable():
            await self._client.ping()

    async def ready(self, timeout: float = 2.0) -> list[Shard]:
        if self._closed:
            return [Shard(self._url, "store is closed")]
        if self._cluster is not None:
            return await cluster_ready(
                self._cluster, "cluster", self._name, self._reachable, timeout, self._login, self._relearn
            )
        return await redis_ready(self._client, self.shard(""), self._name, self._reachable, timeout)  # type: ignore[arg-type]

    def _relearn(self) -> None:
        """Learn the cluster's slots again before the next command (a failover may have moved them)."""
        self._initialized = False

    def shard(self, contest: str) -> str:
        """``host:port`` of the server, or in a cluster of the primary this process last knew for the contest's slot."""
        if self._cluster is None:
            return urlsplit(self._url).netloc or self._url
        try:
            node = self._cluster.get_node_from_key(_key(contest, "events"))
        except Exception:  # slots not learnt yet, or a slot no primary serves
            node = None
        return "cluster" if node is None else str(node.name)

    async def close(self) -> None:
        if self._closed:
            return
        listed = list(self._listed_tails)
        self._closed = True
        await self._polls.close()
        with contextlib.suppress(Exception):  # best effort: a listing left behind expires by itself
            async with asyncio.timeout(1.0):
                for contest, name in listed:
                    await self._listing(contest, name, 0)
        if self._line is not None:
            await self._line.close()
        for channels in (self._channels, *self._node_channels.values()):
            if channels is None:
                continue
            await channels.close()  # a tail waiting on one ends now
            if channels.client is not self._listeners:
                await channels.client.aclose()
        await self._listeners.aclose()
        await self._client.aclose()


async def _durability_of(
    name: str, server: Redis, reachable: Callable[[], contextlib.AbstractAsyncContextManager[None]]
) -> list[str]:
    advice = "set appendonly yes and appendfsync always (see deploy/redis.conf)"
    try:
        async with reachable():
            config = await server.config_get("append*")
    except ResponseError as error:
        return [f"redis {name}: cannot check persistence (CONFIG GET refused: {error}); make sure to {advice}"]
    settings = {_bytes(k).decode(): _bytes(v).decode() for k, v in config.items()}
    appendonly, appendfsync = settings.get("appendonly", "?"), settings.get("appendfsync", "?")
    if appendonly != "yes":
        return [
            f"redis {name}: appendonly is {appendonly}: acknowledged events are lost if Redis stops "
            f"(snapshots keep only some); {advice}"
        ]
    if appendfsync == "everysec":
        return [
            f"redis {name}: appendfsync is everysec: a crash of the host can lose the last second of "
            f"acknowledged events; {advice}"
        ]
    if appendfsync != "always":
        return [
            f"redis {name}: appendfsync is {appendfsync}: a crash of the host can lose acknowledged events; {advice}"
        ]
    return []
