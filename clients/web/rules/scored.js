// Panels of the `scored` ruleset (QuestWorlds scored sequence: rounds, resolution points, followers, assists).
// See docs/web.md for the interface every ruleset module implements and docs/rules/scored.md for the rules.
import { ActionButton, ActionForm, Check, Field, Select, html, slug } from "../ui.js";
import { registerRuleset } from "./registry.js";
import { actionsBox, andList, namedText } from "./questworlds.js";
import { useState } from "../vendor/preact-htm.js";
import { DiceRow } from "../dice.js";
import { FaceField } from "../faces.js";

const RATING = /^\s*\d+\s*$|^\s*\d+\s*[WwMm]\s*\d*\s*$/;
const SIDES = [["heroes", "the heroes"], ["opposition", "the opposition"]];
const ROLES = [
  ["main", "a main contestant (PC or NPC)"],
  ["contestant", "a follower fighting as a contestant (out at 3 RP in one round)"],
  ["secondary", "a follower as secondary contestant (takes RP shifted by its leader; out at 3)"],
  ["supporter", "a follower as supporter (assists only)"],
];
const TACTICS = [
  ["none", "no special tactic"],
  ["gambit", "risky gambit: +1 RP if I win, the opponent +2 if I lose"],
  ["defensive", "defensive response: −1 RP if I win, 2 fewer against me if I lose"],
];
const COLOURS = ["#1f5fbf", "#b3261e", "#2e7d32", "#8e24aa", "#e65100", "#00838f"];

function contestant(side, player) {
  return { name: "", side, ability: "", rating: "", story_points: "0", player, role: "main", leader: "", joins_later: false };
}

function newSetup() {
  return {
    prize: "",
    assist_resistance: "10",
    players_type_faces: false,
    story_point_window: "always",
    contestants: [contestant("heroes", "Player 1"), contestant("opposition", "")],
  };
}

// --- the creation form ---------------------------------------------------------------------------------

function SetupForm({ setup, onChange, errors }) {
  const set = (key, value) => onChange({ ...setup, [key]: value });
  const setContestant = (i, key, value) =>
    onChange({ ...setup, contestants: setup.contestants.map((c, j) => (j === i ? { ...c, [key]: value } : c)) });
  const add = () => onChange({ ...setup, contestants: [...setup.contestants, contestant("heroes", "")] });
  const remove = (i) => onChange({ ...setup, contestants: setup.contestants.filter((_, j) => j !== i) });
  return html`
    <${Field} label="Prize" name="prize" value=${setup.prize} onInput=${(v) => set("prize", v)} error=${errors.prize}
      hint="What the sequence is about (e.g. “hold the bridge”)." testid="prize" />
    <fieldset class="settings">
      <legend>Settings</legend>
      <${Field} label="Base assist resistance" name="assist_resistance" value=${setup.assist_resistance}
        onInput=${(v) => set("assist_resistance", v)} error=${errors.assist_resistance}
        hint="The first assist to a beneficiary faces this (default 10); each later one +5." />
      <${Check} label="Players type the faces of their own rolls (physical dice)" checked=${setup.players_type_faces}
        onChange=${(v) => set("players_type_faces", v)} hint="Default off: the GM types every face rolled at the table." />
      <${Select} label="After each roll" name="story_point_window" value=${setup.story_point_window}
        onChange=${(v) => set("story_point_window", v)} options=${[["always", "always (default): every player in the contest lets it stand or spends story points"], ["when_it_matters", "only for those holding story points (faster, but shows who holds them)"]]}
        hint="Waiting for every player keeps story points secret." />
    </fieldset>
    ${setup.contestants.map(
      (c, i) => html`<fieldset class="contestant-setup" key=${i}>
        <legend>Contestant ${i + 1}${c.name ? `: ${c.name}` : ""}</legend>
        <div class="grid">
          <${Field} label="Name" name=${`c${i}-name`} value=${c.name} onInput=${(v) => setContestant(i, "name", v)} error=${errors[`c${i}.name`]} testid=${`c${i}-name`} />
          <${Select} label="Side" name=${`c${i}-side`} value=${c.side} onChange=${(v) => setContestant(i, "side", v)} options=${SIDES} />
          <${Field} label="Ability" name=${`c${i}-ability`} value=${c.ability} onInput=${(v) => setContestant(i, "ability", v)} testid=${`c${i}-ability`} />
          <${Field} label="Rating" name=${`c${i}-rating`} value=${c.rating} onInput=${(v) => setContestant(i, "rating", v)}
            error=${errors[`c${i}.rating`]} hint="A target number, W and masteries: 14, 5W, 5W2." testid=${`c${i}-rating`} />
          <${Field} label="Played by (player's name)" name=${`c${i}-player`} value=${c.player} onInput=${(v) => setContestant(i, "player", v)}
            hint="Empty: run by the GM (a follower is played by its leader's player)." testid=${`c${i}-player`} />
        </div>
        <details>
          <summary>Follower, story points, late arrival</summary>
          <div class="grid">
            <${Select} label="Role" name=${`c${i}-role`} value=${c.role} onChange=${(v) => setContestant(i, "role", v)} options=${ROLES} />
            <${Field} label="Follower of (leader's name)" name=${`c${i}-leader`} value=${c.leader} onInput=${(v) => setContestant(i, "leader", v)}
              error=${errors[`c${i}.leader`]} hint="For a follower only." />
            <${Field} type="number" min="0" max="100" label="Story points" name=${`c${i}-story`} value=${c.story_points}
              onInput=${(v) => setContestant(i, "story_points", v)} error=${errors[`c${i}.story_points`]} hint="Each adds a success after the dice." />
            <${Check} label="Joins later (shares a comrade's tally)" checked=${c.joins_later} onChange=${(v) => setContestant(i, "joins_later", v)} />
          </div>
        </details>
        ${setup.contestants.length > 2 && html`<button type="button" class="link" onClick=${() => remove(i)}>Remove ${c.name || `contestant ${i + 1}`}</button>`}
      </fieldset>`,
    )}
    <p><button type="button" onClick=${add} data-testid="add-contestant">Add a contestant</button></p>`;
}

