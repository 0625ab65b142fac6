"""The terminal client: ``agon play LINK`` (a player, or the GM with a GM link) and ``agon watch LINK``.

A live, readable view of the contest above a prompt (prompt_toolkit) where commands are typed, with
completion (Tab) and help; it needs nothing but a terminal, so it works over SSH."""

from __future__ import annotations

import asyncio
import logging
import os
import sys
from collections.abc import Iterable

from prompt_toolkit import PromptSession
from prompt_toolkit.completion import CompleteEvent, Completer, Completion
from prompt_toolkit.document import Document
from prompt_toolkit.patch_stdout import patch_stdout
from rich.console import Console
from rich.text import Text
from websockets.exceptions import InvalidHandshake, InvalidStatus, InvalidURI

from clients.python.errors import Disconnected, Refusal
from clients.python.join import join_invitation
from clients.python.links import BadLink, Invitation, parse
from clients.python.mirror import ContestMirror
from clients.python.presence import presence_line
from clients.python.table import Table
from clients.python.terminal import screen, talk
from clients.python.terminal.commands import Spec, Usage, commands_for, help_text
from clients.python.terminal.commands import parse as parse_line
from clients.python.terminal.fields import literals
from clients.python.terminal.naming import names_of
from protocol.messages import Notice
from protocol.presence import Presence
from protocol.talk import TalkLine

REDRAW_DELAY = 0.05  # seconds after a patch, so a burst of patches redraws once, below their notices


class CommandCompleter(Completer):
    """Command names first; then the names in the view (contestants, characters, zones, things, the round's
    actions), the command's ``field=`` names and the values its fields may take; command names after ``help``."""

    def __init__(self, specs: list[Spec], table: Table) -> None:
        self.specs = specs
        self.table = table

    def _ids(self) -> list[str]:
        names = names_of(self.table.mirror.doc)
        return list(dict.fromkeys(names.typed(k.ident) for k in names.known.values() if k.kind != "side"))

    def _arguments(self, name: str) -> list[str]:
        spec = next((s for s in self.specs if s.name == name), None)
        if spec is None or spec.kind is None:
            return self._ids()
        fields = [f"{field}=" for field in spec.kind.__struct_fields__]
        return [*self._ids(), *fields, *literals(spec.kind)]

    def get_completions(self, document: Document, complete_event: CompleteEvent) -> Iterable[Completion]:
        before = document.text_before_cursor
        words = before.split()
        current = "" if before.endswith(" ") or not words else words[-1]
        position = len(words) - (0 if current == "" else 1)
        naming = position == 0 or words[0] == "help"
        choices = [s.name for s in self.specs] if naming else self._arguments(words[0])
        typed = current.lstrip("\"'").casefold()
        for choice in choices:
            if choice.lstrip("\"'").casefold().startswith(typed):
                yield Completion(choice, start_position=-len(current))


