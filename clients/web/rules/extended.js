// Panels of the `extended` ruleset (QuestWorlds extended contest: duels and group contests). See docs/web.md
// for the interface every ruleset module implements; the group contest's parts are in extended_group.js.
import { ActionButton, ActionForm, Check, Field, Select, html } from "../ui.js";
import { AdjustForm, ContestantCards, ContestantsSetup, HeroPointWindowSelect, answersWaiting, heroPointParts, rollPart, swapOrder, RATING, buildContestants, chartPoints, contestant, fieldOf, mine, names } from "./questworlds.js";
import { registerRuleset } from "./registry.js";
import { GroupActions, GroupBoard, GroupIntentFields, GroupOutcome, PartingShotForm, opponentsOf } from "./extended_group.js";
import { ChangeActions, targetsOut } from "./extended_change.js";
import { useState } from "../vendor/preact-htm.js";

const LEVELS = ["Fumble", "Failure", "Success", "Critical"];
const KINDS = [
  ["normal", "normal: the exchange moves AP"],
  ["asymmetrical", "asymmetrical: a win achieves another goal, no AP moves to me"],
  ["unrelated", "unrelated: no AP moves (optionally resolved against a resistance)"],
];

function newSetup() {
  return {
    prize: "",
    better_roll: "low",
    players_type_faces: false,
    hero_point_window: "always",
    contestants: [contestant("", "Player 1"), contestant("", "")],
  };
}

// --- the creation form ---------------------------------------------------------------------------------

function SetupForm({ setup, onChange, errors }) {
  const set = (key, value) => onChange({ ...setup, [key]: value });
  return html`
    <${Field} label="Prize" name="prize" value=${setup.prize} onInput=${(v) => set("prize", v)} error=${errors.prize}
      hint="What the contest is about: what the victor gets (e.g. “cross the bridge”)." testid="prize" />
    <fieldset class="settings">
      <legend>Settings</legend>
      <${Select} label="Better roll at the same level" name="better_roll" value=${setup.better_roll}
        onChange=${(v) => set("better_roll", v)} options=${[["low", "low (default): the lower die wins"], ["high", "high: the higher die wins"]]}
        hint="When both sides reach the same level, this die wins the exchange; equal dice tie." />
      <${Check} label="Players type the faces of their own exchange (physical dice)" checked=${setup.players_type_faces}
        onChange=${(v) => set("players_type_faces", v)} hint="Default off: the GM types every face rolled at the table." />
      <${HeroPointWindowSelect} setup=${setup} set=${set} />
    </fieldset>
    <${ContestantsSetup} setup=${setup} onChange=${onChange} errors=${errors} sides=${true}
      edgeHint="Added to the stake when this contestant wins its own exchange; negative: a handicap." />
    <${ActionButton} label="Add a contestant (a group contest)" run=${async () => onChange({ ...setup, contestants: [...setup.contestants, contestant("", "")] })} testid="add-contestant" />`;
}

// The form's state as a setup and seats, or errors by field (the same keys the form shows them under).
function buildContest(setup) {
  const errors = {};
  if (!setup.prize.trim()) errors.prize = "Say what the contest is about.";
  const { contestants, seats } = buildContestants(setup, errors);
  return {
    errors,
    setup: { type: "extended.setup", prize: setup.prize.trim(), contestants, better_roll: setup.better_roll, players_type_faces: setup.players_type_faces, hero_point_window: setup.hero_point_window },
    seats,
  };
}

// --- reading the view ----------------------------------------------------------------------------------

const PHASES = {
  declaring: "Declaring intents (sealed)",
  ready: "Exchanges",
  rolled: "Dice rolled",
  decided: "Decided",
  over: "Over",
};

function phaseText(view) {
  const rules = view.rules;
  if (view.concluded || rules.phase === "over") return "The contest is over";
  return `Round ${rules.round} · ${PHASES[rules.phase] ?? rules.phase}`;
}

function tnOf(rating) {
  const match = /^(-?\d+)/.exec(rating ?? "");
  return match ? Number(match[1]) : null;
}

function rawLevel(face, rating) {
  const tn = tnOf(rating);
  if (face === null || face === undefined || tn === null) return null;
  if (face === 1) return "Critical";
  if (face === 20) return "Fumble";
  return face <= tn ? "Success" : "Failure";
}

