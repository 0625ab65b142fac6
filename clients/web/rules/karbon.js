// Panels of the `karbon` ruleset (Karbon dice-pool contests; one contest log is a scene). The table as a
// table sees it: the main pool, the reserve, each hand as dice, chips in hand and on the stacks, the victory
// track with its X and O marks; the player's choices after a break or a glitch are buttons.
import { ActionButton, ActionForm, Check, Field, Select, html, slug } from "../ui.js";
import { registerRuleset } from "./registry.js";
import { useState } from "../vendor/preact-htm.js";

const STACK = 5;
const SIDE_NAMES = { agent: "Agent", narrator: "Narrator" };

function newSetup() {
  return { name: "", player: "Player 1", fortune: "1", draw: "random", hands_after: "spent", players_type_faces: false };
}

function SetupForm({ setup, onChange, errors }) {
  const set = (key, value) => onChange({ ...setup, [key]: value });
  return html`
    <${Field} label="Agent" name="agent-name" value=${setup.name} onInput=${(v) => set("name", v)} error=${errors.name}
      hint="The agent at the centre of the scene." testid="agent-name" />
    <${Field} label="Played by (player's name)" name="agent-player" value=${setup.player} onInput=${(v) => set("player", v)}
      hint="Empty: the GM plays the agent too." testid="agent-player" />
    <${Field} type="number" min="0" label="Fortune" name="fortune" value=${setup.fortune} onInput=${(v) => set("fortune", v)}
      error=${errors.fortune} hint="The agent's full Fortune; reaching a conclusion at 0 reclaims it." />
    <fieldset class="settings">
      <legend>Settings</legend>
      <${Select} label="Hands are drawn" name="draw" value=${setup.draw} onChange=${(v) => set("draw", v)}
        options=${[["random", "at random from the main pool (default)"], ["choose", "as chosen at the table, entered by the GM"]]} />
      <${Select} label="After a contest, its hands' dice" name="hands_after" value=${setup.hands_after} onChange=${(v) => set("hands_after", v)}
        options=${[["spent", "are set aside until the next scene (default)"], ["pool", "go back to the main pool"]]} />
      <${Check} label="The player types the faces too (physical dice)" checked=${setup.players_type_faces}
        onChange=${(v) => set("players_type_faces", v)} hint="Default off: the GM types every face rolled at the table." />
    </fieldset>`;
}

function buildContest(setup) {
  const errors = {};
  if (!setup.name.trim()) errors.name = "Name the agent.";
  const fortune = Number(String(setup.fortune).trim() || "0");
  if (!Number.isInteger(fortune) || fortune < 0) errors.fortune = "A whole number, 0 or more.";
  const agent = slug(setup.name || "agent", new Set());
  const player = setup.player.trim();
  const seats = player ? [{ id: slug(player || "player", new Set()), role: "player", contestants: [agent], name: player }] : [];
  return {
    errors,
    setup: {
      type: "karbon.setup",
      agent,
      name: setup.name.trim(),
      fortune,
      draw: setup.draw,
      hands_after: setup.hands_after,
      players_type_faces: setup.players_type_faces,
    },
    seats,
  };
}

function fieldOf(message) {
  if (/fortune/.test(message ?? "")) return "fortune";
  if (/agent/.test(message ?? "")) return "name";
  return null;
}

// --- reading the view ----------------------------------------------------------------------------------

const PHASES = {
  between: "Between contests",
  drawing: "Drawing the hands",
  declaring: "Risk (sealed)",
  ready: "Ready to roll",
  test: "The test",
  aftermath: "A loss at zero Fortune",
};

function phaseText(view) {
  const rules = view.rules;
  if (view.concluded) return "The scene is over";
  const contest = rules.contest;
  if (!contest) return PHASES[rules.phase] ?? rules.phase;
  return `Contest ${contest.number} · round ${contest.round} · ${PHASES[rules.phase] ?? rules.phase}`;
}

function faceOf(view, die) {
  const roll = view.rules.last_roll;
  if (!roll || view.rules.phase !== "test") return null;
  return [...roll.agent, ...roll.narrator].find((d) => d.die === die) ?? null;
}

