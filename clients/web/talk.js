// Table talk: the contest's chat, beside the board. Everyone at the table reads the table's lines (spectators
// too when the GM allowed it at creation); a whisper (a player to the GM, the GM to one player) reaches only
// its two ends. "/roll 2d6+1" rolls server dice, drawn as dice. The replay viewer shows the lines as the chosen
// viewer read them, at the version they were said. The server decides who receives what: a page only draws
// the lines its connection was sent (net.js keeps them per contest).
import { html, useContext, useEffect, useLayoutEffect, useRef, useState } from "./vendor/preact-htm.js";
import { DiceRow } from "./dice.js";
import { REFUSALS, specific } from "./refusals.js";
import { Check, Names, explain, useFieldId } from "./ui.js";

const MAX_LENGTH = 500; // characters of a line, as the server bounds it
const NEAR_BOTTOM = 24; // px: a reader this close to the end of the list is reading the newest line

// "21:04" (the reader's clock), and the full date and time for the title.
function clock(at) {
  const date = new Date(at);
  if (Number.isNaN(date.getTime())) return { short: "", long: "" };
  return {
    short: date.toLocaleTimeString([], { hour: "2-digit", minute: "2-digit", hourCycle: "h23" }),
    long: date.toLocaleString([], { dateStyle: "full", timeStyle: "long" }),
  };
}

// The GM's seat among the contest's seats (the GM and an auditor know them); a player's whispers always have
// the GM at their other end.
function gmSeatOf(seats) {
  return (seats ?? []).find((s) => s.role === "gm")?.id ?? "gm";
}

// A player seat in words for the GM: its name, else the contestants it plays.
function seatWords(seat, names, index) {
  if (seat.name) return seat.name;
  const plays = (seat.contestants ?? []).map((c) => names[c]).filter(Boolean);
  return plays.length ? `the player of ${plays.join(", ")}` : `player ${index + 1}`;
}

// How a whisper is marked for this reader: "whisper to the GM", "whisper from Ann", or, for a reader at neither
// end (the replay as an auditor), "whisper from Ann to the GM".
function whisperWords(line, me, gmSeat, names) {
  if (!line.to) return "";
  const isGm = (seat) => seat === gmSeat || (me.role === "player" && seat !== me.seat);
  const to = isGm(line.to) ? "the GM" : line.to_name || names[line.to] || "a player";
  const from = isGm(line.from) ? "the GM" : line.name;
  if (line.from === me.seat) return `whisper to ${to}`;
  if (line.to === me.seat) return `whisper from ${from}`;
  return `whisper from ${from} to ${to}`;
}

function TalkRoll({ line }) {
  const roll = line.roll;
  const dice = (roll.dice ?? []).map((d) => ({ sides: d.sides, face: d.face, label: `${line.name}'s d${d.sides} showing ${d.face}` }));
  return html`<div class="talk-roll">
    <${DiceRow} dice=${dice} roll=${`talk-${line.n}`} testid="talk-dice" />
    <p class="talk-total" data-testid="talk-total" title="Server dice: checked by anyone once the contest is concluded">
      ${roll.expression} = <strong>${roll.total}</strong></p>
  </div>`;
}

// One line: who said it, when, to whom if it was a whisper, and what (a roll's dice and total, its comment).
export function TalkLine({ line, me, gmSeat, later = false, onPick = null }) {
  const names = useContext(Names);
  const whisper = whisperWords(line, me, gmSeat, names);
  const time = clock(line.at);
  const classes = ["talk-line", whisper ? "whisper" : "", line.from === me.seat ? "mine" : "", line.roll ? "rolled" : "", later ? "later" : ""];
  return html`<li class=${classes.filter(Boolean).join(" ")} data-testid="talk-line" data-n=${line.n}>
    <div class="talk-head">
      <strong class="talk-name">${line.name}</strong>
      ${whisper && html`<span class="tag whisper-tag">${whisper}</span>`}
      ${onPick
        ? html`<button type="button" class="link-button v" onClick=${() => onPick(line.version)} aria-label=${`go to version ${line.version}`}>v${line.version}</button>`
        : ""}
      ${later && html`<span class="tag">said later</span>`}
      <time class="talk-time" datetime=${line.at} title=${time.long}>${time.short}</time>
    </div>
    ${line.text && html`<p class="talk-text">${line.text}</p>`}
    ${line.roll && html`<${TalkRoll} line=${line} />`}
  </li>`;
}

