// The stream overlay: "#t=<spectators' token>&overlay" draws what a spectator sees — the ruleset's board, the last
// roll's dice drawn large, and the chart — on a transparent page with no header, no controls and no forms, for a
// streaming tool's browser source (1920 × 1080 or 1280 × 720; README, "Streaming"). It only ever shows the public
// sight: a GM's or a player's link with "&overlay" is refused with a sentence (and its connection closed at once),
// so a secret never reaches a stream; the GM console offers the spectators' overlay link to copy.
import { html, useEffect, useMemo, useRef, useState } from "./vendor/preact-htm.js";
import { Link } from "./net.js";
import { ApChart, explain, useFieldId } from "./ui.js";
import { DiceRow } from "./dice.js";
import { ruleset } from "./rules/registry.js";

const PAGE_CLASS = "overlay-page"; // on <html> while the overlay is shown: the transparent background (style.css)
const SPECTATOR_SIGHT = { role: "spectator", seat: "~spectator", contestants: [] };

// The sentence for a link that is not the spectators': whose it is, and where the overlay's link is.
const REFUSALS = {
  gm: "This is the GM's link: a stream overlay shows only what spectators see, never the GM's view. In the GM console, “Copy the overlay link” (under Invitations) gives the spectators' link with &overlay — use that one in the streaming tool.",
  player: "This is a player's link: a stream overlay shows only what spectators see, never a player's view. Ask the GM for the overlay link (the spectators' link with &overlay), which the GM console copies under Invitations.",
  auditor: "This is an auditor's link: a stream overlay shows only what spectators see. Ask the GM for the overlay link (the spectators' link with &overlay), which the GM console copies under Invitations.",
};

function useWatch(token) {
  const [, setTick] = useState(0);
  const link = useMemo(() => new Link({ token, onChange: () => setTick((t) => t + 1) }), [token]);
  useEffect(() => () => link.close(), [link]);
  return link;
}

// The AP chart as the view records it (a ruleset drawing its own chart on its board returns none).
function Chart({ view, panels }) {
  const points = panels.chartPoints(view);
  const names = Object.keys(points?.at(-1)?.values ?? {});
  if (!points || names.length === 0) return null;
  return html`<section class="panel overlay-chart" data-testid="overlay-chart"><${ApChart} points=${points} names=${names} /></section>`;
}

// The newest roll's dice, large: the ruleset's `lastDice(view)` rows.
function LastDice({ view, panels }) {
  const rows = panels.lastDice?.(view) ?? [];
  return html`<section class="panel overlay-dice" aria-labelledby="overlay-dice-title" data-testid="overlay-dice">
    <h2 id="overlay-dice-title">The dice</h2>
    ${rows.length === 0
      ? html`<p class="hint">No dice rolled yet.</p>`
      : rows.map((row) => html`<${DiceRow} key=${row.roll} dice=${row.dice} caption=${row.caption} roll=${row.roll} testid="overlay-last-dice" />`)}
  </section>`;
}

function Said({ title, text, testid }) {
  return html`<main class="page overlay-said" id="main"><h1>${title}</h1><p role="alert" data-testid=${testid}>${text}</p></main>`;
}

export function Overlay({ token }) {
  const link = useWatch(token);
  useEffect(() => {
    document.documentElement.classList.add(PAGE_CLASS);
    return () => document.documentElement.classList.remove(PAGE_CLASS);
  }, []);
  const role = link.welcome?.role;
  const refused = role && role !== "spectator";
  useEffect(() => {
    if (refused) link.close(); // nothing but the spectators' sight stays open on a stream
  }, [refused]);
  if (refused) return html`<${Said} title="Stream overlay" text=${REFUSALS[role] ?? REFUSALS.player} testid="overlay-refused" />`;
  if (link.state === "revoked") return html`<${Said} title="Stream overlay" text="The GM re-issued the spectators' link: ask the GM for the new overlay link." testid="overlay-problem" />`;
  if (link.state === "closed" && link.problem) return html`<${Said} title="Stream overlay" text=${explain(link.problem)} testid="overlay-problem" />`;
  const view = link.view;
  if (!view || !link.welcome) return html`<main class="overlay" id="main" aria-busy="true"></main>`;
  const panels = ruleset(view.ruleset);
  if (!panels) return html`<${Said} title=${view.title} text=${`This browser does not know the ruleset “${view.ruleset}”.`} testid="overlay-problem" />`;
  document.title = `${view.title || "Untitled contest"} · Overlay · Agon`;
  const Board = panels.Board;
  return html`<main class="overlay" id="main" data-testid="overlay" aria-label=${`${view.title || "Untitled contest"}: the table, as spectators see it`}>
    <h1 class="overlay-title">${view.title || "Untitled contest"}</h1>
    <div class="overlay-board"><${Board} view=${view} me=${SPECTATOR_SIGHT} /></div>
    <div class="overlay-side">
      <${LastDice} view=${view} panels=${panels} />
      <${Chart} view=${view} panels=${panels} />
    </div>
  </main>`;
}

// The GM console's offer of the overlay: the spectators' link with "&overlay", to copy into a streaming tool.
export function OverlayLink({ url }) {
  const [copied, setCopied] = useState(false);
  const input = useRef(null);
  const id = useFieldId("overlay-link");
  useEffect(() => {
    if (!copied) return undefined;
    const timer = setTimeout(() => setCopied(false), 2000);
    return () => clearTimeout(timer);
  }, [copied]);
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(url);
      setCopied(true);
    } catch {
      input.current?.select();
      setCopied(document.execCommand?.("copy") ?? false);
    }
  };
  return html`<div class="invitation overlay-link" data-testid="invite-overlay">
    <label for=${id}>Stream overlay (spectators' view)</label>
    <small class="hint">For a streaming tool's browser source, 1920 × 1080 (or 1280 × 720): the board, the last roll's dice and the chart on a transparent background.</small>
    <div class="link-row">
      <input id=${id} ref=${input} readonly value=${url} class="link" onFocus=${(e) => e.currentTarget.select()} />
      <button type="button" onClick=${copy} data-testid="copy-overlay">${copied ? "Copied" : "Copy the overlay link"}</button>
    </div>
  </div>`;
}
