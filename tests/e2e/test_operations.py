"""What an operator reads: JSON log lines naming contests and commands (never a token or a sealed
payload), and a warning at start when Redis could lose acknowledged events."""

from __future__ import annotations

import json
import uuid
from pathlib import Path

from clients.python.client import AgonClient
from clients.python.errors import Refusal
from protocol.events import Declare
from protocol.messages import Follow
from protocol.rulesets import extended as x
from tests.conftest import RedisServer
from tests.e2e.conftest import ServerFactory
from tests.net.duel import ARIA_WINS, duel

DEPLOY_REDIS = Path(__file__).resolve().parents[2] / "deploy" / "redis.conf"


def log_entries(text: str) -> list[dict[str, object]]:
    """Every JSON log line (the lines `agon serve` prints for people are not log lines)."""
    return [json.loads(line) for line in text.splitlines() if line.startswith("{")]


async def test_json_logs_name_contest_and_command_and_never_a_token_or_a_sealed_intent(
    agon_server: ServerFactory, redis_url: str
) -> None:
    server = agon_server(store=redis_url, env={"AGON_LOG_FORMAT": "json"})
    gm = await AgonClient.connect(server.ws_url)
    created = await gm.create(duel(contest=f"logs-{uuid.uuid4().hex[:8]}"))
    contest, invitations = created.contest, created.invitations
    await gm.follow(contest, invitations.gm)
    ann = await AgonClient.connect(server.ws_url, follow=[Follow(contest, invitations.seats["ann"])])
    bob = await AgonClient.connect(server.ws_url, follow=[Follow(contest, invitations.seats["bob"])])
    sent = {
        "ann": await ann.command(contest, Declare(participant="aria", payload=x.Intent(action="feint", bid=7))),
        "bob": await bob.command(contest, Declare(participant="orc", payload=x.Intent(action="smash", bid=4))),
        "gm": await gm.command(contest, x.Roll(faces=ARIA_WINS)),
    }
    refused_id = uuid.uuid4().hex
    try:
        await ann.command(contest, x.Adjust(contestant="aria", delta=5, reason="cheat"), id=refused_id)
        raise AssertionError("a player adjusted AP")
    except Refusal:
        pass
    for client in (gm, ann, bob):
        await client.close()
    assert server.terminate() == 0
    text = server.output()
    entries = log_entries(text)
    assert entries, text
    assert all({"time", "level", "logger", "message"} <= entry.keys() for entry in entries)
    by_command = {entry["command"]: entry for entry in entries if "command" in entry}
    for ack in sent.values():
        entry = by_command[ack.id]
        assert entry["contest"] == contest
        assert entry["outcome"] == "ok" and entry["version"] == ack.version
    assert by_command[sent["ann"].id]["kind"] == "seal.declare"
    refused = by_command[refused_id]
    assert (refused["contest"], refused["outcome"], refused["code"]) == (contest, "refused", "auth/forbidden")
    secrets = [invitations.gm, invitations.spectator, *invitations.seats.values(), gm.owner or "no owner token"]
    for secret in secrets:
        assert secret not in text
    for sealed in ("feint", "smash"):  # the sealed intents' actions
        assert sealed not in text


async def test_a_server_warns_when_redis_could_lose_acknowledged_events(
    agon_server: ServerFactory, redis_url: str
) -> None:
    # The suite's Redis runs without an append-only file.
    server = agon_server(store=redis_url, env={"AGON_LOG_FORMAT": "json"})
    warnings = [e for e in log_entries(server.output()) if e["level"] == "warning"]
    assert any("appendonly is no" in str(e["message"]) for e in warnings), server.output()


async def test_deploy_redis_conf_is_durable_and_a_server_on_it_does_not_warn(
    agon_server: ServerFactory, tmp_path: Path
) -> None:
    redis = RedisServer(tmp_path / "redis")
    redis.workdir.mkdir()
    redis.config_file = DEPLOY_REDIS
    redis.start()
    try:
        server = agon_server(store=redis.url, env={"AGON_LOG_FORMAT": "json"})
        status, health = server.health()
        assert status == 200, health
        assert [e for e in log_entries(server.output()) if e["level"] == "warning"] == []
        assert (redis.workdir / "appendonly").is_dir()  # the AOF is written
    finally:
        redis.stop()


async def test_a_redis_that_refuses_config_is_served_with_a_warning(agon_server: ServerFactory, tmp_path: Path) -> None:
    redis = RedisServer(tmp_path / "redis")
    redis.workdir.mkdir()
    redis.config_file = tmp_path / "no-config.conf"
    redis.config_file.write_text('rename-command CONFIG ""\n')
    redis.start()
    try:
        server = agon_server(store=redis.url, env={"AGON_LOG_FORMAT": "json"})
        assert server.health()[0] == 200
        warnings = [str(e["message"]) for e in log_entries(server.output()) if e["level"] == "warning"]
        assert any("cannot check persistence" in w for w in warnings), server.output()
    finally:
        redis.stop()