// A refusal in words; a roll that cannot be read always says what is wrong with it.
function refusalText(error, names) {
  if (error?.code === "talk/bad_roll") {
    const detail = specific(error, names);
    if (detail.text) return `${REFUSALS[error.code]} ${detail.text}`;
  }
  return explain(error, names);
}

function SayForm({ link, me, seats }) {
  const names = useContext(Names);
  const [text, setText] = useState("");
  const [to, setTo] = useState("");
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState(null);
  const input = useRef(null);
  const id = useFieldId("talk");
  const gmSeat = gmSeatOf(seats);
  const players = (seats ?? []).filter((s) => s.role === "player");
  const options = me.role === "gm"
    ? [["", "Everyone"], ...players.map((s, i) => [s.id, seatWords(s, names, i)])]
    : [["", "Everyone"], [gmSeat, "the GM"]];
  const send = async (event) => {
    event.preventDefault();
    if (busy || !text.trim()) return;
    setBusy(true);
    setError(null);
    try {
      await link.say(text.trim(), to || null);
      setText("");
    } catch (refusal) {
      setError(refusal);
    } finally {
      setBusy(false);
      input.current?.focus();
    }
  };
  const length = text.trim().length;
  return html`<form class=${`talk-say ${to ? "whispering" : ""}`} onSubmit=${send} data-testid="talk-say">
    <div class="talk-to">
      <label for=${`${id}-to`}>To</label>
      <select id=${`${id}-to`} value=${to} onChange=${(e) => setTo(e.currentTarget.value)} data-testid="talk-to">
        ${options.map(([value, words]) => html`<option value=${value} selected=${value === to}>${words}</option>`)}
      </select>
    </div>
    <div class="talk-line-input">
      <label for=${id} class="sr-only">Your line</label>
      <input id=${id} ref=${input} type="text" value=${text} autocomplete="off" enterkeyhint="send" data-testid="talk-input"
        placeholder=${to ? "Whisper something, or /roll 2d6+1" : "Say something, or /roll 2d6+1"}
        aria-describedby=${`${id}-hint`} onInput=${(e) => setText(e.currentTarget.value)} />
      <button type="submit" class="primary" disabled=${busy} data-testid="talk-send">Send</button>
    </div>
    <small id=${`${id}-hint`} class="hint">
      <code>/roll 2d6+1</code> or <code>/r d20 stealth</code> rolls server dice for everyone you talk to.
      ${length > MAX_LENGTH - 50 ? html` <span class=${length > MAX_LENGTH ? "talk-count over" : "talk-count"}>${length} of ${MAX_LENGTH} characters.</span>` : ""}
    </small>
    ${error && html`<p class="refusal" role="alert" data-testid="talk-refusal">${refusalText(error, names)}</p>`}
  </form>`;
}

