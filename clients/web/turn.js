// Whose move: the one line at the top of every contest page saying what the table waits for and from whom, as
// the view says it (`waiting`, docs/protocol.md "Whose move"): "Your move: seal an intent" when this page's seat
// is awaited (the GM's also when the GM is), else "Waiting for Ann and Bo to seal an intent". The GM also reads
// how long the table has been waiting on a player ("· 2 min"). When it becomes this page's move the tab's title
// starts with a marker and the favicon changes; with "Alert me when it is my move" on (off by default, kept in
// this browser) a short sound plays, a desktop notification shows and a phone vibrates.
import { html, useEffect, useRef, useState } from "./vendor/preact-htm.js";

export const MARK = "● Your move · ";
const ALERTS = "agon.alerts";
const ICON = "/favicon.svg";
const ICON_MOVE = "/favicon-move.svg";
const MINUTE = 60_000;

// The waits a page reads: its own (its seat among the awaited ones) and the others'.
export function sortWaits(view, me) {
  const waits = view?.waiting ?? [];
  const seat = me?.seat;
  const isMine = (w) => seat != null && (w.seats ?? []).includes(seat);
  return { mine: waits.filter(isMine), others: waits.filter((w) => !isMine(w)) };
}

function unique(items) {
  return [...new Set(items)];
}

// The line in words ("Your move: …", "Waiting for … to …"), with `lasted(wait)` appended to others' waits (the
// GM's "· 2 min", or "").
export function waitingWords(view, me, lasted = () => "") {
  if (!view) return "";
  if (view.concluded) return "The contest is concluded: nothing more to wait for.";
  const { mine, others } = sortWaits(view, me);
  const parts = [];
  if (mine.length > 0) parts.push(`Your move: ${unique(mine.map((w) => w.doing)).join("; ")}`);
  for (const w of others) parts.push(`Waiting for ${w.who} to ${w.doing}${lasted(w)}`);
  return parts.join(" · ");
}

export function alertsOn() {
  try {
    return localStorage.getItem(ALERTS) === "on";
  } catch {
    return false;
  }
}

function setAlerts(on) {
  try {
    if (on) localStorage.setItem(ALERTS, "on");
    else localStorage.removeItem(ALERTS);
  } catch {
    /* storage disabled: the toggle lasts as long as the page */
  }
}

function setIcon(move) {
  for (const link of document.querySelectorAll("link[rel~='icon']")) {
    const href = move ? ICON_MOVE : ICON;
    if (link.getAttribute("href") !== href) link.setAttribute("href", href);
  }
}

function setTitle(move) {
  const base = document.title.startsWith(MARK) ? document.title.slice(MARK.length) : document.title;
  const title = move ? `${MARK}${base}` : base;
  if (document.title !== title) document.title = title;
}

let audio = null;

function audioContext() {
  const Context = window.AudioContext ?? window.webkitAudioContext;
  if (!Context) return null;
  audio ??= new Context();
  return audio;
}

// A short two-note chime, made on the spot (no sound file).
function chime() {
  const context = audioContext();
  if (!context) return;
  context.resume?.();
  const start = context.currentTime;
  for (const [offset, pitch] of [[0, 660], [0.14, 880]]) {
    const tone = context.createOscillator();
    const gain = context.createGain();
    tone.type = "sine";
    tone.frequency.value = pitch;
    gain.gain.setValueAtTime(0.0001, start + offset);
    gain.gain.exponentialRampToValueAtTime(0.2, start + offset + 0.02);
    gain.gain.exponentialRampToValueAtTime(0.0001, start + offset + 0.12);
    tone.connect(gain).connect(context.destination);
    tone.start(start + offset);
    tone.stop(start + offset + 0.13);
  }
}

function alert(words, title) {
  try {
    chime();
  } catch {
    /* no sound on this browser */
  }
  try {
    if ("Notification" in window && Notification.permission === "granted") {
      new Notification(title ? `Your move · ${title}` : "Your move", { body: words, tag: "agon-your-move" });
    }
  } catch {
    /* notifications refused or unavailable */
  }
  try {
    navigator.vibrate?.([120, 60, 120]);
  } catch {
    /* no vibration */
  }
}

