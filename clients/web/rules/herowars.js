// Panels of the `herowars` ruleset (the Hero Wars extended contest variant, seed 001: winner table × loser
// table). See docs/web.md for the interface every ruleset module implements.
import { ActionForm, Check, Field, Select, html } from "../ui.js";
import { AdjustForm, ContestantCards, ContestantsSetup, HeroPointWindowSelect, Step, actionsBox, andList, answersWaiting, bidHint, bidLimit, heroPointParts, rollPart, rollWaiting, swapOrder, buildContestants, chartPoints, contestant, fieldOf, mine, names } from "./questworlds.js";
import { DiceRow, questDie } from "../dice.js";
import { LastRollDice, lastDice } from "./questworlds.js";
import { registerRuleset } from "./registry.js";
import { useState } from "../vendor/preact-htm.js";

const CASES = {
  win: "the winner's bid, times the winner table, times the loser table",
  transfer: "a Critical winner: the loss is transferred",
  both_failure: "both failed: both lose the bid",
  both_fumble: "both fumbled: both lose double the bid",
  failure_vs_fumble: "Failure against Fumble: the winner loses the bid, the loser double",
  tie: "a tie, settled by the GM",
};

function newSetup() {
  return { prize: "", cap_3x: false, players_type_faces: false, hero_point_window: "always", contestants: [contestant("", "Player 1"), contestant("", "")] };
}

// --- the creation form ---------------------------------------------------------------------------------

function SetupForm({ setup, onChange, errors }) {
  const set = (key, value) => onChange({ ...setup, [key]: value });
  return html`
    <${Field} label="Prize" name="prize" value=${setup.prize} onInput=${(v) => set("prize", v)} error=${errors.prize}
      hint="What the contest is about (e.g. “hold the ford”)." testid="prize" />
    <fieldset class="settings">
      <legend>Settings</legend>
      <${Check} label="Optional rule: no loss or transfer above three times the bid" checked=${setup.cap_3x}
        onChange=${(v) => set("cap_3x", v)} hint="Default off (a Fumble can then cost four times the bid). On, the outcome matches the rulebook's table." />
      <${Check} label="Players type the faces of their own exchange (physical dice)" checked=${setup.players_type_faces}
        onChange=${(v) => set("players_type_faces", v)} hint="Default off: the GM types every face rolled at the table." />
      <${HeroPointWindowSelect} setup=${setup} set=${set} />
    </fieldset>
    <${ContestantsSetup} setup=${setup} onChange=${onChange} errors=${errors}
      edgeHint="Added to this contestant's bid when the other side pays; negative: a handicap." />`;
}

function buildContest(setup) {
  const errors = {};
  if (!setup.prize.trim()) errors.prize = "Say what the contest is about.";
  const { contestants, seats } = buildContestants(setup, errors);
  return {
    errors,
    setup: { type: "herowars.setup", prize: setup.prize.trim(), contestants, cap_3x: setup.cap_3x, players_type_faces: setup.players_type_faces, hero_point_window: setup.hero_point_window },
    seats,
  };
}

// --- reading the view ----------------------------------------------------------------------------------

const PHASES = { declaring: "Bids (sealed)", ready: "Exchanges", rolled: "Dice rolled", tied: "Tie: the GM decides", decided: "Decided" };

function phaseText(view) {
  const rules = view.rules;
  if (view.concluded) return "The contest is over";
  return `Round ${rules.round} · ${PHASES[rules.phase] ?? rules.phase}`;
}

function sideWords(name, face, level, heroPoint) {
  if (face === null || face === undefined) return `${name} rolls no die (a rating of 0 or less): ${level}`;
  return `${name} rolled ${face}: ${level}${heroPoint ? " (a hero point raised it one step)" : ""}`;
}

function appliedWords(last, who) {
  const losses = Object.entries(last.lost).map(([c, n]) => `${who[c]} loses ${n} AP`);
  const parts = [CASES[last.case] ?? last.case];
  if (last.winner) parts.push(`${who[last.winner]} wins`);
  parts.push(losses.length ? losses.join(", ") : "nobody loses AP");
  if (last.gained) parts.push(`${who[last.winner]} gains ${last.gained} AP`);
  if (last.capped) parts.push("capped at three times the bid");
  if (last.reason) parts.push(last.reason);
  return parts.join(" · ");
}

