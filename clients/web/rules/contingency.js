// Panels of the `contingency` ruleset (Contingency RPG combat: rounds over a map of zones). See docs/web.md
// for the interface every ruleset module implements and docs/rules/contingency.md for the rules.
import { ActionButton, ActionForm, Check, Field, Select, html, slug } from "../ui.js";
import { registerRuleset } from "./registry.js";
import { useEffect, useState } from "../vendor/preact-htm.js";

const PHASES = {
  scene: "Setting the scene",
  intent: "Announcing intent (sealed)",
  resolving: "Resolving actions",
  environment: "Environmental actions",
};

// --- the creation form ---------------------------------------------------------------------------------

function newSetup() {
  return {
    zones: "Forest Clearing | Exposed\nRiver Rapids | Forced Movement | 1 | Narrow Corridor\nNarrow Corridor | Limited Space, Intimidating",
    connections: "Forest Clearing -- River Rapids\nRiver Rapids -- Narrow Corridor | Leap 6",
    characters: "Ellis @ Forest Clearing | Player 1\nGoblin @ Forest Clearing",
    sheets: "",
    intent: "public",
    omens: "per_roll",
    players_type_faces: false,
  };
}

const HINTS = {
  zones: "One zone a line: Name | traits, comma separated | movement modifier (extra movement points) | the zone a Forced Movement zone sweeps into.",
  connections: "One a line: Zone -- Zone, optionally | Action difficulty for a barrier (e.g. | Leap 6).",
  characters: "One a line: Name @ Zone | Player's name (no player: run by the GM).",
  sheets:
    "One a line: Name | Attribute+Skill: the three dice sizes (e.g. Ellis | Agility+Climb: 8 10 12). Name | dice: sizes rolled with no attribute and skill (default 10 10 10). Name | cards: the action cards it holds, comma separated (default: every action).",
};

function TextArea({ label, name, value, onInput, hint, error, testid }) {
  const id = `setup-${name}`;
  return html`<div class=${`field ${error ? "invalid" : ""}`}>
    <label for=${id}>${label}</label>
    <textarea id=${id} name=${name} rows="4" value=${value} onInput=${(e) => onInput(e.currentTarget.value)}
      aria-invalid=${error ? "true" : undefined} aria-describedby=${`${id}-hint${error ? ` ${id}-error` : ""}`} data-testid=${testid}></textarea>
    <small id=${`${id}-hint`} class="hint">${hint}</small>
    ${error && html`<small id=${`${id}-error`} class="error" role="alert">${error}</small>`}
  </div>`;
}

function SetupForm({ setup, onChange, errors }) {
  const set = (key, value) => onChange({ ...setup, [key]: value });
  return html`
    <${TextArea} label="Zones" name="zones" value=${setup.zones} onInput=${(v) => set("zones", v)} hint=${HINTS.zones} error=${errors.zones} testid="zones" />
    <${TextArea} label="Connections" name="connections" value=${setup.connections} onInput=${(v) => set("connections", v)} hint=${HINTS.connections} error=${errors.connections} testid="connections" />
    <${TextArea} label="Characters" name="characters" value=${setup.characters} onInput=${(v) => set("characters", v)} hint=${HINTS.characters} error=${errors.characters} testid="characters" />
    <${TextArea} label="Character sheets (dice and action cards)" name="sheets" value=${setup.sheets ?? ""} onInput=${(v) => set("sheets", v)} hint=${HINTS.sheets} error=${errors.sheets} testid="sheets" />
    <fieldset class="settings">
      <legend>Settings</legend>
      <${Select} label="Intent" name="intent" value=${setup.intent} onChange=${(v) => set("intent", v)}
        options=${[["public", "public (default): actions are named at the reveal"], ["face_down", "face down: others see only each action's type until it resolves"]]} />
      <${Select} label="Omens" name="omens" value=${setup.omens} onChange=${(v) => set("omens", v)}
        options=${[["per_roll", "one per roll (default) when any die shows 8 or more"], ["per_die", "one per die showing 8 or more"]]} />
      <${Check} label="Players type the faces of their own rolls (physical dice)" checked=${setup.players_type_faces}
        onChange=${(v) => set("players_type_faces", v)} hint="Default off: the GM types every face rolled at the table." />
    </fieldset>`;
}

function lines(text) {
  return text.split("\n").map((l) => l.trim()).filter(Boolean);
}

// The form's state as a setup and seats, or errors by field.
function buildContest(setup) {
  const errors = {};
  const taken = new Set();
  const zoneIds = new Map();
  const zones = lines(setup.zones).map((line) => {
    const [name, traits = "", modifier = "0", sweeps = ""] = line.split("|").map((p) => p.trim());
    const id = slug(name, taken);
    zoneIds.set(name.toLowerCase(), id);
    const mod = Number(modifier || "0");
    if (!Number.isInteger(mod) || mod < 0) errors.zones = `${name}: the modifier is a whole number, 0 or more`;
    return { id, name, traits: traits.split(",").map((t) => t.trim()).filter(Boolean), modifier: mod, sweeps };
  });
  if (zones.length === 0) errors.zones = "An encounter needs at least one zone.";
  const zoneOf = (name, key) => {
    const id = zoneIds.get(name.trim().toLowerCase());
    if (!id) errors[key] = `No zone named “${name.trim()}”.`;
    return id ?? "";
  };
  for (const zone of zones) {
    if (zone.sweeps) zone.forced_to = zoneOf(zone.sweeps, "zones");
    delete zone.sweeps;
  }
  const connections = lines(setup.connections).map((line) => {
    const [pair, barrier = ""] = line.split("|").map((p) => p.trim());
    const [a = "", b = ""] = pair.split("--");
    const connection = { a: zoneOf(a, "connections"), b: zoneOf(b, "connections") };
    if (barrier) {
      const match = /^(.+?)\s+(\d+)$/.exec(barrier);
      if (!match) errors.connections = `“${barrier}”: write the action and its difficulty, e.g. Leap 6`;
      else connection.barrier = { action: match[1], difficulty: Number(match[2]) };
    }
    return connection;
  });
  const seats = new Map();
  const seatIds = new Set(["gm"]);
  const characters = lines(setup.characters).map((line) => {
    const [who, player = ""] = line.split("|").map((p) => p.trim());
    const [name, zone = ""] = who.split("@").map((p) => p.trim());
    if (!zone) errors.characters = `${name}: say where it stands (Name @ Zone).`;
    const id = slug(name, taken);
    if (player) {
      if (!seats.has(player)) seats.set(player, { id: slug(player, seatIds), role: "player", contestants: [], name: player });
      seats.get(player).contestants.push(id);
    }
    return { id, name, zone: zone ? zoneOf(zone, "characters") : "" };
  });
  readSheets(setup.sheets ?? "", characters, errors);
  return {
    errors,
    setup: {
      type: "contingency.setup",
      zones,
      connections,
      characters,
      intent: setup.intent,
      omens: setup.omens,
      players_type_faces: setup.players_type_faces,
    },
    seats: [...seats.values()],
  };
}

