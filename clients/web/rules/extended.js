// Panels of the `extended` ruleset (QuestWorlds extended contest: duels and group contests). See docs/web.md
// for the interface every ruleset module implements; the group contest's parts are in extended_group.js.
import { ActionButton, ActionForm, Check, Field, Select, html } from "../ui.js";
import { AdjustForm, ContestantCards, ContestantsSetup, HeroPointWindowSelect, Step, actionsBox, andList, answersWaiting, bidHint, bidLimit, heroPointParts, namedText, rollPart, rollWaiting, swapOrder, buildContestants, chartPoints, contestant, fieldOf, mine, names } from "./questworlds.js";
import { LastRollDice, lastDice, rawLevel } from "./questworlds.js";
import { registerRuleset } from "./registry.js";
import { GroupBoard, GroupIntentFields, GroupOutcome, OrderStep, PartingShotForm, betweenTurns, groupParts, groupTie, opponentsOf, ordered, roundBegun, shotParts } from "./extended_group.js";
import { ChangeActions, targetsOut } from "./extended_change.js";
import { useState } from "../vendor/preact-htm.js";
import { DiceRow, questDie } from "../dice.js";

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

// The exchange's two d20 as dice: the actor's, then the defender's, each with its level (and the steps a mastery
// or a hero point moved it).
function ExchangeDice({ x, who, rating }) {
  const side = (id, face, level) =>
    questDie({ name: who[id], face, raw: rawLevel(face, rating(id)), level, heroPoint: x.hero_points_spent.includes(id) });
  const dice = [side(x.actor, x.actor_face, x.actor_level), side(x.defender, x.defender_face, x.defender_level)].filter(Boolean);
  return html`<${DiceRow} dice=${dice} roll=${`exchange-${x.number}-${x.actor}-${x.defender}`} caption="The dice" />`;
}

function ExchangeWords({ view }) {
  const rules = view.rules;
  const x = rules.exchange;
  if (!x) return null;
  const who = names(view);
  const rating = (id) => rules.contestants.find((c) => c.id === id)?.rating;
  const action = x.parting_shot ? rules.shot_under_way?.action : rules.intents[x.actor]?.action;
  return html`<div class="exchange" data-testid="exchange">
    <h3>Exchange ${x.number}${x.parting_shot ? " — parting shot" : ""}: ${who[x.actor]} acts</h3>
    <p>${action ? `“${action}” — ` : ""}bid ${x.bid}, ${x.kind}</p>
    <ul class="dice">
      <li>${sideWords(who[x.actor], x.actor_face, x.actor_level, rating(x.actor), x.hero_points_spent.includes(x.actor))}</li>
      <li>${sideWords(who[x.defender], x.defender_face, x.defender_level, rating(x.defender), x.hero_points_spent.includes(x.defender))}</li>
    </ul>
    <${ExchangeDice} x=${x} who=${who} rating=${rating} />
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
    <p class="phase" data-testid="phase">${phaseText(view)}${rules.next_actor && rules.phase === "ready" && ordered(view) ? ` · next: ${who[rules.next_actor]}` : ""}</p>
    <${ContestantCards} view=${view} />
    ${rules.order.length > 0 && rules.phase !== "declaring" && html`<p>Order this round: ${rules.order.map((id) => who[id]).join(" → ")}</p>`}
    ${revealed.length > 0 && html`<div class="intents" data-testid="intents"><h3>Revealed intents</h3><ul>
      ${revealed.map(([id, intent]) => html`<li key=${id}><strong>${who[id]}</strong>: ${intentWords(intent, who)}${rules.proposals[id] ? ` — the GM proposes bid ${rules.proposals[id]}` : ""}</li>`)}
    </ul></div>`}
    <${GroupBoard} view=${view} />
    ${!rules.group && Object.entries(rules.parting_shots ?? {}).map(
      ([victor, victim]) => html`<p key=${victor} class="waiting" data-testid=${`shot-open-${victor}`}>${who[victor]} may take a parting shot at ${who[victim]}.</p>`,
    )}
    ${rules.shot_under_way && html`<p class="waiting" data-testid="shot-under-way">${who[rules.shot_under_way.shooter]} takes a parting shot at ${who[rules.shot_under_way.target]}.</p>`}
    <${ExchangeWords} view=${view} />
    ${rules.last && !rules.exchange && html`<p class="last" data-testid="last">Last exchange (${rules.last.exchange}): ${namedText(rules.last.result, who)}</p>`}
    <${LastRollDice} view=${view} />
    ${waitingWords(view) && html`<p class="waiting" data-testid="waiting-for">${waitingWords(view)}</p>`}
    <${Outcome} view=${view} />
  </section>`;
}

