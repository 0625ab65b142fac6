// Pieces the QuestWorlds-family rulesets (extended, herowars) share in the browser: the contestants of the
// creation form, reading the view, the forms for dice faces (tapped or typed) and AP adjustments, and the dice of
// the last roll (the view's `last_roll`). Not a ruleset.
import { ActionButton, ActionForm, Field, Select, html, slug } from "../ui.js";
import { useState } from "../vendor/preact-htm.js";
import { DiceRow, questDie } from "../dice.js";
import { FaceField } from "../faces.js";

export const RATING = /^\s*-?\d+\s*$|^\s*\d+\s*[WwMm]\s*\d*\s*$/;

export function contestant(name, player) {
  return { name, ability: "", rating: "", modifier: "0", augment: "0", followers_ap: "0", hero_points: "0", edge: "0", player, side: "" };
}

// The contestants' fieldsets of the creation form; ``edgeHint`` says when the ruleset adds the edge;
// ``sides``: a Side field per contestant (a ruleset with group contests).
export function ContestantsSetup({ setup, onChange, errors, edgeHint, sides = false }) {
  const setContestant = (i, key, value) =>
    onChange({ ...setup, contestants: setup.contestants.map((c, j) => (j === i ? { ...c, [key]: value } : c)) });
  const remove = (i) => onChange({ ...setup, contestants: setup.contestants.filter((_, j) => j !== i) });
  return setup.contestants.map(
    (c, i) => html`<fieldset class="contestant-setup" key=${i}>
        <legend>Contestant ${i + 1}${c.name ? `: ${c.name}` : ""}</legend>
        ${setup.contestants.length > 2 && html`<button type="button" class="link" onClick=${() => remove(i)} data-testid=${`remove-c${i}`}>Remove ${c.name || `contestant ${i + 1}`}</button>`}
        <div class="grid">
          <${Field} label="Name" name=${`c${i}-name`} value=${c.name} onInput=${(v) => setContestant(i, "name", v)} error=${errors[`c${i}.name`]} testid=${`c${i}-name`} />
          <${Field} label="Ability" name=${`c${i}-ability`} value=${c.ability} onInput=${(v) => setContestant(i, "ability", v)} error=${errors[`c${i}.ability`]} testid=${`c${i}-ability`} />
          <${Field} label="Rating" name=${`c${i}-rating`} value=${c.rating} onInput=${(v) => setContestant(i, "rating", v)}
            error=${errors[`c${i}.rating`]} hint="A target number, W and masteries: 14, 5W, 5W2." testid=${`c${i}-rating`} />
          <${Field} label="Played by (player's name)" name=${`c${i}-player`} value=${c.player} onInput=${(v) => setContestant(i, "player", v)}
            error=${errors[`c${i}.player`]} hint="Empty: run by the GM. One invitation per player." testid=${`c${i}-player`} />
          ${sides && html`<${Field} label="Side" name=${`c${i}-side`} value=${c.side ?? ""} onInput=${(v) => setContestant(i, "side", v)}
            hint="Contestants with the same side fight together; empty: a side of its own." testid=${`c${i}-side`} />`}
        </div>
        <details>
          <summary>Modifiers, followers, hero points, edge</summary>
          <div class="grid">
            <${Field} type="number" label="Modifier" name=${`c${i}-modifier`} value=${c.modifier} onInput=${(v) => setContestant(i, "modifier", v)}
              error=${errors[`c${i}.modifier`]} hint="Situational modifier, added to the rating and the starting AP." />
            <${Field} type="number" label="Augment" name=${`c${i}-augment`} value=${c.augment} onInput=${(v) => setContestant(i, "augment", v)}
              error=${errors[`c${i}.augment`]} hint="Augments, added like a modifier." />
            <${Field} type="number" min="0" label="Followers' AP" name=${`c${i}-followers`} value=${c.followers_ap} onInput=${(v) => setContestant(i, "followers_ap", v)}
              error=${errors[`c${i}.followers_ap`]} hint="Added to the starting AP only." />
            <${Field} type="number" min="0" label="Hero points" name=${`c${i}-hero`} value=${c.hero_points} onInput=${(v) => setContestant(i, "hero_points", v)}
              error=${errors[`c${i}.hero_points`]} hint="A PC may spend one per exchange to step its result up." />
            <${Field} type="number" label="Edge" name=${`c${i}-edge`} value=${c.edge} onInput=${(v) => setContestant(i, "edge", v)}
              error=${errors[`c${i}.edge`]} hint=${edgeHint} />
          </div>
        </details>
      </fieldset>`,
  );
}

