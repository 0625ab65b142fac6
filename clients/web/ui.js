// Small shared components for the pages and the rulesets' panels.
import { createContext, html, useContext, useEffect, useRef, useState } from "./vendor/preact-htm.js";
import uPlot from "./vendor/uPlot.esm.js";
import { refusalWords, specific } from "./refusals.js";

export { html };

// An id for a name, unique among `taken` (which it joins): “Sir Aria” → sir-aria, then sir-aria-2.
export function slug(text, taken) {
  const base = text.toLowerCase().normalize("NFKD").replace(/[^a-z0-9]+/g, "-").replace(/^-+|-+$/g, "").slice(0, 24) || "x";
  let id = base;
  for (let i = 2; taken.has(id); i += 1) id = `${base}-${i}`;
  taken.add(id);
  return id;
}

// Who the page knows by name (id -> name), for the refusals shown below it: a contest page provides its
// contestants, characters, zones and seats.
export const Names = createContext({});

// A refusal in words, from the catalogue in refusals.js: its sentence, then the specific the server's message
// carries (a number, a limit, someone named), with ids given as `names` has them.
export function explain(error, names = {}) {
  return refusalWords(error, names);
}

// Only the specific a refusal carries (for the field it is about), else its whole explanation.
export function explainField(error, names = {}) {
  const detail = specific(error, names);
  return detail.found ? detail.text : explain(error, names);
}

// A button running an async action: busy while it runs, the refusal explained next to it.
// Runs an async action once at a time: [busy, refusal, start].
function useAction(run) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState(null);
  const start = async () => {
    setBusy(true);
    setError(null);
    try {
      await run();
    } catch (refusal) {
      setError(refusal);
    } finally {
      setBusy(false);
    }
  };
  return [busy, error, start];
}

// A button running an async action; with `confirm` (a question), the first press asks it next to the button
// and only "Yes" runs the action ("No", or a while, puts the button back).
export function ActionButton({ label, run, kind = "", disabled = false, title = undefined, testid = undefined, confirm = "", names = undefined }) {
  const [busy, error, click] = useAction(run);
  const known = useContext(Names);
  const [asking, setAsking] = useState(false);
  useEffect(() => {
    if (!asking) return undefined;
    const timer = setTimeout(() => setAsking(false), 10000);
    return () => clearTimeout(timer);
  }, [asking]);
  if (asking) {
    return html`<span class="action confirm" role="group" aria-label=${confirm}>
      <span class="question">${confirm}</span>
      <button type="button" class=${kind || "primary"} onClick=${() => { setAsking(false); click(); }} data-testid=${testid && `${testid}-yes`}>Yes, ${label.toLowerCase()}</button>
      <button type="button" onClick=${() => setAsking(false)}>No</button>
    </span>`;
  }
  return html`<span class="action">
    <button type="button" class=${kind} onClick=${confirm ? () => setAsking(true) : click} disabled=${busy || disabled} title=${title} data-testid=${testid}>${label}</button>
    ${error && html`<span class="refusal" role="alert">${explain(error, names ?? known)}</span>`}
  </span>`;
}

// A form whose submit runs an async action; the refusal is shown under it (and given to onError).
export function ActionForm({ run, label, children, testid = undefined, kind = "primary", names = undefined }) {
  const [busy, error, start] = useAction(run);
  const known = useContext(Names);
  const submit = (event) => {
    event.preventDefault();
    start();
  };
  return html`<form class="action-form" onSubmit=${submit} data-testid=${testid}>
    ${children}
    <div class="form-end">
      <button type="submit" class=${kind} disabled=${busy}>${label}</button>
      ${error && html`<p class="refusal" role="alert">${explain(error, names ?? known)}</p>`}
    </div>
  </form>`;
}

let fieldIds = 0;
export function useFieldId(prefix) {
  const ref = useRef(null);
  if (ref.current === null) {
    fieldIds += 1;
    ref.current = `${prefix}-${fieldIds}`;
  }
  return ref.current;
}

// A labelled input with its hint and its error (aria-describedby points at both).
export function Field({ label, value, onInput, type = "text", hint = "", error = "", name = "", min, max, step, required = false, placeholder = "", testid = undefined, inputmode = undefined }) {
  const id = useFieldId(name || "field");
  const described = [hint && `${id}-hint`, error && `${id}-error`].filter(Boolean).join(" ") || undefined;
  return html`<div class=${`field ${error ? "invalid" : ""}`}>
    <label for=${id}>${label}</label>
    <input id=${id} name=${name} type=${type} value=${value} min=${min} max=${max} step=${step} required=${required}
      placeholder=${placeholder} inputmode=${inputmode} aria-invalid=${error ? "true" : undefined} aria-describedby=${described}
      data-testid=${testid} onInput=${(e) => onInput(type === "checkbox" ? e.currentTarget.checked : e.currentTarget.value)} />
    ${hint && html`<small id=${`${id}-hint`} class="hint">${hint}</small>`}
    ${error && html`<small id=${`${id}-error`} class="error" role="alert">${error}</small>`}
  </div>`;
}