function intentWords(intent, who = {}) {
  const parts = [intent.action ? `“${intent.action}”` : "(no action described)", `bid ${intent.bid ?? 3}`, intent.kind];
  if (intent.ability) parts.push(`using ${intent.ability} ${intent.rating}`);
  if (intent.resistance) parts.push(`against ${intent.resistance}`);
  if (intent.targets?.length) parts.push(`${intent.daring}, singling out ${intent.targets.map((t) => who[t] ?? t).join(", ")}`);
  return parts.join(", ");
}

// What the contest waits for, in words every page reads: the GM's order, or the next roll.
function waitingWords(view) {
  const rules = view.rules;
  if (view.concluded || rules.phase !== "ready" || rules.exchange || targetsOut(view)) return "";
  if (rules.group && !ordered(view) && rules.next_actor) return "Waiting for the GM to order the round and start it.";
  return rollWaiting(view); // a round waiting for a parting shot says so beside the shot (GroupBoard)
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
  const limit = bidLimit(contestant, pcOfGm);
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
      hint=${bidHint(limit)} testid="intent-bid" />
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
    ${mineDeclared.payload ? ` Your intent: ${intentWords(mineDeclared.payload, names(view))}.` : ""}
  </p>`;
}

// The GM suggests a bid for a player's described action (a player's contestant: its limit is a PC's).
function ProposeBid({ act, contestant }) {
  const [bid, setBid] = useState("");
  const limit = bidLimit(contestant, false);
  return html`<details class="propose" data-testid=${`propose-${contestant.id}`}><summary>Propose a bid to ${contestant.name}</summary>
    <${ActionForm} run=${() => act({ type: "extended.propose_bid", contestant: contestant.id, bid: Number(bid) })} label="Propose" kind="">
      <${Field} type="number" min="1" max=${limit ?? undefined} label=${`Bid proposed to ${contestant.name}`} name=${`propose-${contestant.id}`} value=${bid} onInput=${setBid}
        hint=${limit === null ? "At least 1 AP." : `At most ${limit} AP (at least 1).`} />
    <//>
  </details>`;
}

// What this viewer can do now, and nothing it cannot, step by step in the order they come: the intents, the
// order of a group round, a parting shot still open, the next exchange (or the actor's alternatives to it), the
// answers after the dice, then what may come at any time. Null when nothing here is for this viewer: the page
// then shows no empty box (the board says what the contest waits for).
function Actions({ view, me, act }) {
  const rules = view.rules;
  const gm = me.role === "gm";
  const who = names(view);
  const own = rules.contestants.filter((c) => c.controlled_by_you);
  if (view.concluded || rules.phase === "over") return null;
  const items = [];
  const add = (node, control = true) => node && items.push({ node, control });
  const group = gm || own.length > 0 ? groupParts({ view, me, act }) : { delays: [], turn: [], anytime: [], tools: [] };

  if (rules.phase === "declaring" && view.seal) {
    for (const c of own) {
      if (!view.seal.expected.includes(c.id)) continue;
      const declared = view.seal.declared.find((d) => d.participant === c.id);
      const form = html`<${IntentForm} view=${view} contestant=${c} role=${me.role} act=${act} declared=${declared} pcOfGm=${gm} />`;
      add(html`<div key=${`declare-${c.id}`}>
        <${SealStatus} view=${view} participant=${c.id} />
        ${declared ? html`<details class="replace"><summary>Replace ${c.name}'s sealed intent</summary>${form}</details>` : form}
      </div>`);
    }
    const missing = view.seal.expected.filter((p) => !view.seal.declared.some((d) => d.participant === p));
    const others = missing.filter((p) => !own.some((c) => c.id === p));
    if (gm && others.length > 0 && missing.every((p) => others.includes(p))) {
      add(html`<p key="sealing" class="waiting" data-testid="waiting-intents">Waiting for ${andList(others.map((p) => who[p] ?? p))} to seal ${others.length > 1 ? "their intents" : "an intent"}; closing the window reveals now, with the default intent for those missing.</p>`, false);
    }
  }

  if (rules.phase === "ready") {
    const between = betweenTurns(rules);
    const begun = roundBegun(rules);
    // a group round is ordered before its first roll; a duel's order may be swapped until then
    if (gm && rules.group && between && !begun) add(html`<${OrderStep} key="order" view=${view} act=${act} />`);
    if (!rules.group) add(swapOrder({ view, gm, act, prefix: "extended" }));
    const shots = shotParts({ view, me, act });
    for (const part of shots.parts) add(part.node, part.control);
    for (const c of own) {
      if (rules.proposals[c.id] !== undefined) {
        add(html`<div key=${`accept-${c.id}`} class="proposal"><p>The GM proposes a bid of ${rules.proposals[c.id]} for ${c.name}.</p>
          <${ActionButton} label="Accept the proposed bid" run=${() => act({ type: "extended.accept_bid", contestant: c.id })} /></div>`);
      }
    }
    if (targetsOut(view)) {
      const name = who[rules.next_actor];
      const way = gm ? "allow or make a change of action" : "the GM may allow a change of action";
      const mine = own.some((c) => c.id === rules.next_actor);
      const none = !(rules.intents[rules.next_actor]?.targets ?? []).length; // the default intent of a window closed on it
      const why = none ? `${name}'s intent was not sealed in time and singles out nobody` : `${name} singles out no opponent still in`;
      if (gm || mine) add(html`<p key="targets-out" class="waiting" data-testid="targets-out">${why}: ${way}, or ${name} passes this turn.</p>`, false);
    } else if (ordered(view) && !shots.blocks) {
      const roll = rollPart({ view, gm, own, act, prefix: "extended" });
      if (roll) {
        const shot = rules.shot_under_way;
        const say = shot ? `${who[shot.shooter]}'s parting shot at ${who[shot.target]}: roll it.` : `${who[rules.next_actor]}'s exchange${rules.targets_left.length ? ` against ${who[rules.targets_left[0]]}` : ""}: roll it.`;
        add(html`<${Step} key="roll" say=${say} testid="step-roll">${roll}<//>`);
      }
    }
    // the next actor's alternatives to its exchange, once the order says who it is
    if (ordered(view) && !shots.blocks) for (const node of group.turn) add(node);
    for (const node of group.delays) add(node);
    if (hasChanges(view, me)) add(html`<${ChangeActions} key="change" view=${view} me=${me} act=${act} />`);
    if (gm && between) {
      for (const c of rules.contestants.filter((c) => rules.order.includes(c.id) && !rules.acted.includes(c.id) && !c.out && !c.withdrawn && rules.proposals[c.id] === undefined)) {
        if (!c.controlled_by_you) add(html`<${ProposeBid} key=${`propose-${c.id}-${rules.round}`} act=${act} contestant=${c} />`);
      }
    }
  }

  if (rules.phase === "rolled" && rules.exchange) {
    for (const node of heroPointParts({ view, gm, own, act, prefix: "extended", note: ": it would change this exchange", confirm: !groupTie(rules) })) add(node);
    if (gm && groupTie(rules)) {
      const x = rules.exchange;
      const waiting = [...new Set([...(x.answers_pending ?? []), ...x.hero_points_pending])];
      add(html`<${Step} key="group-tie" say=${`Both fumbled: a tie, or both ${who[x.actor]} and ${who[x.defender]} lose ½ the bid (${Math.ceil(x.bid / 2)} AP).`} testid="step-group-tie">
        <${ActionButton} label="A tie: no AP moves" run=${() => act({ type: "extended.confirm" })} testid="confirm" />
        <${ActionButton} label="Both fumbled: both lose ½ the bid (group tie)" run=${() => act({ type: "extended.confirm", group_tie: true })} testid="group-tie" />
        ${waiting.length > 0 && html`<small class="hint">Either applies the exchange now, without waiting for ${andList(waiting.map((c) => who[c]))}.</small>`}
      <//>`);
    }
  }

  if (rules.phase === "decided") {
    const victor = own.find((c) => c.id === rules.outcome?.winner && rules.parting_shots?.[c.id]);
    if (victor) {
      const victim = rules.contestants.find((c) => c.id === rules.parting_shots[victor.id]);
      add(html`<${PartingShotForm} key="ps" contestant=${victor} victim=${victim} act=${act} testid=${`shot-${victor.id}`} gmRuns=${gm} />`);
    }
    if (gm) add(html`<p key="conclude">When the story is told, conclude the contest (it reveals the dice seed).</p>`, false);
  }

  for (const node of [...group.anytime, ...group.tools]) add(node);
  if (gm) add(html`<${AdjustForm} key="adjust" view=${view} act=${act} prefix="extended" />`);
  return actionsBox(items, gm);
}

// Whether ChangeActions draws anything for this viewer (the GM's leave and forms, or a player's allowed change).
function hasChanges(view, me) {
  const rules = view.rules;
  if (!rules.group || !betweenTurns(rules)) return false;
  const still = rules.contestants.filter((c) => rules.order.includes(c.id) && !rules.acted.includes(c.id) && !c.out && !c.withdrawn);
  if (me.role === "gm") return still.length > 0;
  return still.some((c) => c.controlled_by_you && (rules.changes_allowed ?? []).includes(c.id));
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
  lastDice,
});