function buildContest(setup) {
  const errors = {};
  if (!setup.prize.trim()) errors.prize = "Say what the sequence is about.";
  if (!RATING.test(setup.assist_resistance)) errors.assist_resistance = "Write a rating like 10 or 5W.";
  const ids = new Set();
  const byName = new Map();
  const rows = setup.contestants.map((c, i) => {
    if (!c.name.trim()) errors[`c${i}.name`] = "A name is needed.";
    if (!RATING.test(c.rating)) errors[`c${i}.rating`] = "Write a rating like 14, 5W or 5W2.";
    const points = Number(String(c.story_points).trim() || "0");
    if (!Number.isInteger(points) || points < 0 || points > 100) errors[`c${i}.story_points`] = "a whole number from 0 to 100";
    const id = slug(c.name, ids);
    byName.set(c.name.trim().toLowerCase(), id);
    return { c, i, id, points };
  });
  const seats = new Map();
  const seatIds = new Set(["gm"]);
  const playerOf = new Map();
  for (const { c, id } of rows) if (c.role === "main" && c.player.trim()) playerOf.set(id, c.player.trim());
  const contestants = rows.map(({ c, i, id, points }) => {
    const wire = { id, name: c.name.trim(), side: c.side, ability: c.ability.trim(), rating: c.rating.replace(/\s+/g, "").toUpperCase(), story_points: points };
    let player = c.player.trim();
    if (c.role !== "main") {
      const leader = byName.get(c.leader.trim().toLowerCase());
      if (!leader) errors[`c${i}.leader`] = "Name the leader this follower belongs to.";
      wire.role = c.role;
      wire.follower_of = leader ?? "";
      player = leader ? playerOf.get(leader) ?? "" : "";
    }
    if (c.joins_later) wire.joins_later = true;
    if (player) {
      if (!seats.has(player)) seats.set(player, { id: slug(player, seatIds), role: "player", contestants: [], name: player });
      seats.get(player).contestants.push(id);
    }
    return wire;
  });
  return {
    errors,
    setup: { type: "scored.setup", prize: setup.prize.trim(), contestants, assist_resistance: setup.assist_resistance.trim().toUpperCase(), players_type_faces: setup.players_type_faces, story_point_window: setup.story_point_window },
    seats: [...seats.values()],
  };
}

function fieldOf(message) {
  const match = /contestants\[(\d+)\](?:\.(\w+))?/.exec(message ?? "");
  if (match) return `c${match[1]}.${match[2] === "follower_of" ? "leader" : match[2] ?? "rating"}`;
  if (/assist_resistance/.test(message ?? "")) return "assist_resistance";
  if (/prize/.test(message ?? "")) return "prize";
  return null;
}

// --- reading the view ----------------------------------------------------------------------------------

const PHASES = {
  between: "Between rounds",
  declaring: "Choosing tactics (sealed)",
  ready: "Tactics revealed: roll",
  rolled: "Dice rolled",
  decided: "Decided",
};

function phaseText(view) {
  const rules = view.rules;
  if (view.concluded) return "The sequence is over";
  return `Round ${rules.round} · ${PHASES[rules.phase] ?? rules.phase}`;
}

function names(view) {
  return Object.fromEntries(view.rules.contestants.map((c) => [c.id, c.name]));
}

