// The WebSocket to the server: hello with a token, welcome, patches applied in order, notices, commands
// answered by ack or error, automatic reconnection that resumes from the last version seen.
import { affinityUrl, contestOfToken } from "./affinity.js";
import { applyPatch } from "./vendor/core.mjs";

const BACKOFF_MS = [250, 500, 1000, 2000, 4000, 8000];
const TALK_KEPT = 1000; // lines of table talk a page keeps per contest (the newest)

let counter = 0;
export function newId(prefix = "c") {
  counter += 1;
  const random = crypto.getRandomValues(new Uint32Array(2));
  return `${prefix}-${Date.now().toString(36)}-${random[0].toString(36)}${random[1].toString(36)}-${counter}`;
}

function socketUrl() {
  const scheme = location.protocol === "https:" ? "wss:" : "ws:";
  return `${scheme}//${location.host}/ws`;
}

// Two strings in Unicode code point order, as the server sorts member names. JavaScript's own sort compares
// UTF-16 code units, which puts a character above U+FFFF (a surrogate pair, D800–DFFF) before one in E000–FFFF.
export function byCodePoint(a, b) {
  for (let i = 0; i < a.length && i < b.length; ) {
    const x = a.codePointAt(i);
    const y = b.codePointAt(i);
    if (x !== y) return x - y;
    i += x > 0xffff ? 2 : 1;
  }
  return a.length - b.length;
}