function integer(text, key, errors, { min = null } = {}) {
  const value = Number(String(text).trim() || "0");
  if (!Number.isInteger(value)) errors[key] = "a whole number";
  else if (min !== null && value < min) errors[key] = `at least ${min}`;
  return value;
}

// The form's contestants as wire contestants and player seats; errors by field key are added to ``errors``.
export function buildContestants(setup, errors) {
  const ids = new Set();
  const seats = new Map();
  const seatIds = new Set(["gm"]);
  const contestants = setup.contestants.map((c, i) => {
    if (!c.name.trim()) errors[`c${i}.name`] = "A name is needed.";
    if (!c.ability.trim()) errors[`c${i}.ability`] = "An ability is needed.";
    if (!RATING.test(c.rating)) errors[`c${i}.rating`] = "Write a rating like 14, 5W or 5W2.";
    const id = slug(c.name, ids);
    const player = c.player.trim();
    if (player) {
      if (!seats.has(player)) seats.set(player, { id: slug(player, seatIds), role: "player", contestants: [], name: player });
      seats.get(player).contestants.push(id);
    }
    return {
      id,
      name: c.name.trim(),
      ability: c.ability.trim(),
      rating: c.rating.replace(/\s+/g, "").toUpperCase(),
      modifier: integer(c.modifier, `c${i}.modifier`, errors),
      augment: integer(c.augment, `c${i}.augment`, errors),
      followers_ap: integer(c.followers_ap, `c${i}.followers_ap`, errors, { min: 0 }),
      hero_points: integer(c.hero_points, `c${i}.hero_points`, errors, { min: 0 }),
      edge: integer(c.edge, `c${i}.edge`, errors),
      ...(c.side?.trim() ? { side: c.side.trim() } : {}),
    };
  });
  return { contestants, seats: [...seats.values()] };
}

// The form field a server refusal of the creation is about (its message names the field).
export function fieldOf(message) {
  const match = /contestants\[(\d+)\](?:\.(\w+))?/.exec(message ?? "");
  if (match) return `c${match[1]}.${match[2] ?? "rating"}`;
  if (/prize/.test(message ?? "")) return "prize";
  return null;
}

export function names(view) {
  return Object.fromEntries(view.rules.contestants.map((c) => [c.id, c.name]));
}

// A text the rules wrote with ids in it (an applied exchange's result), each whole id replaced by its name.
export function namedText(text, who) {
  const ids = Object.keys(who).filter((id) => id && who[id] && who[id] !== id).sort((a, b) => b.length - a.length);
  if (!text || ids.length === 0) return text ?? "";
  const escape = (id) => id.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  const pattern = new RegExp(`(?<![\\w-])(${ids.map(escape).join("|")})(?![\\w-])`, "g");
  return text.replace(pattern, (id) => who[id]);
}

// Names as a sentence lists them: "Aria", "Aria and Bran", "Aria, Bran and Orc".
export function andList(words) {
  return words.length < 2 ? words.join("") : `${words.slice(0, -1).join(", ")} and ${words.at(-1)}`;
}

// One step of a console: a sentence saying what it is (or what it waits for), then its controls.
export function Step({ say, testid = undefined, children = null }) {
  return html`<div class="qw-step" role="group" aria-label=${say} data-testid=${testid}>
    <p class="step-say">${say}</p>
    ${children}
  </div>`;
}

// A viewer's actions as one box: ``items`` are {node, control}. Null when none is a control, so no page shows an
// empty box (the board says what the contest waits for); the GM's sentences stay, beside the engine's controls.
export function actionsBox(items, gm) {
  if (!items.some((i) => i.control) && !(gm && items.length > 0)) return null;
  return html`<div class="actions">${items.map((i) => i.node)}</div>`;
}

// The most a contestant may stake: a player's the larger of its current and starting AP, the GM's its current AP.
export function bidLimit(c, gmRuns) {
  if (gmRuns) return c.ap;
  if (c.ap === null && c.starting_ap === null) return null;
  return Math.max(c.ap ?? 0, c.starting_ap ?? 0);
}

export function bidHint(limit) {
  return limit === null || limit === undefined ? "At least 1 AP; empty: 3." : `At most ${limit} AP (at least 1); empty: 3.`;
}

export function mine(view) {
  return view.rules.contestants.filter((c) => c.controlled_by_you).map((c) => c.id);
}