function mine(view) {
  return view.rules.contestants.filter((c) => c.controlled_by_you).map((c) => c.id);
}

// A side in words ("the heroes"), never its key.
function sideWords(side) {
  return SIDES.find(([key]) => key === side)?.[1] ?? side;
}

const ROLE_WORDS = { main: "", contestant: "follower, contestant", secondary: "follower, secondary contestant", supporter: "follower, supporter" };
const OUT_WORDS = { tally: "out: its tally", round: "out: 3 RP in one round", engaged: "out: engaged and removed" };

// A party's d20 as a die: its face, with its successes (story points included) under it.
function partyDie(who, party, spent) {
  const name = party.contestant ? `${who[party.contestant]}'s` : "the resistance's";
  const total = party.successes + (spent ?? 0);
  const count = `${total} success${total === 1 ? "" : "es"}`;
  const label = `${name} d20 showing ${party.face}, ${count}${spent ? ` with ${spent} story point${spent > 1 ? "s" : ""}` : ""}`;
  return { sides: 20, face: party.face, label: label[0].toUpperCase() + label.slice(1), tone: total >= 2 ? "best" : total === 1 ? "ok" : "", note: count };
}

const KIND_WORDS = { round: "round", assist: "assist", engage_follower: "engagement of a follower", parting_shot: "parting shot" };

// The dice of the last contest as rows ({caption, dice, roll}): the one waiting for story points, else the last one
// resolved (`rules.last_roll`), whose winning die is marked. The same roll keeps the same key in both.
function lastDice(view) {
  const rules = view.rules;
  const who = names(view);
  const roll = rules.pending ?? rules.last_roll;
  if (!roll) return [];
  const round = rules.pending ? rules.round : roll.round;
  const dice = [roll.first, roll.second].map((party, i) => {
    const die = partyDie(who, party, roll.spent[party.contestant]);
    return !rules.pending && roll.won === i ? { ...die, kept: true, label: `${die.label}, the winning die`, note: `${die.note} · wins` } : die;
  });
  const what = `${KIND_WORDS[roll.kind] ?? roll.kind}${roll.target ? ` for ${who[roll.target]}` : ""}`;
  const caption = rules.pending ? "The dice" : `Last roll: the ${what}${roll.won === null ? ", a standoff" : ""}`;
  return [{ caption, dice, roll: `${roll.kind}-${round}-${roll.first.contestant}-${roll.second.contestant}-${roll.first.face}-${roll.second.face}` }];
}

function partyWords(who, party, spent) {
  const name = party.contestant ? who[party.contestant] : "the resistance";
  const extra = spent ? ` + ${spent} story point${spent > 1 ? "s" : ""}` : "";
  return `${name} (${party.rating}) rolled ${party.face}: ${party.successes} success${party.successes === 1 ? "" : "es"}${extra}`;
}

// The RP over the resolved contests, one line per tally of the main contestants (those who joined a comrade
// share its line); an SVG, and the same numbers in a table.
function RpChart({ view }) {
  const rules = view.rules;
  const lines = [];
  for (const c of rules.contestants.filter((c) => c.role === "main" && c.present)) {
    const line = lines.find((l) => l.tally === c.tally);
    if (line) line.name = `${line.name} & ${c.name}`;
    else lines.push({ id: c.id, tally: c.tally, name: c.name });
  }
  const points = rules.chart;
  if (points.length === 0) return html`<p class="chart-empty">The RP chart starts with the first round.</p>`;
  const top = Math.max(5, ...points.flatMap((p) => Object.values(p.tallies)));
  const width = 320;
  const height = 140;
  const x = (i) => 24 + (i * (width - 36)) / Math.max(1, points.length - 1);
  const y = (rp) => height - 18 - (rp * (height - 30)) / top;
  return html`<figure class="chart" data-testid="rp-chart">
    <figcaption>Resolution points against each contestant, contest by contest (5 loses)</figcaption>
    <ul class="legend">${lines.map((l, i) => html`<li key=${l.id}><svg width="12" height="12" aria-hidden="true"><rect width="12" height="12" fill=${COLOURS[i % COLOURS.length]} /></svg> ${l.name}</li>`)}</ul>
    <svg viewBox=${`0 0 ${width} ${height}`} role="img" aria-label="RP chart" class="rp-chart">
      <line x1="24" x2=${width - 12} y1=${y(5)} y2=${y(5)} stroke="#999" stroke-dasharray="4 3" />
      <text x="2" y=${y(5) + 4} font-size="10" fill="#555">5</text>
      <text x="2" y=${y(0) + 4} font-size="10" fill="#555">0</text>
      ${lines.map(
        (l, i) => html`<polyline key=${l.id} fill="none" stroke=${COLOURS[i % COLOURS.length]} stroke-width="2"
          points=${points.map((p, j) => `${x(j)},${y(p.tallies[l.tally] ?? 0)}`).join(" ")} />`,
      )}
    </svg>
    <table class="sr-only" data-testid="rp-table"><caption>RP by contest</caption>
      <thead><tr><th scope="col">contest</th>${lines.map((l) => html`<th scope="col" key=${l.id}>${l.name}</th>`)}</tr></thead>
      <tbody>${points.map((p, j) => html`<tr key=${j}><th scope="row">${j + 1}: ${p.kind === "round" ? `round ${p.round}` : p.kind.replace("_", " ")}</th>
        ${lines.map((l) => html`<td key=${l.id}>${p.tallies[l.tally] ?? 0}</td>`)}</tr>`)}</tbody>
    </table>
  </figure>`;
}

