"""Table talk in an export, as an auditor reads it: `agon export` writes it after the events (whispers only when
the contest lets auditors read them; the talk seeds once the contest is concluded), `agon verify` checks every
`/roll` against them and the numbering, a tampered face fails it with a clear problem, `agon import` keeps the
talk, `agon admin archive` archives it and removes it with its contest, and the GM's timeline counts its rolls."""

from __future__ import annotations

import json
from pathlib import Path

import msgspec

from protocol.common import Actor
from protocol.events import Conclude, ContestCreated, CreateContest
from protocol.messages import GetTimeline
from protocol.talk import TalkSetting
from server.engine.dice import face
from server.rulesets import ruleset as ruleset_named
from server.service import ContestService
from server.store import EventStore, open_store
from server.talk import talk_stream
from server.talklog import TalkLog
from server.timeline import answer as timeline_answer
from tests.engine.table import ANN, GM, duel
from tests.test_cli import agon, one_line_failure

WHISPERED = "the orc takes bribes"


async def say(store: EventStore, service: ContestService, who: Actor, text: str, to: str | None = None) -> None:
    _, contest = await service.load("duel")
    created = contest.created
    assert isinstance(created, ContestCreated)
    talk = TalkLog(store)
    talk.rate.lines = 1000
    things = ruleset_named(created.ruleset).names(contest.rules)  # as the server names an unnamed seat
    await talk.say("duel", created, contest.version, contest.concluded is not None, who, text, text, to, things)


async def make_store(tmp_path: Path, concluded: bool, auditors_whispers: bool = False) -> Path:
    """An AGON_DATA folder holding the contest ``duel`` with a table roll, a whispered roll and a plain line."""
    folder = tmp_path / "data"
    store = open_store(f"sqlite:{folder / 'agon.sqlite3'}")
    service = ContestService(store)
    request: CreateContest = msgspec.structs.replace(duel(), talk=TalkSetting(auditors_whispers=auditors_whispers))
    await service.create(GM, request)
    await say(store, service, GM, "/roll 2d6+1 the rope holds")
    await say(store, service, ANN, f"/r 3d8-2 + 1d4 {WHISPERED}", to="gm")
    await say(store, service, ANN, "Aria crosses")
    if concluded:
        await service.execute("duel", GM, "end", Conclude())
    await store.close()
    return folder


def exported(tmp_path: Path, data: Path, name: str = "duel.jsonl") -> tuple[Path, list[dict[str, object]]]:
    path = tmp_path / name
    result = agon("export", "duel", "-o", str(path), cwd=tmp_path, data=data)
    assert result.returncode == 0, result.stderr
    return path, [json.loads(line) for line in path.read_text().splitlines()]


async def test_a_roll_of_a_concluded_contest_is_verified_and_a_tampered_face_fails(tmp_path: Path) -> None:
    data = await make_store(tmp_path, concluded=True)
    path, lines = exported(tmp_path, data)
    talk = [line for line in lines if "contest" not in line]
    assert talk[0]["talk"]["roll"]["expression"] == "2d6+1"  # type: ignore[index]
    assert talk[1] == {"talk_withheld": 2}  # the whisper: left out, its number kept
    assert WHISPERED not in path.read_text()
    assert [line["talk"]["text"] for line in talk[2:3]] == ["Aria crosses"]  # type: ignore[index]
    seeds = [line["talk_seed"] for line in talk if "talk_seed" in line]
    assert len(seeds) == 1  # the table's seed only: the whispers' stays on the server
    seed = bytes.fromhex(str(seeds[0]))
    roll = talk[0]["talk"]["roll"]  # type: ignore[index]
    assert [d["face"] for d in roll["dice"]] == [face(seed, -1, j, 6) for j in range(2)]

    verified = agon("verify", str(path), cwd=tmp_path, data=data)
    assert verified.returncode == 0, verified.stderr
    assert "3 lines of table talk numbered without a gap, 2 talk dice checked against the revealed talk seed" in (
        verified.stdout
    )

    first, total = roll["dice"][0]["face"], roll["total"]
    other = first % 6 + 1
    forged = tmp_path / "forged.jsonl"
    forged.write_text(path.read_text().replace(f'"face":{first}', f'"face":{other}', 1))
    failed = agon("verify", str(forged), cwd=tmp_path, data=data)
    one_line_failure(
        failed, "agon verify: FAILED at talk line 1", f"the roll “2d6+1” adds up to {total - first + other}"
    )
    forged.write_text(
        path.read_text()
        .replace(f'"face":{first}', f'"face":{other}', 1)
        .replace(f'"total":{total}', f'"total":{total - first + other}', 1)
    )
    failed = agon("verify", str(forged), cwd=tmp_path, data=data)
    one_line_failure(failed, "agon verify: FAILED at talk line 1", "the roll “2d6+1” shows", "the revealed seed gives")
    gap = tmp_path / "gap.jsonl"
    gap.write_text(path.read_text().replace('{"talk_withheld":2}\n', ""))
    one_line_failure(agon("verify", str(gap), cwd=tmp_path, data=data), "talk line 2: numbered 3")


