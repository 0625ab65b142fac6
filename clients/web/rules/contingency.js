// Panels of the `contingency` ruleset (Contingency RPG combat: rounds over a map of zones). See docs/web.md
// for the interface every ruleset module implements and docs/rules/contingency.md for the rules.
import { ActionButton, ActionForm, Check, Field, Select, html, slug } from "../ui.js";
import { registerRuleset } from "./registry.js";
import { useEffect, useLayoutEffect, useRef, useState } from "../vendor/preact-htm.js";
import { DiceRow } from "../dice.js";
import { ListPicks } from "../faces.js";

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

// --- what the map and the panels share -----------------------------------------------------------------

// The board of the page: the zone the GM selected, the move being planned (who moves, where to), a choice a
// panel asks of the map (`pick`), and how the map sends a command (the Actions panel of a live page gives it;
// the replay viewer has none, so its map only shows).
const board = { contest: null, selected: null, mover: null, destination: null, pick: null, send: null, map: null, reveal: null };
const listeners = new Set();
function update(change) {
  Object.assign(board, change);
  for (const listener of listeners) listener();
}
function useBoard() {
  const [, setTick] = useState(0);
  useEffect(() => {
    const listener = () => setTick((t) => t + 1);
    listeners.add(listener);
    return () => listeners.delete(listener);
  }, []);
  return board;
}
function select(zone) {
  update({ selected: zone });
}
function useSelected() {
  return useBoard().selected;
}
// The Actions panel lends its `act` to the map while it is shown.
function useSender(act) {
  board.send = act;
  useEffect(() => {
    update({ send: act });
    return () => update({ send: null, pick: null, destination: null });
  }, []);
}

function plural(n, one, many = `${one}s`) {
  return `${n} ${n === 1 ? one : many}`;
}

function nth(n) {
  const tens = n % 100;
  const suffix = tens >= 11 && tens <= 13 ? "th" : ["th", "st", "nd", "rd"][n % 10] ?? "th";
  return `${n}${suffix}`;
}

// --- the zone graph (docs/rules/contingency.md, "Movement and Positioning") -------------------------------

const CROSSING = 2; // movement points to cross into an adjacent zone with no barrier, before the terrain

function zoneIndex(rules) {
  return Object.fromEntries(rules.zones.map((z) => [z.id, z]));
}

function linkBetween(rules, a, b) {
  return rules.connections.find((k) => (k.a === a && k.b === b) || (k.a === b && k.b === a)) ?? null;
}

// Crossing from zone a into the adjacent zone b: 2 plus the larger of the two zones' movement modifiers.
function crossing(zones, a, b) {
  return CROSSING + Math.max(zones[a]?.modifier ?? 0, zones[b]?.modifier ?? 0);
}

// The cheapest way from `from` to every zone it reaches (the fewest zones among ways of one cost), over the
// connections with no barrier, or over every connection with `barriers`: {zone: {cost, hops, prev}}.
function ways(rules, from, barriers = false) {
  const zones = zoneIndex(rules);
  const next = {};
  for (const k of rules.connections) {
    if ((k.barrier && !barriers) || !zones[k.a] || !zones[k.b]) continue;
    (next[k.a] ??= []).push(k.b);
    (next[k.b] ??= []).push(k.a);
  }
  const best = { [from]: { cost: 0, hops: 0, prev: null } };
  const done = new Set();
  const before = (p, q) => p.cost < q.cost || (p.cost === q.cost && p.hops < q.hops);
  for (;;) {
    let here = null;
    for (const id of Object.keys(best)) if (!done.has(id) && (here === null || before(best[id], best[here]))) here = id;
    if (here === null) return best;
    done.add(here);
    for (const there of next[here] ?? []) {
      const way = { cost: best[here].cost + crossing(zones, here, there), hops: best[here].hops + 1, prev: here };
      if (!best[there] || before(way, best[there])) best[there] = way;
    }
  }
}

function pathTo(best, to) {
  if (!best[to]) return null;
  const path = [];
  for (let at = to; best[at].prev !== null; at = best[at].prev) path.unshift(at);
  return path;
}

// The range between two zones as the view's ranges count it.
function zoneRange(rules, a, b) {
  if (a === b) return "close";
  if (linkBetween(rules, a, b)) return "near";
  return ways(rules, a, true)[b] ? "far" : "distant";
}

const RANGE_WORDS = {
  engaged: "engaged",
  close: "close (the same zone)",
  near: "near (an adjacent zone)",
  far: "far (connected through other zones)",
  distant: "distant (not connected)",
};

// The characters of this viewer that have movement points this round, and the one a tap on a zone moves.
function movers(view) {
  return view.rules.characters.filter((c) => c.controlled_by_you && c.movement_points !== null);
}
function moverOf(view) {
  const list = movers(view);
  return list.find((c) => c.id === board.mover) ?? list[0] ?? view.rules.characters.find((c) => c.controlled_by_you) ?? null;
}

// Moving a character to a zone as the server takes it (docs/rules/contingency.md, "Repositioning" and
// "Challenging Terrain"): the cheapest path with no barrier on it, each crossing 2 plus the larger movement
// modifier of its two zones, within the movement points left. {ok, text, path, blocked, cost}
function planMove(view, moverId, destination) {
  const rules = view.rules;
  const who = names(view);
  const zones = zoneIndex(rules);
  const mover = rules.characters.find((c) => c.id === moverId);
  if (!mover || !zones[destination]) return null;
  const start = mover.zone;
  const to = who[destination];
  const refused = (text, path = [], blocked = []) => ({ ok: false, text, path, blocked, cost: null });
  if (destination === start) return refused(`${mover.name} is already in ${to}.`);
  const open = ways(rules, start);
  const path = pathTo(open, destination);
  if (!path) {
    const any = pathTo(ways(rules, start, true), destination);
    if (!any) return refused(`${to} is not connected to ${who[start]} by any path: ${mover.name} cannot move there (distant).`);
    const blocked = [];
    let here = start;
    for (const zone of any) {
      if (linkBetween(rules, here, zone)?.barrier) blocked.push([here, zone]);
      here = zone;
    }
    const [a, b] = blocked[0];
    const barrier = linkBetween(rules, a, b).barrier;
    return refused(
      `Every way to ${to} crosses a barrier: ${barrier.action} ${barrier.difficulty} between ${who[a]} and ${who[b]}. Movement points never cross one: it takes its own roll (${barrier.action} aimed at ${who[b]}).`,
      any,
      blocked,
    );
  }
  const cost = open[destination].cost;
  let here = start;
  const crossings = path.map((zone) => {
    const points = crossing(zones, here, zone);
    here = zone;
    return `${who[zone]} ${points}`;
  });
  const way = `${plural(path.length, "zone")} (${crossings.join(", ")})`;
  const mp = mover.movement_points;
  if (rules.rolling) return refused(`The way to ${to} is ${way}: wait until ${who[rules.rolling.character]} has taken the penalty of the roll.`, path);
  if (mp === null) {
    return refused(
      `${mover.name} has no movement points this round; the way to ${to} is ${way}, ${cost} movement points. A Reposition gives 1 + its result; a step to an adjacent zone goes with an action as it resolves.`,
      path,
    );
  }
  if (cost > mp) return refused(`${to} is out of reach: the cheapest way is ${way}, ${cost} movement points, and ${mover.name} has ${mp} left.`, path);
  return { ok: true, path, blocked: [], cost, text: `Move ${mover.name} to ${to}: ${way}, costs ${cost} of its ${mp} movement points; ${mp - cost} left.` };
}

// --- pointing at the board -----------------------------------------------------------------------------

const KIND_WORDS = { zone: "a zone", character: "a character's token", thing: "a thing (▣)" };