function Outcome({ view }) {
  const outcome = view.rules.outcome;
  if (!outcome) return null;
  const who = names(view);
  return html`<section class="outcome" aria-labelledby="outcome-title" data-testid="outcome">
    <h2 id="outcome-title">Outcome: ${sideWords(outcome.winner)} win over ${sideWords(outcome.loser)}</h2>
    <ul>${outcome.outcomes.map((o) => html`<li key=${o.contestant}><strong>${who[o.contestant]}</strong>:
      ${o.victory ? "victory" : "defeat"} of degree ${o.degree} (${o.rp_for}–${o.rp_against} against ${who[o.opponent]})</li>`)}</ul>
  </section>`;
}

function Board({ view }) {
  const rules = view.rules;
  const who = names(view);
  const sides = [...new Set(rules.contestants.map((c) => c.side))];
  const tactics = Object.entries(rules.tactics);
  const pending = rules.pending;
  return html`<section class="panel board" aria-labelledby="board-title">
    <h2 id="board-title">${rules.prize ? `For ${rules.prize}` : "The sequence"}</h2>
    <p class="phase" data-testid="phase">${phaseText(view)}${rules.initiative ? ` · ${who[rules.initiative]} has the initiative against ${who[rules.responder]}` : ""}</p>
    ${sides.map(
      (side) => html`<div class="contestants" key=${side}><h3>${sideWords(side).replace(/^the /, "The ")}</h3>
        ${rules.contestants.filter((c) => c.side === side).map(
          (c) => html`<article class=${`contestant ${c.controlled_by_you ? "yours" : ""} ${c.out ? "out" : ""}`} key=${c.id} data-testid=${`contestant-${c.id}`}>
            <h4>${c.name}${c.controlled_by_you ? html` <span class="tag">yours</span>` : ""}</h4>
            <p class="ability">${c.ability} ${c.rating}${c.role !== "main" ? html` <small>(${ROLE_WORDS[c.role]} of ${who[c.follower_of]})</small>` : ""}</p>
            <p class="ap"><span class="ap-value" data-testid=${`rp-${c.id}`}>${c.rp}</span> RP against${c.tally !== c.id ? ` (shared with ${who[c.tally]})` : ""}</p>
            ${rules.score[c.id] && html`<p class="score" data-testid=${`score-${c.id}`}>${rules.score[c.id]}</p>`}
            ${c.story_points !== null && html`<p>Story points: <span data-testid=${`story-${c.id}`}>${c.story_points}</span></p>`}
            ${!c.present && html`<p class="tag">not yet in the sequence</p>`}
            ${!c.out && (c.engaged_with ?? []).length > 0 && html`<p class="engaged" data-testid=${`engaged-${c.id}`}>in the rounds with ${c.engaged_with.map((o) => who[o]).join(", ")}</p>`}
            ${c.out && html`<p class="tag bad">${OUT_WORDS[c.out]}</p>`}
          </article>`,
        )}
      </div>`,
    )}
    ${tactics.length > 0 && html`<div class="intents" data-testid="tactics"><h3>Revealed tactics</h3><ul>
      ${tactics.map(([id, t]) => html`<li key=${id}><strong>${who[id]}</strong>: ${TACTICS.find(([k]) => k === t.tactic)[1].split(":")[0]}${t.action ? ` — “${t.action}”` : ""}${t.ability ? ` (with ${t.ability} ${t.rating})` : ""}</li>`)}
    </ul></div>`}
    ${pending && html`<div class="exchange" data-testid="pending"><h3>${pending.kind.replace("_", " ")}${pending.target ? ` for ${who[pending.target]}` : ""}</h3>
      <ul class="dice"><li>${partyWords(who, pending.first, pending.spent[pending.first.contestant])}</li><li>${partyWords(who, pending.second, pending.spent[pending.second.contestant])}</li></ul>
      ${lastDice(view).map((row) => html`<${DiceRow} key=${row.roll} caption=${row.caption} roll=${row.roll} dice=${row.dice} />`)}
      ${pending.waiting_for.length > 0 && html`<p class="waiting">Waiting for ${andList(pending.waiting_for.map((c) => who[c]))} to let the result stand or spend story points</p>`}
    </div>`}
    ${rules.last && !pending && html`<p class="last" data-testid="last">Last ${rules.last.kind.replace("_", " ")}: ${namedText(rules.last.result, who)}</p>`}
    ${!pending && lastDice(view).map((row) => html`<${DiceRow} key=${row.roll} caption=${row.caption} roll=${row.roll} dice=${row.dice} testid="last-roll-dice" />`)}
    ${rules.phase === "ready" && !view.concluded && html`<p class="waiting" data-testid="waiting-for">Waiting for the roll of the round: ${view.dice === "physical" ? "the faces rolled at the table" : "the dice"}${rules.players_type_faces && view.dice === "physical" ? ", typed by the GM or a player in it" : ", from the GM"}.</p>`}
    <${RpChart} view=${view} />
    <${Outcome} view=${view} />
  </section>`;
}