const ORDINALS = ["first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth", "tenth"];

// A die as people say it: "d6", or "the second d6" where the list it stands in holds several.
function dieName(die, dice) {
  const alike = dice.filter((d) => d.sides === die.sides);
  if (alike.length < 2) return `d${die.sides}`;
  const n = alike.findIndex((d) => d.id === die.id);
  return `the ${ORDINALS[n] ?? `${n + 1}th`} d${die.sides}`;
}

function Die({ die, view, among }) {
  const rolled = view ? faceOf(view, die.id) : null;
  const name = dieName(die, among ?? [die]);
  const label = rolled ? `${name} showing ${rolled.face}, a ${rolled.result}` : name;
  return html`<li class=${`die d${die.sides} ${rolled ? rolled.result : ""}`} title=${label} aria-label=${label} data-testid=${`die-${die.id}`}>
    <span class="kind">d${die.sides}</span>${rolled ? html`<span class="face">${rolled.face}</span>` : ""}
  </li>`;
}

function Dice({ dice, view, label, testid }) {
  return html`<div class="dice-row" data-testid=${testid}>
    <span class="dice-label">${label} (${dice.length})</span>
    ${dice.length === 0 ? html`<span class="none"> — none</span>` : html`<ul class="dice" aria-label=${label}>${dice.map((d) => html`<${Die} key=${d.id} die=${d} view=${view} among=${dice} />`)}</ul>`}
  </div>`;
}

function Chips({ side, rules }) {
  const s = rules.sides[side];
  const slots = Array.from({ length: STACK }, (_, i) => i < s.stack);
  return html`<p class="chips" data-testid=${`chips-${side}`}>
    Chips in hand: <strong data-testid=${`hand-chips-${side}`}>${s.chips}</strong> · stack:
    <span class="stack" role="img" aria-label=${`${s.stack} of ${STACK} chips on the stack`} data-testid=${`stack-${side}`}>
      ${slots.map((full, i) => html`<span key=${i} class=${full ? "chip full" : "chip"}>${full ? "●" : "○"}</span>`)}
    </span></p>`;
}

function Track({ contest }) {
  const slots = Array.from({ length: contest.consequence }, (_, i) => contest.track[i] ?? "");
  return html`<p class="track">Victory track:
    <span role="img" aria-label=${`${contest.track.filter((m) => m === "X").length} X, ${contest.track.filter((m) => m === "O").length} O of ${contest.consequence}`} data-testid="track">
      ${slots.map((mark, i) => html`<span key=${i} class=${`slot ${mark === "X" ? "win" : mark === "O" ? "loss" : ""}`}>${mark || "·"}</span>`)}
    </span></p>`;
}

function RollWords({ rules }) {
  const roll = rules.last_roll;
  if (!roll) return null;
  const winner = roll.winner ? `the ${roll.winner} wins the round` : "a tie in hits";
  const opening = roll.opening ? `; the ${roll.opening} offers an opening` : "";
  return html`<p class="last" data-testid="last-roll">Round ${roll.round}: agent ${roll.agent_hits} hit(s), ${roll.agent_turncoats} turncoat(s);
    narrator ${roll.narrator_hits} hit(s), ${roll.narrator_turncoats} turncoat(s): ${winner}${opening}.
    ${roll.all_in ? ` All on the line: ${roll.risk.join(", ")}.` : ""}${roll.peril.length ? ` Peril: ${roll.peril.join(", ")}.` : ""}</p>`;
}

