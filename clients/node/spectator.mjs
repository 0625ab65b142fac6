#!/usr/bin/env -S node --experimental-websocket
// An Agon spectator in Node.js, written from docs/protocol.md: it follows one contest from an invitation
// link, applies every patch with fast-json-patch, checks each view_hash (asking for a fresh view on a
// mismatch), prints the contest as it changes and who is at the table, and resumes after a lost connection.
//
//   node --experimental-websocket spectator.mjs 'http://127.0.0.1:8765/#t=eyJ....' [--until-concluded] [--final]
//
// --until-concluded  exit once the contest is concluded
// --final            on exit, print the last view as one line: FINAL <canonical JSON>

import { createHash } from "node:crypto";
import fastJsonPatch from "fast-json-patch";

const { applyPatch } = fastJsonPatch;

// --- the link and the token ------------------------------------------------------------------------------

// A token is a JWT (header.claims.signature, each base64url; the header is JSON, so it starts "eyJ"), or an
// "agon1." token of Agon 0.1. Its claims are readable by anyone; only the server can check the signature.
export function parseLink(link) {
  const match = /(?:agon1|eyJ[A-Za-z0-9_-]*)\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+/.exec(link.split("#")[1] ?? "");
  if (!match) throw new Error("the link holds no token after '#': copy the whole invitation link");
  const token = match[0];
  const claims = JSON.parse(Buffer.from(token.split(".")[1], "base64url").toString("utf8"));
  const url = new URL(link);
  const scheme = url.protocol === "https:" ? "wss:" : "ws:";
  return { token, contest: claims.contest, role: claims.role, server: `${scheme}//${url.host}/ws` };
}

// --- view_hash: SHA-256 of the canonical JSON (sorted keys, no whitespace, UTF-8), first 16 hex digits ------

// Member names are sorted by Unicode code point. Array.prototype.sort() compares UTF-16 code units instead,
// which puts a name with a character above U+FFFF (a surrogate pair) before one with a character in
// U+E000–U+FFFF: a contestant "𝔬" before "ａ", where the server puts "ａ" first.
export function byCodePoint(a, b) {
  for (let i = 0; i < a.length && i < b.length; ) {
    const x = a.codePointAt(i);
    const y = b.codePointAt(i);
    if (x !== y) return x - y;
    i += x > 0xffff ? 2 : 1;
  }
  return a.length - b.length;
}

export function canonical(value) {
  if (Array.isArray(value)) return `[${value.map(canonical).join(",")}]`;
  if (value !== null && typeof value === "object") {
    const keys = Object.keys(value).sort(byCodePoint);
    return `{${keys.map((k) => `${JSON.stringify(k)}:${canonical(value[k])}`).join(",")}}`;
  }
  return JSON.stringify(value);
}

export function viewHash(view) {
  return createHash("sha256").update(canonical(view), "utf8").digest("hex").slice(0, 16);
}

// --- printing ---------------------------------------------------------------------------------------------

function summary(view) {
  const rules = view.rules ?? {};
  const sides = (rules.contestants ?? [])
    .map((c) => `${c.name} ${c.ap === null || c.ap === undefined ? "?" : c.ap} AP${c.out ? " (out)" : ""}`)
    .join(" · ");
  const outcome = rules.outcome ? ` · ${rules.outcome.level}: ${rules.outcome.winner ?? "nobody"} wins` : "";
  const over = view.concluded ? " · concluded" : "";
  return `v${view.version} · ${rules.phase ?? "?"} · round ${rules.round ?? "?"} · ${sides}${outcome}${over}`;
}

// Who is at the table (a `presence` message) in one line: "at the table: the GM, Ann; away: Bo · 2 spectators".
// A seat by the name the GM gave it; else the GM's is "the GM", a player's named by the contestants it plays.
export function presenceLine(presence, view = null) {
  const names = Object.fromEntries((view?.rules?.contestants ?? []).map((c) => [c.id, c.name]));
  const called = (seat) => {
    if (seat.name) return seat.name;
    if (seat.role === "gm") return "the GM";
    if (seat.contestants?.length) return `${seat.contestants.map((c) => names[c] ?? c).join(" and ")}'s player`;
    return seat.seat;
  };
  const here = presence.seats.filter((s) => s.here).map(called);
  const away = presence.seats.filter((s) => !s.here).map(called);
  const count = (n, one) => `${n} ${one}${n === 1 ? "" : "s"}`;
  return (
    `at the table: ${here.join(", ") || "nobody"}` +
    (away.length ? `; away: ${away.join(", ")}` : "") +
    (presence.spectators ? ` · ${count(presence.spectators, "spectator")}` : "")
  );
}