// The AP chart from the view's own record (kept by columns: every exchange since the start, hidden AP as
// null). A point after a change between exchanges (an adjustment) sits half-way to the next exchange.
export function chartPoints(view) {
  const rules = view.rules;
  const chart = rules.chart ?? { exchange: [], adjusted: [], ap: {} };
  const name = Object.fromEntries(rules.contestants.map((c) => [c.id, c.name]));
  return chart.exchange.map((exchange, i) => ({
    x: exchange + (chart.adjusted[i] ? 0.5 : 0),
    label: chart.adjusted[i] ? `after ${exchange} (adjusted)` : String(exchange),
    values: Object.fromEntries(Object.entries(chart.ap).map(([id, column]) => [name[id] ?? id, column[i]])),
  }));
}

// Physical dice: the faces rolled at the table, sent as ``<prefix>.roll``.
export function FacesForm({ view, act, prefix }) {
  const rules = view.rules;
  const who = names(view);
  const actor = rules.next_actor;
  // the actor engages the target of its parting shot under way (extended), else its first target still in
  const shot = rules.shot_under_way?.shooter === actor ? rules.shot_under_way.target : undefined;
  const aimed = rules.targets_left?.length ? rules.targets_left : rules.intents?.[actor]?.targets ?? [];
  const standing = aimed.find((t) => rules.contestants.some((c) => c.id === t && !c.out && !c.withdrawn));
  const defender = shot ?? standing ?? rules.contestants.find((c) => c.id !== actor)?.id;
  const [a, setA] = useState("");
  const [d, setD] = useState("");
  const face = (text) => (String(text).trim() === "" ? null : Number(text));
  return html`<${ActionForm} run=${() => act({ type: `${prefix}.roll`, faces: [face(a), face(d)] })} label="Enter the faces" testid="faces">
    <p>Physical dice: tap (or type) the d20 faces rolled at the table (leave a side empty when it rolls no die).</p>
    <div class="grid faces-grid">
      <${FaceField} sides=${20} label=${`${who[actor]}'s die (acting)`} name="face-actor" value=${a} onInput=${setA} testid="face-actor" />
      <${FaceField} sides=${20} label=${`${who[defender]}'s die`} name="face-defender" value=${d} onInput=${setD} testid="face-defender" />
    </div>
  <//>`;
}

// The GM's correction of a contestant's AP, sent as ``<prefix>.adjust``.
export function AdjustForm({ view, act, prefix }) {
  const rules = view.rules;
  const [who, setWho] = useState(rules.contestants[0]?.id ?? "");
  const [delta, setDelta] = useState("");
  const [reason, setReason] = useState("");
  return html`<details class="adjust"><summary>Adjust AP</summary>
    <${ActionForm} run=${() => act({ type: `${prefix}.adjust`, contestant: who, delta: Number(delta), reason })} label="Adjust" kind="">
      <div class="grid">
        <${Select} label="Contestant" name="adjust-who" value=${who} onChange=${setWho} options=${rules.contestants.map((c) => [c.id, c.name])} />
        <${Field} type="number" label="Change (+/−)" name="adjust-delta" value=${delta} onInput=${setDelta} hint="e.g. -2 or 3" />
        <${Field} label="Reason" name="adjust-reason" value=${reason} onInput=${setReason} hint="Shown in the log." />
      </div>
    <//>
  </details>`;
}

// The contestants' cards of a board; ``detail(c)`` adds to the ability line.
export function ContestantCards({ view, detail = () => "" }) {
  return html`<div class="contestants">
      ${view.rules.contestants.map(
        (c) => html`<article class=${`contestant ${c.controlled_by_you ? "yours" : ""} ${c.out ? "out" : ""}`} key=${c.id} data-testid=${`contestant-${c.id}`}>
          <h3>${c.name}${c.controlled_by_you ? html` <span class="tag">yours</span>` : ""}</h3>
          <p class="ability">${c.ability}${c.rating !== null ? ` ${c.rating}` : ""}${detail(c)}</p>
          <p class="ap"><span class="ap-value" data-testid=${`ap-${c.id}`}>${c.ap === null ? "?" : c.ap}</span> AP
            ${c.ap === null ? html`<small> (hidden until it changes)</small>` : ""}
            ${c.starting_ap !== null ? html`<small> of ${c.starting_ap} at the start</small>` : ""}</p>
          ${c.hero_points !== null && html`<p class="hero">Hero points: <span data-testid=${`hero-${c.id}`}>${c.hero_points}</span></p>`}
          ${c.out && html`<p class="tag bad">out (0 AP or less)</p>`}
        </article>`,
      )}
    </div>`;
}

