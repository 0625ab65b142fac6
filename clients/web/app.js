// The browser client: start page, new contest, GM console, player and spectator pages, replay viewer.
// The route is in the URL fragment: "#t=TOKEN" opens a contest with an invitation (the token never goes to
// the server in a URL, nor in a Referer); "#t=TOKEN&overlay" the stream overlay (overlay.js); "#new" the creation form;
// "#replay" opens a replay by link.
import { html, render, useContext, useEffect, useMemo, useRef, useState } from "./vendor/preact-htm.js";
import { Link, newId } from "./net.js";
import { PresenceStrip } from "./presence.js";
import * as memory from "./store.js";
import { WhoseMove } from "./turn.js";
import { ActionButton, ApChart, ConnectionBadge, Field, Invitation, Log, Names, Select, explain, explainField } from "./ui.js";
import { ruleset, rulesets } from "./rules/registry.js";
import { Overlay, OverlayLink } from "./overlay.js";
import { ReplayTalk, TableTalk, TalkSetting, talkSetting } from "./talk.js";
import "./rules/extended.js";
import "./rules/herowars.js";
import "./rules/karbon.js";
import "./rules/scored.js";
import "./rules/contingency.js";

const SPECTATOR = "~spectator";
const AUDITOR = "~auditor";

function route() {
  const hash = location.hash.replace(/^#/, "");
  const params = new URLSearchParams(hash.includes("=") ? hash : "");
  if (params.get("t")) return { page: params.has("replay") ? "replay" : params.has("overlay") ? "overlay" : "contest", token: params.get("t") };
  if (hash === "new") return { page: "new" };
  if (hash === "replay") return { page: "open-replay" };
  return { page: "start" };
}

function inviteUrl(token) {
  return `${location.origin}/#t=${token}`;
}

function go(hash) {
  location.hash = hash;
}

// Everyone and everything a contest's view names, by id: its seats, whatever its rules list with an id and a
// name (contestants, characters, zones…), a scene's agent, and the ruleset's own names(view) above all.
function knownNames(view, panels = null, seats = []) {
  const found = {};
  for (const seat of seats ?? []) if (seat?.id && seat.name) found[seat.id] = seat.name;
  const rules = view?.rules ?? {};
  if (typeof rules.agent === "string" && typeof rules.name === "string") found[rules.agent] = rules.name;
  for (const value of Object.values(rules)) {
    if (!Array.isArray(value)) continue;
    for (const item of value) if (typeof item?.id === "string" && typeof item.name === "string" && item.name) found[item.id] = item.name;
  }
  let own = {};
  try {
    own = (view?.rules && panels?.names?.(view)) || {};
  } catch {
    own = {};
  }
  return { ...found, ...own };
}

// --- start page ----------------------------------------------------------------------------------------

function Start() {
  const mine = memory.myContests();
  const [states, setStates] = useState({});
  useEffect(() => {
    const owner = memory.owner();
    if (!owner || mine.length === 0) return undefined;
    const link = new Link({ owner, onChange: async (l) => {
      if (l.state !== "open") return;
      try {
        const answer = await l.request({ type: "list_contests" });
        setStates(Object.fromEntries(answer.contests.map((c) => [c.contest, c])));
      } catch {
        /* listing is a convenience */
      }
      l.close();
    } });
    return () => link.close();
  }, []);
  return html`<main class="page start" id="main">
    <header class="hero-banner">
      <h1>Agon</h1>
      <p>Run long tabletop-RPG contests with your table, from anywhere: players seal their intents, the GM frames and confirms,
      spectators watch, and every contest can be replayed and verified.</p>
      <p><a class="button primary" href="#new" data-testid="new-contest">New contest</a>
      <a class="button" href="#replay">Open a replay</a></p>
    </header>
    <section class="panel" aria-labelledby="mine-title">
      <h2 id="mine-title">My contests</h2>
      ${mine.length === 0
        ? html`<p>No contest created from this browser yet. Press “New contest” to open one.</p>`
        : html`<ul class="my-contests">${mine.map((c) => html`<li key=${c.contest}>
            <a href=${`#t=${c.invitations.gm}`}>${c.title || c.contest}</a>
            <span class="meta">${c.ruleset} · ${c.phase ?? "created"}${states[c.contest] ? ` · ${states[c.contest].version} entries in its log` : ""}</span>
            <a class="small" href=${`#t=${c.invitations.gm}&replay`}>replay</a>
          </li>`)}</ul>`}
    </section>
    <p class="foot"><a href="/developers.html">For developers: the WebSocket protocol and endpoints</a></p>
  </main>`;
}

function OpenReplay() {
  const [text, setText] = useState("");
  const [error, setError] = useState("");
  const open = (event) => {
    event.preventDefault();
    const token = (/#t=([^&\s]+)/.exec(text)?.[1] ?? text).trim();
    if (!/^(eyJ|agon1\.)[A-Za-z0-9_-]*\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/.test(token)) {
      setError("Paste a GM's or an auditor's link (it contains #t= and the token).");
      return;
    }
    go(`t=${token}&replay`);
  };
  return html`<main class="page" id="main">
    <p><a href="#">← Agon</a></p>
    <h1>Open a replay</h1>
    <p>Paste the GM's link of a contest, or an auditor's link (a GM can hand one out; <code>agon import FILE</code> prints one
    for an exported log).</p>
    <form onSubmit=${open} class="action-form">
      <${Field} label="GM or auditor link" name="replay-link" value=${text} onInput=${setText} error=${error} testid="replay-link" />
      <div class="form-end"><button type="submit" class="primary">Open</button></div>
    </form>
  </main>`;
}

// --- creating a contest --------------------------------------------------------------------------------

function NewContest() {
  const all = rulesets();
  const [name, setName] = useState(all[0].name);
  const panels = ruleset(name);
  const [title, setTitle] = useState("");
  const [dice, setDice] = useState("server");
  const [talk, setTalk] = useState({ spectators: false, auditors_whispers: false });
  const [setup, setSetup] = useState(() => panels.newSetup());
  const [errors, setErrors] = useState({});
  const [problem, setProblem] = useState(null); // { error, names }
  const [busy, setBusy] = useState(false);
  const [refused, setRefused] = useState(0); // bumped each time the form is refused: focus its first error
  useEffect(() => {
    if (refused) document.querySelector("[aria-invalid=true]")?.focus(); // once the errors are on the page
  }, [refused]);
  const choose = (value) => {
    setName(value);
    setSetup(ruleset(value).newSetup());
    setErrors({});
  };
  const submit = async (event) => {
    event.preventDefault();
    setProblem(null);
    const built = panels.buildContest(setup);
    if (Object.keys(built.errors).length > 0) {
      setErrors(built.errors);
      setRefused((n) => n + 1);
      return;
    }
    setErrors({});
    setBusy(true);
    const link = new Link({ owner: memory.owner() });
    try {
      await new Promise((resolve) => {
        link.onChange = (l) => l.state === "open" && resolve();
      });
      const seats = [{ id: "gm", role: "gm", contestants: [] }, ...built.seats.map(({ id, role, contestants, name: seatName }) => ({ id, role, contestants, ...(seatName ? { name: seatName } : {}) }))];
      const created = await link.request({ type: "create", contest: { ruleset: name, title: title.trim(), dice, setup: built.setup, seats, ...talkSetting(talk) } });
      memory.remember({
        contest: created.contest,
        title: title.trim(),
        ruleset: name,
        created: new Date().toISOString(),
        invitations: created.invitations,
        seats: built.seats.map(({ id, name: seatName, contestants }) => ({ id, name: seatName, contestants })),
      });
      go(`t=${created.invitations.gm}`);
    } catch (refusal) {
      const names = knownNames({ rules: built.setup }, null, built.seats);
      const field = panels.fieldOf?.(refusal?.message);
      if (field) setErrors({ [field]: explainField(refusal, names) });
      setProblem({ error: refusal, names });
      setRefused((n) => n + 1);
    } finally {
      setBusy(false);
      link.close();
    }
  };
  const SetupForm = panels.SetupForm;
  return html`<main class="page" id="main">
    <p><a href="#">← Agon</a></p>
    <h1>New contest</h1>
    <form class="create" onSubmit=${submit} novalidate data-testid="create-form">
      <div class="grid">
        <${Select} label="Ruleset" name="ruleset" value=${name} onChange=${choose} options=${all.map((r) => [r.name, r.label])} hint=${panels.summary ?? ""} />
        <${Field} label="Title" name="title" value=${title} onInput=${setTitle} hint="Shown to everyone (optional)." testid="title" />
        <${Select} label="Dice" name="dice" value=${dice} onChange=${setDice}
          options=${[["server", "server dice"], ["physical", "physical dice"]]}
          hint=${dice === "server" ? "Rolled by the server, committed in advance, verifiable by anyone once the contest is concluded." : "Rolled at the table; the GM types in the faces."} />
      </div>
      <${SetupForm} setup=${setup} onChange=${setSetup} errors=${errors} />
      <${TalkSetting} value=${talk} onChange=${setTalk} />
      ${problem && html`<p class="refusal" role="alert" data-testid="create-error">${explain(problem.error, problem.names)}</p>`}
      <div class="form-end"><button type="submit" class="primary" disabled=${busy} data-testid="create">Create the contest</button></div>
    </form>
  </main>`;
}

// --- a followed contest ---------------------------------------------------------------------------------

function useContest(token) {
  const [, setTick] = useState(0);
  const saved = useMemo(() => memory.savedView(token), [token]);
  const notices = useRef(saved?.notices ?? []);
  const link = useMemo(
    () =>
      new Link({
        token,
        resume: saved,
        onChange: () => setTick((t) => t + 1),
        onNotice: (notice) => {
          if (!notices.current.some((n) => n.version === notice.version && n.kind === notice.kind)) {
            notices.current = [...notices.current, notice].sort((a, b) => a.version - b.version).slice(-300);
          }
          setTick((t) => t + 1);
        },
      }),
    [token],
  );
  useEffect(() => () => link.close(), [link]);
  const view = link.view;
  const panels = view ? ruleset(view.ruleset) : null;
  if (view && panels) memory.saveView(token, { contest: link.contest, version: link.version, view, notices: notices.current });
  return { link, view, panels, notices: notices.current };
}

function Problem({ link }) {
  if (link.state === "revoked") {
    return html`<main class="page" id="main"><h1>This link no longer works</h1>
      <p role="alert" data-testid="revoked">The GM re-issued this invitation: ask the GM for the new link.</p><p><a href="#">Agon</a></p></main>`;
  }
  return html`<main class="page" id="main"><h1>Cannot open this contest</h1>
    <p role="alert" data-testid="link-problem">${explain(link.problem, knownNames(link.view, link.view && ruleset(link.view.ruleset), link.welcome?.seats))}</p><p><a href="#">Agon</a></p></main>`;
}

function Contest({ token }) {
  const { link, view, panels, notices } = useContest(token);
  if (link.state === "revoked" || (link.state === "closed" && link.problem)) return html`<${Problem} link=${link} />`;
  if (!view || !link.welcome) {
    return html`<main class="page" id="main"><h1>Agon</h1><p><${ConnectionBadge} state=${link.state} /> Opening the contest…</p></main>`;
  }
  if (!panels) return html`<main class="page" id="main"><h1>${view.title}</h1><p>This browser does not know the ruleset “${view.ruleset}”.</p></main>`;
  const role = link.welcome.role;
  const me = { role, seat: link.welcome.seat, contestants: link.welcome.contestants };
  if (role === "auditor") {
    // an auditor's link opens the replay viewer (and this page's connection closes)
    setTimeout(() => location.replace(`#t=${token}&replay`), 0);
    return null;
  }
  const act = (command) => link.command(command);
  const Board = panels.Board;
  const Actions = panels.Actions;
  const mine = memory.mine(view.contest);
  if (role === "gm" && mine) {
    const phase = panels.phaseText?.(view) ?? "";
    if (mine.phase !== phase) memory.updateMine(view.contest, (c) => ({ ...c, phase }));
  }
  const who = role === "gm" ? "GM console" : role === "player" ? `Player: ${link.welcome.name ?? me.seat}` : "Spectator";
  document.title = `${view.title || "Untitled contest"} · ${who} · Agon`;
  return html`<${Names.Provider} value=${knownNames(view, panels, link.welcome.seats)}><div class=${`contest role-${role}`}>
    <header class="topbar">
      <a href="#" class="brand">Agon</a>
      <div class="title"><h1>${view.title || "Untitled contest"}</h1><span class="who" data-testid="role">${who}</span></div>
      <${ConnectionBadge} state=${link.state} />
    </header>
    <${WhoseMove} view=${view} me=${me} seats=${link.welcome.seats} notices=${notices} title=${view.title} />
    <${PresenceStrip} presence=${link.state === "open" ? link.presenceOf() : null} me=${me} />
    <main id="main" class="columns">
      <div class="column main-column">
        <${Board} view=${view} me=${me} />
        <${Seal} view=${view} panels=${panels} />
        ${role !== "spectator" && html`<section class="panel" aria-labelledby="actions-title">
          <h2 id="actions-title" tabindex="-1">${role === "gm" ? "Run the contest" : "Your move"}</h2>
          <${Actions} view=${view} me=${me} act=${act} />
          ${role === "gm" && html`<${EngineControls} view=${view} act=${act} token=${token} />`}
        </section>`}
        <${Chart} view=${view} panels=${panels} />
      </div>
      <div class="column side-column">
        <${TableTalk} link=${link} me=${me} seats=${link.welcome.seats} />
        ${role === "gm" && html`<${Invitations} view=${view} link=${link} panels=${panels} />`}
        ${role === "gm" && html`<${Timeline} link=${link} version=${link.version} act=${act} />`}
        ${role !== "gm" && html`<${Log} notices=${notices} />`}
      </div>
    </main>
  </div><//>`;
}

// The AP chart as the view records it (rulesets without one return null).
function Chart({ view, panels }) {
  const points = panels.chartPoints(view);
  const names = Object.keys(points?.at(-1)?.values ?? {});
  if (!points || names.length === 0) return null;
  return html`<section class="panel" data-testid="ap-chart"><${ApChart} points=${points} names=${names} /></section>`;
}

// Who has sealed a declaration this window (payloads only for their author and the GM; the commitments are the
// replay's to verify, not for people to read).
function Seal({ view, panels }) {
  const seal = view.seal;
  if (!seal) return null;
  const contestants = panels?.names?.(view) ?? Object.fromEntries((view.rules.contestants ?? []).map((c) => [c.id, c.name]));
  return html`<section class="panel seal" aria-labelledby="seal-title" data-testid="seal">
    <h2 id="seal-title">Sealed declarations</h2>
    <ul>${seal.expected.map((p) => {
      const d = seal.declared.find((x) => x.participant === p);
      return html`<li key=${p} data-testid=${`seal-${p}`}>
        <strong>${contestants[p] ?? p}</strong>: ${d ? html`<span class="tag ok">sealed</span>` : html`<span class="tag warn">waiting</span>`}
        ${d?.payload ? html`<span class="payload"> — ${panels?.declarationWords?.(d.payload) ?? `${d.payload.action || "(no action)"}${"bid" in d.payload ? `, bid ${d.payload.bid ?? 3}` : ""}${d.payload.tactic ? `, ${d.payload.tactic}` : ""}`}</span>` : ""}
      </li>`;
    })}</ul>
    <p class="hint">Intents are revealed together when everyone has sealed one${view.rules ? ", or when the GM closes the window" : ""}.</p>
  </section>`;
}

function EngineControls({ view, act, token }) {
  const [concluding, setConcluding] = useState(false);
  if (view.concluded) {
    return html`<p>The contest is concluded; the dice seed is revealed. <a href=${`#t=${token}&replay`}>Open the replay</a></p>`;
  }
  return html`<div class="engine-controls" role="group" aria-label="GM controls">
    ${view.seal && html`<${ActionButton} label="Close the window now" title="Reveal with what has been declared; missing intents are the default" run=${() => act({ type: "seal.close" })} testid="close-window" />`}
    <${ActionButton} label="Undo" disabled=${!view.can_undo} title="Back to the previous checkpoint" run=${() => act({ type: "control.undo" })} testid="undo" />
    <${ActionButton} label="Redo" disabled=${!view.can_redo} run=${() => act({ type: "control.redo" })} testid="redo" />
    ${concluding
      ? html`<span class="confirm">End the contest for everyone? <${ActionButton} kind="danger" label="Yes, conclude" run=${() => act({ type: "contest.conclude" })} testid="conclude-yes" />
          <button type="button" onClick=${() => setConcluding(false)}>No</button></span>`
      : html`<button type="button" onClick=${() => setConcluding(true)} data-testid="conclude">Conclude…</button>`}
    <a class="button" href=${`#t=${token}&replay`}>Replay viewer</a>
  </div>`;
}

function Invitations({ view, link, panels }) {
  const [entry, setEntry] = useState(() => memory.mine(view.contest));
  const [extra, setExtra] = useState({});
  const seats = (link.welcome.seats ?? []).filter((s) => s.role === "player");
  const names = Object.fromEntries([...(entry?.seats ?? []), ...seats].filter((s) => s.name).map((s) => [s.id, s.name]));
  const contestantNames = panels?.names?.(view) ?? Object.fromEntries((view.rules.contestants ?? []).map((c) => [c.id, c.name]));
  const tokenOf = (seat) => extra[seat] ?? (seat === SPECTATOR ? entry?.invitations.spectator : entry?.invitations.seats[seat]);
  const reissue = async (seat) => {
    const invited = await link.request({ type: "invite", contest: view.contest, seat });
    setExtra((e) => ({ ...e, [seat]: invited.token }));
    if (entry && seat !== AUDITOR) {
      memory.updateMine(view.contest, (c) => {
        const invitations = { ...c.invitations, seats: { ...c.invitations.seats } };
        if (seat === SPECTATOR) invitations.spectator = invited.token;
        else invitations.seats[seat] = invited.token;
        return { ...c, invitations };
      });
      setEntry(memory.mine(view.contest));
    }
  };
  const label = (seat) => `${names[seat.id] ?? seat.id} (plays ${seat.contestants.map((c) => contestantNames[c] ?? c).join(", ")})`;
  const open = !view.concluded; // a concluded contest's links can no longer be re-issued; an auditor link can be made
  return html`<section class="panel invitations" aria-labelledby="inv-title" data-testid="invitations">
    <h2 id="inv-title">Invitations</h2>
    <p class="hint">${open
      ? "Each link is all a player needs. A link stays valid for the whole contest (a year at most) unless you re-issue it: the old one then stops working at once."
      : "The contest is over: its links still open it to read. An auditor link lets someone replay and verify it."}</p>
    ${seats.map((seat) => tokenOf(seat.id)
      ? html`<${Invitation} key=${seat.id} title=${label(seat)} url=${inviteUrl(tokenOf(seat.id))} onReissue=${open ? () => reissue(seat.id) : null} testid=${`invite-${seat.id}`} />`
      : html`<div class="invitation" key=${seat.id}><p>${label(seat)}: this browser does not hold the link.</p>
          ${open && html`<${ActionButton} label="Issue a new link" run=${() => reissue(seat.id)} />`}</div>`)}
    ${tokenOf(SPECTATOR)
      ? html`<${Invitation} title="Spectators (watch only)" url=${inviteUrl(tokenOf(SPECTATOR))} onReissue=${open ? () => reissue(SPECTATOR) : null} testid="invite-spectator" />
        <${OverlayLink} url=${`${inviteUrl(tokenOf(SPECTATOR))}&overlay`} />`
      : open && html`<${ActionButton} label="Issue a spectators' link" run=${() => reissue(SPECTATOR)} />`}
    ${extra[AUDITOR]
      ? html`<${Invitation} title="Auditor (reads everything, cannot act)" url=${`${inviteUrl(extra[AUDITOR])}`} onReissue=${() => reissue(AUDITOR)} testid="invite-auditor" />`
      : html`<${ActionButton} label="Create an auditor link" title="Read-only, sees everything, for replay and verification" run=${() => reissue(AUDITOR)} testid="auditor-link" />`}
  </section>`;
}

// The GM's timeline: every event, the undone ones greyed out, "rewind to here" on every rewindable point.
// The GM's timeline. After the first answer it asks only for what is new (`after` the head it holds) and
// takes the earlier entries an undo, a rewind or a new batch re-marked from `revised`.
function Timeline({ link, version, act }) {
  const [timeline, setTimeline] = useState(null);
  const [error, setError] = useState(null);
  const names = useContext(Names);
  const held = useRef(null);
  useEffect(() => {
    if (link.state !== "open") return undefined;
    const timer = setTimeout(async () => {
      const before = held.current;
      try {
        const answer = await link.request({ type: "get_timeline", contest: link.contest, viewer: "gm", ...(before ? { after: before.head } : {}) });
        const revised = new Map((answer.revised ?? []).map((e) => [e.version, e]));
        const entries = answer.after == null ? answer.entries : [...before.entries.map((e) => revised.get(e.version) ?? e), ...answer.entries];
        if (held.current && answer.head < held.current.head) return; // a newer answer came first
        held.current = { head: answer.head, entries };
        setTimeline({ ...answer, entries });
        setError(null);
      } catch (refusal) {
        setError(refusal);
      }
    }, 150);
    return () => clearTimeout(timer);
  }, [version, link.state]);
  const list = useRef(null);
  useEffect(() => {
    if (list.current) list.current.scrollTop = list.current.scrollHeight;
  }, [timeline?.entries.length]);
  return html`<section class="panel timeline" aria-labelledby="timeline-title" data-testid="timeline">
    <h2 id="timeline-title">Timeline</h2>
    ${error && html`<p class="refusal" role="alert">${explain(error, names)}</p>`}
    <ol ref=${list} class="timeline-list" tabindex="0" aria-label="events of the contest">
      ${(timeline?.entries ?? []).map((e) => html`<li key=${e.version} class=${`${e.undone ? "undone" : ""} ${e.checkpoint ? "checkpoint" : ""}`} data-testid=${`event-${e.version}`}>
        <span class="v">v${e.version}</span> <span class="text">${e.text}</span>${e.undone ? html` <span class="tag">undone</span>` : ""}
        ${e.rewind_to && html` <${ActionButton} label="Rewind to here" confirm=${`Rewind to v${e.version}? Everything after it is undone (the timeline keeps it).`} run=${() => act({ type: "control.rewind", to_version: e.version })} testid=${`rewind-${e.version}`} />`}
      </li>`)}
    </ol>
  </section>`;
}

// --- the replay viewer (GM and auditor) ----------------------------------------------------------------

function Replay({ token }) {
  const [, setTick] = useState(0);
  const link = useMemo(() => new Link({ token, onChange: () => setTick((t) => t + 1) }), [token]);
  useEffect(() => () => link.close(), [link]);
  const [viewer, setViewer] = useState("gm");
  const [at, setAt] = useState(null);
  const [data, setData] = useState(null);
  const [error, setError] = useState(null);
  useEffect(() => {
    if (link.state !== "open" || !link.welcome) return undefined;
    const timer = setTimeout(async () => {
      try {
        const answer = await link.request({ type: "get_timeline", contest: link.contest, viewer, at });
        setData(answer);
        setError(null);
      } catch (refusal) {
        setError(refusal);
      }
    }, 120);
    return () => clearTimeout(timer);
  }, [viewer, at, link.state, link.welcome, link.version]);
  if (link.state === "revoked" || (link.state === "closed" && link.problem)) return html`<${Problem} link=${link} />`;
  if (!link.welcome) return html`<main class="page" id="main"><h1>Replay</h1><p><${ConnectionBadge} state=${link.state} /> Opening…</p></main>`;
  if (!["gm", "auditor"].includes(link.welcome.role)) {
    return html`<main class="page" id="main"><h1>Replay</h1><p role="alert">Only the GM or an auditor may open the replay viewer.</p></main>`;
  }
  const seats = link.welcome.seats ?? [];
  document.title = `Replay · ${link.view?.title || "Untitled contest"} · Agon`;
  const viewers = [["gm", "the GM"], ...seats.filter((s) => s.role === "player").map((s) => [s.id, `${s.name ?? s.id} (player)`]), [SPECTATOR, "a spectator"]];
  const panels = data ? ruleset(data.view.ruleset) : null;
  const Board = panels?.Board;
  const shown = data?.at ?? 1;
  const v = data?.verification;
  return html`<div class="contest replay">
    <header class="topbar">
      <a href="#" class="brand">Agon</a>
      <div class="title"><h1>Replay: ${link.view?.title || link.contest}</h1><span class="who">${link.welcome.role === "auditor" ? "Auditor" : "GM"} · read-only</span></div>
      <${ConnectionBadge} state=${link.state} />
    </header>
    <${WhoseMove} view=${data?.view} />
    <main id="main" class="columns">
      <div class="column main-column">
        <section class="panel scrub" aria-labelledby="scrub-title">
          <h2 id="scrub-title">Version ${shown} of ${data?.head ?? "…"}</h2>
          <div class="grid">
            <${Select} label="Seen as" name="viewer" value=${viewer} onChange=${setViewer} options=${viewers} />
            <div class="field">
              <label for="scrubber">Version</label>
              <input id="scrubber" type="range" min="1" max=${data?.head ?? 1} value=${shown} onInput=${(e) => setAt(Number(e.currentTarget.value))} data-testid="scrubber" />
            </div>
          </div>
          <div class="engine-controls">
            <button type="button" onClick=${() => setAt(Math.max(1, shown - 1))} disabled=${shown <= 1}>← Previous</button>
            <button type="button" onClick=${() => setAt(Math.min(data?.head ?? 1, shown + 1))} disabled=${shown >= (data?.head ?? 1)}>Next →</button>
            <button type="button" onClick=${() => setAt(null)}>Latest</button>
          </div>
          ${error && html`<p class="refusal" role="alert">${explain(error, knownNames(data?.view ?? link.view, panels, seats))}</p>`}
        </section>
        ${v && html`<section class=${`panel verification ${v.ok ? "ok" : "bad"}`} aria-labelledby="verify-title" data-testid="verification">
          <h2 id="verify-title">Verification: ${v.ok ? "the log is intact" : "FAILED"}</h2>
          <p>${v.events} events; hash chain ${v.ok || !/hash|prev_hash/.test(v.problem ?? "") ? "intact" : "broken"};
            sealed commitments ${v.ok || !/commitment|revealed/.test(v.problem ?? "") ? "kept" : "broken"};${" "}
            ${v.dice_checked} dice checked against the revealed seed${v.dice_unchecked ? "; server dice are checked once the GM concludes the contest (the seed is revealed then)" : ""}.</p>
          ${v.problem && html`<p class="refusal">${v.problem}</p>`}
          ${data.read_only && html`<p>Imported contest: read-only.</p>`}
        </section>`}
        ${Board && html`<${Board} view=${data.view} me=${{ role: viewer === "gm" ? "gm" : viewer === SPECTATOR ? "spectator" : "player", seat: viewer, contestants: [] }} />`}
        ${data && html`<${Seal} view=${data.view} panels=${panels} />`}
        ${panels && html`<${Chart} view=${data.view} panels=${panels} />`}
      </div>
      <div class="column side-column">
        <section class="panel timeline" aria-labelledby="replay-log-title">
          <h2 id="replay-log-title">Log as ${viewers.find(([id]) => id === viewer)?.[1]}</h2>
          <ol class="timeline-list tall" tabindex="0" aria-label="events">
            ${(data?.entries ?? []).map((e) => html`<li key=${e.version} class=${`${e.undone ? "undone" : ""} ${e.version > shown ? "later" : ""} ${e.version === shown ? "current" : ""}`}>
              <button type="button" class="link-button" onClick=${() => setAt(e.version)} aria-label=${`go to version ${e.version}`}>v${e.version}</button>
              <span class="text">${e.text}</span>${e.sealed ? html` <span class="tag">sealed</span>` : ""}${e.undone ? html` <span class="tag">undone</span>` : ""}
            </li>`)}
          </ol>
        </section>
        ${data?.talk?.length > 0 && html`<${ReplayTalk} lines=${data.talk} at=${shown} viewer=${viewer} viewerWords=${viewers.find(([id]) => id === viewer)?.[1]} seats=${seats} onPick=${setAt} />`}
      </div>
    </main>
  </div>`;
}

// --- the app -------------------------------------------------------------------------------------------

function App() {
  const [current, setCurrent] = useState(route());
  useEffect(() => {
    const changed = () => setCurrent(route());
    addEventListener("hashchange", changed);
    return () => removeEventListener("hashchange", changed);
  }, []);
  switch (current.page) {
    case "new":
      return html`<${NewContest} />`;
    case "open-replay":
      return html`<${OpenReplay} />`;
    case "contest":
      return html`<${Contest} key=${current.token} token=${current.token} />`;
    case "replay":
      return html`<${Replay} key=${current.token} token=${current.token} />`;
    case "overlay":
      return html`<${Overlay} key=${current.token} token=${current.token} />`;
    default:
      return html`<${Start} />`;
  }
}

render(html`<${App} />`, document.getElementById("app"));