export function Check({ label, checked, onChange, hint = "", name = "" }) {
  const id = useFieldId(name || "check");
  return html`<div class="field check">
    <input id=${id} type="checkbox" checked=${checked} onChange=${(e) => onChange(e.currentTarget.checked)}
      aria-describedby=${hint ? `${id}-hint` : undefined} />
    <label for=${id}>${label}</label>
    ${hint && html`<small id=${`${id}-hint`} class="hint">${hint}</small>`}
  </div>`;
}

// Option texts longer than a phone's select shows: the chosen one is also written out under it, wrapped (on narrow
// screens only; a screen reader hears it from the select itself).
const LONG_OPTION = 34;

export function Select({ label, value, onChange, options, hint = "", name = "", error = "" }) {
  const id = useFieldId(name || "select");
  const chosen = options.find(([v]) => v === value)?.[1] ?? "";
  return html`<div class=${`field ${error ? "invalid" : ""}`}>
    <label for=${id}>${label}</label>
    <select id=${id} name=${name} value=${value} onChange=${(e) => onChange(e.currentTarget.value)}
      aria-describedby=${[hint && `${id}-hint`, error && `${id}-error`].filter(Boolean).join(" ") || undefined}>
      ${options.map(([v, text]) => html`<option value=${v} selected=${v === value}>${text}</option>`)}
    </select>
    ${String(chosen).length > LONG_OPTION && html`<small class="chosen" aria-hidden="true" data-testid=${name && `${name}-chosen`}>${chosen}</small>`}
    ${hint && html`<small id=${`${id}-hint`} class="hint">${hint}</small>`}
    ${error && html`<small id=${`${id}-error`} class="error" role="alert">${error}</small>`}
  </div>`;
}

// A QR code of `text`, drawn as SVG rectangles (no inline style, no data URL).
export function Qr({ text, label }) {
  if (typeof globalThis.qrcode !== "function") return null;
  const qr = globalThis.qrcode(0, "L");
  qr.addData(text);
  qr.make();
  const n = qr.getModuleCount();
  let path = "";
  for (let r = 0; r < n; r += 1) for (let c = 0; c < n; c += 1) if (qr.isDark(r, c)) path += `M${c + 4} ${r + 4}h1v1h-1z`;
  return html`<svg class="qr" viewBox=${`0 0 ${n + 8} ${n + 8}`} role="img" aria-label=${label}>
    <rect width=${n + 8} height=${n + 8} fill="#fff" /><path d=${path} fill="#000" />
  </svg>`;
}

async function copyText(text, input) {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    input?.select();
    return document.execCommand?.("copy") ?? false;
  }
}

// An invitation: the link (never sent to the server in a URL: the token is in the fragment), copy, QR.
export function Invitation({ title, url, onReissue = null, testid = undefined, note = "" }) {
  const [copied, setCopied] = useState(false);
  useEffect(() => {
    if (!copied) return undefined;
    const timer = setTimeout(() => setCopied(false), 2000); // "Copied", then "Copy" again for the next one
    return () => clearTimeout(timer);
  }, [copied]);
  const [showQr, setShowQr] = useState(false);
  const input = useRef(null);
  const id = useFieldId("link");
  return html`<div class="invitation" data-testid=${testid}>
    <label for=${id}>${title}</label>
    ${note && html`<small class="hint">${note}</small>`}
    <div class="link-row">
      <input id=${id} ref=${input} readonly value=${url} class="link" onFocus=${(e) => e.currentTarget.select()} />
      <button type="button" onClick=${async () => setCopied(await copyText(url, input.current))}>${copied ? "Copied" : "Copy"}</button>
      <button type="button" aria-expanded=${showQr} onClick=${() => setShowQr(!showQr)}>QR</button>
      ${onReissue && html`<${ActionButton} label="Re-issue" title="A new link; the old one stops working at once" run=${onReissue} />`}
    </div>
    ${showQr && html`<${Qr} text=${url} label=${`QR code of the link: ${title}`} />`}
  </div>`;
}

