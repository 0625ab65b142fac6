"""`agon serve` and `deploy/serve` as an operator meets them: the store opened and its contests are printed,
a WebSocket opened on `/` is told where the socket is, and `deploy/serve` recovers from a first run that was
interrupted before pip was in place, then tells how `.venv/bin/agon` finds the same store."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

from websockets.asyncio.client import connect

from clients.python import AgonClient
from tests.e2e.conftest import ServerFactory, free_port, http_get
from tests.net.duel import duel

ROOT = Path(__file__).resolve().parents[2]


async def test_serve_prints_the_store_and_how_many_contests_it_holds(agon_server: ServerFactory) -> None:
    first = agon_server()
    database = first.store.removeprefix("sqlite:")
    assert f"agon: store sqlite:{database} (0 contests)" in first.output()
    client = await AgonClient.connect(first.ws_url)
    await client.create(duel(contest="one"))
    await client.create(duel(contest="two"))
    await client.close()
    first.terminate()
    again = agon_server(store=first.store)
    assert f"agon: store sqlite:{database} (2 contests)" in again.output()


async def test_a_websocket_on_the_root_is_pointed_to_ws(agon_server: ServerFactory) -> None:
    server = agon_server()
    async with connect(f"ws://127.0.0.1:{server.port}/") as ws:
        answer = json.loads(await ws.recv())
        await ws.wait_closed()
    assert answer["type"] == "error" and answer["code"] == "protocol/wrong_path"
    assert "/ws" in answer["message"]
    assert ws.close_code == 1008
    status, body = http_get(f"{server.http_url}/")  # a browser's plain GET still gets the page
    assert status == 200 and "developers.html" in body  # which links to the page for programmers
    status, body = http_get(f"{server.http_url}/developers.html")
    assert status == 200 and "/ws" in body


def copy_of_the_project(target: Path) -> Path:
    target.mkdir()
    for name in ("pyproject.toml", "setup.py", "README.md", "deploy", "server", "protocol", "clients"):
        source = ROOT / name
        if source.is_dir():
            shutil.copytree(source, target / name, ignore=shutil.ignore_patterns("node_modules", "__pycache__", "*.so"))
        else:
            shutil.copy2(source, target / name)
    return target


def test_deploy_serve_recovers_from_an_interrupted_first_run(tmp_path: Path) -> None:
    project = copy_of_the_project(tmp_path / "agon")
    # what an interrupted first run leaves: a venv whose pip was never installed
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(project / ".venv")], check=True)
    port = free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith("AGON_")}
    env["PIP_DISABLE_PIP_VERSION_CHECK"] = "1"
    log = tmp_path / "serve.log"
    with log.open("wb") as out:
        process = subprocess.Popen(
            [str(project / "deploy" / "serve"), "--port", str(port)], cwd=tmp_path, env=env, stdout=out, stderr=out
        )
    try:
        deadline = time.monotonic() + 300
        while "agon: serving on" not in log.read_text(errors="replace"):
            assert process.poll() is None, log.read_text(errors="replace")
            assert time.monotonic() < deadline, log.read_text(errors="replace")
            time.sleep(0.5)
    finally:
        process.terminate()
        process.wait(timeout=30)
    output = log.read_text(errors="replace")
    assert "is incomplete" in output and "Traceback" not in output
    assert f"agon: store sqlite:{project / 'agon-data' / 'agon.sqlite3'} (0 contests)" in output
    assert (project / ".venv" / "bin" / "agon").exists()
    # what the README's quick start tells: the printed line points the command line at the same store
    exported = next(line for line in output.splitlines() if "export AGON_DATA=" in line).split("export ")[1]
    assert exported == f"AGON_DATA={project / 'agon-data'}"
    listed = subprocess.run(
        [str(project / ".venv" / "bin" / "agon"), "admin", "list", "--json"],
        cwd=tmp_path,
        env={**env, "AGON_DATA": exported.removeprefix("AGON_DATA=")},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert listed.returncode == 0 and listed.stdout == "" and listed.stderr == "", listed.stderr
    assert list((project / "protocol").glob("patch.*.so")), "the first run compiles protocol/patch.py (setup.py)"