// The sheet lines (`Name | Attribute+Skill: 8 10 12`, `Name | dice: 6 6 6`, `Name | cards: Strike, Defend`) onto
// the characters they name.
function readSheets(text, characters, errors) {
  const byName = new Map(characters.map((c) => [c.name.toLowerCase(), c]));
  for (const line of lines(text)) {
    const [who, entry = ""] = line.split("|").map((p) => p.trim());
    const character = byName.get(who.toLowerCase());
    const colon = entry.indexOf(":");
    const key = colon < 0 ? "" : entry.slice(0, colon).trim();
    const value = entry.slice(colon + 1).trim();
    if (!character) errors.sheets = `No character named “${who}”.`;
    else if (key.toLowerCase() === "cards") character.actions = value.split(",").map((a) => a.trim()).filter(Boolean);
    else {
      const sizes = value.split(/[\s,]+/).filter(Boolean).map((d) => Number(d.replace(/^d/i, "")));
      const [attribute = "", skill = ""] = key.split("+").map((p) => p.trim());
      if (sizes.length !== 3 || !sizes.every((n) => Number.isInteger(n) && n >= 2 && n <= 100)) {
        errors.sheets = `“${line}”: give three dice sizes of 2 to 100 sides, e.g. 8 10 12`;
      } else if (key.toLowerCase() === "dice") character.dice = sizes;
      else if (!attribute || !skill || key.split("+").length !== 2) errors.sheets = `“${line}”: write Name | Attribute+Skill: 8 10 12, or Name | dice: 8 10 12`;
      else character.skills = [...(character.skills ?? []), { attribute, skill, dice: sizes }];
    }
  }
}

function fieldOf(message) {
  const text = message ?? "";
  if (/^characters\[\d+\]\.(skills|dice|actions)/.test(text)) return "sheets";
  if (/^(zones|into)/.test(text)) return "zones";
  if (/^connections/.test(text)) return "connections";
  if (/^(characters|seats|engagements)/.test(text)) return "characters";
  return null;
}

// --- reading the view ----------------------------------------------------------------------------------

function phaseText(view) {
  if (view.concluded) return "The encounter is over";
  return `Round ${view.rules.round} · ${PHASES[view.rules.phase] ?? view.rules.phase}`;
}

function names(view) {
  return Object.fromEntries([
    ...view.rules.zones.map((z) => [z.id, z.name]),
    ...view.rules.characters.map((c) => [c.id, c.name]),
    ...view.rules.things.map((t) => [t.id, t.name]),
  ]);
}

function mine(view) {
  return view.rules.characters.filter((c) => c.controlled_by_you).map((c) => c.id);
}

// The zone selected on the map (shared by the map and the GM's landscape tools on the same page).
let selected = null;
const listeners = new Set();
function select(zone) {
  selected = zone;
  for (const listener of listeners) listener(zone);
}
function useSelected() {
  const [zone, setZone] = useState(selected);
  useEffect(() => {
    listeners.add(setZone);
    return () => listeners.delete(setZone);
  }, []);
  return zone;
}

// --- the map -------------------------------------------------------------------------------------------

const W = 210;
const LINE_CHARS = 28; // what a zone's 12 px line holds within its box; a longer one is drawn narrower
const H = 130;
const GAP = 70;
const R = 14;

// A line of a zone's description (its traits; its movement cost and sweep), kept inside the zone's box.
function ZoneLine({ x, y, text }) {
  if (!text) return null;
  const fit = text.length > LINE_CHARS ? { textLength: W - 24, lengthAdjust: "spacingAndGlyphs" } : {};
  return html`<text x=${x} y=${y} class="zone-traits" ...${fit}>${text}</text>`;
}

function layout(zones) {
  const cols = Math.max(1, Math.ceil(Math.sqrt(zones.length)));
  const at = {};
  zones.forEach((z, i) => {
    at[z.id] = { x: (i % cols) * (W + GAP) + 10, y: Math.floor(i / cols) * (H + GAP) + 10 };
  });
  const rows = Math.ceil(zones.length / cols);
  return { at, width: cols * (W + GAP) - GAP + 20, height: rows * (H + GAP) - GAP + 20 };
}

function initials(name) {
  return name.split(/\s+/).map((w) => w[0] ?? "").join("").slice(0, 2).toUpperCase();
}