// --- actions -------------------------------------------------------------------------------------------

function options(list, who) {
  return list.map((c) => [c.id, who[c.id]]);
}

// A choice among `list` (contestants) that follows the list: when an earlier choice changes it, the one picked
// here falls back to the first still offered.
function useChoice(list) {
  const [picked, setPicked] = useState(list[0]?.id ?? "");
  return [list.some((c) => c.id === picked) ? picked : list[0]?.id ?? "", setPicked];
}

function FacesFields({ view, labels, faces, setFaces }) {
  if (view.dice !== "physical") return null;
  return html`<div class="grid faces-grid">${labels.map(
    (label, i) => html`<${FaceField} key=${i} sides=${20} label=${`${label}'s die`} name=${`face-${i}`}
      value=${faces[i]} onInput=${(v) => setFaces(faces.map((f, j) => (j === i ? v : f)))} testid=${`face-${i}`} />`,
  )}</div>`;
}

function withFaces(view, command, faces) {
  return view.dice === "physical" ? { ...command, faces: faces.map((f) => Number(f)) } : command;
}

function StartRoundForm({ view, act }) {
  const rules = view.rules;
  const who = names(view);
  const fighters = rules.contestants.filter((c) => (c.role === "main" || c.role === "contestant") && c.present && !c.out);
  const [first, setFirst] = useState(fighters[0]?.id ?? "");
  const [second, setSecond] = useState(fighters.find((c) => c.side !== fighters[0]?.side)?.id ?? "");
  return html`<${ActionForm} run=${() => act({ type: "scored.start_round", initiative: first, responder: second })} label="Start the round" testid="start-round">
    <h3>Round ${rules.round + 1}: who has the initiative?</h3>
    <div class="grid">
      <${Select} label="Initiative (chooses tactics first)" name="initiative" value=${first} onChange=${setFirst} options=${options(fighters, who)} />
      <${Select} label="Responder" name="responder" value=${second} onChange=${setSecond} options=${options(fighters, who)} />
    </div>
  <//>`;
}

function TacticForm({ contestant, act, declared }) {
  const previous = declared?.payload ?? null;
  const [tactic, setTactic] = useState(previous?.tactic ?? "none");
  const [action, setAction] = useState(previous?.action ?? "");
  const send = () => act({ type: "seal.declare", participant: contestant.id, payload: { type: "scored.tactic", tactic, action: action.trim() } });
  return html`<${ActionForm} run=${send} label=${declared ? "Replace my sealed tactic" : "Seal my tactic"} testid=${`tactic-${contestant.id}`}>
    <h3>${contestant.name}: your tactic this round (sealed until both have chosen)</h3>
    <${Select} label="Tactic" name="tactic" value=${tactic} onChange=${setTactic} options=${TACTICS} />
    <${Field} label="Action" name="action" value=${action} onInput=${setAction} hint="What you do; everyone sees it at the reveal." testid="tactic-action" />
  <//>`;
}

function RollForm({ view, act }) {
  const rules = view.rules;
  const who = names(view);
  const [faces, setFaces] = useState(["", ""]);
  return html`<${ActionForm} run=${() => act(withFaces(view, { type: "scored.roll" }, faces))} label=${view.dice === "physical" ? "Enter the faces" : "Roll the round"} testid="roll">
    <${FacesFields} view=${view} labels=${[who[rules.initiative], who[rules.responder]]} faces=${faces} setFaces=${setFaces} />
  <//>`;
}