function kindsText(kinds) {
  const words = kinds.map((k) => KIND_WORDS[k]);
  return words.length > 1 ? `${words.slice(0, -1).join(", ")} or ${words.at(-1)}` : words[0];
}

// A tap (or Enter, or Space) on one of the board's things.
function tap(view, kind, id, { gm, acting }) {
  const pick = board.pick;
  if (pick) {
    if (!pick.kinds.includes(kind)) {
      update({ pick: { ...pick, chosen: null, refusal: `Tap ${kindsText(pick.kinds)} to choose ${pick.what}.` } });
      return;
    }
    const refusal = pick.why(kind, id);
    if (!refusal) pick.fill(kind, id);
    update({ pick: { ...pick, chosen: refusal ? null : { kind, id }, refusal } });
    return;
  }
  if (kind !== "zone") return;
  const change = {};
  if (gm) change.selected = id;
  if (acting && (movers(view).length > 0 || (!gm && mine(view).length > 0))) {
    change.destination = id;
    change.mover = moverOf(view)?.id ?? null;
  }
  update(change);
}

// A panel's "Pick on the map": the map asks for one of the board's things (`kinds`), says why one cannot be
// chosen (`why`), fills the panel's own control with the one tapped (`fill`) and says what was chosen
// (`sentence`); with `send`, a button next to the map sends it at once.
function PickButton({ pickKey, what, kinds, why = () => null, fill, sentence, send = null }) {
  const b = useBoard();
  const ref = useRef(null);
  const active = b.pick?.key === pickKey;
  if (active) Object.assign(b.pick, { why, fill, sentence, send, back: ref.current });
  useEffect(() => () => {
    if (board.pick?.key === pickKey) update({ pick: null });
  }, [pickKey]);
  const start = () => {
    update({ pick: { key: pickKey, what, kinds, why, fill, sentence, send, back: ref.current, chosen: null, refusal: null } });
    setTimeout(() => {
      const first = board.map?.querySelector(".pickable") ?? board.map?.querySelector("[data-box]");
      if (first) {
        board.reveal?.(first);
        first.focus();
      } else board.map?.scrollIntoView({ block: "nearest" });
    }, 30);
  };
  return html`<button type="button" ref=${ref} class="map-pick" aria-pressed=${active ? "true" : "false"}
    aria-label=${`Pick on the map: ${what}`} onClick=${active ? () => update({ pick: null }) : start}>Pick on the map</button>`;
}

function backToForm() {
  const back = board.pick?.back;
  update({ pick: null });
  if (back?.isConnected) back.focus();
}

// Under the map: what a tap chose or why it cannot be, and the buttons to send or cancel it.
function MapPanel({ view }) {
  const b = useBoard();
  const who = names(view);
  const pick = b.pick;
  if (pick) {
    const chosen = pick.chosen && pick.sentence(pick.chosen.kind, pick.chosen.id);
    const said = pick.refusal ?? chosen ?? `Tap ${kindsText(pick.kinds)} on the map to choose ${pick.what}.`;
    const sendIt = async () => {
      await pick.send.run(pick.chosen.kind, pick.chosen.id);
      backToForm();
    };
    return html`<div class="map-panel picking" data-testid="map-panel">
      <p class=${`map-said ${pick.refusal ? "refused" : ""}`} role="status" data-testid="map-said">${said}</p>
      <div class="map-panel-buttons">
        ${chosen && pick.send && html`<${ActionButton} kind="primary" label=${pick.send.label} run=${sendIt} testid="map-send" />`}
        <button type="button" onClick=${backToForm} data-testid="map-back">${chosen ? "Back to the form" : "Cancel"}</button>
      </div>
    </div>`;
  }
  if (!b.send || view.concluded) return null;
  const mover = moverOf(view);
  const list = movers(view);
  const plan = b.destination && mover ? planMove(view, mover.id, b.destination) : null;
  const cancel = () => update({ destination: null });
  const left = list.length > 0 && mover.movement_points !== null
    ? `${mover.name}: ${plural(mover.movement_points, "movement point")} left this round (2 a zone, plus the larger movement modifier of the two zones).`
    : "";
  const said = plan?.text ?? (left ? `Tap a zone to move ${mover.name} there. ${left}` : "");
  const send = () =>
    b.send({ type: "contingency.move", character: mover.id, path: plan.path }).then(() => update({ destination: null }));
  if (!said && list.length === 0 && !plan) return html`<div class="map-panel" data-testid="map-panel"><p class="map-said" role="status" data-testid="map-said"></p></div>`;
  return html`<div class="map-panel" data-testid="map-panel">
    ${list.length > 1 && html`<${Select} label="Who moves when you tap a zone" name="map-mover" value=${mover.id}
      onChange=${(v) => update({ mover: v })} options=${list.map((c) => [c.id, `${c.name} (${plural(c.movement_points, "movement point")})`])} />`}
    <p class=${`map-said ${plan && !plan.ok ? "refused" : ""}`} role="status" data-testid="map-said">${said}</p>
    ${plan && html`<div class="map-panel-buttons">
      ${plan.ok && html`<${ActionButton} kind="primary" label=${`Move ${mover.name} to ${who[b.destination]}`} run=${send} testid="map-send" />`}
      <button type="button" onClick=${cancel} data-testid="map-cancel">${plan.ok ? "Cancel" : "Dismiss"}</button>
    </div>`}
    ${plan?.ok && left && html`<p class="hint">${left}</p>`}
  </div>`;
}

// --- the map -------------------------------------------------------------------------------------------

const W = 210;
const GAP = 70;
const R = 14;
const MIN_H = 130;
const LABEL_CHAR = 8; // a barrier label's width a character, at its 13 px bold (about)
const NAME_CHARS = 22; // what a line of a zone's 15 px name holds within its box
const LINE_CHARS = 28; // what a line of its 12 px text holds
const READABLE = 1; // the smallest scale at which the map's 12 px text shows at 12 px or more
const MOST = 3; // the largest zoom
const LARGEST_START = 1.6; // a small map starts no larger than this

// Words in lines of at most `width` characters (a longer word is cut).
function wrapWords(text, width) {
  const out = [];
  let line = "";
  for (let word of String(text).split(/\s+/).filter(Boolean)) {
    while (word.length > width) {
      if (line) out.push(line);
      line = "";
      out.push(`${word.slice(0, width - 1)}-`);
      word = word.slice(width - 1);
    }
    if (!line) line = word;
    else if (line.length + 1 + word.length <= width) line = `${line} ${word}`;
    else {
      out.push(line);
      line = word;
    }
  }
  if (line) out.push(line);
  return out;
}

// Items joined by " · " in lines of at most `width` characters, breaking between items where it can.
function wrapList(items, width) {
  const out = [];
  let line = "";
  for (const item of items) {
    const joined = line ? `${line} · ${item}` : item;
    if (joined.length <= width) {
      line = joined;
      continue;
    }
    if (line) out.push(line);
    const parts = wrapWords(item, width);
    line = parts.pop() ?? "";
    out.push(...parts);
  }
  if (line) out.push(line);
  return out;
}

function movementWords(z, who) {
  return [z.modifier ? `+${z.modifier} MP` : "", z.forced_to ? `sweeps to ${who[z.forced_to] ?? z.forced_to}` : ""].filter(Boolean);
}