function ExchangeWords({ view }) {
  const rules = view.rules;
  const x = rules.exchange;
  if (!x) return null;
  const who = names(view);
  const intent = rules.intents[x.actor];
  return html`<div class="exchange" data-testid="exchange">
    <h3>Exchange ${x.number}: ${who[x.actor]} acts</h3>
    <p>${intent?.action ? `“${intent.action}” — ` : ""}bid ${x.bid}</p>
    <ul class="dice">
      <li>${sideWords(who[x.actor], x.actor_face, x.actor_level, x.hero_points_spent.includes(x.actor))}</li>
      <li>${sideWords(who[x.defender], x.defender_face, x.defender_level, x.hero_points_spent.includes(x.defender))}</li>
    </ul>
    <${DiceRow} caption="The dice" roll=${`exchange-${x.number}-${x.actor}-${x.defender}`} dice=${[
      questDie({ name: who[x.actor], face: x.actor_face, level: x.actor_level, heroPoint: x.hero_points_spent.includes(x.actor) }),
      questDie({ name: who[x.defender], face: x.defender_face, level: x.defender_level, heroPoint: x.hero_points_spent.includes(x.defender) }),
    ].filter(Boolean)} />
    ${rules.phase === "tied" && html`<p class="waiting" data-testid="tied">A tie: the GM decides the result from the stated intents.</p>`}
    ${answersWaiting(x, who)}
  </div>`;
}

function Outcome({ view }) {
  const outcome = view.rules.outcome;
  if (!outcome) return null;
  const who = names(view);
  return html`<section class="outcome" aria-labelledby="outcome-title" data-testid="outcome">
    <h2 id="outcome-title">Outcome: ${outcome.winner ? `${who[outcome.winner]} wins` : "both fall"}</h2>
    <ul>${outcome.defeated.map((d) => html`<li key=${d.contestant}><strong>${who[d.contestant]}</strong> ends at ${d.ap} AP: ${d.level} defeat, ${d.consequence}</li>`)}</ul>
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
    <p class="settings">Hero Wars variant${rules.cap_3x ? " · optional rule: losses capped at three times the bid" : ""}</p>
    <${ContestantCards} view=${view} detail=${(c) => (c.edge ? ` · edge ${c.edge}` : "")} />
    ${rules.order.length > 0 && rules.phase !== "declaring" && html`<p>Order this round: ${rules.order.map((id) => who[id]).join(" → ")}</p>`}
    ${revealed.length > 0 && html`<div class="intents" data-testid="intents"><h3>Revealed intents</h3><ul>
      ${revealed.map(([id, intent]) => html`<li key=${id}><strong>${who[id]}</strong>: ${intent.action ? `“${intent.action}”` : "(no action described)"}, bid ${intent.bid ?? 3}</li>`)}
    </ul></div>`}
    <${ExchangeWords} view=${view} />
    ${rules.last && !rules.exchange && html`<p class="last" data-testid="last">Last exchange (${rules.last.exchange}): ${appliedWords(rules.last, who)}</p>`}
    <${LastRollDice} view=${view} />
    ${rules.phase === "ready" && !view.concluded && rules.next_actor && html`<p class="waiting" data-testid="waiting-for">${rollWaiting(view)}</p>`}
    <${Outcome} view=${view} />
  </section>`;
}

// --- actions -------------------------------------------------------------------------------------------

function IntentForm({ contestant, act, declared, pcOfGm }) {
  const previous = declared?.payload ?? null;
  const [action, setAction] = useState(previous?.action ?? "");
  const [bid, setBid] = useState(previous?.bid ?? "");
  const limit = bidLimit(contestant, pcOfGm);
  const send = () => {
    const payload = { type: "herowars.intent", action: action.trim() };
    if (String(bid).trim() !== "") payload.bid = Number(bid);
    return act({ type: "seal.declare", participant: contestant.id, payload });
  };
  return html`<${ActionForm} run=${send} label=${declared ? "Replace my sealed bid" : "Seal my bid"} testid=${`intent-${contestant.id}`}>
    <h3>${contestant.name}: your statement of intent and bid</h3>
    <${Field} label="Intent" name="action" value=${action} onInput=${setAction} hint="What you try; everyone sees it at the reveal, and the GM settles ties by it." testid="intent-action" />
    <${Field} type="number" label="Bid" name="bid" value=${bid} onInput=${setBid} min="1" max=${limit ?? undefined} inputmode="numeric"
      hint=${bidHint(limit)} testid="intent-bid" />
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
  </p>`;
}

