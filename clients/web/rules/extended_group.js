// Group contests of the `extended` ruleset (three or more contestants on two or more sides): the sides, each
// contestant's targets, the round's order with delays, knocked-out and withdrawn contestants, the group
// outcome, and the actions a group contest adds (order by daring, bid or AP; delay and jump in; pass; final
// action; disengage and rejoin; lend; gift; hero points; parting shots and the group tie).
import { ActionButton, ActionForm, Field, Select, html } from "../ui.js";
import { useState } from "../vendor/preact-htm.js";

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
  const sides = [...new Set(rules.contestants.map((c) => c.side))];
  const marks = (id) => [
    rules.acted.includes(id) ? "acted" : "",
    rules.delayed.includes(id) ? "delaying" : "",
    byId(view, id)?.out ? "out" : "",
    byId(view, id)?.withdrawn ? "withdrawn" : "",
    rules.next_actor === id ? "next" : "",
  ].filter(Boolean);
  return html`<div class="group" data-testid="group">
    <h3>Sides</h3>
    <ul class="sides">
      ${sides.map(
        (side) => html`<li key=${side} data-testid=${`side-${side}`}><strong>${side}</strong>:
          ${rules.contestants
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
      ([victor, victim]) => html`<p key=${victor} class="waiting" data-testid=${`shot-open-${victor}`}>${who[victor]} may take a parting shot at ${who[victim]}.</p>`,
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
  return html`<div class="grid">
    <${Field} type="number" min="1" max="20" label=${`${first}'s die`} name="simple-a" value=${a} onInput=${setA} />
    <${Field} type="number" min="1" max="20" label=${`${second}'s die`} name="simple-b" value=${b} onInput=${setB} />
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
    <h3>${title}</h3>
    ${fields}
    <${Faces} view=${view} me=${me} a=${a} setA=${setA} b=${b} setB=${setB} first=${first} second=${second} />
  <//>`;
}

function FinalActionForm({ view, me, act, c }) {
  return html`<${SimpleForm} view=${view} me=${me} act=${act} testid=${`final-${c.id}`}
    title=${`${c.name} is out: a final action costs a hero point`} label="Take the final action"
    build=${() => ({ type: "extended.final_action", contestant: c.id })} first=${c.name} second="the resistance" />`;
}

function DisengageForm({ view, me, act, c }) {
  const opponents = opponentsOf(view, c.id);
  const [opponent, setOpponent] = useState(opponents[0]?.id ?? "");
  return html`<${SimpleForm} view=${view} me=${me} act=${act} testid=${`disengage-${c.id}`}
    title=${`${c.name}: disengage instead of acting`} label="Try to disengage"
    fields=${html`<${Select} label="From" name="disengage-from" value=${opponent} onChange=${setOpponent} options=${opponents.map((o) => [o.id, o.name])} />`}
    build=${() => ({ type: "extended.disengage", contestant: c.id, opponent })} first=${c.name} second="the opponent" />`;
}

function LendForm({ view, me, act, c }) {
  const friends = view.rules.contestants.filter((o) => o.side === c.side && o.id !== c.id && !o.out && !o.withdrawn);
  const [target, setTarget] = useState(friends[0]?.id ?? "");
  const [ap, setAp] = useState("");
  if (friends.length === 0) return null;
  return html`<${SimpleForm} view=${view} me=${me} act=${act} testid=${`lend-${c.id}`}
    title=${`${c.name}: lend AP instead of acting`} label="Lend AP"
    fields=${html`<div class="grid"><${Select} label="To" name="lend-to" value=${target} onChange=${setTarget} options=${friends.map((o) => [o.id, o.name])} />
      <${Field} type="number" min="1" label="AP to lend" name="lend-ap" value=${ap} onInput=${setAp} hint="The resistance is the AP offered." /></div>`}
    build=${() => ({ type: "extended.lend", lender: c.id, target, ap: Number(ap) })} first=${c.name} second="the resistance" />`;
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
  const build = () => {
    const command = { type: "extended.gift", giver: giver.trim(), rating: rating.trim().toUpperCase(), recipient, bid: Number(bid) };
    if (against) command.opponent = against;
    return command;
  };
  return html`<details class="gift"><summary>Gift AP from someone outside the contest</summary>
    <${SimpleForm} view=${view} me=${me} act=${act} testid="gift" title="A gift of AP" label="Give"
      fields=${html`<div class="grid">
        <${Field} label="Giver (not in the contest)" name="gift-giver" value=${giver} onInput=${setGiver} />
        <${Field} label="Giver's rating" name="gift-rating" value=${rating} onInput=${setRating} />
        <${Select} label="Recipient" name="gift-to" value=${recipient} onChange=${setRecipient} options=${open.map((o) => [o.id, o.name])} />
        <${Select} label="Opponent" name="gift-opponent" value=${against} onChange=${setOpponent}
          options=${[["", "the last one the recipient engaged"], ...foes.map((o) => [o.id, o.name])]}
          hint="The recipient's opponent gains AP if the gift fails." />
        <${Field} type="number" min="1" label="Bid" name="gift-bid" value=${bid} onInput=${setBid} hint="At most the giver's target number; the resistance is twice the bid." />
      </div>`}
      build=${build}
      first="the giver" second="the resistance" />
  </details>`;
}