// The contest page's panel. `seats`: the contest's seats (the GM's welcome carries them). A spectator's page
// shows it when the server sends it the talk after its welcome (only when the GM allowed spectators to read the
// table talk), and never writes.
export function TableTalk({ link, me, seats = null }) {
  const talk = link.talkOf();
  const lines = talk?.lines ?? [];
  const last = lines.at(-1)?.n ?? 0;
  const [open, setOpen] = useState(true);
  const [seen, setSeen] = useState(last);
  const list = useRef(null);
  const height = useRef(0); // the list's height as last drawn or scrolled: was the reader at its end?
  const shown = useRef(false); // the list was open when last drawn
  const id = useFieldId("talk-panel");
  const gmSeat = gmSeatOf(seats);
  const toEnd = () => {
    const box = list.current;
    if (box) {
      box.scrollTop = box.scrollHeight;
      height.current = box.scrollHeight;
    }
    setSeen(last);
  };
  // New lines: the list follows them when the reader was at its end (or said the last one), else stays put.
  useLayoutEffect(() => {
    const box = list.current;
    if (!open || !box) {
      shown.current = false;
      return;
    }
    const atEnd = !shown.current || box.scrollTop + box.clientHeight >= height.current - NEAR_BOTTOM;
    shown.current = true;
    if (atEnd || lines.at(-1)?.from === me.seat) toEnd();
    else height.current = box.scrollHeight;
  }, [last, open]);
  useEffect(() => {
    const box = list.current;
    if (!box) return undefined;
    const scrolled = () => {
      height.current = box.scrollHeight;
      if (box.scrollHeight - box.scrollTop - box.clientHeight < NEAR_BOTTOM) setSeen(last);
    };
    box.addEventListener("scroll", scrolled, { passive: true });
    return () => box.removeEventListener("scroll", scrolled);
  }, [open, last]);
  if (me.role === "spectator" && talk === null) return null; // the server sends a spectator talk only where allowed
  if (!["gm", "player", "spectator"].includes(me.role)) return null;
  const unseen = lines.filter((l) => l.n > seen && l.from !== me.seat).length;
  return html`<section class="panel talk" aria-labelledby=${`${id}-title`} data-testid="talk">
    <h2 id=${`${id}-title`} class="talk-title">
      <button type="button" class="talk-toggle" aria-expanded=${open ? "true" : "false"} aria-controls=${`${id}-body`}
        onClick=${() => setOpen(!open)} data-testid="talk-toggle">Table talk${!open && unseen ? ` (${unseen} new)` : ""}</button>
    </h2>
    <div id=${`${id}-body`} class="talk-body" hidden=${!open}>
      ${talk?.more && html`<p class="hint">Only the latest lines are shown here; the replay viewer holds them all.</p>`}
      <div class="talk-scroll">
        <ol ref=${list} class="talk-list" aria-live="polite" aria-relevant="additions" tabindex="0" aria-label="table talk lines" data-testid="talk-lines">
          ${lines.map((line) => html`<${TalkLine} key=${line.n} line=${line} me=${me} gmSeat=${gmSeat} />`)}
        </ol>
        ${lines.length === 0 && html`<p class="hint talk-empty">Nothing said yet.</p>`}
        ${unseen > 0 && html`<button type="button" class="talk-new" onClick=${toEnd} data-testid="talk-new">${unseen} new ↓</button>`}
      </div>
      ${me.role === "spectator"
        ? html`<p class="hint">Spectators read the table talk; the GM and the players write in it.</p>`
        : html`<${SayForm} link=${link} me=${me} seats=${seats} />`}
    </div>
  </section>`;
}

// The replay viewer's table talk: the lines `viewer` could read, those said after the version shown marked.
export function ReplayTalk({ lines, at, viewer, viewerWords, seats, onPick }) {
  const gmSeat = gmSeatOf(seats);
  const me = viewer === "gm"
    ? { role: "gm", seat: gmSeat }
    : viewer.startsWith("~") ? { role: viewer === "~spectator" ? "spectator" : "auditor", seat: viewer } : { role: "player", seat: viewer };
  const id = useFieldId("replay-talk");
  const said = lines.filter((l) => l.version <= at).length;
  return html`<section class="panel talk replay-talk" aria-labelledby=${`${id}-title`} data-testid="replay-talk">
    <h2 id=${`${id}-title`}>Table talk as ${viewerWords}</h2>
    <p class="hint">${said} of ${lines.length} ${lines.length === 1 ? "line" : "lines"} said by version ${at}.</p>
    ${lines.length > 0 && html`<ol class="talk-list tall" tabindex="0" aria-label="table talk lines">
      ${lines.map((line) => html`<${TalkLine} key=${line.n} line=${line} me=${me} gmSeat=${gmSeat} later=${line.version > at} onPick=${onPick} />`)}
    </ol>`}
  </section>`;
}

// The new-contest form's part: who besides the table may read the talk. `value`: {spectators, auditors_whispers}.
export function TalkSetting({ value, onChange }) {
  return html`<fieldset class="talk-setting" data-testid="talk-setting">
    <legend>Table talk</legend>
    <${Check} label="Spectators may read the table talk" name="talk-spectators" checked=${value.spectators}
      onChange=${(spectators) => onChange({ ...value, spectators })} hint="Off: only the GM and the players read it. Whispers stay between their two ends." />
    <${Check} label="Auditors may read whispers" name="talk-auditors" checked=${value.auditors_whispers}
      onChange=${(auditors_whispers) => onChange({ ...value, auditors_whispers })} hint="Off: an auditor's replay and the export hold the table's lines only." />
  </fieldset>`;
}

// The creation request's `talk` member: only when something is allowed beyond the defaults.
export function talkSetting(value) {
  return value.spectators || value.auditors_whispers ? { talk: { spectators: value.spectators, auditors_whispers: value.auditors_whispers } } : {};
}