class Terminal:
    def __init__(self, table: Table, console: Console, watch: bool) -> None:
        self.table = table
        self.console = console
        mirror = table.mirror
        role = "spectator" if watch and mirror.role != "gm" else str(mirror.role)
        ruleset = str((mirror.doc or {}).get("ruleset", ""))
        self.specs = commands_for(ruleset, role)
        self._redraw: asyncio.TimerHandle | None = None
        self.lost: Refusal | None = None  # the contest was refused for good: the session ends
        self.session: PromptSession[str] | None = None
        self._presence = ""  # the last "at the table" line shown

    def on_lost(self, contest: str, refused: Refusal) -> None:
        """The invitation no longer works (revoked, expired) or the contest is gone: say so once and leave."""
        if contest != self.table.contest or self.lost is not None:
            return
        self.lost = refused
        app = None if self.session is None else self.session.app
        if app is not None and app.is_running:
            app.exit(exception=EOFError())

    def show_view(self) -> None:
        doc = self.table.mirror.doc
        if doc is not None:
            self.console.print(screen.contest(doc, self.table.mirror.seat))

    def presence_text(self) -> str:
        """Who is at the table now, in one line (empty before the server said)."""
        mirror = self.table.mirror
        presence = mirror.presence
        return "" if presence is None else presence_line(presence, names_of(mirror.doc), mirror.seat)

    def on_presence(self, contest: str, presence: Presence) -> None:
        """Say who is at the table whenever that changes."""
        line = self.presence_text() if contest == self.table.contest else ""
        if line and line != self._presence:
            self._presence = line
            self.console.print(line, style="dim", markup=False)

    def on_talk(self, contest: str, line: TalkLine) -> None:
        """Show each new line of table talk as it is said."""
        if contest == self.table.contest:
            self.console.print(talk.shown(line, self.table.mirror.seat))

    async def say(self, said: talk.Said) -> None:
        """Say a line (``say``), or whisper it to the seat named (``whisper``); the line itself shows when it
        comes back from the server, as everyone else's."""
        mirror = self.table.mirror
        try:
            to = None if said.to is None else talk.recipient(said.to, talk.seats_of(mirror), mirror.role)
            await self.table.client.say(self.table.contest, said.text, to=to)
        except Usage as usage:
            self.console.print(str(usage), style="yellow", markup=False)
        except Refusal as refused:
            self.console.print(f"refused: {refused.message} [{refused.code}]", style="red", markup=False)
        except (Disconnected, TimeoutError):
            self.console.print("not connected: reconnecting; try again in a moment", style="red")

    def on_notice(self, notice: Notice) -> None:
        if notice.contest == self.table.contest:
            self.console.print(Text.assemble((f"v{notice.version} ", "dim"), notice.text))

    def on_change(self, mirror: ContestMirror) -> None:
        """Redraw the view a moment later, below the notices of its batch (and of any batch right behind it)."""
        if mirror.contest == self.table.contest and self._redraw is None:
            self._redraw = asyncio.get_running_loop().call_later(REDRAW_DELAY, self._show_again)

    def _show_again(self) -> None:
        self._redraw = None
        self.show_view()

    async def run_line(self, line: str) -> bool:
        """Run one typed line; False when the user leaves."""
        try:
            said = talk.typed(line) if any(s.name == talk.SAY for s in self.specs) else None
            if said is not None:
                await self.say(said)
                return True
            call = parse_line(line, self.specs)
        except Usage as usage:
            self.console.print(str(usage), style="yellow", markup=False)
            return True
        if call is None:
            return True
        match call.spec.name:
            case "quit":
                return False
            case "help":
                self.console.print(help_text(self.specs, call.args[0] if call.args else None), markup=False)
            case "view":
                self.show_view()
            case "who":
                self.console.print(self.presence_text() or "nobody has said who is here yet", markup=False)
            case "log":
                count = int(call.args[0]) if call.args and call.args[0].isdigit() else 20
                for notice in self.table.mirror.notices[-count:]:
                    self.console.print(f"v{notice.version} {notice.text}", markup=False)
            case talk.TALK:
                count = int(call.args[0]) if call.args and call.args[0].isdigit() else 20
                lines = talk.last(self.table.mirror, count)
                for said_line in lines:
                    self.console.print(talk.shown(said_line, self.table.mirror.seat))
                if not lines:
                    self.console.print("nobody has said anything you may read yet", markup=False)
            case _:
                assert call.spec.run is not None
                try:
                    ack = await call.spec.run(self.table, call.args)
                    self.console.print(Text.assemble(("ok", "green"), f" (version {ack.version})"))
                except Usage as usage:
                    self.console.print(str(usage), style="yellow", markup=False)
                except Refusal as refused:
                    self.console.print(f"refused: {refused.message} [{refused.code}]", style="red", markup=False)
                except (Disconnected, TimeoutError):
                    self.console.print("not connected: reconnecting; try again in a moment", style="red")
        return True


def seat_name(mirror: ContestMirror) -> str:
    """This seat by the name the GM gave it (its id when none): the welcome's ``name``, or the GM's own seat in
    the welcome's list of seats."""
    welcome = mirror.welcomes[-1] if mirror.welcomes else None
    if welcome is None:
        return str(mirror.seat)
    named = [seat.name for seat in welcome.seats or [] if seat.id == welcome.seat and isinstance(seat.name, str)]
    name = welcome.name if isinstance(welcome.name, str) else next(iter(named), "")
    return name.strip() or welcome.seat


