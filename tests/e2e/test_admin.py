"""`agon admin` on a real Redis behind a real server: list contests with state and size, archive a
concluded one (export, verify, remove; `agon import` brings it back), and rotate the token secret without
logging anyone out."""

from __future__ import annotations

import json
import time
import uuid
from pathlib import Path

import msgspec
import pytest

from clients.python.client import AgonClient, Refusal
from protocol.messages import Follow
from server.service import ContestService
from server.store import Record, open_store
from tests.conftest import RedisServer
from tests.e2e.conftest import ServerFactory
from tests.e2e.test_import import agon, played
from tests.engine.table import GM
from tests.engine.table import duel as table_duel
from tests.net.duel import duel


async def test_admin_lists_then_archives_a_concluded_contest_that_import_brings_back(
    agon_server: ServerFactory, private_redis: RedisServer, tmp_path: Path
) -> None:
    redis_url = private_redis.url  # a Redis of its own: the listing shows every contest stored there, and no other
    server = agon_server(store=redis_url)
    finished, _ = await played(server.ws_url)
    gm = await AgonClient.connect(server.ws_url)
    running = (await gm.create(duel(contest=f"running-{uuid.uuid4().hex[:8]}"))).contest
    await gm.close()

    listed = agon("admin", "list", "--store", redis_url, "--json", cwd=tmp_path)
    assert listed.returncode == 0, listed.stderr
    rows = {row["contest"]: row for row in map(json.loads, listed.stdout.splitlines())}
    assert (rows[finished]["state"], rows[running]["state"]) == ("concluded", "running")
    assert rows[finished]["ruleset"] == "extended" and rows[finished]["events"] > rows[running]["events"] >= 2
    assert rows[finished]["bytes"] > rows[running]["bytes"] > 0
    table = agon("admin", "list", "--store", redis_url, cwd=tmp_path).stdout
    assert any(line.split()[:3] == [running, "extended", "running"] for line in table.splitlines())

    not_a_folder = tmp_path / "taken"
    not_a_folder.write_text("")
    refused = agon("admin", "archive", finished, "--to", str(not_a_folder), "--store", redis_url, cwd=tmp_path)
    assert refused.returncode != 0 and f"--to {not_a_folder}: not a folder" in refused.stderr
    assert "Traceback" not in refused.stderr

    archives = tmp_path / "backups" / "agon"  # not there yet: archiving creates it, parents and all
    refused = agon("admin", "archive", running, "--to", str(archives), "--store", redis_url, cwd=tmp_path)
    assert refused.returncode != 0 and "only concluded contests are archived" in refused.stderr
    assert not (archives / f"{running}.jsonl").exists()

    archived = agon("admin", "archive", finished, "--to", str(archives), "--store", redis_url, cwd=tmp_path)
    assert archived.returncode == 0, archived.stderr
    assert archives.is_dir()
    archive = archives / f"{finished}.jsonl"
    assert agon("verify", str(archive), cwd=tmp_path).returncode == 0
    after = agon("admin", "list", "--store", redis_url, "--json", cwd=tmp_path).stdout
    assert finished not in after and running in after
    gone = agon("export", finished, "--store", redis_url, cwd=tmp_path)
    assert gone.returncode != 0

    # Replayable later: imported back (read-only), it is listed as such.
    imported = agon("import", str(archive), "--store", redis_url, cwd=tmp_path)
    assert imported.returncode == 0, imported.stderr
    rows = {
        r["contest"]: r
        for r in map(
            json.loads, agon("admin", "list", "--store", redis_url, "--json", cwd=tmp_path).stdout.splitlines()
        )
    }
    assert rows[finished]["state"] == "imported"


async def test_rotating_the_secret_keeps_old_tokens_for_the_grace_period_only(
    agon_server: ServerFactory, tmp_path: Path
) -> None:
    data = tmp_path / "data"
    store = f"sqlite:{data / 'agon.sqlite3'}"
    server = agon_server(store=store, secret=None)  # the secret lives in the data folder
    gm = await AgonClient.connect(server.ws_url)
    created = await gm.create(duel())
    contest, old_token = created.contest, created.invitations.seats["ann"]
    await gm.close()
    old_secret = (data / "secret").read_text()

    rotated = agon("admin", "rotate-secret", "--store", store, "--grace-days", "1", cwd=tmp_path)
    assert rotated.returncode == 0, rotated.stderr
    assert (data / "secret").read_text() != old_secret
    assert (data / "secret").stat().st_mode & 0o077 == 0
    assert (data / "secret.previous").stat().st_mode & 0o077 == 0

    server.terminate()
    restarted = agon_server(store=store, secret=None)
    ann = await AgonClient.connect(restarted.ws_url, follow=[Follow(contest, old_token)])  # still logged in
    await ann.close()
    gm = await AgonClient.connect(restarted.ws_url)
    fresh = (await gm.create(duel())).invitations.seats["ann"]
    await gm.close()
    assert fresh.rsplit(".", 1)[1] != old_token.rsplit(".", 1)[1]

    # Once the grace period is over, the old secret's tokens are refused; the new ones still work.
    previous = data / "secret.previous"
    previous.write_text(previous.read_text().rsplit(" ", 1)[0] + f" {int(time.time()) - 1}\n")
    restarted.terminate()
    last = agon_server(store=store, secret=None)
    with pytest.raises(Refusal) as refused:
        await AgonClient.connect(last.ws_url, follow=[Follow(contest, old_token)])
    assert refused.value.code == "auth/bad_token"


async def test_a_damaged_log_is_listed_as_damaged_between_the_others_and_the_exit_says_so(tmp_path: Path) -> None:
    """An operator listing a store with one log that no longer decodes (a hand edit, a disk fault) sees every
    other contest too, the damaged one marked as such and why on stderr, and a non-zero exit for scripts."""
    spec = f"sqlite:{tmp_path / 'agon.sqlite3'}"
    store = open_store(spec)
    try:
        service = ContestService(store)
        for contest in ("a-first", "c-last"):
            await service.create(GM, msgspec.structs.replace(table_duel(), contest=contest), f"create-{contest}")
        await store.append("b-damaged", [Record(1, "garbage", b'{"not": "an envelope"')], 0)
    finally:
        await store.close()

    listed = agon("admin", "list", "--store", spec, "--json", cwd=tmp_path)
    rows = {row["contest"]: row for row in map(json.loads, listed.stdout.splitlines())}
    assert [rows[c]["state"] for c in ("a-first", "b-damaged", "c-last")] == ["running", "damaged", "running"]
    assert rows["b-damaged"]["events"] == 1
    assert listed.returncode == 1 and "b-damaged: its log cannot be read" in listed.stderr
    assert "Traceback" not in listed.stderr