function AssistForm({ view, act, helpers }) {
  const rules = view.rules;
  const who = names(view);
  const [helper, setHelper] = useState(helpers[0]?.id ?? "");
  const side = rules.contestants.find((c) => c.id === helper)?.side;
  const tallyOf = rules.contestants.find((c) => c.id === helper)?.tally;
  // a teammate in the sequence, never one sharing the helper's own tally
  const mates = rules.contestants.filter((c) => c.side === side && c.tally !== tallyOf && c.present && !c.out);
  const [beneficiary, setBeneficiary] = useChoice(mates); // follows the helper
  const [faces, setFaces] = useState(["", ""]);
  const target = rules.contestants.find((c) => c.id === beneficiary);
  const resistance = target ? rules.next_assist[target.tally] : "?";
  const send = () => act(withFaces(view, { type: "scored.assist", helper, beneficiary }, faces));
  return html`<details class="assist"><summary>Assist a teammate</summary>
    <${ActionForm} run=${send} label="Assist" kind="" testid="assist">
      <div class="grid">
        <${Select} label="Helper" name="assist-helper" value=${helper} onChange=${setHelper} options=${options(helpers, who)} />
        <${Select} label="Beneficiary" name="assist-beneficiary" value=${beneficiary} onChange=${setBeneficiary} options=${options(mates, who)} />
      </div>
      <p data-testid="assist-resistance">Resistance ${resistance} (+5 for each earlier assist to the same beneficiary, whoever made it).</p>
      <${FacesFields} view=${view} labels=${["The helper", "The resistance"]} faces=${faces} setFaces=${setFaces} />
    <//>
  </details>`;
}

function ShiftForm({ view, act, leader }) {
  const rules = view.rules;
  const who = names(view);
  const followers = rules.contestants.filter((c) => c.follower_of === leader.id && c.role === "secondary" && !c.out);
  const [follower, setFollower] = useState(followers[0]?.id ?? "");
  const [points, setPoints] = useState("1");
  if (followers.length === 0 || leader.rp === 0) return null;
  return html`<${ActionForm} run=${() => act({ type: "scored.shift_points", contestant: leader.id, follower, points: Number(points) })} label="Shift RP" kind="" testid=${`shift-${leader.id}`}>
    <div class="grid">
      <${Select} label=${`Shift RP from ${leader.name} to`} name=${`shift-${leader.id}-to`} value=${follower} onChange=${setFollower} options=${options(followers, who)} />
      <${Field} type="number" min="1" max=${leader.rp} label="Points" name=${`shift-${leader.id}-points`} value=${points} onInput=${setPoints}
        hint=${`At most ${leader.rp} RP, the RP against ${leader.name}.`} />
    </div>
  <//>`;
}

function PartingShotForm({ view, act, shooters, targets }) {
  const who = names(view);
  const [shooter, setShooter] = useState(shooters[0]?.id ?? "");
  const [target, setTarget] = useState(targets[0]?.id ?? "");
  const [faces, setFaces] = useState(["", ""]);
  return html`<details class="parting-shot" open><summary>Parting shot</summary>
    <${ActionForm} run=${() => act(withFaces(view, { type: "scored.parting_shot", shooter, target }, faces))} label="Take the parting shot" kind="" testid="parting-shot">
      <div class="grid">
        <${Select} label="Shooter" name="ps-shooter" value=${shooter} onChange=${setShooter} options=${options(shooters, who)} />
        <${Select} label="Target (just taken out)" name="ps-target" value=${target} onChange=${setTarget} options=${options(targets, who)} />
      </div>
      <${FacesFields} view=${view} labels=${["The shooter", "The target"]} faces=${faces} setFaces=${setFaces} />
    <//>
  </details>`;
}

// An otherwise unengaged opponent tries to remove an opposing follower (§5.2.1.3). What the opponent brings is named
// by whoever controls it: the GM's resistance for an NPC, a player's ability for its follower; empty fields
// bring the opponent's own.
function EngageForm({ view, act, opponents, gm }) {
  const rules = view.rules;
  const who = names(view);
  const [opponent, setOpponent] = useChoice(opponents); // follows who may engage now
  const engager = rules.contestants.find((c) => c.id === opponent);
  const followers = rules.contestants.filter((c) => c.follower_of && c.side !== engager?.side && c.present && !c.out);
  const [follower, setFollower] = useChoice(followers); // follows the opponent
  const [ability, setAbility] = useState("");
  const [rating, setRating] = useState("");
  const [faces, setFaces] = useState(["", ""]);
  const own = engager ? `${engager.ability} ${engager.rating}`.trim() : "";
  const send = () => {
    const command = { type: "scored.engage_follower", opponent, follower };
    // both or neither: one alone is refused with the server's explanation
    if (ability.trim()) command.ability = ability.trim();
    if (rating.trim()) command.rating = rating.replace(/\s+/g, "").toUpperCase();
    return act(withFaces(view, command, faces));
  };
  return html`<details class="engage"><summary>Engage an opposing follower</summary>
    <${ActionForm} run=${send} label="Engage" kind="" testid="engage">
      <div class="grid">
        <${Select} label="Who engages" name="engage-opponent" value=${opponent} onChange=${setOpponent} options=${options(opponents, who)} />
        <${Select} label="Follower to remove" name="engage-follower" value=${follower} onChange=${setFollower} options=${options(followers, who)} />
        <${Field} label=${gm ? "Resistance: ability" : "Ability brought"} name="engage-ability" value=${ability} onInput=${setAbility} />
        <${Field} label=${gm ? "Resistance: rating" : "Rating"} name="engage-rating" value=${rating} onInput=${setRating}
          hint=${`Both, or neither to bring ${own ? `${who[opponent]}'s own ${own}` : "its own"}. The follower rolls its own rating; any failure removes it.`} />
      </div>
      <${FacesFields} view=${view} labels=${["The one engaging", "The follower"]} faces=${faces} setFaces=${setFaces} />
    <//>
  </details>`;
}