// Where each zone's box, lines, things and tokens go: a grid of boxes, each row as tall as its tallest box.
function layout(zones, who) {
  const cols = Math.max(1, Math.ceil(Math.sqrt(zones.length)));
  const boxes = zones.map((z, i) => {
    const name = wrapWords(z.name, NAME_CHARS);
    const traits = wrapList(z.traits, LINE_CHARS);
    const movement = wrapList(movementWords(z, who), LINE_CHARS);
    const nameY = 24;
    let next = nameY + 19 * (name.length - 1) + 20; // the baseline of the next line
    const traitsY = next;
    next += 15 * traits.length;
    const movementY = next;
    next += 15 * movement.length;
    const things = z.things.map((t) => {
      const lines = wrapWords(`▣ ${who[t] ?? t}`, LINE_CHARS);
      const y = next + 2;
      next = y + 15 * lines.length;
      return { id: t, lines, y };
    });
    const tokensY = next + 7;
    const rowsOfTokens = Math.ceil(z.characters.length / 5);
    const height = Math.max(MIN_H, rowsOfTokens ? tokensY + (rowsOfTokens - 1) * 32 + R + 12 : next + 2);
    return { id: z.id, col: i % cols, row: Math.floor(i / cols), name, traits, movement, nameY, traitsY, movementY, things, tokensY, height };
  });
  const rowHeights = [];
  for (const box of boxes) rowHeights[box.row] = Math.max(rowHeights[box.row] ?? 0, box.height);
  const rowTops = [];
  let top = 10;
  rowHeights.forEach((h, r) => {
    rowTops[r] = top;
    top += h + GAP;
  });
  const at = {};
  for (const box of boxes) at[box.id] = { ...box, x: box.col * (W + GAP) + 10, y: rowTops[box.row], h: rowHeights[box.row] };
  return { at, width: cols * (W + GAP) - GAP + 20, height: Math.max(top - GAP + 10, 20) };
}

// The control point of a connection's curve: zones side by side are joined straight; others straight when that
// hides no other link, else by a curve, bent to the side where it passes behind the fewest other zones.
function control(a, c, from, to, boxes) {
  const length = Math.hypot(c.x - a.x, c.y - a.y) || 1;
  const straight = { x: (a.x + c.x) / 2, y: (a.y + c.y) / 2 };
  if (Math.abs(from.col - to.col) + Math.abs(from.row - to.row) <= 1) return straight;
  const others = boxes.filter((z) => z !== from && z !== to);
  let best = null;
  const diagonal = from.col !== to.col && from.row !== to.row; // straight, it lies on no other straight link
  for (const bend of [...(diagonal ? [0] : []), 1 / 5, -1 / 5, 1 / 3, -1 / 3, 1 / 2, -1 / 2]) {
    const m = { x: straight.x - ((c.y - a.y) / length) * bend * length, y: straight.y + ((c.x - a.x) / length) * bend * length };
    let hidden = 0;
    for (let i = 1; i < 20; i += 1) {
      const t = i / 20;
      const x = (1 - t) ** 2 * a.x + 2 * (1 - t) * t * m.x + t ** 2 * c.x;
      const y = (1 - t) ** 2 * a.y + 2 * (1 - t) * t * m.y + t ** 2 * c.y;
      if (others.some((z) => x > z.x && x < z.x + W && y > z.y && y < z.y + z.h)) hidden += 1;
    }
    if (best === null || hidden < best.hidden) best = { m, hidden };
    if (hidden === 0) break;
  }
  return best.m;
}

// Where on a connection's curve (a quadratic from a through control m to c) its barrier's label (`text`) shows:
// the point nearest the middle that no zone's box hides and no label already placed covers (two links crossing
// at their middles, as the diagonals of four zones do, would write one label over the other). The spot chosen
// is added to `placed`.
function labelSpot(a, m, c, boxes, text, placed) {
  const at = (t) => ({ x: (1 - t) ** 2 * a.x + 2 * (1 - t) * t * m.x + t ** 2 * c.x, y: (1 - t) ** 2 * a.y + 2 * (1 - t) * t * m.y + t ** 2 * c.y });
  const width = LABEL_CHAR * text.length;
  const hidden = (p) => boxes.some((z) => p.x > z.x - 40 && p.x < z.x + W + 40 && p.y > z.y - 10 && p.y < z.y + z.h + 10);
  const covered = (p) => placed.some((q) => Math.abs(p.x - q.x) < (width + q.width) / 2 + 4 && Math.abs(p.y - q.y) < 24);
  const spots = [0.5, 0.4, 0.6, 0.3, 0.7, 0.2, 0.8].map(at);
  const spot = spots.find((p) => !hidden(p) && !covered(p)) ?? spots.find((p) => !covered(p)) ?? spots[0];
  placed.push({ ...spot, width });
  return spot;
}

function initials(name) {
  return name.split(/\s+/).map((w) => w[0] ?? "").join("").slice(0, 2).toUpperCase();
}

// Lines of one text element; each but the last ends with a space, so the text reads whole.
function Lines({ x, y, step, lines, cls }) {
  if (!lines.length) return null;
  return html`<text class=${cls} x=${x} y=${y}>${lines.map((line, i) => html`<tspan key=${i} x=${x} y=${y + i * step}>${i < lines.length - 1 ? `${line} ` : line}</tspan>`)}</text>`;
}

const clamp = (v, lo, hi) => Math.min(hi, Math.max(lo, v));