function ZoneMap({ view, editable }) {
  const rules = view.rules;
  const who = names(view);
  const current = useSelected();
  const { at, width, height } = layout(rules.zones);
  const center = (id) => ({ x: at[id].x + W / 2, y: at[id].y + H / 2 });
  const token = {};
  for (const z of rules.zones) {
    z.characters.forEach((c, k) => {
      token[c] = { x: at[z.id].x + 22 + (k % 5) * 38, y: at[z.id].y + 78 + Math.floor(k / 5) * 32 };
    });
  }
  const engaged = [];
  for (const c of rules.characters) {
    for (const other of c.engaged_with) if (c.id < other && token[c.id] && token[other]) engaged.push([c.id, other]);
  }
  const summary = rules.zones.map((z) => `${z.name}: ${z.characters.map((c) => who[c]).join(", ") || "nobody"}`).join("; ");
  return html`<figure class="zone-map" data-testid="zone-map">
    <svg viewBox=${`0 0 ${width} ${height}`} role=${editable ? "group" : "img"} aria-labelledby="map-title" class="map-svg">
      <title id="map-title">The map: ${summary}</title>
      ${[...rules.connections].sort((p, q) => Boolean(p.barrier) - Boolean(q.barrier)).map((k) => {
        if (!at[k.a] || !at[k.b]) return null;
        const a = center(k.a);
        const b = center(k.b);
        // zones that are not side by side are joined by a curve, so it never hides a straight link
        const length = Math.hypot(b.x - a.x, b.y - a.y);
        const bend = length > W + GAP + 1 ? length / 5 : 0;
        const mid = { x: (a.x + b.x) / 2 - ((b.y - a.y) / length) * bend, y: (a.y + b.y) / 2 + ((b.x - a.x) / length) * bend };
        const key = [k.a, k.b].sort().join("~");
        return html`<g key=${key} data-testid=${`link-${key}`} class=${k.barrier ? "link barrier" : "link"}>
          <path d=${`M ${a.x} ${a.y} Q ${mid.x} ${mid.y} ${b.x} ${b.y}`} />
          ${k.barrier && html`<text x=${mid.x} y=${mid.y - 6} text-anchor="middle" class="barrier-label">${k.barrier.action} ${k.barrier.difficulty}</text>`}
        </g>`;
      })}
      ${rules.zones.map((z) => {
        const p = at[z.id];
        const movement = [z.modifier ? `+${z.modifier} MP` : "", z.forced_to ? `sweeps to ${who[z.forced_to] ?? z.forced_to}` : ""].filter(Boolean).join(" · ");
        const traits = [...z.traits, movement].filter(Boolean).join(" · ");
        const pick = () => select(z.id);
        const control = editable
          ? { tabindex: "0", role: "button", "aria-label": `${z.name}${traits ? ` (${traits})` : ""}`, "aria-pressed": current === z.id ? "true" : "false" }
          : {};
        return html`<g key=${z.id} data-testid=${`zone-${z.id}`} class=${`zone ${editable && current === z.id ? "selected" : ""}`} ...${control}
          onClick=${editable ? pick : undefined} onKeyDown=${editable ? (e) => (e.key === "Enter" || e.key === " ") && (e.preventDefault(), pick()) : undefined}>
          <rect x=${p.x} y=${p.y} width=${W} height=${H} rx="12" />
          <text x=${p.x + 12} y=${p.y + 24} class="zone-name">${z.name}</text>
          <${ZoneLine} x=${p.x + 12} y=${p.y + 44} text=${z.traits.join(" · ")} />
          <${ZoneLine} x=${p.x + 12} y=${p.y + 59} text=${movement} />
          ${z.things.map((t, k) => html`<text key=${t} x=${p.x + W - 12} y=${p.y + 24 + k * 16} text-anchor="end" class="thing">▣ ${who[t]}</text>`)}
        </g>`;
      })}
      ${engaged.map(([a, b]) => html`<line key=${`${a}~${b}`} data-testid=${`engaged-${a}-${b}`} class="engagement"
        x1=${token[a].x} y1=${token[a].y} x2=${token[b].x} y2=${token[b].y} />`)}
      ${rules.characters.filter((c) => token[c.id]).map((c) => html`<g key=${c.id} data-testid=${`token-${c.id}`} class=${`token ${c.controlled_by_you ? "yours" : ""}`}>
        <circle cx=${token[c.id].x} cy=${token[c.id].y} r=${R} />
        <text x=${token[c.id].x} y=${token[c.id].y + 4} text-anchor="middle">${initials(c.name)}</text>
        <title>${c.name}</title>
      </g>`)}
    </svg>
    <figcaption class="hint">Zones with their traits; lines are connections (dashed: a barrier and what crosses it); thick lines join engaged characters.${editable ? " Select a zone to change it." : ""}</figcaption>
  </figure>`;
}

// --- the board -----------------------------------------------------------------------------------------

function actionName(a) {
  return a.name ?? html`<em class="face-down">face down</em>`;
}

function ActionsTable({ view }) {
  const rules = view.rules;
  const who = names(view);
  if (rules.actions.length === 0) return null;
  return html`<table class="round-actions" data-testid="round-actions">
    <caption>Actions this round, in the order they resolve</caption>
    <thead><tr><th scope="col">Character</th><th scope="col">Type</th><th scope="col">Action</th><th scope="col">Target</th><th scope="col">Result</th></tr></thead>
    <tbody>${rules.actions.map(
      (a) => html`<tr key=${a.id} data-testid=${`action-${a.id}`} class=${`${a.status} ${a.id === rules.next_action ? "next" : ""}`}>
        <td data-label="Character">${who[a.character] ?? a.character}</td>
        <td data-label="Type"><span class="tag">${a.type}</span></td>
        <td data-label="Action">${actionName(a)}${a.change_penalty ? html` <small>(changed: −${a.change_penalty})</small>` : ""}${a.change_asked ? html` <small>asks: ${a.change_asked}</small>` : ""}</td>
        <td data-label="Target">${a.target ? who[a.target] ?? a.target : "—"}${a.difficulty ? ` (difficulty ${a.difficulty})` : ""}</td>
        <td data-label="Result">${a.status === "resolved" ? `${a.result}${a.success === null ? "" : a.success ? " ✓" : " ✗"}` : a.status === "planned" ? (a.id === rules.next_action ? "next" : "") : a.status}</td>
      </tr>`,
    )}</tbody>
  </table>`;
}