// The GM's swap of a duel's order, before the round's first roll (or null): not while a parting shot is under
// way, whose victor may be the first in the order after its turn.
export function swapOrder({ view, gm, act, prefix }) {
  const rules = view.rules;
  if (!gm || rules.shot_under_way || rules.next_actor !== rules.order[0] || rules.order.length < 2) return null;
  const who = names(view);
  return html`<div key="order" class="qw-order" data-testid="swap-order">
    <${ActionButton} label="Swap the order" run=${() => act({ type: `${prefix}.set_order`, order: [...rules.order].reverse() })} testid="swap" />
    <small class="hint">${who[rules.order.at(-1)]} would act first. Only before the round's first roll.</small>
  </div>`;
}

// Rolling the next exchange: the faces form or the roll button, for a viewer who may roll it (else null).
export function rollPart({ view, gm, own, act, prefix }) {
  const rules = view.rules;
  const actor = rules.next_actor;
  if (!actor) return null;
  const who = names(view);
  const mineToAct = own.some((c) => c.id === actor);
  if (view.dice === "physical" && (gm || (mineToAct && rules.players_type_faces))) {
    return html`<${FacesForm} key="faces" view=${view} act=${act} prefix=${prefix} />`;
  }
  if (view.dice === "server" && (gm || mineToAct)) {
    return html`<${ActionButton} key="roll" kind="primary" label=${`Roll ${who[actor]}'s exchange`} run=${() => act({ type: `${prefix}.roll` })} testid="roll" />`;
  }
  return null;
}

// What the next exchange waits for, in words (for the board: every page reads it).
export function rollWaiting(view) {
  const rules = view.rules;
  const actor = rules.next_actor;
  if (!actor) return "";
  const who = names(view);
  const typing = rules.players_type_faces ? "its player or the GM types the faces rolled at the table" : "the GM types the faces rolled at the table";
  return `Waiting for ${who[actor]}'s exchange: ${view.dice === "physical" ? typing : "its player or the GM rolls it"}.`;
}

// Whom a rolled exchange waits for, in words: public with the "always" window, as secret as hero points otherwise.
export function HeroPointWindowSelect({ setup, set }) {
  return html`<${Select} label="After each roll" name="hero_point_window" value=${setup.hero_point_window}
    onChange=${(v) => set("hero_point_window", v)} options=${HERO_POINT_WINDOWS}
    hint="Waiting for every player keeps hero points secret; waiting only when one could matter is faster but shows the table who holds them." />`;
}

const HERO_POINT_WINDOWS = [
  ["always", "always (default): every player in the exchange lets it stand or spends a hero point"],
  ["when_it_matters", "when it matters: wait only for a hero point that could change the result"],
];

export function answersWaiting(x, who) {
  const waiting = [...new Set([...(x.answers_pending ?? []), ...x.hero_points_pending])];
  if (waiting.length === 0) return null;
  return html`<p class="waiting" data-testid="answers-pending">Waiting for ${andList(waiting.map((c) => who[c]))} to let the result stand or spend a hero point</p>`;
}

// After the dice: each of the viewer's contestants whose answer the exchange waits for ("Let it stand", and
// "Spend a hero point" only when it holds one that could change the result), and, while some answer is still
// awaited, the GM's confirmation (``confirm``: false when the ruleset offers its own).
export function heroPointParts({ view, gm, own, act, prefix, note = "", confirm = true }) {
  const x = view.rules.exchange;
  const parts = [];
  for (const c of own) {
    const spend = x.hero_points_pending.includes(c.id);
    if (!spend && !(x.answers_pending ?? []).includes(c.id)) continue;
    parts.push(html`<div key=${`hero-${c.id}`} class="hero-prompt" role="group" aria-label=${`After the dice for ${c.name}`}>
        <p>${spend ? `${c.name} may spend a hero point (${c.hero_points} left) to raise its result one step${note}.` : `The dice are down for ${c.name}: let the result stand to go on.`}</p>
        ${spend && html`<${ActionButton} kind="primary" label="Spend a hero point" run=${() => act({ type: `${prefix}.spend_hero_point`, contestant: c.id })} testid=${`spend-${c.id}`} />`}
        <${ActionButton} kind=${spend ? "" : "primary"} label="Let it stand" run=${() => act({ type: `${prefix}.pass_hero_point`, contestant: c.id })} testid=${`pass-${c.id}`} />
      </div>`);
  }
  // an exchange left rolled with no answer awaited (none should be) is the GM's to apply all the same
  const waiting = [...new Set([...(x.answers_pending ?? []), ...x.hero_points_pending])];
  if (gm && confirm && (waiting.length > 0 || parts.length === 0)) {
    const who = names(view);
    parts.push(html`<div key="confirm" class="qw-order">
      <${ActionButton} label="Confirm: apply the exchange now" run=${() => act({ type: `${prefix}.confirm` })} testid="confirm" />
      ${waiting.length > 0 && html`<small class="hint">Without waiting for ${andList(waiting.map((c) => who[c]))}.</small>`}
    </div>`);
  }
  return parts;
}