// The GM's clock on each awaited player seat: since when it has been awaited (the time of the newest event this
// page knows of when the seat came to be awaited, or the moment the page saw it).
function useWaitingSince(view, me, seats, notices) {
  const since = useRef(new Map());
  const [, setTick] = useState(0);
  const gm = me?.role === "gm";
  useEffect(() => {
    if (!gm) return undefined;
    const timer = setInterval(() => setTick((t) => t + 1), 15_000);
    return () => clearInterval(timer);
  }, [gm]);
  if (!gm) return () => "";
  const players = new Set((seats ?? []).filter((s) => s.role === "player").map((s) => s.id));
  const awaited = new Set((view?.waiting ?? []).flatMap((w) => w.seats ?? []).filter((s) => players.has(s)));
  const newest = Math.max(0, ...(notices ?? []).map((n) => Date.parse(n.at)).filter((t) => Number.isFinite(t)));
  const now = Date.now();
  for (const seat of [...since.current.keys()]) if (!awaited.has(seat)) since.current.delete(seat);
  for (const seat of awaited) if (!since.current.has(seat)) since.current.set(seat, newest > 0 && newest <= now ? newest : now);
  return (wait) => {
    const started = (wait.seats ?? []).filter((s) => players.has(s)).map((s) => since.current.get(s) ?? now);
    if (started.length === 0) return "";
    const minutes = Math.floor((now - Math.min(...started)) / MINUTE);
    return minutes >= 1 ? ` · ${minutes} min` : "";
  };
}

// Scroll to the page's move box (the "Your move" or "Run the contest" panel, far down on a phone) and put the
// keyboard there, at its heading (not in a field, which would open a phone's keyboard).
function goToMove() {
  const heading = document.getElementById("actions-title");
  if (!heading) return;
  heading.scrollIntoView({ block: "start" });
  heading.focus({ preventScroll: true });
}

// The line under the topbar. `me`: { role, seat } (null on the replay, where the line is read as it was, never
// as anyone's move); `seats`: the welcome's seats (the GM's page has them); `notices`: the log lines the page
// holds (their times start the GM's clock).
export function WhoseMove({ view, me = null, seats = null, notices = null, title = "" }) {
  const lasted = useWaitingSince(view, me, seats, notices);
  const { mine } = sortWaits(view, me);
  const move = me != null && !view?.concluded && mine.length > 0;
  const words = waitingWords(view, me, lasted);
  const [alerts, setAlertsState] = useState(alertsOn);
  const was = useRef(null);
  useEffect(() => {
    if (me == null) return;
    setTitle(move);
    setIcon(move);
  });
  useEffect(() => {
    if (me == null) return;
    if (was.current === false && move && alertsOn()) alert(words, title);
    was.current = move;
  }, [move]);
  useEffect(() => () => {
    if (me == null) return;
    setTitle(false);
    setIcon(false);
  }, []);
  const toggle = (on) => {
    setAlerts(on);
    setAlertsState(on);
    if (!on) return;
    audioContext()?.resume?.(); // sound may play later: the browser lets a page start it from a click
    try {
      if ("Notification" in window && Notification.permission === "default") Notification.requestPermission();
    } catch {
      /* no notifications here */
    }
  };
  if (!view) return null;
  const player = me != null && me.role !== "spectator";
  return html`<div class=${`whose-move ${move ? "mine" : ""}`}>
    <p class="whose-line" data-testid="whose-move" role="status">${words}</p>
    ${move && player && html`<button type="button" class="link-button go-to-move" onClick=${goToMove} data-testid="go-to-move">Go to your move</button>`}
    ${player && html`<label class="alert-toggle"><input type="checkbox" checked=${alerts} onChange=${(e) => toggle(e.currentTarget.checked)}
      data-testid="move-alerts" /> Alert me when it is my move</label>`}
  </div>`;
}