const COLOURS = ["#7a2e1f", "#1f5a7a", "#3c7a1f", "#7a1f6a", "#8a6d12"]; // also .swatch-N in style.css

// AP per contestant over the exchanges. `points`: [{x, label, values: {name: ap|null}}]; a hidden AP is a gap.
export function ApChart({ points, names }) {
  const box = useRef(null);
  const plot = useRef(null);
  useEffect(() => {
    if (!box.current || names.length === 0) return undefined;
    const width = () => Math.max(200, box.current?.clientWidth || 320);
    const data = [points.map((p) => p.x), ...names.map((n) => points.map((p) => (p.values[n] ?? null)))];
    const options = {
      width: width(),
      height: 220,
      scales: { x: { time: false, auto: false, range: () => [points[0]?.x ?? 0, Math.max(1, ...points.map((p) => p.x))] } },
      axes: [
        { label: "exchange", stroke: "#333", incrs: [1, 2, 5, 10, 20, 50, 100] },
        { label: "AP", stroke: "#333", incrs: [1, 2, 5, 10, 20, 50, 100], space: 24 },
      ],
      series: [{ label: "exchange" }, ...names.map((n, i) => ({ label: n, stroke: COLOURS[i % COLOURS.length], width: 2, points: { show: true, size: 6 } }))],
      legend: { show: false },
      cursor: { show: false },
    };
    plot.current?.destroy();
    plot.current = new uPlot(options, data, box.current);
    const resized = new ResizeObserver(() => plot.current?.setSize({ width: width(), height: 220 }));
    resized.observe(box.current);
    return () => {
      resized.disconnect();
      plot.current?.destroy();
      plot.current = null;
    };
  }, [JSON.stringify(points), names.join("|")]);
  const hidden = names.filter((n) => points.every((p) => p.values[n] === null || p.values[n] === undefined));
  return html`<figure class="chart">
    <figcaption>AP per contestant over the exchanges${hidden.length ? ` (hidden until it changes: ${hidden.join(", ")})` : ""}</figcaption>
    <ul class="legend" aria-hidden="true">${names.map((n, i) => html`<li><span class=${`swatch swatch-${i % COLOURS.length}`}></span>${n}</li>`)}</ul>
    <div ref=${box} class="chart-box" aria-hidden="true"></div>
    <div class="sr-only"><table><caption>AP by exchange</caption>
      <thead><tr><th scope="col">exchange</th>${names.map((n) => html`<th scope="col">${n}</th>`)}</tr></thead>
      <tbody>${points.map((p) => html`<tr><th scope="row">${p.label ?? p.x}</th>${names.map((n) => html`<td>${p.values[n] ?? "hidden"}</td>`)}</tr>`)}</tbody>
    </table></div>
  </figure>`;
}

// The versions whose lines an undo or a rewind struck out (and a redo did not bring back), reading the notices
// in order: each undo, rewind and redo says which versions it undid or brought back.
export function undoneVersions(notices) {
  const undone = new Set();
  for (const n of [...notices].sort((a, b) => a.version - b.version)) {
    for (const v of n.undone ?? []) undone.add(v);
    for (const v of n.redone ?? []) undone.delete(v);
  }
  return undone;
}

// The narrative log: newest last, announced politely to screen readers; undone lines struck out, as the GM's
// timeline shows them.
export function Log({ notices, title = "Log" }) {
  const list = useRef(null);
  useEffect(() => {
    if (list.current) list.current.scrollTop = list.current.scrollHeight;
  }, [notices.length]);
  const undone = undoneVersions(notices);
  return html`<section class="panel log" aria-labelledby="log-title">
    <h2 id="log-title">${title}</h2>
    <ol ref=${list} class="log-list" aria-live="polite" tabindex="0" aria-label="contest log">
      ${notices.map((n) => html`<li key=${`${n.version}-${n.kind}`} class=${undone.has(n.version) ? "undone" : ""}>
        <span class="v">v${n.version}</span> <span class="text">${n.text}</span>${undone.has(n.version) ? html` <span class="tag">undone by the GM</span>` : ""}</li>`)}
    </ol>
  </section>`;
}

const STATES = {
  connecting: ["Connecting…", "warn"],
  open: ["Connected", "ok"],
  reconnecting: ["Reconnecting… (resumes where it was)", "warn"],
  closed: ["Disconnected", "bad"],
  revoked: ["This link was revoked", "bad"],
};

export function ConnectionBadge({ state }) {
  const [text, kind] = STATES[state] ?? [state, "warn"];
  return html`<span class=${`badge ${kind}`} role="status" data-testid="connection">${text}</span>`;
}