// What the contest waits for, and from whom (the view's `waiting`, docs/protocol.md "Whose move"), in one line:
// "waiting for Ann and the GM to seal an intent".
export function whoseMove(view) {
  if (view?.concluded) return "concluded: nothing more to wait for";
  return (view?.waiting ?? []).map((w) => `waiting for ${w.who} to ${w.doing}`).join(" · ");
}

// --- the spectator ----------------------------------------------------------------------------------------

export function spectate(link, { untilConcluded = false, final = false, out = console.log } = {}) {
  const { token, contest, server } = parseLink(link);
  let view = null;
  let version = 0;
  let inSync = false;
  let stopped = false;
  let wait = 100;
  let waited = ""; // the last "waiting for" line printed
  let present = ""; // the last "at the table" line printed
  let resolveDone;
  const done = new Promise((resolve) => (resolveDone = resolve));

  function finish(code) {
    stopped = true;
    if (final && view) out(`FINAL ${canonical(view)}`);
    resolveDone(code);
  }

  function connect() {
    // The URL names the contest (?contest=ID) so a proxy hashing on it brings the table to one process; the
    // query grants nothing: the token in the hello decides.
    const ws = new WebSocket(`${server}?contest=${encodeURIComponent(contest)}`);
    ws.onopen = () => {
      wait = 100;
      const follow = { contest, token };
      if (inSync && version) follow.after = version; // resume from the last version held in sync
      ws.send(JSON.stringify({ type: "hello", follow: [follow], client: "agon-node-spectator/0.1" }));
    };
    ws.onmessage = (event) => {
      const message = JSON.parse(event.data);
      switch (message.type) {
        case "welcome":
          if (message.view) {
            if (viewHash(message.view) !== message.view_hash) return resync(ws, "the fresh view's hash");
            view = message.view;
          } else if (!view || version !== message.version || viewHash(view) !== message.view_hash) {
            return resync(ws, "the resumed view's hash");
          }
          version = message.version;
          inSync = true;
          out(`welcome as ${message.role} · ${summary(view)}`);
          tellWhoseMove();
          break;
        case "patch": {
          if (!inSync) break; // a fresh view is on its way
          if (message.from !== version) return resync(ws, `a gap (${version} → ${message.from})`);
          let next;
          try {
            next = applyPatch(view, message.ops, true, false).newDocument;
          } catch (error) {
            return resync(ws, `a patch that does not apply (${error.name})`);
          }
          if (viewHash(next) !== message.view_hash) return resync(ws, "a view_hash mismatch");
          view = next;
          version = message.to;
          out(summary(view));
          tellWhoseMove();
          for (const line of message.notices ?? []) out(`  [${line.version}] ${line.text}`);
          break;
        }
        case "notice":
          out(`  [${message.version}] ${message.text}`);
          break;
        case "presence": {
          const line = presenceLine(message, view);
          if (line !== present) out((present = line));
          break;
        }
        case "error":
          out(`error ${message.code}: ${message.message}`);
          if (message.code.startsWith("auth/") || message.code === "contest/not_found") {
            ws.close();
            finish(1);
            return;
          }
          break;
        default:
          break;
      }
      if (untilConcluded && view?.concluded && inSync) {
        ws.close();
        finish(0);
      }
    };
    ws.onclose = () => {
      if (stopped) return;
      out(`connection lost; resuming in ${wait} ms`);
      setTimeout(connect, wait * (0.5 + Math.random() / 2));
      wait = Math.min(wait * 2, 5000);
    };
    ws.onerror = () => {}; // onclose follows and resumes
  }

  function tellWhoseMove() {
    const line = whoseMove(view);
    if (line && line !== waited) out(`  ${(waited = line)}`);
  }

  function resync(ws, why) {
    out(`out of sync (${why}): asking for a fresh view`);
    inSync = false;
    ws.send(JSON.stringify({ type: "resync", contest }));
  }

  connect();
  return done;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const args = process.argv.slice(2);
  const link = args.find((a) => !a.startsWith("--"));
  if (!link) {
    console.error("usage: node --experimental-websocket spectator.mjs LINK [--until-concluded] [--final]");
    process.exit(2);
  }
  if (typeof WebSocket === "undefined") {
    console.error("this Node has no WebSocket: run it with --experimental-websocket (Node 20) or use Node 22+");
    process.exit(2);
  }
  let code;
  try {
    code = await spectate(link, { untilConcluded: args.includes("--until-concluded"), final: args.includes("--final") });
  } catch (error) {
    console.error(`agon-spectator: ${error.message}`);
    process.exit(2);
  }
  process.exit(code);
}
