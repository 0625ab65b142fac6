// Group contests of the `extended` ruleset (three or more contestants on two or more sides): the sides, each
// contestant's targets, the round's order with delays, knocked-out and withdrawn contestants, the group
// outcome, and the actions a group contest adds (order by daring, bid or AP; delay and jump in; pass; final
// action; disengage and rejoin; lend; gift; hero points; parting shots and the group tie).
import { ActionButton, ActionForm, Field, Select, html } from "../ui.js";
import { useState } from "../vendor/preact-htm.js";
import { Step, bidHint, bidLimit } from "./questworlds.js";
import { FaceField } from "../faces.js";

export const DARING = [
  ["cautious", "cautious"],
  ["bold", "bold (default)"],
  ["daring", "daring"],
  ["reckless", "reckless"],
];

function names(view) {
  return Object.fromEntries(view.rules.contestants.map((c) => [c.id, c.name]));
}

function byId(view, id) {
  return view.rules.contestants.find((c) => c.id === id);
}

function status(rules, c) {
  if (c.withdrawn) return "withdrawn";
  if (c.out) return "out";
  if (rules.delayed.includes(c.id)) return "delaying";
  if (rules.acted.includes(c.id)) return "acted";
  return "in";
}

// The opponents a contestant may single out: on another side and still in the contest.
export function opponentsOf(view, id) {
  const me = byId(view, id);
  return view.rules.contestants.filter((c) => c.side !== me?.side && !c.out && !c.withdrawn);
}

// The daring select and the target checkboxes of a group intent.
export function GroupIntentFields({ view, contestant, daring, setDaring, targets, setTargets }) {
  const toggle = (id) => setTargets(targets.includes(id) ? targets.filter((t) => t !== id) : [...targets, id]);
  return html`<${Select} label="Daring" name="daring" value=${daring} onChange=${setDaring} options=${DARING}
      hint="How risky the action is; the GM may order the round by it." />
    <fieldset class="targets" data-testid=${`targets-${contestant.id}`}>
      <legend>Opponents singled out (in order)</legend>
      ${opponentsOf(view, contestant.id).map(
        (c) => html`<label key=${c.id}><input type="checkbox" name=${`target-${c.id}`} checked=${targets.includes(c.id)}
          onChange=${() => toggle(c.id)} /> ${c.name}</label>`,
      )}
    </fieldset>`;
}

function orderWords(rules, who, marks) {
  const mode = rules.order_mode ? ` by ${rules.order_mode === "ap" ? "AP total" : rules.order_mode}` : "";
  const order = rules.order.map((id) => `${who[id]}${marks(id).length ? ` [${marks(id).join(", ")}]` : ""}`);
  return `Order${mode}: ${order.join(" → ")}`;
}