function Board({ view, me }) {
  const rules = view.rules;
  const who = names(view);
  return html`<section class="panel board" aria-labelledby="board-title">
    <h2 id="board-title">The encounter</h2>
    <p class="phase" data-testid="phase">${phaseText(view)}${rules.intent_mode === "face_down" ? " · intent face down" : ""}</p>
    ${rules.scene && html`<p class="scene" data-testid="scene">${rules.scene}${rules.foreshadow ? html` <em>— ${rules.foreshadow}</em>` : ""}</p>`}
    <${ZoneMap} view=${view} editable=${me?.role === "gm" && !view.concluded} />
    <ul class="characters">${rules.characters.map(
      (c) => html`<li key=${c.id} data-testid=${`character-${c.id}`}><strong>${c.name}</strong>${c.controlled_by_you ? html` <span class="tag">yours</span>` : ""}${` in ${who[c.zone]}`}${c.engaged_with.length ? `, engaged with ${c.engaged_with.map((o) => who[o]).join(", ")}` : ""}${` · actions this round: ${c.actions_taken}`}${c.movement_points !== null ? ` · ${c.movement_points} movement points` : ""}${c.omens ? ` · ${c.omens} omen(s)` : ""}</li>`,
    )}</ul>
    <${ActionsTable} view=${view} />
    ${rules.rolling && html`<p class="rolling" data-testid="rolling">${who[rules.rolling.character]} rolled ${rules.rolling.faces.join("-")} on ${rules.rolling.sides.map((n) => `d${n}`).join("/")} and takes −${rules.rolling.penalty}: waiting for the choice of dice.</p>`}
    ${rules.last && html`<p class="last" data-testid="last">Last: ${rules.last.faces.join("-")}, result ${rules.last.result}${rules.last.omens ? `, ${rules.last.omens} omen(s)` : ""}${rules.last.success === null ? "" : rules.last.success ? " — success" : " — failure"}</p>`}
    ${rules.environmental.length > 0 && html`<ul class="environmental" data-testid="environmental">${rules.environmental.map((t, i) => html`<li key=${i}>${t}</li>`)}</ul>`}
  </section>`;
}

// --- actions -------------------------------------------------------------------------------------------

function IntentForm({ character, cards, act, declared }) {
  const [chosen, setChosen] = useState(declared?.payload?.actions ?? []);
  const toggle = (name, on) => setChosen(on ? [...chosen, name] : chosen.filter((n) => n !== name));
  return html`<${ActionForm} run=${() => act({ type: "seal.declare", participant: character.id, payload: { type: "contingency.intent", actions: chosen } })}
    label=${declared ? "Replace my sealed intent" : "Seal my intent"} testid=${`intent-${character.id}`}>
    <fieldset><legend>${character.name}: the actions you announce this round (in order)</legend>
      ${cards.map((a) => html`<${Check} key=${a.name} label=${`${a.name} (${a.type})`} checked=${chosen.includes(a.name)} onChange=${(on) => toggle(a.name, on)} />`)}
    </fieldset>
    <p class="hint">Chosen: ${chosen.join(", ") || "nothing"}. Each action after the first carries −2 more.</p>
  <//>`;
}

function faces(text) {
  const values = String(text).split(/[\s,-]+/).filter(Boolean).map(Number);
  return values.length ? values : null;
}

