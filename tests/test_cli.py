"""`agon` as a person types it: every mistake gets one line and a non-zero exit (never a traceback), the
default store is found from any folder, and `agon replay` tells the story for a GM (text, markdown, JSON)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import msgspec
import pytest

from protocol.events import CloseDeclarations, Conclude, Declare, Revealed, Undo
from protocol.messages import GetTimeline
from protocol.rulesets import extended as x
from server.service import ContestService
from server.store import open_store
from server.timeline import answer as timeline_answer
from tests.engine.table import ANN, GM, duel

AGON = str(Path(sys.executable).with_name("agon"))


def agon(*args: str, cwd: Path, data: Path | str, **extra: str) -> subprocess.CompletedProcess[str]:
    env = {"PATH": "/usr/bin:/bin", "HOME": str(cwd), "AGON_DATA": str(data), **extra}
    if "PYTHONPATH" in os.environ:  # the code under test, when it is not the installed one
        env["PYTHONPATH"] = os.environ["PYTHONPATH"]
    return subprocess.run([AGON, *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=60)


@pytest.fixture
async def data(tmp_path: Path) -> Path:
    return await make_store(tmp_path)


async def make_store(tmp_path: Path) -> Path:
    """An AGON_DATA folder whose default store holds the contest ``duel``: declared, rolled, one roll undone."""
    folder = tmp_path / "data"
    store = open_store(f"sqlite:{folder / 'agon.sqlite3'}")
    service = ContestService(store)
    request = duel()
    request = msgspec.structs.replace(request, title="Duel at the Brücke — Ærø")
    await service.create(GM, request)
    await service.execute("duel", ANN, "c1", Declare(participant="aria", payload=x.Intent(action="lunge", bid=5)))
    await service.execute("duel", GM, "c2", Declare(participant="orc", payload=x.Intent(action="swing", bid=4)))
    # both succeed: the roll waits for Ann's hero point (one event), and the GM undoes it
    await service.execute("duel", GM, "c3", x.Roll(faces=[2, 10]))
    await service.execute("duel", GM, "c4", Undo())
    await store.close()
    return folder


def one_line_failure(result: subprocess.CompletedProcess[str], *expected: str) -> None:
    assert result.returncode != 0, result.stdout
    assert "Traceback" not in result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    for text in expected:
        assert text in lines[0], lines[0]
    assert re.search(r"\b[A-Z]\w*(Error|Exception)\b", lines[0]) is None, lines[0]  # plain words, no class names


def test_every_listed_mistake_is_one_line_and_a_non_zero_exit(data: Path, tmp_path: Path) -> None:
    work = tmp_path / "elsewhere"
    work.mkdir()
    run = lambda *args: agon(*args, cwd=work, data=data)  # noqa: E731
    exported = tmp_path / "duel.jsonl"
    assert run("export", "duel", "-o", str(exported)).returncode == 0

    one_line_failure(run("export", "duel", "-o", str(tmp_path / "no" / "such" / "out.jsonl")), "no folder")
    one_line_failure(run("verify", str(tmp_path / "missing.jsonl")), "no such file", "missing.jsonl")
    one_line_failure(run("replay", str(exported), "--at", "0"), "--at", "versions start at 1")
    one_line_failure(run("replay", str(exported), "--at", "99"), "--at 99", "has 7 events")
    one_line_failure(run("serve", "--port", "99999"), "--port", "99999")
    one_line_failure(run("replay", str(exported), "--as", "player:nobody"), "nobody", "seats: ann")
    one_line_failure(run("replay", "gone.jsonl"), "no such file: gone.jsonl")
    one_line_failure(run("replay", "./gone"), "no such file: ./gone")
    one_line_failure(run("replay", "nocontest"), "no file and no contest named 'nocontest'")
    one_line_failure(run("export", "nocontest"), "no contest 'nocontest'")
    one_line_failure(run("frobnicate"), "invalid choice")
    one_line_failure(run("admin", "rotate-secret"), "no secret in", str(data))  # AGON_SECRET in use, or never served
    one_line_failure(run("admin", "list", "--store", "redis://127.0.0.1:1"), "cannot open the store", "127.0.0.1:1")
    one_line_failure(run("export", "duel", "--store", "redis://127.0.0.1:1"), "cannot open the store")
    not_a_store = work / "notes.txt"
    not_a_store.write_text("not a database\n")
    one_line_failure(run("admin", "list", "--store", f"sqlite:{not_a_store}"), "notes.txt is not an Agon store")
    one_line_failure(run("serve", "--store", f"sqlite:{not_a_store}", "--port", "0"), "is not an Agon store")
    one_line_failure(run("export", "duel", "--store", f"sqlite:{work}"), "is a folder", f"sqlite:{work}/agon.sqlite3")
    one_line_failure(run("replay", "duel", "--store", "sqlite:"), "names no file")
    one_line_failure(run("admin", "list", "--store", "sqlite"), "unknown store spec")
    late = agon("serve", "--port", "0", cwd=work, data=data, AGON_SECRET_PREVIOUS_UNTIL="tomorrow")
    one_line_failure(late, "AGON_SECRET_PREVIOUS_UNTIL='tomorrow' is not a whole number")
    one_line_failure(agon("serve", "--port", "0", cwd=work, data=data, AGON_RATE="fast"), "AGON_RATE='fast'")
    assert sorted(p.name for p in work.iterdir()) == ["notes.txt"]  # no mistake made a store


def test_the_default_store_is_found_from_any_folder_and_never_created_by_a_typo(data: Path, tmp_path: Path) -> None:
    for folder in (tmp_path, data, Path("/")):
        exported = agon("export", "duel", cwd=folder, data=data)
        assert exported.returncode == 0, exported.stderr
        assert exported.stdout.count("\n") == 7
    typo = tmp_path / "typo.sqlite3"
    one_line_failure(agon("serve", "--store", f"sqlite:{typo}", "--port", "0", cwd=tmp_path, data=data), "--create")
    assert not typo.exists()
    empty = tmp_path / "empty-data"
    one_line_failure(agon("export", "duel", cwd=tmp_path, data=empty), "no store at", str(empty))
    assert not empty.exists()


TYPO = "typo/agon.sqlit3"


@pytest.mark.parametrize(
    ("command", "create"),
    [
        (["serve", "--port", "0"], True),
        (["import", "{exported}"], True),
        (["export", "duel"], False),
        (["replay", "duel"], False),
        (["admin", "list"], False),
        (["admin", "archive", "duel", "--to", "."], False),
        (["admin", "rotate-secret"], False),
    ],
)
def test_no_command_creates_a_store_or_a_secret_at_a_mistyped_path(
    command: list[str], create: bool, data: Path, tmp_path: Path
) -> None:
    exported = tmp_path / "duel.jsonl"
    assert agon("export", "duel", "-o", str(exported), cwd=tmp_path, data=data).returncode == 0
    args = [a.format(exported=exported) for a in command]
    work = tmp_path / "work"
    work.mkdir()
    hint = "pass --create" if create else "set AGON_DATA or pass --store"
    one_line_failure(agon(*args, "--store", f"sqlite:{work / TYPO}", cwd=work, data=data), "no store at", TYPO, hint)
    fresh = tmp_path / "fresh"  # AGON_DATA names a folder that holds nothing yet
    if command[-1] != "rotate-secret":  # its secret is in AGON_DATA, whatever store the server uses
        one_line_failure(agon(*args, cwd=work, data=fresh), "no store at", str(fresh / "agon.sqlite3"), hint)
    assert list(work.iterdir()) == [] and not fresh.exists()


async def test_import_creates_a_store_and_its_secret_only_when_asked(data: Path, tmp_path: Path) -> None:
    exported = tmp_path / "duel.jsonl"
    assert agon("export", "duel", "-o", str(exported), cwd=tmp_path, data=data).returncode == 0
    served = tmp_path / "served"  # a server's store that holds no secret: the server signs with AGON_SECRET
    store = open_store(f"sqlite:{served / 'agon.sqlite3'}")
    assert await store.contests() == []
    await store.close()
    one_line_failure(agon("import", str(exported), cwd=tmp_path, data=served), "no token secret", "AGON_SECRET")
    assert not (served / "secret").exists()
    key = "0123456789abcdef" * 2
    shared = agon("import", str(exported), cwd=tmp_path, data=served, AGON_SECRET=key)
    assert shared.returncode == 0, shared.stderr
    assert "stored contest 'duel' read-only" in shared.stdout and not (served / "secret").exists()

    fresh = tmp_path / "fresh"
    created = agon("import", str(exported), "--create", cwd=tmp_path, data=fresh)
    assert created.returncode == 0, created.stderr
    assert "#t=" in created.stdout
    assert (fresh / "agon.sqlite3").is_file() and (fresh / "secret").stat().st_mode & 0o777 == 0o600
    listed = agon("admin", "list", "--json", cwd=tmp_path, data=fresh)
    assert [json.loads(line)["state"] for line in listed.stdout.splitlines()] == ["imported"]


def test_a_relative_agon_data_is_read_from_the_folder_agon_starts_in(data: Path, tmp_path: Path) -> None:
    relative = data.relative_to(tmp_path)
    found = agon("export", "duel", cwd=tmp_path, data=str(relative))
    assert found.returncode == 0 and found.stdout.count("\n") == 7
    assert found.stderr.strip() == (
        f"agon: AGON_DATA={relative} is relative: using {data} "
        f"(export AGON_DATA={data} to use the same store from any folder)"
    )
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    missing = agon("export", "duel", cwd=elsewhere, data=str(relative))
    assert missing.returncode != 0 and f"no store at {elsewhere / relative / 'agon.sqlite3'}" in missing.stderr
    assert "Traceback" not in missing.stderr and not (elsewhere / relative).exists()


def test_replay_tells_a_gm_the_story_with_undone_events_marked(data: Path, tmp_path: Path) -> None:
    text = agon("replay", "duel", cwd=tmp_path, data=data)
    assert text.returncode == 0, text.stderr
    lines = text.stdout.splitlines()
    rolled = next(line for line in lines if line.lstrip().startswith("6 "))
    assert "[undone]" in rolled and "extended." in rolled
    undo = next(line for line in lines if line.lstrip().startswith("7 "))
    assert "[undone]" not in undo and "undid back to version 5" in undo
    declared = next(line for line in lines if line.lstrip().startswith("3 "))
    assert "[undone]" not in declared and "lunge" in declared  # the GM sees the sealed intent
    state = text.stdout.split("--- the contest at version 7, as gm saw it ---\n")[1]
    assert "Duel at the Brücke — Ærø" in state  # readable, not escaped
    assert "\\u" not in text.stdout and '{"' not in state and '"rules"' not in state
    assert "title: Duel at the Brücke — Ærø" in state.splitlines()

    as_json = agon("replay", "duel", "--json", cwd=tmp_path, data=data)
    parsed = json.loads(as_json.stdout)
    assert [(e["version"], e["undone"]) for e in parsed["timeline"]] == [
        (1, False),
        (2, False),
        (3, False),
        (4, False),
        (5, False),
        (6, True),
        (7, False),
    ]
    assert parsed["view"]["title"] == "Duel at the Brücke — Ærø" and parsed["view"]["version"] == 7

    story = agon("replay", "duel", "--format", "markdown", "--as", "player:ann", cwd=tmp_path, data=data)
    assert story.returncode == 0, story.stderr
    md = story.stdout.splitlines()
    assert md[0] == "# Duel at the Brücke — Ærø"
    undone = [line for line in md if line.startswith("- ~~")]
    assert len(undone) == 1 and "**6.**" in undone[0] and undone[0].endswith("*(undone)*")
    assert "## Where it stands (version 7)" in md


async def test_verify_import_timeline_and_archive_accept_a_reveal_after_an_undo(tmp_path: Path) -> None:
    """Ann declares a feint, then a charge; the GM undoes back to the feint and closes the window: the contest
    reveals the feint, and every check of the log agrees with it."""
    folder = tmp_path / "data"
    store = open_store(f"sqlite:{folder / 'agon.sqlite3'}")
    service = ContestService(store)
    await service.create(GM, duel())
    await service.execute("duel", ANN, "c1", Declare(participant="aria", payload=x.Intent(action="feint", bid=1)))
    await service.execute("duel", GM, "c2", x.Adjust(contestant="orc", delta=-1, reason="a slip"))
    await service.execute("duel", ANN, "c3", Declare(participant="aria", payload=x.Intent(action="charge", bid=2)))
    await service.execute("duel", GM, "c4", x.Adjust(contestant="orc", delta=-1, reason="another slip"))
    await service.execute("duel", GM, "c5", Undo())
    await service.execute("duel", GM, "c6", CloseDeclarations())
    reveal = (await service.events("duel"))[-1].event
    assert isinstance(reveal, Revealed) and [e.payload.action for e in reveal.entries] == ["feint"]  # type: ignore[union-attr]
    timeline = await timeline_answer(service, GetTimeline(id="t1", contest="duel"))
    assert timeline.verification.ok, timeline.verification.problem
    await service.execute("duel", GM, "c7", Conclude())
    await store.close()

    exported = tmp_path / "duel.jsonl"
    assert agon("export", "duel", "-o", str(exported), cwd=tmp_path, data=folder).returncode == 0
    verified = agon("verify", str(exported), cwd=tmp_path, data=folder)
    assert verified.returncode == 0 and "agon verify: ok: 9 events" in verified.stdout, verified.stderr
    imported = agon("import", str(exported), "--create", cwd=tmp_path, data=tmp_path / "fresh")
    assert imported.returncode == 0, imported.stderr
    archived = agon("admin", "archive", "duel", "--to", str(tmp_path), cwd=tmp_path, data=folder)
    assert archived.returncode == 0 and "archived duel: 9 events" in archived.stdout, archived.stderr