export function GroupBoard({ view }) {
  const rules = view.rules;
  if (!rules.group) return null;
  const who = names(view);
  // everyone still in has acted: the round goes on once each open shot is taken or let go
  const roundWaits = rules.phase === "ready" && rules.next_actor === null && !rules.exchange && !rules.shot_under_way;
  const sides = [...new Set(rules.contestants.map((c) => c.side))];
  const marks = (id) => [
    rules.acted.includes(id) ? "acted" : "",
    rules.delayed.includes(id) ? "delaying" : "",
    byId(view, id)?.out ? "out" : "",
    byId(view, id)?.withdrawn ? "withdrawn" : "",
    rules.next_actor === id && ordered(view) ? "next" : "",
  ].filter(Boolean);
  return html`<div class="group" data-testid="group">
    <h3>Sides</h3>
    <ul class="sides">
      ${sides.map(
        (side) => html`<li key=${side} data-testid=${`side-${side}`}><strong>${side}</strong>${": "}${rules.contestants
            .filter((c) => c.side === side)
            .map((c) => `${c.name} (${status(rules, c)}${c.final_action_used ? ", final action used" : ""})`)
            .join(", ")}</li>`,
      )}
    </ul>
    ${rules.phase !== "declaring" && rules.order.length > 0 && html`<p data-testid="group-order">${orderWords(rules, who, marks)}</p>`}
    ${Object.keys(rules.intents).length > 0 && html`<ul class="targets" data-testid="group-targets">
      ${Object.entries(rules.intents).map(
        ([id, intent]) => html`<li key=${id}>${`${who[id]} (${rules.daring[id] ?? intent.daring}) → ${(intent.targets ?? []).map((t) => who[t]).join(", ") || "no opponent named"}`}</li>`,
      )}
    </ul>`}
    ${(rules.changes_allowed ?? []).map(
      (id) => html`<p key=${`change-${id}`} class="waiting" data-testid=${`change-allowed-${id}`}>The GM lets ${who[id]} change its action before acting.</p>`,
    )}
    ${rules.targets_left.length > 0 && html`<p>Still to engage this turn: ${rules.targets_left.map((t) => who[t]).join(", ")}</p>`}
    ${Object.entries(rules.parting_shots).map(
      ([victor, victim]) => html`<p key=${victor} class="waiting" data-testid=${`shot-open-${victor}`}>${who[victor]} may take a parting shot at ${who[victim]}${roundWaits ? ": the round waits for it" : ""}.</p>`,
    )}
  </div>`;
}

// Each side's outcome and each contestant's (the headline is the outcome box's, extended.js).
export function GroupOutcome({ view }) {
  const outcome = view.rules.outcome;
  if (!outcome || !outcome.sides?.length) return null;
  const who = names(view);
  return html`<div class="group-outcome" data-testid="group-outcome">
    <ul>${outcome.sides.map(
      (s) => html`<li key=${s.side}>${s.side}: ${s.level ? `${s.level} ${s.result}` : "no outcome"}${s.from_contestant ? ` (${who[s.from_contestant]}'s)` : ""}</li>`,
    )}</ul>
    <ul>${outcome.outcomes.map(
      (o) => html`<li key=${o.contestant}>${who[o.contestant]}: ${o.level ? `${o.level} ${o.result}, ${o.consequence ?? o.benefit}` : o.result}</li>`,
    )}</ul>
  </div>`;
}

function faceValue(text) {
  return String(text).trim() === "" ? null : Number(text);
}

function Faces({ view, me, a, setA, b, setB, first, second }) {
  const typing = view.dice === "physical" && (me.role === "gm" || view.rules.players_type_faces);
  if (!typing) return null;
  return html`<div class="grid faces-grid">
    <${FaceField} sides=${20} label=${`${first}'s die`} name="simple-a" value=${a} onInput=${setA} testid="simple-a" />
    <${FaceField} sides=${20} label=${`${second}'s die`} name="simple-b" value=${b} onInput=${setB} testid="simple-b" />
  </div>`;
}

function SimpleForm({ view, me, act, title, label, fields, build, first, second, testid }) {
  const [a, setA] = useState("");
  const [b, setB] = useState("");
  const run = () => {
    const command = build();
    if (view.dice === "physical") command.faces = [faceValue(a), faceValue(b)];
    return act(command);
  };
  return html`<${ActionForm} run=${run} label=${label} kind="" testid=${testid}>
    ${title && html`<h3>${title}</h3>`}
    ${fields}
    <${Faces} view=${view} me=${me} a=${a} setA=${setA} b=${b} setB=${setB} first=${first} second=${second} />
  <//>`;
}

function FinalActionForm({ view, me, act, c }) {
  return html`<${SimpleForm} view=${view} me=${me} act=${act} testid=${`final-${c.id}`}
    title=${`${c.name} is out: a final action costs a hero point (${c.hero_points} left)`} label="Take the final action"
    build=${() => ({ type: "extended.final_action", contestant: c.id })} first=${c.name} second="the resistance" />`;
}