// Zoom and pan: pinch or drag on the map, + and − buttons, Fit; the view is a window on the map in its own
// units. It starts where the map's 12 px text reads at 12 px or more, around `home` (a zone's centre).
function useZoom(width, height, home) {
  const box = useRef(null);
  const [size, setSize] = useState({ cw: 0, vh: 800 });
  const [view, setView] = useState(null);
  const latest = useRef(null);
  const gesture = useRef({ pointers: new Map(), start: null, moved: false });
  useEffect(() => {
    const el = box.current;
    if (!el) return undefined;
    const measure = () => {
      const cw = el.getBoundingClientRect().width - (el.offsetWidth - el.clientWidth); // inside its borders
      setSize((s) => (s.cw === cw && s.vh === window.innerHeight ? s : { cw, vh: window.innerHeight }));
    };
    measure();
    const observer = new ResizeObserver(measure);
    observer.observe(el);
    return () => observer.disconnect();
  }, []);
  const { cw, vh } = size;
  if (!cw) return { box, measured: false, viewBox: `0 0 ${width} ${height}`, handlers: {} };
  const first = clamp(cw / width, READABLE, LARGEST_START);
  const ch = Math.round(clamp(height * first, 220, Math.max(260, Math.min(560, vh * 0.62))));
  const fit = Math.min(cw / width, ch / height);
  const settle = ({ scale, x, y }) => {
    const s = clamp(scale, Math.min(fit, MOST), MOST);
    const w = cw / s;
    const h = ch / s;
    return { scale: s, x: w >= width ? (width - w) / 2 : clamp(x, 0, width - w), y: h >= height ? (height - h) / 2 : clamp(y, 0, height - h) };
  };
  const centred = (scale, p) => settle({ scale, x: p.x - cw / scale / 2, y: p.y - ch / scale / 2 });
  const current = view ? settle(view) : centred(first, home ?? { x: width / 2, y: height / 2 });
  latest.current = current;
  const apply = (v) => {
    latest.current = settle(v);
    setView(latest.current);
  };
  const zoomAt = (factor, px = cw / 2, py = ch / 2) => {
    const v = latest.current;
    const scale = clamp(v.scale * factor, Math.min(fit, MOST), MOST);
    apply({ scale, x: v.x + px / v.scale - px / scale, y: v.y + py / v.scale - py / scale });
  };
  const g = gesture.current;
  const local = (e) => {
    const rect = box.current.getBoundingClientRect();
    return { x: e.clientX - rect.left, y: e.clientY - rect.top };
  };
  const restart = () => {
    g.start = { view: latest.current, pointers: new Map(g.pointers) };
  };
  const handlers = {
    onPointerDown: (e) => {
      if (e.pointerType === "mouse" && e.button !== 0) return;
      if (g.pointers.size === 0) g.moved = false;
      g.pointers.set(e.pointerId, local(e));
      restart();
    },
    onPointerMove: (e) => {
      if (!g.pointers.has(e.pointerId)) return;
      g.pointers.set(e.pointerId, local(e));
      const s = g.start;
      if (g.pointers.size === 1) {
        const p0 = s.pointers.get(e.pointerId);
        const p = g.pointers.get(e.pointerId);
        if (!p0) return;
        if (!g.moved && Math.hypot(p.x - p0.x, p.y - p0.y) < 6) return;
        if (!g.moved) {
          g.moved = true;
          box.current.setPointerCapture?.(e.pointerId);
        }
        apply({ scale: s.view.scale, x: s.view.x - (p.x - p0.x) / s.view.scale, y: s.view.y - (p.y - p0.y) / s.view.scale });
      } else if (g.pointers.size === 2 && s.pointers.size === 2) {
        const [a0, b0] = [...s.pointers.values()];
        const [a, b] = [...g.pointers.values()];
        const d0 = Math.hypot(b0.x - a0.x, b0.y - a0.y) || 1;
        const scale = clamp((s.view.scale * Math.hypot(b.x - a.x, b.y - a.y)) / d0, Math.min(fit, MOST), MOST);
        const m0 = { x: (a0.x + b0.x) / 2, y: (a0.y + b0.y) / 2 };
        const m = { x: (a.x + b.x) / 2, y: (a.y + b.y) / 2 };
        g.moved = true;
        apply({ scale, x: s.view.x + m0.x / s.view.scale - m.x / scale, y: s.view.y + m0.y / s.view.scale - m.y / scale });
      }
    },
    onPointerUp: (e) => {
      g.pointers.delete(e.pointerId);
      restart();
    },
    onPointerCancel: (e) => {
      g.pointers.delete(e.pointerId);
      restart();
    },
    // a drag or a pinch is not a tap on what it started on
    onClickCapture: (e) => {
      if (!g.moved) return;
      g.moved = false;
      e.stopPropagation();
      e.preventDefault();
    },
    onWheel: (e) => {
      if (!e.ctrlKey) return; // a trackpad's pinch; a plain wheel scrolls the page
      e.preventDefault();
      const p = local(e);
      zoomAt(Math.exp(-e.deltaY / 200), p.x, p.y);
    },
  };
  return {
    box,
    measured: true,
    viewBox: `${current.x} ${current.y} ${cw / current.scale} ${ch / current.scale}`,
    height: ch,
    scale: current.scale,
    zoomed: current.scale > fit * 1.01,
    atFit: Math.abs(current.scale - fit) < fit * 0.01,
    atMost: current.scale >= MOST * 0.999,
    handlers,
    zoomIn: () => zoomAt(1.25),
    zoomOut: () => zoomAt(0.8),
    fit: () => apply({ scale: fit, x: 0, y: 0 }),
    // a zone focused from the keyboard comes into view
    show: (rect) => {
      const v = latest.current;
      const w = cw / v.scale;
      const h = ch / v.scale;
      if (rect.x >= v.x && rect.y >= v.y && rect.x + rect.w <= v.x + w && rect.y + rect.h <= v.y + h) return;
      apply({ scale: v.scale, x: rect.x + rect.w / 2 - w / 2, y: rect.y + rect.h / 2 - h / 2 });
    },
  };
}