// "Aria rolled 2: Success, bumped to Critical by a mastery" (the words for one side of an exchange).
function sideWords(name, face, level, rating, heroPoint) {
  if (face === null || face === undefined) return `${name} rolls no die (a rating of 0 or less): ${level}`;
  const raw = rawLevel(face, rating);
  let words = `${name} rolled ${face}`;
  if (heroPoint) return `${words}: ${level} (a hero point raised it one step)`;
  if (raw && raw !== level) {
    const up = LEVELS.indexOf(level) > LEVELS.indexOf(raw);
    words += `: ${raw}, ${up ? "bumped up" : "knocked down"} to ${level} by a mastery`;
  } else {
    words += `: ${level}`;
  }
  return words;
}

function ExchangeWords({ view }) {
  const rules = view.rules;
  const x = rules.exchange;
  if (!x) return null;
  const who = names(view);
  const rating = (id) => rules.contestants.find((c) => c.id === id)?.rating;
  const intent = rules.intents[x.actor];
  return html`<div class="exchange" data-testid="exchange">
    <h3>Exchange ${x.number}${x.parting_shot ? " — parting shot" : ""}: ${who[x.actor]} acts</h3>
    <p>${intent?.action ? `“${intent.action}” — ` : ""}bid ${x.bid}, ${x.kind}</p>
    <ul class="dice">
      <li>${sideWords(who[x.actor], x.actor_face, x.actor_level, rating(x.actor), x.hero_points_spent.includes(x.actor))}</li>
      <li>${sideWords(who[x.defender], x.defender_face, x.defender_level, rating(x.defender), x.hero_points_spent.includes(x.defender))}</li>
    </ul>
    ${answersWaiting(x, who)}
  </div>`;
}

// The outcome, stated once: a duel's winner and level, or a group's winning side and each side's outcome.
function Outcome({ view }) {
  const outcome = view.rules.outcome;
  if (!outcome) return null;
  const who = names(view);
  if (view.rules.group && outcome.sides?.length) {
    return html`<section class="outcome" aria-labelledby="outcome-title" data-testid="outcome">
      <h2 id="outcome-title">Outcome: ${outcome.winning_side ? `side ${outcome.winning_side} wins the prize` : "no side is left standing"}</h2>
      <${GroupOutcome} view=${view} />
    </section>`;
  }
  return html`<section class="outcome" aria-labelledby="outcome-title" data-testid="outcome">
    <h2 id="outcome-title">Outcome: ${outcome.winner ? `${who[outcome.winner]} wins` : "no winner"}</h2>
    <p><strong>${outcome.level}</strong>${outcome.loser ? ` — ${who[outcome.loser]} ends at ${outcome.loser_ap} AP` : ""}</p>
    ${outcome.consequence && html`<p>Consequence for the loser: ${outcome.consequence}</p>`}
    ${outcome.benefit && html`<p>Benefit for the victor: ${outcome.benefit}</p>`}
  </section>`;
}

function Board({ view }) {
  const rules = view.rules;
  const who = names(view);
  const revealed = Object.entries(rules.intents);
  return html`<section class="panel board" aria-labelledby="board-title">
    <h2 id="board-title">${rules.prize ? `For ${rules.prize}` : "The contest"}</h2>
    <p class="phase" data-testid="phase">${phaseText(view)}${rules.next_actor && rules.phase === "ready" ? ` · next: ${who[rules.next_actor]}` : ""}</p>
    <${ContestantCards} view=${view} />
    ${rules.order.length > 0 && rules.phase !== "declaring" && html`<p>Order this round: ${rules.order.map((id) => who[id]).join(" → ")}</p>`}
    ${revealed.length > 0 && html`<div class="intents" data-testid="intents"><h3>Revealed intents</h3><ul>
      ${revealed.map(([id, intent]) => html`<li key=${id}><strong>${who[id]}</strong>: ${intentWords(intent)}${rules.proposals[id] ? ` — the GM proposes bid ${rules.proposals[id]}` : ""}</li>`)}
    </ul></div>`}
    <${GroupBoard} view=${view} />
    ${rules.shot_under_way && html`<p class="waiting" data-testid="shot-under-way">${who[rules.shot_under_way.shooter]} takes a parting shot at ${who[rules.shot_under_way.target]}.</p>`}
    <${ExchangeWords} view=${view} />
    ${rules.last && !rules.exchange && html`<p class="last" data-testid="last">Last exchange (${rules.last.exchange}): ${rules.last.result}</p>`}
    <${Outcome} view=${view} />
  </section>`;
}