// --- the dice of the last roll ---------------------------------------------------------------------------

function tnOf(rating) {
  const match = /^(-?\d+)/.exec(rating ?? "");
  return match ? Number(match[1]) : null;
}

// The level a d20 reached against a rating before masteries (null when the viewer may not see the rating).
export function rawLevel(face, rating) {
  const tn = tnOf(rating);
  if (face === null || face === undefined || tn === null) return null;
  if (face === 1) return "Critical";
  if (face === 20) return "Fumble";
  return face <= tn ? "Success" : "Failure";
}

// The dice of a QuestWorlds roll as a row draws them: `sides` each {contestant (null: a resistance), face, level,
// hero_point, outsider}; `won` the index of the winning die (marked: the die that counts), or null. A die shows the
// steps masteries moved it where the viewer may see the rating it rolled against.
export function questDice(view, sides, won = null) {
  const who = names(view);
  const rating = (id) => view.rules.contestants.find((c) => c.id === id)?.rating;
  return sides
    .map((side, i) => {
      const name = side.contestant ? who[side.contestant] ?? "a contestant" : side.outsider || "the resistance";
      const raw = side.contestant ? rawLevel(side.face, rating(side.contestant)) : null;
      const die = questDie({ name, face: side.face, raw, level: side.level, heroPoint: Boolean(side.hero_point) });
      if (!die) return null;
      return won === i ? { ...die, kept: true, label: `${die.label}, the winning die`, note: `${die.note} · wins` } : die;
    })
    .filter(Boolean);
}

const ROLL_WORDS = {
  exchange: (n) => `exchange ${n}`,
  parting_shot: (n) => `the parting shot (exchange ${n})`,
  final_action: (n, a) => `${a}'s final action`,
  disengage: (n, a, b) => `${a} disengaging from ${b}`,
  loan: (n, a) => `${a}'s loan of AP`,
  gift: (n, a) => `${a}'s gift of AP`,
};

// What the last roll was, in words: "Last roll: exchange 3", "Last roll: Aria disengaging from the Orc: Minor Defeat".
export function lastRollCaption(view, roll) {
  const who = names(view);
  const [a, b] = roll.sides.map((s) => (s.contestant ? who[s.contestant] : s.outsider || "the resistance"));
  const what = (ROLL_WORDS[roll.kind] ?? ROLL_WORDS.exchange)(roll.exchange, a, b);
  return `Last roll: ${what}${roll.result ? `: ${roll.result}` : ""}`;
}

// The dice the contest rolled last, as rows of dice ({caption, dice, roll}): the exchange waiting for its answers,
// else the last roll applied (`rules.last_roll`). The same roll keeps the same key whichever it is drawn from.
export function lastDice(view) {
  const rules = view.rules;
  const x = rules.exchange;
  if (x) {
    const sides = [
      { contestant: x.actor, face: x.actor_face, level: x.actor_level, hero_point: x.hero_points_spent.includes(x.actor) },
      { contestant: x.defender || null, face: x.defender_face, level: x.defender_level, hero_point: x.hero_points_spent.includes(x.defender) },
    ];
    const dice = questDice(view, sides);
    return dice.length ? [{ caption: `Exchange ${x.number}: the dice`, dice, roll: `q-${x.number}-${x.actor}-${x.actor_face}-${x.defender_face}` }] : [];
  }
  const roll = rules.last_roll;
  if (!roll) return [];
  const dice = questDice(view, roll.sides, roll.won ?? null);
  const [a, d] = roll.sides;
  const key = roll.kind === "exchange" || roll.kind === "parting_shot" ? `q-${roll.exchange}-${a.contestant}-${a.face}-${d.face}` : `q-${roll.kind}-${roll.exchange}-${a.contestant ?? a.outsider}-${a.face}-${d.face}`;
  return dice.length ? [{ caption: lastRollCaption(view, roll), dice, roll: key }] : [];
}

// The last roll applied, drawn on the board once its exchange is gone (while it waits, the exchange draws it).
export function LastRollDice({ view }) {
  const rules = view.rules;
  if (rules.exchange || !rules.last_roll) return null;
  const [row] = lastDice(view);
  if (!row) return null;
  return html`<${DiceRow} dice=${row.dice} caption=${row.caption} roll=${row.roll} testid="last-roll-dice" />`;
}