// A late arrival joins a comrade of its side already in the sequence and shares its tally (§5.2.7).
function JoinForm({ view, act, newcomers }) {
  const rules = view.rules;
  const who = names(view);
  const [contestant, setContestant] = useState(newcomers[0]?.id ?? "");
  const side = rules.contestants.find((c) => c.id === contestant)?.side;
  // only a main contestant who rolls the rounds: never a follower (rules/not_a_comrade)
  const comrades = rules.contestants.filter((c) => c.side === side && c.role === "main" && c.present && !c.out);
  const [comrade, setComrade] = useChoice(comrades); // follows the newcomer
  return html`<details class="join"><summary>A late arrival joins</summary>
    <${ActionForm} run=${() => act({ type: "scored.join", contestant, comrade })} label="Join" kind="" testid="join">
      <div class="grid">
        <${Select} label="Late arrival" name="join-contestant" value=${contestant} onChange=${setContestant} options=${options(newcomers, who)} />
        <${Select} label="Joins (shares the tally of)" name="join-comrade" value=${comrade} onChange=${setComrade} options=${options(comrades, who)}
          hint="From now on both share one tally: its RP count against both." />
      </div>
    <//>
  </details>`;
}

function AdjustForm({ view, act }) {
  const rules = view.rules;
  const [who, setWho] = useState(rules.contestants[0]?.id ?? "");
  const [delta, setDelta] = useState("");
  const [reason, setReason] = useState("");
  return html`<details class="adjust"><summary>Correct a tally</summary>
    <${ActionForm} run=${() => act({ type: "scored.adjust", contestant: who, delta: Number(delta), reason })} label="Adjust" kind="">
      <div class="grid">
        <${Select} label="Contestant" name="adjust-who" value=${who} onChange=${setWho} options=${rules.contestants.map((c) => [c.id, c.name])} />
        <${Field} type="number" label="RP change (+/−)" name="adjust-delta" value=${delta} onInput=${setDelta} />
        <${Field} label="Reason" name="adjust-reason" value=${reason} onInput=${setReason} hint="Shown in the log." />
      </div>
    <//>
  </details>`;
}