function DisengageForm({ view, me, act, c }) {
  const opponents = opponentsOf(view, c.id);
  const [opponent, setOpponent] = useState(opponents[0]?.id ?? "");
  return html`<details class="alternative"><summary>${c.name}: disengage instead of acting</summary>
    <${SimpleForm} view=${view} me=${me} act=${act} testid=${`disengage-${c.id}`} label="Try to disengage"
      fields=${html`<${Select} label="From" name="disengage-from" value=${opponent} onChange=${setOpponent} options=${opponents.map((o) => [o.id, o.name])} />`}
      build=${() => ({ type: "extended.disengage", contestant: c.id, opponent })} first=${c.name} second="the opponent" />
  </details>`;
}

function LendForm({ view, me, act, c }) {
  const friends = view.rules.contestants.filter((o) => o.side === c.side && o.id !== c.id && !o.out && !o.withdrawn);
  const [target, setTarget] = useState(friends[0]?.id ?? "");
  const [ap, setAp] = useState("");
  if (friends.length === 0) return null;
  return html`<details class="alternative"><summary>${c.name}: lend AP instead of acting</summary>
    <${SimpleForm} view=${view} me=${me} act=${act} testid=${`lend-${c.id}`} label="Lend AP"
    fields=${html`<div class="grid"><${Select} label="To" name="lend-to" value=${target} onChange=${setTarget} options=${friends.map((o) => [o.id, o.name])} />
      <${Field} type="number" min="1" max=${c.ap ?? undefined} label="AP to lend" name="lend-ap" value=${ap} onInput=${setAp}
        hint=${`${c.ap === null ? "At most" : `At most ${c.ap} AP,`} ${c.name}'s AP; the resistance is the AP offered.`} /></div>`}
    build=${() => ({ type: "extended.lend", lender: c.id, target, ap: Number(ap) })} first=${c.name} second="the resistance" />
  </details>`;
}

function GiftForm({ view, me, act }) {
  const open = view.rules.contestants.filter((c) => !c.out && !c.withdrawn);
  const [giver, setGiver] = useState("");
  const [rating, setRating] = useState("");
  const [recipient, setRecipient] = useState(open[0]?.id ?? "");
  const [bid, setBid] = useState("");
  const [opponent, setOpponent] = useState("");
  // who gains on a defeat: an opponent of the recipient, or (none chosen) the last one it engaged
  const side = byId(view, recipient)?.side;
  const foes = view.rules.contestants.filter((c) => c.side !== side);
  const against = foes.some((c) => c.id === opponent) ? opponent : "";
  const tn = /^\s*(\d+)/.exec(rating)?.[1];
  const build = () => {
    const command = { type: "extended.gift", giver: giver.trim(), rating: rating.trim().toUpperCase(), recipient, bid: Number(bid) };
    if (against) command.opponent = against;
    return command;
  };
  return html`<details class="gift"><summary>Gift AP from someone outside the contest</summary>
    <${SimpleForm} view=${view} me=${me} act=${act} testid="gift" label="Give"
      fields=${html`<div class="grid">
        <${Field} label="Giver (not in the contest)" name="gift-giver" value=${giver} onInput=${setGiver} />
        <${Field} label="Giver's rating" name="gift-rating" value=${rating} onInput=${setRating} />
        <${Select} label="Recipient" name="gift-to" value=${recipient} onChange=${setRecipient} options=${open.map((o) => [o.id, o.name])} />
        <${Select} label="Opponent" name="gift-opponent" value=${against} onChange=${setOpponent}
          options=${[["", "the last one the recipient engaged"], ...foes.map((o) => [o.id, o.name])]}
          hint="The recipient's opponent gains AP if the gift fails." />
        <${Field} type="number" min="1" max=${tn ?? undefined} label="Bid" name="gift-bid" value=${bid} onInput=${setBid}
          hint=${`At most the giver's target number${tn ? ` (${Number(tn)})` : ""}; the resistance is twice the bid.`} />
      </div>`}
      build=${build}
      first="the giver" second="the resistance" />
  </details>`;
}