// Canonical JSON (member names sorted by code point, no spaces): what the server hashes a view as
// (protocol/patch.py view_hash; docs/protocol.md, "view_hash").
export function canonical(value) {
  if (value === null || typeof value !== "object") return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map(canonical).join(",")}]`;
  const keys = Object.keys(value).sort(byCodePoint);
  return `{${keys.map((k) => `${JSON.stringify(k)}:${canonical(value[k])}`).join(",")}}`;
}

export async function viewHash(doc) {
  if (!globalThis.crypto || !crypto.subtle) return null; // not a secure context: cannot check
  const bytes = new TextEncoder().encode(canonical(doc));
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", bytes));
  return Array.from(digest, (b) => b.toString(16).padStart(2, "0")).join("").slice(0, 16);
}

// One connection to the server. `follow`: the token of the contest to follow (optional; an anonymous
// connection may only create contests). Listeners get every state change through `onChange`.
export class Link {
  constructor({ token = null, owner = null, resume = null, onChange = () => {}, onNotice = () => {}, onMessage = () => {} }) {
    this.token = token;
    this.owner = owner;
    this.onChange = onChange;
    this.onNotice = onNotice;
    this.onMessage = onMessage;
    this.state = "connecting"; // connecting | open | reconnecting | closed | revoked
    this.problem = null; // the last error that ended following (code, message)
    this.welcome = null;
    this.contest = resume?.contest ?? null;
    this.version = resume?.version ?? null;
    this.view = resume?.view ?? null;
    this.pending = new Map();
    this.presence = new Map(); // who is at each contest's table: its last `presence` frame (presence.js)
    this.talk = new Map(); // table talk per contest: {lines (by n, oldest first), more}
    this.attempt = 0;
    this.stopped = false;
    this.open();
  }

  open() {
    const ws = new WebSocket(affinityUrl(socketUrl(), this.token ? (this.contest ?? contestOfToken(this.token)) : null));
    this.ws = ws;
    ws.addEventListener("open", () => {
      this.attempt = 0;
      const hello = { type: "hello", client: "agon-web" };
      if (this.owner) hello.owner = this.owner;
      if (this.token) {
        const follow = { token: this.token };
        if (this.contest) follow.contest = this.contest;
        if (this.view && this.version) follow.after = this.version;
        hello.follow = [follow];
      }
      ws.send(JSON.stringify(hello));
      if (!this.token) this.setState("open");
    });
    ws.addEventListener("message", (event) => this.receive(event.data));
    ws.addEventListener("close", () => {
      if (this.ws !== ws) return;
      for (const [, waiter] of this.pending) waiter.reject({ code: "net/closed", message: "the connection closed before an answer; try again" });
      this.pending.clear();
      if (this.stopped || this.state === "revoked" || this.state === "closed") return;
      this.setState("reconnecting");
      const delay = BACKOFF_MS[Math.min(this.attempt, BACKOFF_MS.length - 1)];
      this.attempt += 1;
      this.timer = setTimeout(() => this.open(), delay);
    });
  }

  close() {
    this.stopped = true;
    clearTimeout(this.timer);
    this.ws?.close(1000);
  }

  setState(state) {
    this.state = state;
    this.onChange(this);
  }

  async receive(data) {
    let message;
    try {
      message = JSON.parse(data);
    } catch {
      return;
    }
    this.onMessage(message);
    switch (message.type) {
      case "welcome":
        return this.welcomed(message);
      case "patch":
        return this.patched(message);
      case "notice":
        return this.onNotice(message);
      case "presence":
        this.presence.set(message.contest, message);
        return this.onChange(this);
      case "talk":
        return this.heard(message.contest, message.lines ?? [], message.more);
      case "said":
        this.heard(message.contest, [message.line]);
        return this.answer(message.id, message, null);
      case "ack":
      case "created":
      case "contests":
      case "invited":
      case "timeline":
        return this.answer(message.id, message, null);
      case "error":
        return this.failed(message);
      default:
        return undefined;
    }
  }

  async welcomed(message) {
    this.welcome = message;
    this.contest = message.contest;
    if (message.view) {
      this.view = message.view;
      this.version = message.version;
    } else {
      // a resume: our stored view must be the one the server resumes from
      const mine = this.view ? await viewHash(this.view) : undefined;
      if (this.version !== message.version || (mine !== null && mine !== message.view_hash)) {
        this.resync();
        return;
      }
    }
    this.setState("open");
  }

  async patched(message) {
    if (message.contest !== this.contest || this.view === null) return;
    if (message.from !== this.version) {
      this.resync();
      return;
    }
    try {
      this.view = applyPatch(structuredClone(this.view), message.ops, true, false).newDocument;
    } catch {
      this.resync();
      return;
    }
    this.version = message.to;
    const hash = await viewHash(this.view);
    if (hash !== null && hash !== message.view_hash) {
      this.resync();
      return;
    }
    for (const line of message.notices ?? []) this.onNotice({ type: "notice", contest: message.contest, ...line });
    this.onChange(this);
  }

  resync() {
    this.view = null;
    this.send({ type: "resync", contest: this.contest });
  }

  failed(message) {
    if (message.id && this.pending.has(message.id)) {
      this.answer(message.id, null, message);
      return;
    }
    if (message.code === "auth/revoked" || message.code === "auth/bad_token" || message.code === "auth/expired_token" || message.code === "contest/not_found" || message.code === "auth/wrong_contest") {
      this.problem = message;
      this.setState(message.code === "auth/revoked" ? "revoked" : "closed");
      this.ws?.close(1000);
      return;
    }
    this.problem = message;
    this.onChange(this);
  }

  answer(id, message, error) {
    const waiter = this.pending.get(id);
    if (!waiter) return;
    this.pending.delete(id);
    if (error) waiter.reject(error);
    else waiter.resolve(message);
  }

  send(message) {
    if (this.ws?.readyState === WebSocket.OPEN) this.ws.send(JSON.stringify(message));
  }

  // A request answered by the message with the same id (ack, created, invited, timeline) or an error.
  request(message) {
    const id = message.id ?? newId();
    const framed = { ...message, id };
    return new Promise((resolve, reject) => {
      if (this.ws?.readyState !== WebSocket.OPEN) {
        reject({ code: "net/offline", message: "not connected: wait for the connection to come back, then try again" });
        return;
      }
      this.pending.set(id, { resolve, reject });
      this.ws.send(JSON.stringify(framed));
    });
  }

  command(command) {
    return this.request({ type: "command", contest: this.contest, command });
  }

  // Who is at the table of `contest` now (its last `presence` frame), or null before the first.
  presenceOf(contest = this.contest) {
    return this.presence.get(contest) ?? null;
  }

  // Table talk: a line to the table, or a whisper `to` one seat; resolves on its `said` (the line is stored).
  say(text, to = null) {
    return this.request({ type: "say", contest: this.contest, text, ...(to ? { to } : {}) });
  }

  // The table talk of `contest` this connection holds (the history sent after a welcome, then each line
  // said), or null when the server sent none.
  talkOf(contest = this.contest) {
    return this.talk.get(contest) ?? null;
  }

  // Lines of table talk received for `contest` (the history after a welcome, or one line said): merged with
  // those held by their number `n` (a resumed follow's history repeats some), oldest first.
  heard(contest, lines, more = undefined) {
    const held = this.talk.get(contest) ?? { lines: [], more: false };
    const byN = new Map(held.lines.map((line) => [line.n, line]));
    for (const line of lines) if (line && Number.isInteger(line.n)) byN.set(line.n, line);
    const sorted = [...byN.values()].sort((a, b) => a.n - b.n);
    const kept = sorted.slice(-TALK_KEPT);
    this.talk.set(contest, { lines: kept, more: (more ?? held.more) || kept.length < sorted.length });
    this.onChange(this);
  }
}