function Board({ view }) {
  const rules = view.rules;
  const contest = rules.contest;
  const outcome = rules.last_outcome;
  return html`<section class="panel board karbon" aria-labelledby="board-title">
    <h2 id="board-title">${rules.name}'s scene</h2>
    <p class="phase" data-testid="phase">${phaseText(view)}</p>
    <p>Fortune: <span data-testid="fortune">${rules.fortune}</span> of ${rules.full_fortune}
      ${rules.injuries.length ? ` · injuries: ${rules.injuries.join(", ")}` : ""}${rules.conditions.length ? ` · conditions: ${rules.conditions.join(", ")}` : ""}
      ${rules.aftermaths.length ? ` · ${rules.aftermaths.map((a) => (a === "blackout" ? "Blackout" : "Moment of Madness")).join(", ")}` : ""}</p>
    ${contest && html`<div class="contest-stats" data-testid="contest">
      <h3>${contest.sudden_death ? "Sudden death: " : ""}${contest.goal}</h3>
      <p>${contest.ability} ${contest.level} · challenge ${contest.challenge} · peril <span data-testid="peril">${contest.peril}</span></p>
      <${Track} contest=${contest} />
    </div>`}
    <div class="table-sides">
      ${["agent", "narrator"].map(
        (side) => html`<article class="contestant" key=${side} data-testid=${`side-${side}`}>
          <h3>${side === "agent" ? rules.name : "Narrator"}</h3>
          <${Dice} dice=${rules.sides[side].hand} view=${view} label="Hand" testid=${`hand-${side}`} />
          <${Chips} side=${side} rules=${rules} />
        </article>`,
      )}
    </div>
    <${Dice} dice=${rules.pool} label="Main pool" testid="pool" />
    <${Dice} dice=${rules.reserve} label="Reserve" testid="reserve" />
    ${rules.spent.length > 0 && html`<${Dice} dice=${rules.spent} label="Set aside" testid="spent" />`}
    ${rules.all_in !== null && contest && html`<p data-testid="risk">${rules.all_in ? "The agent puts it all on the line this round." : "No risk this round."}</p>`}
    <${RollWords} rules=${rules} />
    ${rules.pending.length > 0 && html`<p class="waiting" data-testid="pending">Waiting for ${rules.pending[0].chooser === "agent" ? "the player's" : "the narrator's"} choice after a ${rules.pending[0].payout}.</p>`}
    ${outcome && !contest && html`<section class="outcome" data-testid="outcome"><h3>Contest ${outcome.contest}: ${
      outcome.outcome === "won" ? "won" : outcome.outcome === "lost" ? "lost" : "unclear"}</h3>
      <p>${outcome.wins} X, ${outcome.losses} O${outcome.fortune !== outcome.fortune_before ? ` · Fortune ${outcome.fortune_before} → ${outcome.fortune}` : ""}</p></section>`}
  </section>`;
}

// --- actions -------------------------------------------------------------------------------------------

function ids(text) {
  return String(text).split(/[\s,]+/).map((s) => s.trim()).filter(Boolean);
}

function num(text) {
  return Number(String(text).trim() || "0");
}

// The seed's guides, for a GM who would rather answer its questions than count dice: the server works the
// number out from the answers (and the view shows it once the contest starts).
function newChallengeGuide() {
  return { difficulty: "moderate", profile: false, element: false, opposition: "one", factors: "0" };
}

function newConsequenceGuide() {
  return { scope: "minor", major_extra: "0", profiles: "0", assets: "0", fictional: "0" };
}

function ChallengeGuide({ guide, onChange }) {
  const set = (key, value) => onChange({ ...guide, [key]: value });
  return html`<fieldset class="guide" data-testid="challenge-guide">
    <legend>The challenge guide</legend>
    <${Select} label="The task is" name="guide-difficulty" value=${guide.difficulty} onChange=${(v) => set("difficulty", v)}
      options=${[["easy", "easy (1)"], ["moderate", "moderate (2)"], ["difficult", "difficult (3)"]]} />
    <${Check} label="A profile is involved (+1)" name="guide-profile" checked=${guide.profile} onChange=${(v) => set("profile", v)} />
    <${Check} label="The profile has an applicable element (+1)" name="guide-element" checked=${guide.element} onChange=${(v) => set("element", v)} />
    <${Select} label="Opposed by" name="guide-opposition" value=${guide.opposition} onChange=${(v) => set("opposition", v)}
      options=${[["one", "one person or none (+0)"], ["several", "several people (+1)"], ["many", "many people (+2)"]]} />
    <${Field} type="number" min="0" label="Other significant factors (+1 each)" name="guide-factors" value=${guide.factors}
      onInput=${(v) => set("factors", v)} testid="guide-factors" />
  </fieldset>`;
}