function ZoneMap({ view, editable, me }) {
  const rules = view.rules;
  const who = names(view);
  const b = useBoard();
  const figure = useRef(null);
  const gm = me?.role === "gm";
  const acting = Boolean(b.send) && !view.concluded && me?.role !== "spectator";
  const pointing = editable || acting;
  const pick = acting ? b.pick : null;
  const { at, width, height } = layout(rules.zones, who);
  const mover = acting ? moverOf(view) : null;
  const homeZone = at[mover?.zone] ?? at[rules.zones[0]?.id];
  const zoom = useZoom(width, height, homeZone && { x: homeZone.x + W / 2, y: homeZone.y + homeZone.h / 2 });
  // what is focused on the map comes into view (its box in the map's units)
  const reveal = (el) => {
    const [x, y, w, h] = (el.dataset.box ?? "").split(" ").map(Number);
    if (zoom.measured && [x, y, w, h].every(Number.isFinite)) zoom.show({ x, y, w, h });
  };
  useEffect(() => {
    board.map = figure.current;
    board.reveal = reveal;
  });
  const center = (id) => ({ x: at[id].x + W / 2, y: at[id].y + at[id].h / 2 });
  const token = {};
  for (const z of rules.zones) {
    z.characters.forEach((c, k) => {
      token[c] = { x: at[z.id].x + 22 + (k % 5) * 38, y: at[z.id].y + at[z.id].tokensY + Math.floor(k / 5) * 32 };
    });
  }
  const engaged = [];
  for (const c of rules.characters) {
    for (const other of c.engaged_with) if (c.id < other && token[c.id] && token[other]) engaged.push([c.id, other]);
  }
  const plan = acting && !pick && b.destination && mover ? planMove(view, mover.id, b.destination) : null;
  const route = new Set();
  const onRoute = new Set(plan?.path ?? []);
  if (plan && plan.path.length) {
    let here = mover.zone;
    for (const zone of plan.path) {
      route.add([here, zone].sort().join("~"));
      here = zone;
    }
  }
  const blocked = new Set((plan?.blocked ?? []).map((pair) => [...pair].sort().join("~")));
  const pickable = (kind, id) => Boolean(pick && pick.kinds.includes(kind) && !pick.why(kind, id));
  const chosen = (kind, id) => pick?.chosen?.kind === kind && pick.chosen.id === id;
  const press = (kind, id) => (e) => {
    if (e.key === "Enter" || e.key === " ") {
      e.preventDefault();
      tap(view, kind, id, { gm: editable, acting });
    }
  };
  // only a focus from the keyboard moves the map (a tap focuses what it taps, and must stay on it)
  const keyboard = (e) => e.currentTarget.matches(":focus-visible");
  const keys = (e) => {
    if (e.key !== "Escape") return;
    if (board.pick) backToForm();
    else if (board.destination) update({ destination: null });
  };
  const summary = rules.zones.map((z) => `${z.name}: ${z.characters.map((c) => who[c]).join(", ") || "nobody"}`).join("; ");
  // Each connection's curve, and where its barrier's label goes (labels are drawn above the zones: where links
  // cross between close zones, one label may have to lie over a box, its halo keeping it readable).
  const placed = [];
  const links = [...rules.connections].sort((p, q) => Boolean(p.barrier) - Boolean(q.barrier)).filter((k) => at[k.a] && at[k.b]).map((k) => {
    const a = center(k.a);
    const c = center(k.b);
    const mid = control(a, c, at[k.a], at[k.b], Object.values(at));
    const text = k.barrier ? `${k.barrier.action} ${k.barrier.difficulty}` : "";
    return { k, a, c, mid, key: [k.a, k.b].sort().join("~"), text, spot: text ? labelSpot(a, mid, c, Object.values(at), text, placed) : null };
  });
  return html`<figure class="zone-map" data-testid="zone-map" ref=${figure} onKeyDown=${keys}>
    <div class="map-tools" role="group" aria-label="Zoom the map">
      <button type="button" onClick=${zoom.zoomOut} disabled=${!zoom.measured || zoom.atFit} aria-label="Zoom out" data-testid="zoom-out">−</button>
      <button type="button" onClick=${zoom.zoomIn} disabled=${!zoom.measured || zoom.atMost} aria-label="Zoom in" data-testid="zoom-in">+</button>
      <button type="button" onClick=${zoom.fit} disabled=${!zoom.measured || zoom.atFit} data-testid="zoom-fit">Fit</button>
      <span class="zoom-level" data-testid="zoom-level">${zoom.measured ? `${Math.round(zoom.scale * 100)} %` : ""}</span>
      <span class="hint">${zoom.zoomed ? "Drag to move the map; pinch, or + and −, to zoom." : "Pinch, or +, to zoom in."}</span>
    </div>
    <div class=${`map-viewport ${zoom.zoomed ? "zoomed" : ""}`} ref=${zoom.box} data-testid="map-viewport" ...${zoom.handlers}>
      <svg viewBox=${zoom.viewBox} height=${zoom.height} role=${pointing ? "group" : "img"} aria-labelledby="map-title"
        class=${`map-svg ${pointing ? "pointing" : ""} ${pick ? "picking" : ""}`} data-testid="map-svg">
        <title id="map-title">The map: ${summary}</title>
        ${links.map(({ k, a, c, mid, key }) => {
          const state = blocked.has(key) ? "blocked" : route.has(key) ? (plan.ok ? "on-path" : "off-reach") : "";
          return html`<g key=${key} data-testid=${`link-${key}`} class=${`link ${k.barrier ? "barrier" : ""} ${state}`}>
            <path d=${`M ${a.x} ${a.y} Q ${mid.x} ${mid.y} ${c.x} ${c.y}`} />
          </g>`;
        })}
        ${rules.zones.map((z) => {
          const p = at[z.id];
          const traits = z.traits.join(", ");
          const movement = movementWords(z, who).join(", ");
          const here = z.characters.map((c) => who[c]).join(", ");
          const label = [z.name, traits && `traits: ${traits}`, movement, here && `here: ${here}`].filter(Boolean).join("; ");
          const classes = [
            "zone",
            editable && b.selected === z.id ? "selected" : "",
            plan && mover?.zone === z.id ? "start" : "",
            onRoute.has(z.id) ? (plan.ok ? "on-path" : "off-reach") : "",
            plan && b.destination === z.id ? (plan.ok ? "destination" : "unreachable") : "",
            pickable("zone", z.id) ? "pickable" : "",
            chosen("zone", z.id) ? "chosen" : "",
          ].filter(Boolean).join(" ");
          const pressed = chosen("zone", z.id) || (!pick && ((editable && b.selected === z.id) || (acting && b.destination === z.id)));
          const control = pointing
            ? { tabindex: "0", role: "button", "aria-label": label, "aria-pressed": pressed ? "true" : "false",
                onClick: () => tap(view, "zone", z.id, { gm: editable, acting }), onKeyDown: press("zone", z.id),
                "data-box": `${p.x} ${p.y} ${W} ${p.h}`, onFocus: (e) => keyboard(e) && reveal(e.currentTarget) }
            : {};
          return html`<g key=${z.id} data-testid=${`zone-${z.id}`} class=${classes} ...${control}>
            <rect x=${p.x} y=${p.y} width=${W} height=${p.h} rx="12" />
            <${Lines} x=${p.x + 12} y=${p.y + p.nameY} step=${19} lines=${p.name} cls="zone-name" />
            <${Lines} x=${p.x + 12} y=${p.y + p.traitsY} step=${15} lines=${p.traits} cls="zone-traits" />
            <${Lines} x=${p.x + 12} y=${p.y + p.movementY} step=${15} lines=${p.movement} cls="zone-traits" />
          </g>`;
        })}
        ${rules.zones.flatMap((z) => at[z.id].things.map((t) => {
          const p = at[z.id];
          const can = pick?.kinds.includes("thing");
          const control = can
            ? { tabindex: "0", role: "button", "aria-label": `${who[t.id]}, a thing in ${z.name}`, "aria-pressed": chosen("thing", t.id) ? "true" : "false",
                onClick: () => tap(view, "thing", t.id, { gm: editable, acting }), onKeyDown: press("thing", t.id),
                "data-box": `${p.x} ${p.y + t.y - 14} ${W} 20`, onFocus: (e) => keyboard(e) && reveal(e.currentTarget) }
            : {};
          return html`<g key=${t.id} data-testid=${`thing-${t.id}`} class=${`thing ${can ? "can-pick" : ""} ${pickable("thing", t.id) ? "pickable" : ""} ${chosen("thing", t.id) ? "chosen" : ""}`} ...${control}>
            ${can && html`<rect class="hit" x=${p.x + 6} y=${p.y + t.y - 14} width=${W - 12} height=${18 + 15 * (t.lines.length - 1)} rx="4" />`}
            <${Lines} x=${p.x + 12} y=${p.y + t.y} step=${15} lines=${t.lines} cls="thing-name" />
          </g>`;
        }))}
        ${links.filter((link) => link.spot).map(({ key, text, spot }) => html`<text key=${`label-${key}`} data-testid=${`label-${key}`}
          x=${spot.x} y=${spot.y + 5} text-anchor="middle" class="barrier-label">${text}</text>`)}
        ${engaged.map(([a, c]) => html`<line key=${`${a}~${c}`} data-testid=${`engaged-${a}-${c}`} class="engagement"
          x1=${token[a].x} y1=${token[a].y} x2=${token[c].x} y2=${token[c].y} />`)}
        ${rules.characters.filter((c) => token[c.id]).map((c) => {
          const can = pick?.kinds.includes("character");
          const control = can
            ? { tabindex: "0", role: "button", "aria-label": `${c.name} in ${who[c.zone]}`, "aria-pressed": chosen("character", c.id) ? "true" : "false",
                onClick: () => tap(view, "character", c.id, { gm: editable, acting }), onKeyDown: press("character", c.id),
                "data-box": `${token[c.id].x - 24} ${token[c.id].y - 24} 48 48`, onFocus: (e) => keyboard(e) && reveal(e.currentTarget) }
            : {};
          return html`<g key=${c.id} data-testid=${`token-${c.id}`} class=${`token ${c.controlled_by_you ? "yours" : ""} ${can ? "can-pick" : ""} ${pickable("character", c.id) ? "pickable" : ""} ${chosen("character", c.id) ? "chosen" : ""}`} ...${control}>
            ${can && html`<circle class="hit" cx=${token[c.id].x} cy=${token[c.id].y} r=${R + 8} />`}
            <circle class="disc" cx=${token[c.id].x} cy=${token[c.id].y} r=${R} />
            <text x=${token[c.id].x} y=${token[c.id].y + 4} text-anchor="middle">${initials(c.name)}</text>
            ${!can && html`<title>${c.name}</title>`}
          </g>`;
        })}
      </svg>
    </div>
    <figcaption class="hint">Zones with their traits; lines are connections (dashed: a barrier and what crosses it); thick lines join engaged characters.${editable ? " Select a zone to change it." : ""}${acting && movers(view).length ? " Tap a zone to plan a move: its path shows on the map." : ""}</figcaption>
    ${acting && html`<${MapPanel} view=${view} />`}
    <details class="zone-list" data-testid="zone-list">
      <summary>The zones in words</summary>
      <ul>${rules.zones.map((z) => html`<li key=${z.id}><strong>${z.name}</strong>${z.traits.length ? `: ${z.traits.join(", ")}` : ""}${movementWords(z, who).length ? ` · ${movementWords(z, who).join(" · ")}` : ""}${z.things.length ? ` · things: ${z.things.map((t) => who[t]).join(", ")}` : ""} · ${z.characters.map((c) => who[c]).join(", ") || "nobody"}</li>`)}</ul>
    </details>
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

// --- the dice of a roll ----------------------------------------------------------------------------------

// The die whose face is the middle one of three (the result), the first of equal faces in the order rolled.
function middleOf(faces) {
  return faces.map((_, i) => i).sort((a, b) => faces[a] - faces[b] || a - b)[1];
}

// The dice of the roll waiting for its penalty, and of the last roll resolved (its faces after the penalty, its
// sizes from `last_sides`), as rows ({caption, dice, roll, testid}); the middle die (the result) is marked.
function diceRows(view) {
  const rules = view.rules;
  const who = { ...names(view) };
  const rows = [];
  const r = rules.rolling;
  if (r) {
    who[r.character] ??= "the character";
    const middle = middleOf(r.faces);
    const dice = r.faces.map((face, i) => ({
      sides: r.sides[i],
      face,
      kept: i === middle,
      label: `${who[r.character]}'s d${r.sides[i]} showing ${face}${i === middle ? ", the middle die before the penalty" : ""}`,
      note: i === middle ? "middle" : `d${r.sides[i]}`,
    }));
    rows.push({ dice, roll: `rolling-${r.action}-${r.faces.join("-")}`, caption: `${who[r.character]}'s three dice, before the penalty`, testid: "rolling-dice" });
  }
  const last = rules.last;
  if (!last) return rows;
  who[last.character] ??= "the character";
  const sizes = sizesOf(view, last);
  const middle = middleOf(last.faces);
  const dice = last.faces.map((face, i) => {
    const die = sizes ? `d${sizes[i]}` : "die";
    return {
      sides: sizes ? sizes[i] : null,
      face,
      kept: i === middle,
      label: `${who[last.character]}'s ${die} showing ${face}${i === middle ? `, the middle die: result ${last.result}` : ""}`,
      note: i === middle ? "result" : sizes ? die : "",
    };
  });
  const penalty = last.reductions.some((n) => n > 0) ? ", after the penalty" : "";
  const caption = `${who[last.character]}'s three dice${penalty}`;
  rows.push({ dice, roll: `last-${last.action}-${last.faces.join("-")}`, caption: r ? `The previous roll: ${caption}` : caption, testid: "last-dice" });
  return rows;
}