// The victor's parting shot at the opponent it just defeated: a bid and an action (a duel's once decided);
// ``gmRuns``: the GM's contestant, whose stake is never more than its AP.
export function PartingShotForm({ contestant, victim, act, testid = undefined, gmRuns = false, heading = true }) {
  const limit = bidLimit(contestant, gmRuns);
  const [bid, setBid] = useState("");
  const [action, setAction] = useState("");
  const send = () => {
    const command = { type: "extended.parting_shot", contestant: contestant.id, action };
    if (String(bid).trim() !== "") command.bid = Number(bid);
    return act(command);
  };
  return html`<${ActionForm} run=${send} label="Take the parting shot" testid=${testid}>
    ${heading && html`<h3>${contestant.name} may take one parting shot${victim ? ` at ${victim.name}` : ""}</h3>`}
    <${Field} label="Action" name="ps-action" value=${action} onInput=${setAction} />
    <${Field} type="number" min="1" max=${limit ?? undefined} label="Bid" name="ps-bid" value=${bid} onInput=${setBid} hint=${bidHint(limit)} />
  <//>`;
}

function GrantForm({ view, act }) {
  const pcs = view.rules.contestants.filter((c) => c.hero_points !== null && !c.controlled_by_you);
  const [who, setWho] = useState(pcs[0]?.id ?? "");
  if (pcs.length === 0) return null;
  return html`<details class="grant"><summary>Grant hero points</summary>
    <${ActionForm} run=${() => act({ type: "extended.grant_hero_points", contestant: who, points: 1 })} label="Grant one" kind="">
      <${Select} label="To" name="grant-to" value=${who} onChange=${setWho} options=${pcs.map((c) => [c.id, c.name])} />
    <//>
  </details>`;
}

// Between two turns: no exchange rolled, no turn part-way through, no parting shot under way.
export function betweenTurns(rules) {
  return rules.phase === "ready" && !rules.exchange && rules.targets_left.length === 0 && !rules.shot_under_way;
}

// The round has begun: someone has acted, or a turn, an exchange or a parting shot is under way.
export function roundBegun(rules) {
  return rules.acted.length > 0 || Boolean(rules.exchange) || rules.targets_left.length > 0 || Boolean(rules.shot_under_way);
}

// A group round is ordered once the GM has ordered it (by daring, bid or AP total, or by hand) or it has begun;
// a duel's order needs no step of its own.
export function ordered(view) {
  const rules = view.rules;
  return !rules.group || Boolean(rules.ordered) || roundBegun(rules);
}

const MODES = [["daring", "daring"], ["bid", "bid"], ["ap", "AP total"]];

// The GM's first step of a group round, before its first roll: order it by daring, bid or AP total, keep the
// order as it stands, or move contestants up by hand.
export function OrderStep({ view, act }) {
  const rules = view.rules;
  const who = names(view);
  const done = ordered(view);
  const byHand = (order) => act({ type: "extended.set_order", order });
  const moved = (i) => [...rules.order.slice(0, i - 1), rules.order[i], rules.order[i - 1], ...rules.order.slice(i + 1)];
  const mode = rules.order_mode ? `by ${MODES.find(([m]) => m === rules.order_mode)?.[1] ?? rules.order_mode}` : "by hand";
  const say = done
    ? `Round ${rules.round} is ordered ${mode}. You may order it again until its first roll.`
    : `Order round ${rules.round} before its first exchange: by daring, by bid, by AP total, or as it stands.`;
  return html`<${Step} say=${say} testid="step-order">
    <div class="order-by" role="group" aria-label="Order the round">
      ${MODES.map(
        ([m, words]) => html`<${ActionButton} key=${m} kind=${done ? "" : "primary"} label=${`Order by ${words}`} run=${() => act({ type: "extended.order_by", mode: m })} testid=${`order-${m}`} />`,
      )}
      ${!done && html`<${ActionButton} label="Keep this order" run=${() => byHand(rules.order)} testid="order-keep" />`}
    </div>
    <small class="hint">Only before the round's first roll. Ordering by AP total tells everyone whose AP is higher.</small>
    <details class="hand-order" data-testid="hand-order"><summary>Set the order by hand</summary>
      <ol>${rules.order.map(
        (id, i) => html`<li key=${id}>${who[id]}${i > 0 && html` <${ActionButton} label=${`Move ${who[id]} up`} run=${() => byHand(moved(i))} testid=${`order-up-${id}`} />`}</li>`,
      )}</ol>
    </details>
  <//>`;
}