// The victor's parting shot at the opponent it just defeated: a bid and an action (a duel's once decided).
export function PartingShotForm({ contestant, victim, act, testid = undefined }) {
  const [bid, setBid] = useState("");
  const [action, setAction] = useState("");
  const send = () => {
    const command = { type: "extended.parting_shot", contestant: contestant.id, action };
    if (String(bid).trim() !== "") command.bid = Number(bid);
    return act(command);
  };
  return html`<${ActionForm} run=${send} label="Take the parting shot" testid=${testid}>
    <h3>${contestant.name} may take one parting shot${victim ? ` at ${victim.name}` : ""}</h3>
    <${Field} label="Action" name="ps-action" value=${action} onInput=${setAction} />
    <${Field} type="number" min="1" label="Bid" name="ps-bid" value=${bid} onInput=${setBid} hint="Empty: 3." />
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

// What a group contest adds to this viewer's actions now.
export function GroupActions({ view, me, act }) {
  const rules = view.rules;
  const gm = me.role === "gm";
  const own = rules.contestants.filter((c) => c.controlled_by_you);
  // simple contests need faces with physical dice: the GM types them (for anyone) unless players may
  const typist = view.dice === "server" || rules.players_type_faces;
  const rolling = gm && view.dice === "physical" ? rules.contestants : typist ? own : [];
  const parts = [];
  const shot = rules.shot_under_way;
  const between = betweenTurns(rules);
  if (rules.group && gm && rules.phase === "ready" && rules.acted.length === 0 && between) {
    parts.push(html`<div key="order-by" class="order-by" role="group" aria-label="Order the round">
      ${[["daring", "daring"], ["bid", "bid"], ["ap", "AP total"]].map(
        ([mode, words]) => html`<${ActionButton} key=${mode} label=${`Order by ${words}`} run=${() => act({ type: "extended.order_by", mode })} testid=${`order-${mode}`} />`,
      )}
    </div>`);
  }
  for (const c of own) {
    const waiting = rules.order.includes(c.id) && !rules.acted.includes(c.id) && !c.out && !c.withdrawn;
    if (between && waiting && !rules.delayed.includes(c.id) && rules.next_actor !== null) {
      parts.push(html`<${ActionButton} key=${`delay-${c.id}`} label=${`${c.name}: delay`} run=${() => act({ type: "extended.delay", contestant: c.id })} testid=${`delay-${c.id}`} />`);
    }
    if (between && waiting && rules.delayed.includes(c.id)) {
      parts.push(html`<${ActionButton} key=${`jump-${c.id}`} kind="primary" label=${`${c.name}: jump back in`} run=${() => act({ type: "extended.jump_in", contestant: c.id })} testid=${`jump-${c.id}`} />`);
    }
    if (between && rules.next_actor === c.id) {
      parts.push(html`<${ActionButton} key=${`pass-${c.id}`} label=${`${c.name}: pass this turn`} run=${() => act({ type: "extended.pass_turn", contestant: c.id })} testid=${`pass-turn-${c.id}`} />`);
    }
    if (c.withdrawn && rules.phase !== "decided" && !rules.exchange && !shot) {
      parts.push(html`<${ActionButton} key=${`rejoin-${c.id}`} label=${`${c.name}: rejoin the contest`} run=${() => act({ type: "extended.rejoin", contestant: c.id })} testid=${`rejoin-${c.id}`} />`);
    }
    if (rules.parting_shots[c.id] && rules.phase !== "decided") {
      const victim = byId(view, rules.parting_shots[c.id]);
      parts.push(html`<div key=${`shot-${c.id}`} class="parting" role="group" aria-label=${`Parting shot for ${c.name}`}>
        <${PartingShotForm} contestant=${c} victim=${victim} act=${act} testid=${`shot-${c.id}`} />
        <${ActionButton} label=${`Let ${victim?.name} go`} run=${() => act({ type: "extended.decline_parting_shot", contestant: c.id })} testid=${`decline-${c.id}`} />
      </div>`);
    }
  }
  for (const c of rolling) {
    if (between && rules.next_actor === c.id) {
      parts.push(html`<${DisengageForm} key=${`disengage-${c.id}`} view=${view} me=${me} act=${act} c=${c} />`);
      if (rules.group) parts.push(html`<${LendForm} key=${`lend-${c.id}`} view=${view} me=${me} act=${act} c=${c} />`);
    }
    // a PC's hero points are shown to its player and the GM only
    const canFinal = rules.group && c.out && !c.withdrawn && !c.final_action_used && (c.hero_points ?? 0) > 0;
    if (canFinal && c.ap > -31 && rules.phase !== "decided" && !rules.exchange && !shot && c.hero_points !== null) {
      const pc = !gm || !c.controlled_by_you;
      if (pc) parts.push(html`<${FinalActionForm} key=${`final-${c.id}`} view=${view} me=${me} act=${act} c=${c} />`);
    }
  }
  const x = rules.exchange;
  if (gm && rules.group && x && x.actor_level === "Fumble" && x.defender_level === "Fumble") {
    parts.push(html`<${ActionButton} key="group-tie" label="Both fumbled: both lose ½ the bid (group tie)" run=${() => act({ type: "extended.confirm", group_tie: true })} testid="group-tie" />`);
  }
  // a gift comes from someone outside the contest: the GM's characters, or a player's (who then rolls it)
  if ((gm || (typist && me.role === "player")) && rules.phase !== "decided") {
    parts.push(html`<${GiftForm} key="gift" view=${view} me=${me} act=${act} />`);
  }
  if (gm && rules.phase !== "decided") parts.push(html`<${GrantForm} key="grant" view=${view} act=${act} />`);
  return parts.length ? html`<div class="group-actions">${parts}</div>` : null;
}