// The newest roll's dice: the one waiting for its penalty, else the last one resolved.
function lastDice(view) {
  return diceRows(view).slice(0, 1);
}

// The sizes a resolved roll was made with (`last_sides`), else the character's own dice when it has no others;
// null when they are not known.
function sizesOf(view, last) {
  if (view.rules.last_sides?.length === last.faces.length) return view.rules.last_sides;
  const character = view.rules.characters.find((c) => c.id === last.character);
  return character && character.skills.length === 0 && character.dice.length === last.faces.length ? character.dice : null;
}

function RollDice({ view, which, testid = which }) {
  return diceRows(view).filter((row) => row.testid === which).map((row) => html`<${DiceRow} key=${row.roll} dice=${row.dice} roll=${row.roll} caption=${row.caption} testid=${testid} />`);
}

// The sizes of the three dice a roll of `actionName` by `character` is made with: those of the attribute and skill
// chosen (`using`, "attribute/skill"), else the action's own when the sheet has them, else the character's
// default dice (as the server picks them: server/rules/contingency/decide.py).
function rollSizes(view, character, actionName, using = "") {
  const table = character.skill_dice ?? {};
  if (using && table[using]) return table[using];
  const card = view.rules.catalogue.find((a) => a.name === actionName);
  const own = card?.attribute && card?.skill ? table[`${card.attribute}/${card.skill}`] : null;
  return own ?? character.dice;
}