async def test_before_the_conclusion_the_export_holds_no_seed_and_verify_says_what_it_could_not_check(
    tmp_path: Path,
) -> None:
    data = await make_store(tmp_path, concluded=False)
    path, lines = exported(tmp_path, data)
    assert not [line for line in lines if "talk_seed" in line]
    verified = agon("verify", str(path), cwd=tmp_path, data=data)
    assert verified.returncode == 0, verified.stderr
    assert "1 talk rolls unchecked: the talk seed is revealed when the contest is concluded" in verified.stdout


async def test_whispers_are_exported_with_their_seed_when_auditors_may_read_them(tmp_path: Path) -> None:
    data = await make_store(tmp_path, concluded=True, auditors_whispers=True)
    path, lines = exported(tmp_path, data)
    talk = [line for line in lines if "contest" not in line]
    assert talk[1]["talk"]["text"] == WHISPERED  # type: ignore[index]
    assert len([line for line in talk if "talk_seed" in line]) == 2
    verified = agon("verify", str(path), cwd=tmp_path, data=data)
    assert verified.returncode == 0 and "6 talk dice checked" in verified.stdout, verified.stdout + verified.stderr


async def test_import_keeps_the_talk_and_archive_removes_it_with_its_contest(tmp_path: Path) -> None:
    data = await make_store(tmp_path, concluded=True)
    path, _ = exported(tmp_path, data)
    fresh = tmp_path / "fresh"
    imported = agon("import", str(path), "--create", cwd=tmp_path, data=fresh)
    assert imported.returncode == 0, imported.stderr
    again, _ = exported(tmp_path, fresh, "again.jsonl")
    assert again.read_text() == path.read_text()  # the same talk, its seed and the withheld whisper
    store = open_store(f"sqlite:{fresh / 'agon.sqlite3'}")
    try:
        service = ContestService(store)
        timeline = await timeline_answer(service, GetTimeline(id="t", contest="duel"))
        assert [line.text for line in timeline.talk] == ["the rope holds", "Aria crosses"]
        assert timeline.verification.ok and timeline.verification.dice_checked == 2
    finally:
        await store.close()

    archive = tmp_path / "archive"
    archive.mkdir()
    archived = agon("admin", "archive", "duel", "--to", str(archive), cwd=tmp_path, data=data)
    assert archived.returncode == 0, archived.stderr
    assert (archive / "duel.jsonl").read_text() == path.read_text()
    store = open_store(f"sqlite:{data / 'agon.sqlite3'}")
    try:
        assert await store.read(talk_stream("duel")) == [] and await store.contests() == []
    finally:
        await store.close()


async def test_the_gms_timeline_checks_the_talk_rolls_once_the_contest_is_concluded(tmp_path: Path) -> None:
    for concluded in (False, True):
        data = await make_store(tmp_path / str(concluded), concluded=concluded)
        store = open_store(f"sqlite:{data / 'agon.sqlite3'}")
        try:
            answer = await timeline_answer(ContestService(store), GetTimeline(id="t", contest="duel"))
        finally:
            await store.close()
        assert answer.verification.ok
        assert [line.n for line in answer.talk] == [1, 2, 3]  # the GM reads the whisper to the GM
        assert answer.verification.dice_checked == (6 if concluded else 0)
        assert answer.verification.dice_unchecked is not concluded


async def test_agon_replay_tells_the_talk_the_chosen_viewer_could_read(tmp_path: Path) -> None:
    data = await make_store(tmp_path, concluded=False)
    as_ann = agon("replay", "duel", "--as", "player:ann", cwd=tmp_path, data=data)
    assert as_ann.returncode == 0, as_ann.stderr
    assert "the table talk player:ann could read" in as_ann.stdout
    assert "Aria's player (whisper to GM) rolls 3d8-2+1d4 = " in as_ann.stdout and WHISPERED in as_ann.stdout
    assert "GM rolls 2d6+1 = " in as_ann.stdout and "Aria's player: Aria crosses" in as_ann.stdout
    path, _ = exported(tmp_path, data)
    from_file = agon("replay", str(path), "--as", "gm", "--format", "markdown", cwd=tmp_path, data=data)
    assert from_file.returncode == 0 and "## Table talk" in from_file.stdout, from_file.stderr
    assert WHISPERED not in from_file.stdout  # the export left the whisper out
    watched = agon("replay", "duel", "--as", "spectator", cwd=tmp_path, data=data)
    assert watched.returncode == 0 and "table talk" not in watched.stdout and WHISPERED not in watched.stdout