function ConsequenceGuide({ guide, onChange }) {
  const set = (key, value) => onChange({ ...guide, [key]: value });
  return html`<fieldset class="guide" data-testid="consequence-guide">
    <legend>The consequence guide</legend>
    <${Select} label="The contest is" name="guide-scope" value=${guide.scope} onChange=${(v) => set("scope", v)}
      options=${[["minor", "minor (1 win)"], ["moderate", "moderate (2)"], ["major", "major (3)"]]} />
    ${guide.scope === "major" && html`<${Field} type="number" min="0" label="A major contest needing more wins (+1 each)" name="guide-major-extra"
      value=${guide.major_extra} onInput=${(v) => set("major_extra", v)} />`}
    <${Field} type="number" min="0" label="Profiles involved (+1 each)" name="guide-profiles" value=${guide.profiles}
      onInput=${(v) => set("profiles", v)} testid="guide-profiles" />
    <${Field} type="number" min="0" label="Requisite assets, paid or not (+1 each)" name="guide-assets" value=${guide.assets}
      onInput=${(v) => set("assets", v)} />
    <${Field} type="number" min="0" max="2" label="More work but not harder (+0 to +2)" name="guide-fictional" value=${guide.fictional}
      onInput=${(v) => set("fictional", v)} />
  </fieldset>`;
}

function StartForm({ act, previous }) {
  const [goal, setGoal] = useState("");
  const [ability, setAbility] = useState("");
  const [level, setLevel] = useState("3");
  const [challenge, setChallenge] = useState("2");
  const [consequence, setConsequence] = useState("1");
  const [challengeGuide, setChallengeGuide] = useState(null); // null: the GM types the number
  const [consequenceGuide, setConsequenceGuide] = useState(null);
  const [peril, setPeril] = useState("0");
  const [injuries, setInjuries] = useState("0");
  const send = () => {
    const command = { type: "karbon.start_contest", goal, ability, level: num(level), peril: num(peril), injuries: num(injuries) };
    if (challengeGuide) command.challenge_guide = { ...challengeGuide, factors: num(challengeGuide.factors) };
    else command.challenge = num(challenge);
    if (consequenceGuide) {
      const { scope, ...counts } = consequenceGuide;
      command.consequence_guide = { scope, ...Object.fromEntries(Object.entries(counts).map(([k, v]) => [k, num(v)])) };
    } else command.consequence = num(consequence);
    return act(command);
  };
  return html`<${ActionForm} run=${send} label="Start the contest" testid="start-contest">
    <h3>A new contest${previous ? ` (the pool holds what contest ${previous} left)` : ""}</h3>
    <div class="grid">
      <${Field} label="Goal" name="goal" value=${goal} onInput=${setGoal} testid="goal" />
      <${Field} label="Ability" name="ability" value=${ability} onInput=${setAbility} testid="ability" />
      <${Field} type="number" min="0" label="Level (the agent's dice)" name="level" value=${level} onInput=${setLevel} testid="level" />
      ${!challengeGuide && html`<${Field} type="number" min="1" label="Challenge (the narrator's dice)" name="challenge" value=${challenge}
        onInput=${setChallenge} hint="1 easy, 2 moderate, 3 difficult; +1 a profile, +1 its element, +1/+2 several/many opponents, +1 per factor."
        testid="challenge" />`}
      ${!consequenceGuide && html`<${Field} type="number" min="1" label="Consequence (wins on the track)" name="consequence" value=${consequence}
        onInput=${setConsequence} hint="1 minor, 2 moderate, 3+ major; +1 per profile and per requisite asset." testid="consequence" />`}
      <${Field} type="number" min="0" max="2" label="Peril" name="peril" value=${peril} onInput=${setPeril} hint="0–2." testid="peril-input" />
      <${Field} type="number" min="0" label="Applicable injuries" name="injuries" value=${injuries} onInput=${setInjuries} hint="Added to the peril." />
    </div>
    <${Check} label="Work the challenge out with the guide" name="use-challenge-guide" checked=${challengeGuide !== null}
      onChange=${(on) => setChallengeGuide(on ? newChallengeGuide() : null)} />
    ${challengeGuide && html`<${ChallengeGuide} guide=${challengeGuide} onChange=${setChallengeGuide} />`}
    <${Check} label="Work the consequence out with the guide" name="use-consequence-guide" checked=${consequenceGuide !== null}
      onChange=${(on) => setConsequenceGuide(on ? newConsequenceGuide() : null)} />
    ${consequenceGuide && html`<${ConsequenceGuide} guide=${consequenceGuide} onChange=${setConsequenceGuide} />`}
  <//>`;
}