function TieForm({ view, act }) {
  const x = view.rules.exchange;
  const who = names(view);
  const [winner, setWinner] = useState("");
  const [loss, setLoss] = useState("");
  const [transfer, setTransfer] = useState(false);
  const [reason, setReason] = useState("");
  const send = () =>
    act({ type: "herowars.settle_tie", winner: winner || null, loss: winner ? Number(loss || 0) : 0, transfer: Boolean(winner) && transfer, reason });
  return html`<${ActionForm} run=${send} label="Settle the tie" testid="settle-tie">
    <h3>A tie: name the result from the stated intents</h3>
    <div class="grid">
      <${Select} label="Winner" name="tie-winner" value=${winner} onChange=${setWinner}
        options=${[["", "nobody: no AP moves"], [x.actor, who[x.actor]], [x.defender, who[x.defender]]]} />
      ${winner && html`<${Field} type="number" min="0" label="AP the other side loses" name="tie-loss" value=${loss} onInput=${setLoss} testid="tie-loss" />`}
      ${winner && html`<${Check} label="Transfer the loss to the winner" checked=${transfer} onChange=${setTransfer} />`}
      <${Field} label="Reason" name="tie-reason" value=${reason} onInput=${setReason} hint="Shown in the log." testid="tie-reason" />
    </div>
  <//>`;
}

// What this viewer can do now, and nothing it cannot, in the order it comes: the sealed bids, the order (until
// the round's first roll), the next exchange, the answers after the dice, the GM's tie. Null when nothing here is
// for this viewer (the board says what the contest waits for).
function Actions({ view, me, act }) {
  const rules = view.rules;
  const gm = me.role === "gm";
  const who = names(view);
  const own = rules.contestants.filter((c) => c.controlled_by_you);
  if (view.concluded) return null;
  const items = [];
  const add = (node, control = true) => node && items.push({ node, control });
  if (rules.phase === "declaring" && view.seal) {
    for (const c of own) {
      if (!view.seal.expected.includes(c.id)) continue;
      const declared = view.seal.declared.find((d) => d.participant === c.id);
      const form = html`<${IntentForm} contestant=${c} act=${act} declared=${declared} pcOfGm=${gm} />`;
      add(html`<div key=${`declare-${c.id}`}>
        <${SealStatus} view=${view} participant=${c.id} />
        ${declared ? html`<details class="replace"><summary>Replace ${c.name}'s sealed bid</summary>${form}</details>` : form}
      </div>`);
    }
    const missing = view.seal.expected.filter((p) => !view.seal.declared.some((d) => d.participant === p));
    if (gm && missing.length > 0 && missing.every((p) => !own.some((c) => c.id === p))) {
      add(html`<p key="sealing" class="waiting" data-testid="waiting-intents">Waiting for ${andList(missing.map((p) => who[p] ?? p))} to seal ${missing.length > 1 ? "their bids" : "a bid"}; closing the window reveals now, with the default bid for those missing.</p>`, false);
    }
  }
  if (rules.phase === "ready") {
    add(swapOrder({ view, gm, act, prefix: "herowars" }));
    const roll = rollPart({ view, gm, own, act, prefix: "herowars" });
    if (roll) add(html`<${Step} key="roll" say=${`${who[rules.next_actor]}'s exchange: roll it.`} testid="step-roll">${roll}<//>`);
  }
  if (rules.phase === "rolled" && rules.exchange) {
    for (const node of heroPointParts({ view, gm, own, act, prefix: "herowars" })) add(node);
  }
  if (rules.phase === "tied" && gm && rules.exchange) add(html`<${TieForm} key="tie" view=${view} act=${act} />`);
  if (rules.phase === "decided" && gm) add(html`<p key="conclude">When the story is told, conclude the contest (it reveals the dice seed).</p>`, false);
  if (gm) add(html`<${AdjustForm} key="adjust" view=${view} act=${act} prefix="herowars" />`);
  return actionsBox(items, gm);
}

registerRuleset({
  name: "herowars",
  label: "Hero Wars variant (winner table × loser table)",
  summary: "Two contestants; the winner's result multiplies the bid, the loser's result halves, keeps or doubles the loss.",
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