function intentWords(intent) {
  const parts = [intent.action ? `“${intent.action}”` : "(no action described)", `bid ${intent.bid ?? 3}`, intent.kind];
  if (intent.ability) parts.push(`using ${intent.ability} ${intent.rating}`);
  if (intent.resistance) parts.push(`against ${intent.resistance}`);
  if (intent.targets?.length) parts.push(`${intent.daring}, singling out ${intent.targets.join(", ")}`);
  return parts.join(", ");
}

// --- actions -------------------------------------------------------------------------------------------

function IntentForm({ view, contestant, role, act, declared, pcOfGm }) {
  const previous = declared?.payload ?? null;
  const [action, setAction] = useState(previous?.action ?? "");
  const [bid, setBid] = useState(previous?.bid ?? "");
  const [kind, setKind] = useState(previous?.kind ?? "normal");
  const [switching, setSwitching] = useState(Boolean(previous?.ability));
  const [ability, setAbility] = useState(previous?.ability ?? "");
  const [rating, setRating] = useState(previous?.rating ?? "");
  const [resistance, setResistance] = useState(previous?.resistance ?? "");
  const [daring, setDaring] = useState(previous?.daring ?? "bold");
  const [targets, setTargets] = useState(previous?.targets ?? (view.rules.group ? opponentsOf(view, contestant.id).slice(0, 1).map((c) => c.id) : []));
  const limit = pcOfGm ? contestant.ap : Math.max(contestant.ap ?? 0, contestant.starting_ap ?? 0);
  const mayswitch = view.rules.round > 1; // round 1 is fought with the ability the starting AP came from
  const send = () => {
    const payload = { type: "extended.intent", action: action.trim(), kind };
    if (String(bid).trim() !== "") payload.bid = Number(bid);
    if (switching && mayswitch) Object.assign(payload, { ability: ability.trim(), rating: rating.trim().toUpperCase() });
    if (kind === "unrelated" && resistance.trim()) payload.resistance = resistance.trim().toUpperCase();
    if (view.rules.group) Object.assign(payload, { daring, targets });
    return act({ type: "seal.declare", participant: contestant.id, payload });
  };
  return html`<${ActionForm} run=${send} label=${declared ? "Replace my sealed intent" : "Seal my intent"} testid=${`intent-${contestant.id}`}>
    <h3>${contestant.name}: your intent for this round</h3>
    <${Field} label="Action" name="action" value=${action} onInput=${setAction} hint="What you try; everyone sees it at the reveal." testid="intent-action" />
    <${Field} type="number" label="Bid" name="bid" value=${bid} onInput=${setBid} min="1" max=${limit ?? undefined} inputmode="numeric"
      hint=${`1 to ${limit ?? "?"} AP; empty: 3.`} testid="intent-bid" />
    <${Select} label="Kind" name="kind" value=${kind} onChange=${setKind} options=${KINDS} />
    ${view.rules.group && html`<${GroupIntentFields} view=${view} contestant=${contestant} daring=${daring} setDaring=${setDaring} targets=${targets} setTargets=${setTargets} />`}
    ${kind === "unrelated" && html`<${Field} label="Resistance (optional)" name="resistance" value=${resistance} onInput=${setResistance} hint="Resolve the action as a simple contest against this rating." />`}
    ${mayswitch && html`<${Check} label="Use another ability for this exchange" checked=${switching} onChange=${setSwitching} hint="Your AP does not change." />`}
    ${mayswitch && switching && html`<div class="grid">
      <${Field} label="Ability" name="switch-ability" value=${ability} onInput=${setAbility} />
      <${Field} label="Its rating (modifiers included)" name="switch-rating" value=${rating} onInput=${setRating} hint="e.g. 17 or 5W" />
    </div>`}
  <//>`;
}

function SealStatus({ view, participant }) {
  const seal = view.seal;
  if (!seal) return null;
  const mineDeclared = seal.declared.find((d) => d.participant === participant);
  const missing = seal.expected.filter((p) => !seal.declared.some((d) => d.participant === p));
  if (!mineDeclared) return null;
  return html`<p class="sealed" role="status" data-testid=${`sealed-${participant}`}>
    Sealed — ${missing.length === 0 ? "revealing…" : `waiting for ${missing.length} other${missing.length > 1 ? "s" : ""}`}.
    ${mineDeclared.payload ? ` Your intent: ${intentWords(mineDeclared.payload)}.` : ""}
  </p>`;
}