// What this viewer can do now, and nothing it cannot, in the order it comes: the round's start, the sealed
// tactics, the roll, the answers after the dice, then what comes between rounds. Null when nothing here is for
// this viewer (the board says what the sequence waits for).
function Actions({ view, me, act }) {
  const rules = view.rules;
  const gm = me.role === "gm";
  const who = names(view);
  const typesFaces = view.dice === "server" || gm || rules.players_type_faces;
  const own = rules.contestants.filter((c) => c.controlled_by_you); // the GM's: those no player controls
  const active = (c) => c.present && !c.out;
  if (view.concluded) return null;
  const items = [];
  const add = (node, control = true) => node && items.push({ node, control });
  if (rules.phase === "between" && gm) add(html`<${StartRoundForm} key="start" view=${view} act=${act} />`);
  if (rules.phase === "declaring" && view.seal) {
    for (const c of own.filter((c) => view.seal.expected.includes(c.id))) {
      const declared = view.seal.declared.find((d) => d.participant === c.id);
      add(html`<${TacticForm} key=${`tactic-${c.id}`} contestant=${c} act=${act} declared=${declared} />`);
    }
    const missing = view.seal.expected.filter((p) => !view.seal.declared.some((d) => d.participant === p));
    if (gm && missing.length > 0 && missing.every((p) => !own.some((c) => c.id === p))) {
      add(html`<p key="sealing" class="waiting" data-testid="waiting-intents">Waiting for ${andList(missing.map((p) => who[p] ?? p))} to seal ${missing.length > 1 ? "their tactics" : "a tactic"}.</p>`, false);
    }
  }
  if (rules.phase === "ready") {
    const inRound = [rules.initiative, rules.responder].some((id) => own.some((c) => c.id === id));
    if (gm || (inRound && typesFaces)) add(html`<${RollForm} key="roll" view=${view} act=${act} />`);
  }
  if (rules.phase === "rolled" && rules.pending) {
    // every player in the contest answers (let it stand), whether or not it holds story points; the spend
    // button only for one that holds some
    for (const c of own) {
      const spend = (rules.pending.may_spend ?? []).includes(c.id);
      if (!spend && !rules.pending.waiting_for.includes(c.id)) continue;
      add(html`<div key=${`story-${c.id}`} class="hero-prompt" role="group" aria-label=${`After the dice for ${c.name}`}>
        <p>${spend ? `${c.name} may spend a story point (${c.story_points} left): one more success.` : `The dice are down for ${c.name}: let the result stand to go on.`}</p>
        ${spend && html`<${ActionButton} kind="primary" label="Spend a story point" run=${() => act({ type: "scored.spend_story_point", contestant: c.id })} testid=${`spend-${c.id}`} />`}
        <${ActionButton} kind=${spend ? "" : "primary"} label="Let it stand" run=${() => act({ type: "scored.keep_story_points", contestant: c.id })} testid=${`keep-${c.id}`} />
      </div>`);
    }
    const waiting = rules.pending.waiting_for ?? [];
    if (gm && waiting.length > 0) {
      add(html`<div key="confirm" class="qw-order">
        <${ActionButton} label="Resolve now" run=${() => act({ type: "scored.confirm" })} testid="confirm" />
        <small class="hint">Without waiting for ${andList(waiting.map((c) => who[c]))}.</small>
      </div>`);
    }
  }
  if (rules.phase === "between" || rules.phase === "decided") {
    const helpers = own.filter(active);
    // parting shots: at opponents taken out since the last round started; after the decision, the winners'
    const taken = rules.contestants.filter((c) => (rules.parting_shot_targets ?? []).includes(c.id));
    if (rules.phase === "between" && typesFaces && helpers.length > 0) add(html`<${AssistForm} key="assist" view=${view} act=${act} helpers=${helpers} />`);
    // only an otherwise unengaged opponent (engaged in the rounds with nobody still in), never a supporter;
    // the form only while some opposing follower is still in
    const engagers = helpers.filter((c) => c.role !== "supporter" && (c.engaged_with ?? []).length === 0 && rules.contestants.some((f) => f.follower_of && f.side !== c.side && active(f)));
    if (rules.phase === "between" && typesFaces && engagers.length > 0) add(html`<${EngageForm} key="engage" view=${view} act=${act} opponents=${engagers} gm=${gm} />`);
    for (const target of taken) {
      // a supporter strikes no opponent (rules/supporter_does_not_engage)
      const shooters = helpers.filter((c) => c.role !== "supporter" && c.side !== target.side && (!rules.outcome || c.side === rules.outcome.winner));
      if (shooters.length > 0 && typesFaces) {
        add(html`<${PartingShotForm} key=${`ps-${target.id}`} view=${view} act=${act} shooters=${shooters} targets=${taken.filter((t) => t.side === target.side)} />`);
        break;
      }
    }
  }
  if (rules.phase !== "decided") {
    for (const c of own.filter((c) => c.role === "main" && active(c))) {
      const followers = rules.contestants.some((f) => f.follower_of === c.id && f.role === "secondary" && !f.out);
      if (followers && c.rp > 0) add(html`<${ShiftForm} key=${`shift-${c.id}`} view=${view} act=${act} leader=${c} />`);
    }
    // the GM brings in anyone; a player its own late arrivals
    const newcomers = (gm ? rules.contestants : own).filter((c) => !c.present && rules.contestants.some((m) => m.side === c.side && active(m)));
    if (newcomers.length > 0) add(html`<${JoinForm} key="join" view=${view} act=${act} newcomers=${newcomers} />`);
  }
  if (gm && (rules.phase === "between" || rules.phase === "decided")) add(html`<${AdjustForm} key="adjust" view=${view} act=${act} />`);
  if (gm && rules.phase === "decided") add(html`<p key="conclude">When the story is told, conclude the sequence (it reveals the dice seed).</p>`, false);
  return actionsBox(items, gm);
}

function chartPoints() {
  return null; // the RP chart is drawn by the board from the server's record of every contest
}

registerRuleset({
  name: "scored",
  label: "Scored sequence (QuestWorlds, resolution points)",
  summary: "Rounds of simple contests; each win lodges resolution points; five against a side loses it.",
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
