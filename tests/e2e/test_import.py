"""`agon import`: an exported log is verified, then stored read-only and opened with the auditor link it prints;
a tampered log is refused and nothing is stored."""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

import pytest

from clients.python.client import AgonClient, Refusal
from protocol.events import Conclude, Declare
from protocol.messages import Follow
from protocol.rulesets import extended as x
from tests.e2e.conftest import AGON, SECRET, ServerFactory
from tests.net.duel import duel


def agon(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("AGON_")}
    env["AGON_SECRET"] = SECRET
    return subprocess.run([AGON, *args], capture_output=True, text=True, cwd=cwd, env=env, timeout=60)


async def played(server_url: str) -> tuple[str, str]:
    """A short contest played and concluded: its id and the GM's token."""
    gm = await AgonClient.connect(server_url)
    created = await gm.create(duel(dice="server"))
    contest, invitations = created.contest, created.invitations
    await gm.follow(contest, invitations.gm)
    ann = await AgonClient.connect(server_url, follow=[Follow(contest, invitations.seats["ann"])])
    bob = await AgonClient.connect(server_url, follow=[Follow(contest, invitations.seats["bob"])])
    await ann.command(contest, Declare(participant="aria", payload=x.Intent(action="lunge", bid=4)))
    await bob.command(contest, Declare(participant="orc", payload=x.Intent(action="swing", bid=2)))
    await gm.command(contest, x.Roll())
    await gm.command(contest, Conclude())
    for client in (gm, ann, bob):
        await client.close()
    return contest, invitations.gm


async def test_an_exported_log_is_imported_read_only_and_opened_by_its_auditor_link(
    agon_server: ServerFactory, tmp_path: Path
) -> None:
    source = agon_server(store=f"sqlite:{tmp_path / 'source' / 'a.sqlite3'}")
    contest, gm_token = await played(source.ws_url)
    log = tmp_path / "contest.jsonl"
    assert agon("export", contest, "--store", source.store, "-o", str(log), cwd=tmp_path).returncode == 0

    target = f"sqlite:{tmp_path / 'target' / 'b.sqlite3'}"
    tampered = tmp_path / "tampered.jsonl"
    tampered.write_text(log.read_text().replace('"lunge"', '"LUNGE"', 1))
    refused = agon("import", str(tampered), "--store", target, "--create", cwd=tmp_path)
    assert refused.returncode != 0 and "not imported" in refused.stderr and "event " in refused.stderr

    imported = agon("import", str(log), "--store", target, "--create", "--url", "http://agon.example/", cwd=tmp_path)
    assert imported.returncode == 0, imported.stderr
    assert f"stored contest {contest!r} read-only" in imported.stdout
    match = re.search(r"http://agon\.example/#t=(eyJ\S+)", imported.stdout)
    assert match is not None, imported.stdout
    again = agon("import", str(log), "--store", target, cwd=tmp_path)
    assert again.returncode != 0 and "contest/exists" in again.stderr

    server = agon_server(store=target)
    auditor = await AgonClient.connect(server.ws_url, follow=[Follow(contest, match.group(1))])
    timeline = await auditor.timeline(contest)
    assert timeline.read_only and timeline.verification.ok and timeline.verification.dice_checked == 2
    assert [e.version for e in timeline.entries] == list(range(1, timeline.head + 1))
    # the GM's token of the original contest opens the imported one, which refuses every change
    gm = await AgonClient.connect(server.ws_url, follow=[Follow(contest, gm_token)])
    with pytest.raises(Refusal) as change:
        await gm.command(contest, x.Adjust(contestant="aria", delta=1, reason="rewrite history"))
    assert change.value.code == "contest/read_only"
    with pytest.raises(Refusal) as reissue:
        await gm.invite(contest, "~auditor")
    assert reissue.value.code == "contest/read_only"
    for client in (auditor, gm):
        await client.close()
