// Changing a revealed action in a group contest of the `extended` ruleset before the contestant acts (seed 000
// §5.3.3 Group Extended Contests: "If your chosen opponent is knocked out before your PC acts, the GM decides if
// you can change your declared action"): the GM allows a player's change, the player then changes the action,
// its bid, daring and targets; the GM may change any contestant's.
import { ActionButton, ActionForm, Field, html } from "../ui.js";
import { useState } from "../vendor/preact-htm.js";
import { GroupIntentFields, betweenTurns, opponentsOf } from "./extended_group.js";
import { bidHint, bidLimit } from "./questworlds.js";

// Still to act this round: in the order, not acted, not out or withdrawn (between turns, so none is under way).
function waiting(rules, c) {
  return rules.order.includes(c.id) && !rules.acted.includes(c.id) && !c.out && !c.withdrawn;
}

function ChangeForm({ view, me, act, contestant }) {
  const previous = view.rules.intents[contestant.id] ?? {};
  const open = opponentsOf(view, contestant.id);
  const still = (previous.targets ?? []).filter((t) => open.some((o) => o.id === t));
  const [action, setAction] = useState(previous.action ?? "");
  const [bid, setBid] = useState(previous.bid ?? "");
  const [daring, setDaring] = useState(previous.daring ?? "bold");
  const [targets, setTargets] = useState(still.length ? still : open.slice(0, 1).map((c) => c.id));
  // a player's contestant may stake up to the larger of current and starting AP; the GM's never more than it has
  const limit = bidLimit(contestant, me.role === "gm" && contestant.controlled_by_you);
  const send = () => {
    const intent = { ...previous, type: "extended.intent", action: action.trim(), daring, targets, bid: null };
    if (String(bid).trim() !== "") intent.bid = Number(bid);
    return act({ type: "extended.change_intent", contestant: contestant.id, intent });
  };
  return html`<${ActionForm} run=${send} label="Change the action" testid=${`change-${contestant.id}`}>
    <h3>${contestant.name}: change the action before acting</h3>
    <${Field} label="Action" name="change-action" value=${action} onInput=${setAction} hint="Everyone sees the new action." />
    <${Field} type="number" label="Bid" name="change-bid" value=${bid} onInput=${setBid} min="1" max=${limit ?? undefined} inputmode="numeric"
      hint=${bidHint(limit)} />
    <${GroupIntentFields} view=${view} contestant=${contestant} daring=${daring} setDaring=${setDaring} targets=${targets} setTargets=${setTargets} />
  <//>`;
}

// The next actor of a group round singles out no opponent still in (its targets are out, or it declared
// none): its exchange cannot be rolled until its action changes, or it passes its turn.
export function targetsOut(view) {
  const rules = view.rules;
  const actor = rules.next_actor;
  if (!rules.group || !actor || rules.shot_under_way || rules.targets_left.length > 0) return false;
  const intent = rules.intents[actor];
  if (intent?.kind === "unrelated") return false;
  return !opponentsOf(view, actor).some((c) => (intent?.targets ?? []).includes(c.id));
}

// A new form (its fields filled afresh) whenever the revealed intent or the opponents still in change.
function formKey(view, c) {
  const open = opponentsOf(view, c.id).map((o) => o.id);
  return `change-${c.id}-${open.join(",")}-${JSON.stringify(view.rules.intents[c.id] ?? null)}`;
}

// The GM's leave to change an action, and the forms to change one, for this viewer now.
export function ChangeActions({ view, me, act }) {
  const rules = view.rules;
  if (!rules.group || !betweenTurns(rules)) return null;
  const gm = me.role === "gm";
  const allowed = rules.changes_allowed ?? [];
  const still = rules.contestants.filter((c) => waiting(rules, c));
  const parts = [];
  if (gm) {
    // a player's contestant needs the GM's leave; the GM changes its own contestants' actions directly
    const asking = still.filter((c) => !c.controlled_by_you && !allowed.includes(c.id));
    if (asking.length) {
      parts.push(html`<div key="allow" class="allow-change" role="group" aria-label="Allow a change of action">
        ${asking.map(
          (c) => html`<${ActionButton} key=${c.id} label=${`Allow ${c.name} to change its action`} run=${() => act({ type: "extended.allow_change", contestant: c.id })} testid=${`allow-change-${c.id}`} />`,
        )}
      </div>`);
    }
    for (const c of still) {
      parts.push(html`<details key=${formKey(view, c)} class="change" data-testid=${`change-open-${c.id}`}><summary>Change ${c.name}'s action</summary>
        <${ChangeForm} view=${view} me=${me} act=${act} contestant=${c} />
      </details>`);
    }
  } else {
    for (const c of still.filter((c) => c.controlled_by_you && allowed.includes(c.id))) {
      parts.push(html`<${ChangeForm} key=${formKey(view, c)} view=${view} me=${me} act=${act} contestant=${c} />`);
    }
  }
  return parts.length ? html`<div class="change-actions">${parts}</div>` : null;
}