function DrawForm({ view, act }) {
  const rules = view.rules;
  const pool = rules.pool.map((d) => d.id);
  const contest = rules.contest;
  const take = Math.min(contest.level, pool.length);
  const [agent, setAgent] = useState(pool.slice(0, take).join(", "));
  const [narrator, setNarrator] = useState(pool.slice(take, take + Math.min(contest.challenge, pool.length - take)).join(", "));
  return html`<${ActionForm} run=${() => act({ type: "karbon.draw_hands", agent: ids(agent), narrator: ids(narrator) })} label="Enter the hands" testid="draw-hands">
    <p>Name the dice drawn at the table (ids as shown in the pool).</p>
    <div class="grid">
      <${Field} label=${`Agent's hand (${contest.level})`} name="draw-agent" value=${agent} onInput=${setAgent} testid="draw-agent" />
      <${Field} label=${`Narrator's hand (${contest.challenge})`} name="draw-narrator" value=${narrator} onInput=${setNarrator} testid="draw-narrator" />
    </div>
  <//>`;
}

function RiskForm({ view, act }) {
  const agent = view.rules.agent;
  const declared = view.seal?.declared.find((d) => d.participant === agent);
  const [move, setMove] = useState("");
  const declare = (allIn) => act({ type: "seal.declare", participant: agent, payload: { type: "karbon.risk", all_in: allIn, move } });
  return html`<div class="risk" role="group" aria-label="Risk" data-testid="risk-form">
    <p>Before the dice: does ${view.rules.name} put it all on the line? (sealed until declared)</p>
    ${declared && html`<p role="status" data-testid="risk-sealed">Sealed.</p>`}
    <${Field} label="The risky move (if all in)" name="risk-move" value=${move} onInput=${setMove} />
    <${ActionButton} kind="primary" label="All on the line" run=${() => declare(true)} testid="all-in" />
    <${ActionButton} label="No risk" run=${() => declare(false)} testid="no-risk" />
  </div>`;
}

function FacesForm({ view, act }) {
  const rules = view.rules;
  const hand = [...rules.sides.agent.hand, ...rules.sides.narrator.hand];
  const [faces, setFaces] = useState({});
  const [risk, setRisk] = useState("");
  const [peril, setPeril] = useState("");
  const [drawn, setDrawn] = useState("");
  const contest = rules.contest;
  const send = () => {
    const command = { type: "karbon.roll", faces: Object.fromEntries(hand.map((d) => [d.id, num(faces[d.id] ?? "")])) };
    if (rules.all_in) {
      command.risk = ids(risk).map(Number);
      command.drawn = ids(drawn);
    }
    if (contest.peril > 0) command.peril = ids(peril).map(Number);
    return act(command);
  };
  return html`<${ActionForm} run=${send} label="Enter the faces" testid="faces">
    <p>Physical dice: type the face each die shows.</p>
    <div class="grid">
      ${hand.map((d) => html`<${Field} key=${d.id} type="number" min="1" max=${d.sides} label=${`${rules.sides.agent.hand.includes(d) ? "Agent's" : "Narrator's"} ${dieName(d, rules.sides.agent.hand.includes(d) ? rules.sides.agent.hand : rules.sides.narrator.hand).replace(/^the /, "")}`} name=${`face-${d.id}`}
        value=${faces[d.id] ?? ""} onInput=${(v) => setFaces({ ...faces, [d.id]: v })} testid=${`face-${d.id}`} />`)}
      ${rules.all_in && html`<${Field} label="Risk: the three d8" name="risk-faces" value=${risk} onInput=${setRisk} hint="e.g. 2, 5, 7" testid="risk-faces" />`}
      ${rules.all_in && html`<${Field} label="Dice drawn from the pool for the risk's hits" name="risk-drawn" value=${drawn} onInput=${setDrawn} testid="risk-drawn" />`}
      ${contest.peril > 0 && html`<${Field} label=${`Peril: ${contest.peril} d8`} name="peril-faces" value=${peril} onInput=${setPeril} testid="peril-faces" />`}
    </div>
  <//>`;
}