function ProposeBid({ view, act, contestant }) {
  const [bid, setBid] = useState("");
  return html`<${ActionForm} run=${() => act({ type: "extended.propose_bid", contestant: contestant.id, bid: Number(bid) })} label="Propose" kind="">
    <${Field} type="number" min="1" label=${`Propose a bid to ${contestant.name}`} name=${`propose-${contestant.id}`} value=${bid} onInput=${setBid} />
  <//>`;
}

// What this viewer can do now, and nothing it cannot.
function Actions({ view, me, act }) {
  const rules = view.rules;
  const gm = me.role === "gm";
  const who = names(view);
  const own = rules.contestants.filter((c) => c.controlled_by_you);
  if (view.concluded || rules.phase === "over") return html`<p>The contest is over.</p>`;
  const parts = [];
  if (rules.phase === "declaring" && view.seal) {
    for (const c of own) {
      if (!view.seal.expected.includes(c.id)) continue;
      const declared = view.seal.declared.find((d) => d.participant === c.id);
      parts.push(html`<div key=${`declare-${c.id}`}>
        <${SealStatus} view=${view} participant=${c.id} />
        <${IntentForm} view=${view} contestant=${c} role=${me.role} act=${act} declared=${declared} pcOfGm=${gm} />
      </div>`);
    }
    if (parts.length === 0) parts.push(html`<p>Waiting for the intents to be sealed.</p>`);
  }
  if (rules.phase === "ready") {
    const swap = swapOrder({ view, gm, act, prefix: "extended" });
    if (swap) parts.push(swap);
    if (gm) {
      for (const c of rules.contestants.filter((c) => rules.order.includes(c.id) && !rules.proposals[c.id])) {
        if (!c.controlled_by_you) parts.push(html`<${ProposeBid} key=${`propose-${c.id}`} view=${view} act=${act} contestant=${c} />`);
      }
    }
    for (const c of own) {
      if (rules.proposals[c.id] !== undefined) {
        parts.push(html`<div key=${`accept-${c.id}`} class="proposal"><p>The GM proposes a bid of ${rules.proposals[c.id]} for ${c.name}.</p>
          <${ActionButton} label="Accept the proposed bid" run=${() => act({ type: "extended.accept_bid", contestant: c.id })} /></div>`);
      }
    }
    if (targetsOut(view)) {
      const name = who[rules.next_actor];
      const way = gm ? "allow or make a change of action" : "the GM may allow a change of action";
      parts.push(html`<p key="targets-out" class="waiting" data-testid="targets-out">${name} singles out no opponent still in: ${way}, or ${name} passes this turn.</p>`);
    } else {
      const roll = rollPart({ view, gm, own, act, prefix: "extended" });
      if (roll) parts.push(roll);
    }
  }
  if (rules.phase === "rolled" && rules.exchange) {
    parts.push(...heroPointParts({ view, gm, own, act, prefix: "extended", note: ": it would change this exchange" }));
  }
  if (rules.phase === "decided" && rules.outcome?.winner) {
    const victor = own.find((c) => c.id === rules.outcome.winner);
    if (victor) parts.push(html`<${PartingShotForm} key="ps" contestant=${victor} victim=${rules.contestants.find((c) => c.id === rules.outcome.loser)} act=${act} testid=${`shot-${victor.id}`} />`);
    if (gm) parts.push(html`<p key="conclude">When the story is told, conclude the contest (it reveals the dice seed).</p>`);
  }
  if (gm || own.length > 0) {
    parts.push(html`<${GroupActions} key="group" view=${view} me=${me} act=${act} />`);
    parts.push(html`<${ChangeActions} key="change" view=${view} me=${me} act=${act} />`);
  }
  if (gm) parts.push(html`<${AdjustForm} key="adjust" view=${view} act=${act} prefix="extended" />`);
  if (parts.length === 0) parts.push(html`<p>Nothing for you to do right now.</p>`);
  return html`<div class="actions">${parts}</div>`;
}

registerRuleset({
  name: "extended",
  label: "Extended contest (QuestWorlds: a duel or a group contest)",
  summary: "Contestants bid advantage points exchange by exchange until one side is left; two or more sides.",
  newSetup,
  SetupForm,
  buildContest,
  fieldOf,
  Board,
  Actions,
  chartPoints,
  phaseText,
  mine,
});