function RollForm({ view, act, action, gm }) {
  const rules = view.rules;
  const who = names(view);
  const me = rules.characters.find((c) => c.id === action.character);
  const [typed, setTyped] = useState("");
  const [step, setStep] = useState("");
  const [using, setUsing] = useState("");
  const here = rules.zones.find((z) => z.id === me.zone);
  const steps = [["", "no step"]];
  for (const k of rules.connections) {
    const other = k.a === me.zone ? k.b : k.b === me.zone ? k.a : null;
    if (other && !k.barrier) steps.push([`zone:${other}`, `step to ${who[other]}`]);
  }
  for (const c of here?.characters ?? []) if (c !== me.id) steps.push([`engage:${c}`, `step to engage ${who[c]}`]);
  for (const t of here?.things ?? []) steps.push([`reach:${t}`, `step to reach ${who[t]}`]);
  const send = () => {
    const command = { type: "contingency.roll", action: action.id };
    if (view.dice === "physical") command.faces = faces(typed);
    if (step) {
      const [kind, target] = step.split(":");
      command.step = { [kind]: target };
    }
    if (using) [command.attribute, command.skill] = using.split("/");
    return act(command);
  };
  return html`<${ActionForm} run=${send} label=${`Resolve ${who[action.character]}'s ${action.name ?? action.type} action`} testid="roll">
    ${view.dice === "physical" && html`<${Field} label="Faces rolled (three dice)" name="faces" value=${typed} onInput=${setTyped} hint="e.g. 1 4 9" testid="faces" />`}
    ${me.skills.length > 0 && html`<${Select} label="Roll with (attribute and skill)" name="using" value=${using} onChange=${setUsing}
      options=${[["", `the action's own, else d${me.dice.join("/d")}`], ...me.skills.map((k) => [k, k.replace("/", " and ")])]} />`}
    ${(gm || me.controlled_by_you) && !me.engaged_with.length && html`<${Select} label="Take a step with it" name="step" value=${step} onChange=${setStep} options=${steps} />`}
  <//>`;
}

// A valid way to take the penalty to start from: the points off the highest dice first (no die below 1).
function firstSplit(faces, penalty) {
  let owed = Math.min(penalty, faces.reduce((sum, f) => sum + f - 1, 0));
  const cuts = faces.map(() => 0);
  for (const i of faces.map((_, i) => i).sort((a, b) => faces[b] - faces[a] || a - b)) {
    cuts[i] = Math.min(owed, faces[i] - 1);
    owed -= cuts[i];
  }
  return cuts.map(String);
}

function PenaltyForm({ view, act }) {
  const rolling = view.rules.rolling;
  const [cuts, setCuts] = useState(() => firstSplit(rolling.faces, rolling.penalty));
  const set = (i, v) => setCuts(cuts.map((c, j) => (j === i ? v : c)));
  const owed = Math.min(rolling.penalty, rolling.faces.reduce((sum, f) => sum + f - 1, 0));
  const taken = cuts.reduce((sum, c) => sum + (Number(c) || 0), 0);
  const after = rolling.faces.map((f, i) => f - (Number(cuts[i]) || 0));
  return html`<${ActionForm} run=${() => act({ type: "contingency.take_penalty", reductions: cuts.map(Number) })} label="Take the penalty" testid="penalty">
    <p>Rolled ${rolling.faces.join("-")}: take ${owed} points off the dice (2 off one die or 1 off two, per −2; no die below 1).</p>
    <p class=${taken === owed ? "hint" : "refusal"} role="status" data-testid="penalty-split">${taken} of ${owed} points taken: the dice would show ${after.join("-")}, result ${[...after].sort((a, b) => a - b)[1]}.</p>
    <div class="grid">${rolling.faces.map((f, i) => html`<${Field} key=${i} type="number" min="0" max=${f - 1} label=${`Off the ${f}`} name=${`cut-${i}`} value=${cuts[i]} onInput=${(v) => set(i, v)} />`)}</div>
  <//>`;
}

function TargetForm({ view, act, action }) {
  const who = names(view);
  const options = [["", "choose"], ...Object.entries(who).filter(([id]) => id !== action.character)];
  const [target, setTarget] = useState(action.target ?? "");
  return html`<${ActionForm} run=${() => act({ type: "contingency.set_target", action: action.id, target })} label="Set the target" kind="">
    <${Select} label=${`Target of ${action.name ?? action.type} (${action.id})`} name=${`target-${action.id}`} value=${target} onChange=${setTarget} options=${options} />
  <//>`;
}

function DifficultyForm({ act, action }) {
  const [value, setValue] = useState(String(action.difficulty ?? ""));
  return html`<${ActionForm} run=${() => act({ type: "contingency.set_difficulty", action: action.id, difficulty: Number(value) })} label="Set the difficulty" kind="">
    <${Field} type="number" min="1" label=${`Difficulty of ${action.id}`} name="difficulty" value=${value} onInput=${setValue} hint="Easy 3, Tricky 5, Hard 6." />
  <//>`;
}

function MoveForm({ view, act, character }) {
  const who = names(view);
  const [path, setPath] = useState("");
  const send = () => act({ type: "contingency.move", character: character.id, path: path.split(",").map((p) => p.trim()).filter(Boolean) });
  return html`<${ActionForm} run=${send} label="Move" testid=${`move-${character.id}`}>
    <${Field} label=${`${character.name}: zones to move through (${character.movement_points} movement points)`} name="path" value=${path} onInput=${setPath}
      hint=${`Zone ids, comma separated: ${Object.keys(who).filter((id) => view.rules.zones.some((z) => z.id === id)).join(", ")}`} />
  <//>`;
}

function TriggeredForm({ view, act, character, cards }) {
  const triggered = cards.filter((a) => a.type === "Triggered");
  const [name, setName] = useState(triggered[0]?.name ?? "");
  const [typed, setTyped] = useState("");
  if (triggered.length === 0) return null;
  const send = () => {
    const command = { type: "contingency.perform", character: character.id, action: name, kind: "triggered" };
    if (view.dice === "physical") command.faces = faces(typed);
    return act(command);
  };
  return html`<${ActionForm} run=${send} label="Perform now" kind="">
    <${Select} label=${`${character.name}: a triggered action`} name="triggered" value=${name} onChange=${setName} options=${triggered.map((a) => [a.name, a.name])} />
    ${view.dice === "physical" && html`<${Field} label="Faces rolled" name="triggered-faces" value=${typed} onInput=${setTyped} />`}
  <//>`;
}

function ChangeForm({ act, action, cards }) {
  const options = cards.filter((a) => a.name !== action.name).map((a) => [a.name, `${a.name} (${a.type})`]);
  const [to, setTo] = useState(options[0]?.[0] ?? "");
  if (options.length === 0) return null;
  return html`<${ActionForm} run=${() => act({ type: "contingency.change_action", action: action.id, to })} label="Ask to change it" kind="" testid=${`change-${action.id}`}>
    <${Select} label=${`Change ${action.name} (${action.id}) to`} name=${`change-${action.id}`} value=${to} onChange=${setTo} options=${options} hint="The GM sets the penalty." />
  <//>`;
}

function OmenForm({ act, character, cards }) {
  const [omen, setOmen] = useState("");
  const [grants, setGrants] = useState("");
  const [repeatable, setRepeatable] = useState(false);
  const send = () => {
    const command = { type: "contingency.take_omen", character: character.id, omen, repeatable };
    if (grants) command.grants = grants;
    return act(command);
  };
  return html`<${ActionForm} run=${send} label="Take the omen" kind="" testid=${`omen-${character.id}`}>
    <${Field} label=${`${character.name}: an omen to take (${character.omens} left)`} name="omen" value=${omen} onInput=${setOmen} />
    <${Select} label="It grants an instant action" name="grants" value=${grants} onChange=${setGrants} options=${[["", "none"], ...cards.map((a) => [a.name, a.name])]} />
    <${Check} label="Repeatable" checked=${repeatable} onChange=${setRepeatable} />
  <//>`;
}

function InstantForm({ view, act, character, action }) {
  const [typed, setTyped] = useState("");
  const send = () => {
    const command = { type: "contingency.perform", character: character.id, action, kind: "instant" };
    if (view.dice === "physical") command.faces = faces(typed);
    return act(command);
  };
  return html`<${ActionForm} run=${send} label=${`Perform ${action} as an instant action`} kind="">
    ${view.dice === "physical" && html`<${Field} label=${`Faces rolled for ${action}`} name=${`instant-${action}`} value=${typed} onInput=${setTyped} />`}
  <//>`;
}

function SceneForm({ act }) {
  const [text, setText] = useState("");
  const [foreshadow, setForeshadow] = useState("");
  return html`<${ActionForm} run=${() => act({ type: "contingency.set_scene", text, foreshadow })} label="Set the scene" kind="">
    <${Field} label="The scene" name="scene" value=${text} onInput=${setText} />
    <${Field} label="Foreshadowing" name="foreshadow" value=${foreshadow} onInput=${setForeshadow} />
  <//>`;
}

function EnvironmentForm({ act }) {
  const [text, setText] = useState("");
  return html`<${ActionForm} run=${() => act({ type: "contingency.environmental", text })} label="Environmental action" kind="">
    <${Field} label="What the environment does" name="environmental" value=${text} onInput=${setText} testid="environmental-text" />
  <//>`;
}

// The GM's landscape tools for the zone selected on the map.
function Landscape({ view, act }) {
  const rules = view.rules;
  const who = names(view);
  const current = useSelected();
  const zone = rules.zones.find((z) => z.id === current) ?? null;
  const [parts, setParts] = useState("");
  const [trait, setTrait] = useState("");
  const [other, setOther] = useState("");
  const [barrier, setBarrier] = useState("");
  const [placements, setPlacements] = useState({});
  const [added, setAdded] = useState("");
  const [mover, setMover] = useState("");
  const [cut, setCut] = useState("");
  const [modifier, setModifier] = useState(null);
  const [sweeps, setSweeps] = useState(null);
  const [destinations, setDestinations] = useState({});
  useEffect(() => {
    setModifier(null);
    setSweeps(null);
    setDestinations({});
    setCut("");
  }, [current]);
  if (!zone) return html`<p class="hint" data-testid="landscape-hint">Select a zone on the map to change the landscape.</p>`;
  const partNames = parts.split(",").map((p) => p.trim()).filter(Boolean);
  const taken = new Set(Object.keys(who));
  const partIds = partNames.map((n) => slug(n, new Set(taken)));
  const split = () =>
    act({
      type: "contingency.split_zone",
      zone: zone.id,
      into: partNames.map((name, i) => ({ id: partIds[i], name })),
      placements: Object.fromEntries(zone.characters.map((c) => [c, placements[c] ?? partIds[0]])),
    });
  const others = rules.zones.filter((z) => z.id !== zone.id).map((z) => [z.id, z.name]);
  const neighbours = rules.connections
    .filter((k) => k.a === zone.id || k.b === zone.id)
    .map((k) => (k.a === zone.id ? k.b : k.a))
    .map((id) => [id, who[id] ?? id]);
  const destination = (c) => destinations[c] ?? others[0]?.[0];
  const modifierValue = modifier ?? String(zone.modifier);
  const sweepsValue = sweeps ?? zone.forced_to ?? "";
  const setTerrain = () => {
    const command = { type: "contingency.set_modifier", zone: zone.id, modifier: Number(modifierValue) };
    if (sweepsValue) command.forced_to = sweepsValue;
    return act(command);
  };
  const barrierOf = () => {
    const match = /^(.+?)\s+(\d+)$/.exec(barrier.trim());
    return match ? { action: match[1], difficulty: Number(match[2]) } : null;
  };
  return html`<div class="landscape" data-testid="landscape">
    <h3>Change the landscape: ${zone.name}</h3>
    <${ActionForm} run=${split} label="Split the zone" kind="" testid="split">
      <${Field} label="Split into (names, comma separated)" name="parts" value=${parts} onInput=${setParts} testid="split-parts" />
      ${partNames.length > 1 && zone.characters.map((c) => html`<${Select} key=${c} label=${`Where ${who[c]} stands`} name=${`place-${c}`} value=${placements[c] ?? partIds[0]}
        onChange=${(v) => setPlacements({ ...placements, [c]: v })} options=${partNames.map((n, i) => [partIds[i], n])} />`)}
    <//>
    <${ActionForm} run=${() => act({ type: "contingency.add_trait", zone: zone.id, trait })} label="Add the trait" kind="">
      <${Field} label="Trait" name="trait" value=${trait} onInput=${setTrait} />
    <//>
    ${zone.traits.map((t) => html`<${ActionButton} key=${t} label=${`Remove ${t}`} run=${() => act({ type: "contingency.remove_trait", zone: zone.id, trait: t })} />`)}
    ${others.length > 0 && html`<${ActionForm} run=${() => act({ type: "contingency.merge_zones", zones: [zone.id, other || others[0][0]], into: { id: zone.id, name: zone.name, traits: zone.traits, modifier: zone.modifier } })} label="Merge into this zone" kind="">
      <${Select} label="Zone to merge in" name="merge" value=${other || others[0][0]} onChange=${setOther} options=${others} />
    <//>`}
    ${others.length > 0 && html`<${ActionForm} run=${() => {
      const target = other || others[0][0];
      const linked = rules.connections.some((k) => [k.a, k.b].sort().join() === [zone.id, target].sort().join());
      return linked
        ? act({ type: "contingency.set_barrier", a: zone.id, b: target, barrier: barrierOf() })
        : act({ type: "contingency.connect", connection: { a: zone.id, b: target, barrier: barrierOf() } });
    }} label="Connect, or set the barrier" kind="">
      <${Select} label="Other zone" name="other" value=${other || others[0][0]} onChange=${setOther} options=${others} />
      <${Field} label="Barrier (empty: none)" name="barrier" value=${barrier} onInput=${setBarrier} hint="e.g. Leap 6" />
    <//>`}
    ${neighbours.length > 0 && html`<${ActionForm} run=${() => act({ type: "contingency.disconnect", a: zone.id, b: cut || neighbours[0][0] })} label="Disconnect" kind="" testid="disconnect">
      <${Select} label="Zone to disconnect from" name="disconnect" value=${cut || neighbours[0][0]} onChange=${setCut} options=${neighbours} />
    <//>`}
    <${ActionForm} run=${setTerrain} label="Set the movement modifier" kind="" testid="modifier">
      <${Field} type="number" min="0" label="Movement modifier (extra movement points)" name="modifier" value=${modifierValue} onInput=${setModifier} />
      <${Select} label="Forced Movement sweeps into" name="forced-to" value=${sweepsValue} onChange=${setSweeps} options=${[["", "nowhere (no forced movement)"], ...others]}
        hint="At the end of the round, whoever here took no movement action is swept there." />
    <//>
    <${ActionForm} run=${() => act({ type: "contingency.add_zone", zone: { id: slug(added, new Set(taken)), name: added.trim() }, connections: [{ a: zone.id, b: slug(added, new Set(taken)) }] })} label="Add a zone next to it" kind="">
      <${Field} label="New zone's name" name="added" value=${added} onInput=${setAdded} />
    <//>
    ${others.length > 0 && html`<${ActionForm} run=${() =>
      act({ type: "contingency.remove_zone", zone: zone.id, placements: Object.fromEntries(zone.characters.map((c) => [c, destination(c)])) })} label="Remove the zone" kind="" testid="remove-zone">
      ${zone.characters.map((c) => html`<${Select} key=${c} label=${`Where ${who[c]} goes`} name=${`away-${c}`} value=${destination(c)}
        onChange=${(v) => setDestinations({ ...destinations, [c]: v })} options=${others} />`)}
    <//>`}
    ${rules.characters.length > 0 && html`<${ActionForm} run=${() => act({ type: "contingency.place", character: mover || rules.characters[0].id, zone: zone.id })} label="Place here" kind="">
      <${Select} label="Character to place in this zone" name="mover" value=${mover || rules.characters[0].id} onChange=${setMover} options=${rules.characters.map((c) => [c.id, c.name])} />
    <//>`}
    <${ActionButton} label="Deselect" run=${async () => select(null)} />
  </div>`;
}

// The GM's tools for the characters: engage, disengage, add and remove.
function Cast({ view, act }) {
  const rules = view.rules;
  const current = useSelected();
  const people = rules.characters.map((c) => [c.id, c.name]);
  const [a, setA] = useState("");
  const [b, setB] = useState("");
  const [name, setName] = useState("");
  const [gone, setGone] = useState("");
  const first = a || people[0]?.[0] || "";
  const second = b || people.find(([id]) => id !== first)?.[0] || "";
  const where = rules.zones.some((z) => z.id === current) ? current : rules.zones[0]?.id;
  const pair = { a: first, b: second };
  const add = () => {
    const id = slug(name, new Set([...rules.zones.map((z) => z.id), ...people.map(([id]) => id), ...rules.things.map((t) => t.id)]));
    return act({ type: "contingency.add_character", character: { id, name: name.trim(), zone: where } });
  };
  return html`<div class="cast" data-testid="cast">
    <h3>Characters</h3>
    ${people.length > 1 && html`<fieldset data-testid="engagement"><legend>Engage or disengage two characters</legend>
      <${Select} label="One character" name="engage-a" value=${first} onChange=${setA} options=${people} />
      <${Select} label="The other character" name="engage-b" value=${second} onChange=${setB} options=${people} />
      <${ActionButton} label="Engage them" run=${() => act({ type: "contingency.engage", ...pair })} />
      <${ActionButton} label="Disengage them" run=${() => act({ type: "contingency.disengage", ...pair })} />
    </fieldset>`}
    <${ActionForm} run=${add} label="Add the character" kind="" testid="add-character">
      <${Field} label=${`New character's name (enters ${rules.zones.find((z) => z.id === where)?.name ?? "the map"}; select a zone on the map to choose)`} name="new-character" value=${name} onInput=${setName} />
    <//>
    ${people.length > 0 && html`<${ActionForm} run=${() => act({ type: "contingency.remove_character", character: gone || people[0][0] })} label="Remove the character" kind="" testid="remove-character">
      <${Select} label="Character to remove" name="remove-character" value=${gone || people[0][0]} onChange=${setGone} options=${people} />
    <//>`}
  </div>`;
}

// The GM reorders the actions still to resolve: each can be moved one place earlier.
function QueueOrder({ view, act }) {
  const who = names(view);
  const queued = view.rules.actions.filter((a) => a.status === "planned" && a.type !== "Triggered");
  if (queued.length < 2) return null;
  const earlier = (i) => {
    const order = queued.map((a) => a.id);
    [order[i - 1], order[i]] = [order[i], order[i - 1]];
    return act({ type: "contingency.reorder", order });
  };
  return html`<div class="queue" data-testid="reorder"><h3>Order of the actions still to resolve</h3>
    <ol>${queued.map((a, i) => html`<li key=${a.id}>${who[a.character]}: ${a.name ?? a.type} (${a.id})
      ${i > 0 && html` <${ActionButton} label=${`Resolve ${a.id} earlier`} run=${() => earlier(i)} />`}</li>`)}</ol>
  </div>`;
}

// What this viewer can do now, and nothing it cannot.
function Actions({ view, me, act }) {
  const rules = view.rules;
  const gm = me.role === "gm";
  const who = names(view);
  if (view.concluded) return html`<p>The encounter is over.</p>`;
  const own = rules.characters.filter((c) => c.controlled_by_you);
  const cardsOf = () => rules.catalogue;
  const parts = [];
  if (gm && rules.phase === "scene") {
    parts.push(html`<${SceneForm} key="scene" act=${act} />`);
    parts.push(html`<${ActionButton} key="open" kind="primary" label="Call for intent" run=${() => act({ type: "contingency.open_intent" })} testid="open-intent" />`);
  }
  if (rules.phase === "intent" && view.seal) {
    for (const c of own) {
      if (!view.seal.expected.includes(c.id)) continue;
      const declared = view.seal.declared.find((d) => d.participant === c.id);
      parts.push(html`<${IntentForm} key=${`intent-${c.id}`} character=${c} cards=${cardsOf()} act=${act} declared=${declared} />`);
    }
  }
  if (rules.phase === "resolving" || rules.phase === "environment") {
    const next = rules.actions.find((a) => a.id === rules.next_action);
    if (rules.rolling) {
      const roller = rules.characters.find((c) => c.id === rules.rolling.character);
      if (gm || roller?.controlled_by_you) parts.push(html`<${PenaltyForm} key="penalty" view=${view} act=${act} />`);
      else parts.push(html`<p key="wait-penalty">${who[rules.rolling.character]} chooses how to take the penalty.</p>`);
    } else if (next) {
      const owner = rules.characters.find((c) => c.id === next.character);
      if (gm || owner?.controlled_by_you) {
        parts.push(html`<${RollForm} key=${`roll-${next.id}`} view=${view} act=${act} action=${next} gm=${gm} />`);
        parts.push(html`<${ActionButton} key="skip" label="Cannot perform it (skip)" run=${() => act({ type: "contingency.skip", action: next.id })} />`);
      } else {
        parts.push(html`<p key="wait">Next: ${who[next.character]}'s ${next.name ?? next.type} action.</p>`);
      }
      if (gm) parts.push(html`<${DifficultyForm} key=${`difficulty-${next.id}`} act=${act} action=${next} />`);
    }
    for (const a of rules.actions.filter((a) => a.status === "planned")) {
      const owner = rules.characters.find((c) => c.id === a.character);
      if (gm || owner?.controlled_by_you) parts.push(html`<${TargetForm} key=${`target-${a.id}`} view=${view} act=${act} action=${a} />`);
      if (owner?.controlled_by_you && a.name && !a.change_asked) parts.push(html`<${ChangeForm} key=${`change-${a.id}`} act=${act} action=${a} cards=${cardsOf()} />`);
      if (gm && a.change_asked) {
        parts.push(html`<div key=${`change-${a.id}`} class="proposal"><p>${who[a.character]} asks to change ${a.id} to ${a.change_asked}.</p>
          <${ActionButton} label="Allow with −2" run=${() => act({ type: "contingency.rule_on_change", action: a.id, allow: true, penalty: 2 })} />
          <${ActionButton} label="Refuse" run=${() => act({ type: "contingency.rule_on_change", action: a.id, allow: false })} /></div>`);
      }
    }
    for (const c of own) {
      if (c.movement_points) parts.push(html`<${MoveForm} key=${`move-${c.id}`} view=${view} act=${act} character=${c} />`);
      parts.push(html`<${TriggeredForm} key=${`triggered-${c.id}`} view=${view} act=${act} character=${c} cards=${cardsOf()} />`);
      if (c.omens > 0 && !rules.rolling) parts.push(html`<${OmenForm} key=${`omen-${c.id}`} act=${act} character=${c} cards=${cardsOf()} />`);
      for (const name of rules.rolling ? [] : c.granted) parts.push(html`<${InstantForm} key=${`instant-${c.id}-${name}`} view=${view} act=${act} character=${c} action=${name} />`);
    }
  }
  if (gm && (rules.phase === "resolving" || rules.phase === "environment") && !rules.rolling && !rules.next_action) {
    parts.push(html`<${EnvironmentForm} key="environment" act=${act} />`);
  }
  if (gm && rules.phase === "resolving" && !rules.rolling) parts.push(html`<${QueueOrder} key="reorder" view=${view} act=${act} />`);
  if (gm && (rules.phase === "resolving" || rules.phase === "environment")) {
    parts.push(html`<${ActionButton} key="end" label="End the round" run=${() => act({ type: "contingency.end_round" })} testid="end-round" />`);
  }
  if (gm) parts.push(html`<${Landscape} key="landscape" view=${view} act=${act} />`);
  if (gm) parts.push(html`<${Cast} key="cast" view=${view} act=${act} />`);
  if (parts.length === 0) parts.push(html`<p>Nothing for you to do right now.</p>`);
  return html`<div class="actions">${parts}</div>`;
}

function declarationWords(payload) {
  if (payload?.type === "contingency.intent") return payload.actions.join(", ") || "no action";
  if (payload?.type === "contingency.face_down") return `face down: ${payload.types.join(", ")}`;
  return null;
}

registerRuleset({
  name: "contingency",
  label: "Contingency combat (rounds over a map of zones)",
  summary: "Rounds of sealed intent resolved by type and range over zones the GM can reshape.",
  newSetup,
  SetupForm,
  buildContest,
  fieldOf,
  Board,
  Actions,
  chartPoints: () => null,
  phaseText,
  mine,
  names,
  declarationWords,
});