// The parting shots still open, for this viewer: the victor's controller takes one or lets its opponent go; the
// GM reads what the round waits for when the victor is a player's. ``blocks``: an open shot of the viewer's own,
// settled before the next exchange is rolled.
export function shotParts({ view, me, act }) {
  const rules = view.rules;
  const gm = me.role === "gm";
  const who = names(view);
  const parts = [];
  let blocks = false;
  if (rules.phase !== "ready" || rules.exchange || rules.shot_under_way) return { parts, blocks };
  const roundEnd = rules.next_actor === null;
  for (const [victor, victim] of Object.entries(rules.parting_shots ?? {})) {
    const c = byId(view, victor);
    if (!c || c.out || c.withdrawn) continue;
    if (c.controlled_by_you) {
      blocks = true;
      const say = roundEnd
        ? `Waiting for ${c.name}'s parting shot at ${who[victim]}: take it or let ${who[victim]} go.`
        : `${c.name} may take a parting shot at ${who[victim]} before the next turn: take it or let ${who[victim]} go.`;
      parts.push({
        control: true,
        node: html`<${Step} key=${`shot-${victor}`} say=${say} testid=${`shot-step-${victor}`}>
          <div class="parting">
            <${PartingShotForm} contestant=${c} victim=${byId(view, victim)} act=${act} testid=${`shot-${victor}`} gmRuns=${gm} heading=${false} />
            <${ActionButton} label=${`Let ${who[victim]} go`} run=${() => act({ type: "extended.decline_parting_shot", contestant: victor })} testid=${`decline-${victor}`} />
          </div>
        <//>`,
      });
    } else if (gm && roundEnd) {
      // the round waits on a player's answer: the GM may move the table on for a player who does not answer
      const say = `Waiting for ${c.name}'s player to take a parting shot at ${who[victim]} or let ${who[victim]} go. If they do not answer, you can let ${who[victim]} go for them.`;
      parts.push({
        control: true,
        node: html`<${Step} key=${`shot-${victor}`} say=${say} testid=${`shot-waiting-${victor}`}>
          <${ActionButton} label=${`Let ${who[victim]} go`} run=${() => act({ type: "extended.decline_parting_shot", contestant: victor })} testid=${`decline-${victor}`} />
        <//>`,
      });
    } else if (gm) {
      const say = `${c.name} may take a parting shot at ${who[victim]} before the next turn; rolling the next exchange lets it go.`;
      parts.push({ control: false, node: html`<p key=${`shot-${victor}`} class="waiting" data-testid=${`shot-waiting-${victor}`}>${say}</p>` });
    }
  }
  return { parts, blocks };
}