function StackControls({ view, side, act }) {
  const held = view.rules.sides[side].chips;
  return html`<div class="stacking" role="group" aria-label=${`${SIDE_NAMES[side]}'s test`} data-testid=${`test-${side}`}>
    <p>${SIDE_NAMES[side]}: ${held} chip(s) in hand to stack.</p>
    ${Array.from({ length: held }, (_, i) => i + 1).map(
      (n) => html`<${ActionButton} key=${n} label=${`Stack ${n}`} run=${() => act({ type: "karbon.stack", side, chips: n })} testid=${`stack-${side}-${n}`} />`,
    )}
    <${ActionButton} label="End the test" run=${() => act({ type: "karbon.end_test", side })} testid=${`end-test-${side}`} />
  </div>`;
}

// Pick up to ``most`` dice from ``dice`` with checkboxes.
function DicePicker({ dice, picked, onChange, label, most }) {
  const toggle = (id, on) => onChange(on ? [...picked, id].slice(-most) : picked.filter((p) => p !== id));
  return html`<fieldset class="picker"><legend>${label}</legend>
    ${dice.length === 0 ? html`<p>none</p>` : dice.map((d) => html`<${Check} key=${d.id} name=${`pick-${d.id}`} label=${dieName(d, dice)} checked=${picked.includes(d.id)} onChange=${(on) => toggle(d.id, on)} />`)}
  </fieldset>`;
}

function BreakChoices({ view, act }) {
  const rules = view.rules;
  const [gift, setGift] = useState([]);
  const [away, setAway] = useState([]);
  const [back, setBack] = useState([]);
  const choose = (command) => act({ type: "karbon.choose_break", ...command });
  return html`<div class="choices" role="group" aria-label="Your break" data-testid="break-choices">
    <h3>A break: you marked a win (X). Pick one.</h3>
    <${ActionButton} label="Seize the moment: remove a peril die" run=${() => choose({ choice: "security" })} disabled=${rules.contest.peril === 0} testid="break-security" />
    <${ActionButton} label="Slim opening: the narrator discards its chips" run=${() => choose({ choice: "footing", option: "discard" })} testid="break-discard" />
    <div class="choice">
      <${DicePicker} dice=${rules.sides.narrator.hand} picked=${gift} onChange=${setGift} label="Two of the narrator's dice" most=${2} />
      <${ActionButton} label="Slim opening: take these dice" run=${() => choose({ choice: "footing", option: "dice", dice: gift })} testid="break-dice" />
    </div>
    <div class="choice">
      <${DicePicker} dice=${rules.sides.agent.hand} picked=${away} onChange=${setAway} label="One or two of your dice" most=${2} />
      <${DicePicker} dice=${rules.reserve} picked=${back} onChange=${setBack} label="As many reserve dice" most=${2} />
      <${ActionButton} label="Stunning plan: trade with the reserve" run=${() => choose({ choice: "advantage", dice: away, reserve: back })} testid="break-advantage" />
    </div>
  </div>`;
}

function GlitchChoices({ view, act }) {
  const rules = view.rules;
  const [gift, setGift] = useState([]);
  const noWin = !rules.contest.track.includes("X");
  const choose = (command) => act({ type: "karbon.choose_glitch", ...command });
  return html`<div class="choices" role="group" aria-label="Your glitch" data-testid="glitch-choices">
    <h3>A glitch: a loss (O) is marked. Pick one.</h3>
    <${ActionButton} label="Hurt, but persisting (the narrator picks)" run=${() => choose({ choice: "hurt" })} testid="glitch-hurt" />
    <${ActionButton} label="Plans take a turn for the worse (the narrator picks)" run=${() => choose({ choice: "plans" })} testid="glitch-plans" />
    <${ActionButton} label="Side-swiped: erase an X, take the narrator's chips" disabled=${noWin} run=${() => choose({ choice: "side_swiped", option: "chips" })} testid="glitch-chips" />
    <div class="choice">
      <${DicePicker} dice=${rules.sides.narrator.hand} picked=${gift} onChange=${setGift} label="Two of the narrator's dice" most=${2} />
      <${ActionButton} label="Side-swiped: erase an X, take these dice" disabled=${noWin} run=${() => choose({ choice: "side_swiped", option: "dice", dice: gift })} testid="glitch-dice" />
    </div>
  </div>`;
}

function NarratorOptions({ view, act, choice }) {
  const [label, setLabel] = useState("");
  const [dice, setDice] = useState("");
  const named = view.dice === "physical" || view.rules.draw === "choose";
  const pick = (option, extra = {}) => act({ type: "karbon.narrator_option", option, ...extra });
  if (choice === "hurt") {
    return html`<div class="choices" role="group" aria-label="The narrator's option" data-testid="narrator-options">
      <h3>The agent is hurt: injury and two chips, or a condition and none</h3>
      <${Field} label="Injury or condition" name="hurt-label" value=${label} onInput=${setLabel} />
      <${ActionButton} label="An injury and two chips" run=${() => pick("injury", { label })} testid="narrator-injury" />
      <${ActionButton} label="A condition, no chips" run=${() => pick("condition", { label })} testid="narrator-condition" />
    </div>`;
  }
  return html`<div class="choices" role="group" aria-label="The narrator's option" data-testid="narrator-options">
    <h3>The plans turn worse: take two dice from the pool, or add a peril die</h3>
    ${named && html`<${Field} label="Dice taken from the pool" name="plans-dice" value=${dice} onInput=${setDice} />`}
    <${ActionButton} label="Take two dice from the pool" run=${() => pick("dice", named ? { dice: ids(dice) } : {})} testid="narrator-dice" />
    <${ActionButton} label="Add a peril die" run=${() => pick("peril")} testid="narrator-peril" />
  </div>`;
}

function GmControls({ view, act }) {
  const contest = view.rules.contest;
  const [peril, setPeril] = useState("");
  const [challenge, setChallenge] = useState("");
  const [dice, setDice] = useState("");
  const [target, setTarget] = useState("narrator_hand");
  const [delta, setDelta] = useState("");
  const [reason, setReason] = useState("");
  return html`<details class="adjust"><summary>Change the challenge or the peril; corrections</summary>
    ${contest && html`<${ActionForm} run=${() => act({ type: "karbon.change_peril", peril: num(peril) })} label="Set the peril" kind="">
      <${Field} type="number" min="0" label="Peril" name="change-peril" value=${peril} onInput=${setPeril} />
    <//>`}
    ${contest && html`<${ActionForm} run=${() => act({ type: "karbon.change_challenge", challenge: num(challenge), ...(dice.trim() ? { dice: ids(dice) } : {}) })} label="Set the challenge" kind="">
      <${Field} type="number" min="1" label="Challenge" name="change-challenge" value=${challenge} onInput=${setChallenge} />
      <${Field} label="Dice (drawn or returned, when named)" name="change-dice" value=${dice} onInput=${setDice} />
    <//>`}
    <${ActionForm} run=${() => act({ type: "karbon.adjust", target, delta: num(delta), reason })} label="Correct" kind="">
      <div class="grid">
        <${Select} label="Count" name="adjust-target" value=${target} onChange=${setTarget}
          options=${[["agent_hand", "agent's chips in hand"], ["agent_stack", "agent's stack"], ["narrator_hand", "narrator's chips in hand"], ["narrator_stack", "narrator's stack"], ["fortune", "Fortune"]]} />
        <${Field} type="number" label="Change (+/−)" name="adjust-delta" value=${delta} onInput=${setDelta} />
        <${Field} label="Reason" name="adjust-reason" value=${reason} onInput=${setReason} />
      </div>
    <//>
  </details>`;
}

// What this viewer can do now, and nothing it cannot.
function Actions({ view, me, act }) {
  const rules = view.rules;
  const gm = me.role === "gm";
  const agent = (me.contestants ?? []).includes(rules.agent) || (gm && !agentHasPlayer(view));
  if (view.concluded) return html`<p>The scene is over.</p>`;
  const parts = [];
  const pending = rules.pending[0];
  switch (rules.phase) {
    case "between":
      if (gm) parts.push(html`<${StartForm} key="start" act=${act} previous=${rules.last_outcome?.contest} />`);
      if (agent && rules.last_outcome?.outcome === "unclear" && rules.last_outcome.contest === rules.contests) {
        parts.push(html`<${ActionButton} key="sudden" kind="primary" label="Call a sudden death" run=${() => act({ type: "karbon.sudden_death" })} testid="sudden-death" />`);
      }
      break;
    case "aftermath":
      if (agent) {
        parts.push(html`<div key="aftermath" role="group" aria-label="After the loss"><p>A loss at zero Fortune: pick what befalls ${rules.name}.</p>
          <${ActionButton} label="A Blackout" run=${() => act({ type: "karbon.choose_aftermath", aftermath: "blackout" })} testid="blackout" />
          <${ActionButton} label="A Moment of Madness" run=${() => act({ type: "karbon.choose_aftermath", aftermath: "madness" })} testid="madness" /></div>`);
      }
      break;
    case "drawing":
      if (gm) parts.push(html`<${DrawForm} key="draw" view=${view} act=${act} />`);
      break;
    case "declaring":
      if (agent) parts.push(html`<${RiskForm} key="risk" view=${view} act=${act} />`);
      else parts.push(html`<p key="wait">Waiting for the agent's risk.</p>`);
      break;
    case "ready":
      if (view.dice === "physical" && (gm || (agent && rules.players_type_faces))) parts.push(html`<${FacesForm} key="faces" view=${view} act=${act} />`);
      else if (view.dice === "server" && (gm || agent)) parts.push(html`<${ActionButton} key="roll" kind="primary" label="Roll the round" run=${() => act({ type: "karbon.roll" })} testid="roll" />`);
      else parts.push(html`<p key="wait">The GM enters the faces rolled at the table.</p>`);
      break;
    case "test":
      if (pending && pending.payout === "break" && agent) parts.push(html`<${BreakChoices} key="break" view=${view} act=${act} />`);
      else if (pending && pending.payout === "glitch" && pending.chooser === "agent" && agent) parts.push(html`<${GlitchChoices} key="glitch" view=${view} act=${act} />`);
      else if (pending && pending.chooser === "narrator" && gm) parts.push(html`<${NarratorOptions} key="narrator" view=${view} act=${act} choice=${pending.choice} />`);
      else if (!pending) {
        for (const side of rules.stacking) {
          if ((side === "agent" && agent) || (side === "narrator" && gm)) parts.push(html`<${StackControls} key=${side} view=${view} side=${side} act=${act} />`);
        }
      }
      break;
    default:
      break;
  }
  if (gm) parts.push(html`<${GmControls} key="gm" view=${view} act=${act} />`);
  if (parts.length === 0) parts.push(html`<p>Nothing for you to do right now.</p>`);
  return html`<div class="actions">${parts}</div>`;
}

function agentHasPlayer(view) {
  return view.rules.played === true;
}

function chartPoints() {
  return null;
}

function mine(view) {
  return [view.rules.agent];
}

registerRuleset({
  name: "karbon",
  label: "Karbon contests (dice pool, one log per scene)",
  summary: "An agent and the narrator roll dice drawn from the scene's pool; chips stack into breaks and glitches on a victory track.",
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