// The faces of a physical roll: typed as one list, or tapped die by die.
function FacesRolled({ label, name, typed, setTyped, sizes, testid = undefined }) {
  return html`<div class="face-field">
    <${Field} label=${label} name=${name} value=${typed} onInput=${setTyped} hint=${`e.g. 1 4 9, or tap each die's face (d${sizes.join(", d")})`} testid=${testid} />
    <${ListPicks} sizes=${sizes} text=${typed} onText=${setTyped} label=${(i, sides) => `Die ${i + 1} (d${sides})`} testid=${testid && `${testid}-pick`} />
  </div>`;
}

function Board({ view, me }) {
  const rules = view.rules;
  const who = names(view);
  if (board.contest !== view.contest) Object.assign(board, { contest: view.contest, selected: null, mover: null, destination: null, pick: null });
  return html`<section class="panel board" aria-labelledby="board-title">
    <h2 id="board-title">The encounter</h2>
    <p class="phase" data-testid="phase">${phaseText(view)}${rules.intent_mode === "face_down" ? " · intent face down" : ""}</p>
    ${rules.scene && html`<p class="scene" data-testid="scene">${rules.scene}${rules.foreshadow ? html` <em>— ${rules.foreshadow}</em>` : ""}</p>`}
    <${ZoneMap} view=${view} me=${me} editable=${me?.role === "gm" && !view.concluded} />
    <ul class="characters">${rules.characters.map(
      (c) => html`<li key=${c.id} data-testid=${`character-${c.id}`}><strong>${c.name}</strong>${c.controlled_by_you ? html` <span class="tag">yours</span>` : ""}${` in ${who[c.zone]}`}${c.engaged_with.length ? `, engaged with ${c.engaged_with.map((o) => who[o]).join(", ")}` : ""}${` · actions this round: ${c.actions_taken}`}${c.movement_points !== null ? ` · ${c.movement_points} movement points` : ""}${c.omens ? ` · ${c.omens} omen(s)` : ""}</li>`,
    )}</ul>
    <${ActionsTable} view=${view} />
    ${rules.rolling && html`<p class="rolling" data-testid="rolling">${who[rules.rolling.character]} rolled ${rules.rolling.faces.join("-")} on ${rules.rolling.sides.map((n) => `d${n}`).join("/")} and takes −${rules.rolling.penalty}: waiting for the choice of dice.</p>`}
    <${RollDice} view=${view} which="rolling-dice" />
    ${rules.last && html`<p class="last" data-testid="last">${rules.rolling ? "The previous roll" : "Last"}: ${rules.last.faces.join("-")}, result ${rules.last.result}${rules.last.omens ? `, ${rules.last.omens} omen(s)` : ""}${rules.last.success === null ? "" : rules.last.success ? " — success" : " — failure"}</p>`}
    <${RollDice} view=${view} which="last-dice" />
    ${rules.environmental.length > 0 && html`<ul class="environmental" data-testid="environmental">${rules.environmental.map((t, i) => html`<li key=${i}>${t}</li>`)}</ul>`}
  </section>`;
}

// --- actions -------------------------------------------------------------------------------------------

// What one character may do in a round (protocol/rulesets/contingency.py; docs/rules/contingency.md, "Table limits").
const MAX_INTENT = 8; // actions announced
const MAX_ROUND_ACTIONS = 12; // actions performed: announced, triggered and instant together

function IntentForm({ character, cards, act, declared }) {
  const [chosen, setChosen] = useState(declared?.payload?.actions ?? []);
  const toggle = (name, on) => setChosen(on ? [...chosen, name] : chosen.filter((n) => n !== name));
  return html`<${ActionForm} run=${() => act({ type: "seal.declare", participant: character.id, payload: { type: "contingency.intent", actions: chosen } })}
    label=${declared ? "Replace my sealed intent" : "Seal my intent"} testid=${`intent-${character.id}`}>
    <fieldset><legend>${character.name}: the actions you announce this round (in order)</legend>
      ${cards.map((a) => html`<${Check} key=${a.name} label=${`${a.name} (${a.type})`} checked=${chosen.includes(a.name)} onChange=${(on) => toggle(a.name, on)} />`)}
    </fieldset>
    <p class=${chosen.length > MAX_INTENT ? "refusal" : "hint"} data-testid=${`intent-limit-${character.id}`}>Chosen: ${chosen.join(", ") || "nothing"} (${chosen.length} of at most ${MAX_INTENT} a round).
      Each action after the first carries −2 more${chosen.length > 1 ? `: the last would carry −${2 * (character.actions_taken + chosen.length - 1)}` : ""}.</p>
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
  const penalty = 2 * me.actions_taken + (action.change_penalty ?? 0);
  const canStep = (gm || me.controlled_by_you) && !me.engaged_with.length && !me.stepped;
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
    ${view.dice === "physical" && html`<${FacesRolled} label="Faces rolled (three dice)" name="faces" typed=${typed} setTyped=${setTyped} sizes=${rollSizes(view, me, action.name, using)} testid="faces" />`}
    ${me.skills.length > 0 && html`<${Select} label="Roll with (attribute and skill)" name="using" value=${using} onChange=${setUsing}
      options=${[["", `the action's own, else d${me.dice.join("/d")}`], ...me.skills.map((k) => [k, k.replace("/", " and ")])]}
      hint=${`This roll: d${rollSizes(view, me, action.name, using).join(", d")}.`} />`}
    <p class="hint" data-testid="roll-limits">${me.name}'s ${nth(me.actions_taken + 1)} action this round: ${penalty ? `−${penalty} on the dice` : "no penalty"}${action.change_penalty ? ` (−${action.change_penalty} of it for the change)` : ""}.
      ${me.engaged_with.length ? ` ${me.name} is engaged: no step.` : me.stepped ? ` ${me.name} has taken its one step this round.` : " One step a round, with an action: not taken yet."}</p>
    ${canStep && html`<${Select} label="Take a step with it" name="step" value=${step} onChange=${setStep} options=${steps} />
      <${PickButton} pickKey=${`step-${action.id}`} what=${`${me.name}'s step`} kinds=${["zone", "character", "thing"]}
        why=${(kind, id) => stepRefusal(view, me, kind, id)} fill=${(kind, id) => setStep(`${STEP_KEYS[kind]}:${id}`)}
        sentence=${(kind, id) => `${me.name} steps ${kind === "zone" ? "to" : kind === "character" ? "to engage" : "to reach"} ${who[id]} as its ${action.name ?? action.type} action resolves: chosen in the form below the map.`} />`}
  <//>`;
}

const STEP_KEYS = { zone: "zone", character: "engage", thing: "reach" };

// Why a character cannot take a step to this zone, character or thing (null: it can).
function stepRefusal(view, me, kind, id) {
  const rules = view.rules;
  const who = names(view);
  const there = who[me.zone];
  if (kind === "zone") {
    if (id === me.zone) return `${me.name} is already in ${there}: a step goes to an adjacent zone.`;
    const link = linkBetween(rules, me.zone, id);
    if (!link) return `${who[id]} is not next to ${there}: a step goes to an adjacent zone (a Reposition goes further).`;
    if (link.barrier) return `A barrier stands between ${there} and ${who[id]} (${link.barrier.action} ${link.barrier.difficulty}): a step never crosses one.`;
    return null;
  }
  if (kind === "character") {
    const other = rules.characters.find((c) => c.id === id);
    if (id === me.id) return `That is ${me.name}: a step engages someone else in the same zone.`;
    if (other.zone !== me.zone) return `${other.name} is in ${who[other.zone]}, not in ${there}: a step engages someone in the same zone.`;
    if (me.engaged_with.includes(id)) return `${me.name} is already engaged with ${other.name}.`;
    return null;
  }
  const thing = rules.things.find((t) => t.id === id);
  return thing?.zone === me.zone ? null : `${who[id]} is not in ${there}: a step reaches a thing in the same zone.`;
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
    <${RollDice} view=${view} which="rolling-dice" testid="penalty-dice" />
    <p>Rolled ${rolling.faces.join("-")}: take ${owed} points off the dice (2 off one die or 1 off two, per −2; no die below 1).</p>
    <p class=${taken === owed ? "hint" : "refusal"} role="status" data-testid="penalty-split">${taken} of ${owed} points taken: the dice would show ${after.join("-")}, result ${[...after].sort((a, b) => a - b)[1]}.</p>
    <div class="grid">${rolling.faces.map((f, i) => html`<${Field} key=${i} type="number" min="0" max=${f - 1} label=${`Off the ${f}`} name=${`cut-${i}`} value=${cuts[i]} onInput=${(v) => set(i, v)} />`)}</div>
  <//>`;
}

// The range from a character to a target (a character, a zone or a thing), in words.
function rangeTo(view, characterId, target) {
  const rules = view.rules;
  const me = rules.characters.find((c) => c.id === characterId);
  if (!me) return "";
  const thing = rules.things.find((t) => t.id === target);
  const range = rules.ranges[characterId]?.[target] ?? zoneRange(rules, me.zone, thing ? thing.zone : target);
  return RANGE_WORDS[range] ?? range;
}

// An action of the round as people say it: "action 2" (its number among its character's actions this round).
function actionNumber(action) {
  return `action ${String(action.id).split(".").at(-1)}`;
}

function TargetForm({ view, act, action }) {
  const who = names(view);
  const options = [["", "choose"], ...Object.entries(who).filter(([id]) => id !== action.character)];
  const [target, setTarget] = useState(action.target ?? "");
  useEffect(() => setTarget(action.target ?? ""), [action.target]);
  const label = action.name ?? action.type;
  const setIt = (id) => act({ type: "contingency.set_target", action: action.id, target: id });
  return html`<${ActionForm} run=${() => setIt(target)} label="Set the target" kind="" testid=${`target-${action.id}`}>
    <${Select} label=${`Target of ${who[action.character]}'s ${label} (${actionNumber(action)})`} name=${`target-${action.id}`} value=${target} onChange=${setTarget} options=${options}
      hint=${target ? `${who[target]} is ${rangeTo(view, action.character, target)} from ${who[action.character]}; the closer the target, the earlier the action resolves among its type.` : ""} />
    <${PickButton} pickKey=${`target-${action.id}`} what=${`the target of ${who[action.character]}'s ${label}`} kinds=${["character", "zone", "thing"]}
      why=${(kind, id) => (id === action.character ? `That is ${who[id]}: an action aims at someone or something else.` : null)}
      fill=${(kind, id) => setTarget(id)}
      sentence=${(kind, id) => `${who[id]} as the target of ${who[action.character]}'s ${label}: ${rangeTo(view, action.character, id)}.`}
      send=${{ label: "Set the target", run: (kind, id) => setIt(id) }} />
  <//>`;
}

function DifficultyForm({ view, act, action }) {
  const who = names(view);
  const [value, setValue] = useState(String(action.difficulty ?? ""));
  return html`<${ActionForm} run=${() => act({ type: "contingency.set_difficulty", action: action.id, difficulty: Number(value) })} label="Set the difficulty" kind="">
    <${Field} type="number" min="1" label=${`Difficulty of ${who[action.character]}, ${actionNumber(action)}`} name="difficulty" value=${value} onInput=${setValue} hint="Easy 3, Tricky 5, Hard 6." />
  <//>`;
}

// Where a character moves with its movement points: the same choice as a tap on the map, which it shares.
function MoveForm({ view, act, character }) {
  const b = useBoard();
  const chosen = moverOf(view)?.id === character.id ? (b.destination ?? "") : "";
  const plan = chosen ? planMove(view, character.id, chosen) : null;
  const options = [
    ["", "choose a zone"],
    ...view.rules.zones.filter((z) => z.id !== character.zone).map((z) => {
      const p = planMove(view, character.id, z.id);
      return [z.id, p.ok ? `${z.name}: ${plural(p.path.length, "zone")}, ${p.cost} movement points` : `${z.name}: out of reach`];
    }),
  ];
  const send = async () => {
    if (!plan?.ok) throw { code: "", message: plan?.text ?? `Choose where ${character.name} moves.` };
    await act({ type: "contingency.move", character: character.id, path: plan.path });
    update({ destination: null });
  };
  return html`<${ActionForm} run=${send} label=${`Move ${character.name}`} testid=${`move-${character.id}`}>
    <${Select} label=${`${character.name}: where to move (${plural(character.movement_points, "movement point")} left)`} name=${`move-${character.id}`} value=${chosen}
      onChange=${(v) => update({ mover: character.id, destination: v || null })} options=${options}
      hint="The cheapest way with no barrier on it: 2 movement points a zone, plus the larger movement modifier of the two zones. A tap on a zone of the map chooses it too." />
    ${plan && html`<p class=${plan.ok ? "hint" : "refusal"} data-testid=${`move-plan-${character.id}`}>${plan.text}</p>`}
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
  const performed = view.rules.actions.filter((a) => a.character === character.id).length;
  return html`<${ActionForm} run=${send} label="Perform now" kind="">
    <${Select} label=${`${character.name}: a triggered action`} name="triggered" value=${name} onChange=${setName} options=${triggered.map((a) => [a.name, a.name])} />
    <p class=${performed >= MAX_ROUND_ACTIONS ? "refusal" : "hint"}>${character.name}'s ${nth(character.actions_taken + 1)} action this round: ${character.actions_taken ? `−${2 * character.actions_taken} on the dice` : "no penalty"}. ${performed} of at most ${MAX_ROUND_ACTIONS} actions this round (announced, triggered and instant).</p>
    ${view.dice === "physical" && html`<${FacesRolled} label="Faces rolled" name="triggered-faces" typed=${typed} setTyped=${setTyped} sizes=${rollSizes(view, character, name)} />`}
  <//>`;
}

function ChangeForm({ act, action, cards }) {
  const options = cards.filter((a) => a.name !== action.name).map((a) => [a.name, `${a.name} (${a.type})`]);
  const [to, setTo] = useState(options[0]?.[0] ?? "");
  if (options.length === 0) return null;
  return html`<${ActionForm} run=${() => act({ type: "contingency.change_action", action: action.id, to })} label="Ask to change it" kind="" testid=${`change-${action.id}`}>
    <${Select} label=${`Change ${action.name} (${actionNumber(action)}) to`} name=${`change-${action.id}`} value=${to} onChange=${setTo} options=${options} hint="The GM sets the penalty." />
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
    <p class="hint">Part of ${character.name}'s last action: it carries that action's penalty, no further −2, and does not count as another action.</p>
    ${view.dice === "physical" && html`<${FacesRolled} label=${`Faces rolled for ${action}`} name=${`instant-${action}`} typed=${typed} setTyped=${setTyped} sizes=${rollSizes(view, character, action)} />`}
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
  // Reset as the new zone's form is drawn, not after the next paint: what is typed into it at once must stay.
  useLayoutEffect(() => {
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
  const itself = (kind, id) => (id === zone.id ? `That is ${zone.name} itself: tap another zone.` : null);
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
      <${PickButton} pickKey="merge" what="the zone to fold into this one" kinds=${["zone"]} why=${itself} fill=${(kind, id) => setOther(id)}
        sentence=${(kind, id) => `${who[id]} to merge into ${zone.name}: merge them with the form.`} />
    <//>`}
    ${others.length > 0 && html`<${ActionForm} run=${() => {
      const target = other || others[0][0];
      const linked = rules.connections.some((k) => [k.a, k.b].sort().join() === [zone.id, target].sort().join());
      return linked
        ? act({ type: "contingency.set_barrier", a: zone.id, b: target, barrier: barrierOf() })
        : act({ type: "contingency.connect", connection: { a: zone.id, b: target, barrier: barrierOf() } });
    }} label="Connect, or set the barrier" kind="">
      <${Select} label="Other zone" name="other" value=${other || others[0][0]} onChange=${setOther} options=${others} />
      <${PickButton} pickKey="connect" what="the zone to join to this one" kinds=${["zone"]} why=${itself} fill=${(kind, id) => setOther(id)}
        sentence=${(kind, id) => `${who[id]} and ${zone.name}: ${linkBetween(rules, zone.id, id) ? "set the barrier between them" : "connect them"} with the form.`} />
      <${Field} label="Barrier (empty: none)" name="barrier" value=${barrier} onInput=${setBarrier} hint="e.g. Leap 6" />
    <//>`}
    ${neighbours.length > 0 && html`<${ActionForm} run=${() => act({ type: "contingency.disconnect", a: zone.id, b: cut || neighbours[0][0] })} label="Disconnect" kind="" testid="disconnect">
      <${Select} label="Zone to disconnect from" name="disconnect" value=${cut || neighbours[0][0]} onChange=${setCut} options=${neighbours} />
      <${PickButton} pickKey="cut" what="the neighbour to cut off" kinds=${["zone"]} fill=${(kind, id) => setCut(id)}
        why=${(kind, id) => itself(kind, id) ?? (linkBetween(rules, zone.id, id) ? null : `${who[id]} is not connected to ${zone.name}.`)}
        sentence=${(kind, id) => `${who[id]} to cut off from ${zone.name}: disconnect them with the form.`} />
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
      <${PickButton} pickKey="place" what="who goes to this zone" kinds=${["character"]} fill=${(kind, id) => setMover(id)}
        why=${(kind, id) => (rules.characters.find((c) => c.id === id)?.zone === zone.id ? `${who[id]} is already in ${zone.name}.` : null)}
        sentence=${(kind, id) => `${who[id]} to go to ${zone.name}: place them with the form.`} />
    <//>`}
    <${ActionButton} label="Deselect" run=${async () => select(null)} />
  </div>`;
}

// The GM's tools for the characters: engage, disengage, add and remove.
function Cast({ view, act }) {
  const rules = view.rules;
  const who = names(view);
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
      <${PickButton} pickKey="engage-a" what="the first of the two" kinds=${["character"]} fill=${(kind, id) => setA(id)}
        sentence=${(kind, id) => `${who[id]} is the first of the two: engage or disengage them with the form.`} />
      <${Select} label="The other character" name="engage-b" value=${second} onChange=${setB} options=${people} />
      <${PickButton} pickKey="engage-b" what="the second of the two" kinds=${["character"]} fill=${(kind, id) => setB(id)}
        why=${(kind, id) => (id === first ? `${who[id]} is already the first of the two.` : null)}
        sentence=${(kind, id) => `${who[id]} is the second of the two: engage or disengage them with the form.`} />
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
    <ol>${queued.map((a, i) => html`<li key=${a.id}>${who[a.character]}: ${a.name ?? a.type} (${actionNumber(a)})
      ${i > 0 && html` <${ActionButton} label=${`Resolve ${who[a.character]}'s ${actionNumber(a)} earlier`} run=${() => earlier(i)} />`}</li>`)}</ol>
  </div>`;
}

// What this viewer can do now, and nothing it cannot.
function Actions({ view, me, act }) {
  useSender(act);
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
      if (gm) parts.push(html`<${DifficultyForm} key=${`difficulty-${next.id}`} view=${view} act=${act} action=${next} />`);
    }
    for (const a of rules.actions.filter((a) => a.status === "planned")) {
      const owner = rules.characters.find((c) => c.id === a.character);
      if (gm || owner?.controlled_by_you) parts.push(html`<${TargetForm} key=${`target-${a.id}`} view=${view} act=${act} action=${a} />`);
      if (owner?.controlled_by_you && a.name && !a.change_asked) parts.push(html`<${ChangeForm} key=${`change-${a.id}`} act=${act} action=${a} cards=${cardsOf()} />`);
      if (gm && a.change_asked) {
        parts.push(html`<div key=${`change-${a.id}`} class="proposal"><p>${who[a.character]} asks to change ${a.name ?? "the action"} (${actionNumber(a)}) to ${a.change_asked}.</p>
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
  lastDice,
});