// What a group contest adds to this viewer's actions now, by step: ``delays`` (delay, jump back in), ``turn``
// (the next actor's alternatives to its exchange: pass, disengage, lend), ``anytime`` (rejoin, final action),
// ``tools`` (gift, hero points).
export function groupParts({ view, me, act }) {
  const rules = view.rules;
  const gm = me.role === "gm";
  const own = rules.contestants.filter((c) => c.controlled_by_you);
  // simple contests need faces with physical dice: the GM types them (for anyone) unless players may
  const typist = view.dice === "server" || rules.players_type_faces;
  const rolling = gm && view.dice === "physical" ? rules.contestants : typist ? own : [];
  const delays = [];
  const turn = [];
  const anytime = [];
  const tools = [];
  const shot = rules.shot_under_way;
  const between = betweenTurns(rules);
  const settled = !rules.exchange && !shot;
  for (const c of own) {
    const waiting = rules.order.includes(c.id) && !rules.acted.includes(c.id) && !c.out && !c.withdrawn;
    if (between && waiting && !rules.delayed.includes(c.id) && rules.next_actor !== null) {
      delays.push(html`<${ActionButton} key=${`delay-${c.id}`} label=${`${c.name}: delay`} run=${() => act({ type: "extended.delay", contestant: c.id })} testid=${`delay-${c.id}`} />`);
    }
    if (between && waiting && rules.delayed.includes(c.id)) {
      delays.push(html`<${ActionButton} key=${`jump-${c.id}`} kind="primary" label=${`${c.name}: jump back in`} run=${() => act({ type: "extended.jump_in", contestant: c.id })} testid=${`jump-${c.id}`} />`);
    }
    if (between && rules.next_actor === c.id) {
      turn.push(html`<${ActionButton} key=${`pass-${c.id}`} label=${`${c.name}: pass this turn`} run=${() => act({ type: "extended.pass_turn", contestant: c.id })} testid=${`pass-turn-${c.id}`} />`);
    }
    if (c.withdrawn && rules.phase !== "decided" && settled) {
      anytime.push(html`<${ActionButton} key=${`rejoin-${c.id}`} label=${`${c.name}: rejoin the contest`} run=${() => act({ type: "extended.rejoin", contestant: c.id })} testid=${`rejoin-${c.id}`} />`);
    }
  }
  for (const c of rolling) {
    if (between && rules.next_actor === c.id) {
      turn.push(html`<${DisengageForm} key=${`disengage-${c.id}`} view=${view} me=${me} act=${act} c=${c} />`);
      const friends = rules.contestants.some((o) => o.side === c.side && o.id !== c.id && !o.out && !o.withdrawn);
      if (rules.group && friends) turn.push(html`<${LendForm} key=${`lend-${c.id}`} view=${view} me=${me} act=${act} c=${c} />`);
    }
    // a PC's hero points are shown to its player and the GM only
    const canFinal = rules.group && c.out && !c.withdrawn && !c.final_action_used && (c.hero_points ?? 0) > 0;
    if (canFinal && c.ap > -31 && rules.phase !== "decided" && settled && c.hero_points !== null) {
      const pc = !gm || !c.controlled_by_you;
      if (pc) anytime.push(html`<${FinalActionForm} key=${`final-${c.id}`} view=${view} me=${me} act=${act} c=${c} />`);
    }
  }
  // a gift comes from someone outside the contest: the GM's characters, or a player's (who then rolls it)
  if ((gm || (typist && me.role === "player")) && rules.phase !== "decided" && settled && rules.contestants.some((c) => !c.out && !c.withdrawn)) {
    tools.push(html`<${GiftForm} key="gift" view=${view} me=${me} act=${act} />`);
  }
  if (gm && rules.phase !== "decided" && rules.contestants.some((c) => c.hero_points !== null && !c.controlled_by_you)) {
    tools.push(html`<${GrantForm} key="grant" view=${view} act=${act} />`);
  }
  return { delays, turn, anytime, tools };
}

// A Fumble against a Fumble in a group contest: the GM chooses a tie or both losing ½ the bid.
export function groupTie(rules) {
  const x = rules.exchange;
  return Boolean(rules.group && x && x.kind !== "unrelated" && x.actor_level === "Fumble" && x.defender_level === "Fumble");
}