async def _session(invitation: Invitation, watch: bool) -> int:
    table = await join_invitation(invitation)
    try:
        with patch_stdout(raw=True):
            console = Console(file=sys.stdout, highlight=False, soft_wrap=True)
            terminal = Terminal(table, console, watch)
            mirror = table.mirror
            names = names_of(mirror.doc)
            playing = f", playing {names.each(mirror.contestants)}" if mirror.contestants else ""
            who = f"you are {seat_name(mirror)} ({mirror.role}){playing}"
            console.print(f"Agon · contest {table.contest} · {who} · type help, Tab completes", markup=False)
            terminal.show_view()
            stop_changes = table.client.on_change(terminal.on_change)
            stop_notices = table.client.on_notice(terminal.on_notice)
            stop_lost = table.client.on_lost(terminal.on_lost)
            for said_line in talk.last(mirror, 5):  # where the table talk stands
                terminal.on_talk(table.contest, said_line)
            stop_talk = table.client.on_talk(terminal.on_talk)
            stop_presence = table.client.on_presence(terminal.on_presence)
            if mirror.presence is not None:
                terminal.on_presence(table.contest, mirror.presence)
            session: PromptSession[str] = PromptSession(
                completer=CommandCompleter(terminal.specs, table), complete_while_typing=False
            )
            terminal.session = session
            try:
                while terminal.lost is None:
                    try:
                        line = await session.prompt_async("agon> ")
                    except EOFError:
                        break
                    except KeyboardInterrupt:
                        continue
                    if not await terminal.run_line(line):
                        break
            finally:
                stop_changes()
                stop_notices()
                stop_lost()
                stop_talk()
                stop_presence()
    finally:
        await table.client.close()
    if terminal.lost is not None:
        lost = terminal.lost
        print(f"agon: this contest is lost to you: {lost.message} [{lost.code}]", file=sys.stderr)
        return 1
    return 0


def debug_log() -> None:
    """The client library's own log lines (a lost contest, resuming) on stderr only with ``AGON_DEBUG=1``: the
    terminal says what matters in one line of its own."""
    if os.environ.get("AGON_DEBUG"):
        logging.basicConfig(level=logging.DEBUG, format="agon: %(levelname)s %(name)s: %(message)s")
        logging.getLogger("websockets").setLevel(logging.INFO)
    else:
        logging.getLogger().addHandler(logging.NullHandler())  # nothing falls through to stderr


def run_terminal(link: str, *, server: str | None = None, watch: bool = False) -> int:
    """``agon play`` / ``agon watch``: exit 0 on quit, 1 with one line when the link cannot be used, or no
    longer can (the invitation revoked or expired, the contest deleted)."""
    debug_log()
    problem = ""
    try:
        invitation = parse(link, server)
        if invitation.server is None:
            raise BadLink("a bare token names no server: add --server ws://HOST:PORT/ws")
        return asyncio.run(_session(invitation, watch))
    except BadLink as bad:
        problem = str(bad)
    except Refusal as refused:
        what = "this invitation" if refused.code.startswith(("auth/", "contest/")) else "this connection"
        problem = f"the server refused {what}: {refused.message} [{refused.code}]"
    except InvalidStatus as error:
        status = error.response.status_code
        problem = f"{invitation.server}: no Agon WebSocket there (HTTP {status}): it is at ws://HOST:PORT/ws"
    except (InvalidURI, InvalidHandshake) as error:
        problem = f"{invitation.server}: no WebSocket there: {error}"
    except Disconnected as error:
        problem = f"the server closed the connection: {error}"
    except (OSError, TimeoutError) as error:
        problem = f"cannot reach the server: {error or type(error).__name__}"
    except KeyboardInterrupt:
        return 130
    print(f"agon: {problem}", file=sys.stderr)
    return 1
