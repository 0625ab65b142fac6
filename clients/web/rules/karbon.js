// Panels of the `karbon` ruleset (Karbon dice-pool contests; one contest log is a scene). The table as a
// table sees it: the main pool, the reserve, each hand as dice, chips in hand and on the stacks, the victory
// track with its X and O marks. A choice among particular dice (a break's, a glitch's, the hands drawn at the table,
// the dice a rule takes from the pool) is made by tapping the dice themselves on the board.
import { ActionButton, ActionForm, Check, Field, Select, html, slug } from "../ui.js";
import { registerRuleset } from "./registry.js";
import { useEffect, useState } from "../vendor/preact-htm.js";
import { DiceRow, Die as DrawnDie } from "../dice.js";
import { FaceField, ListPicks } from "../faces.js";

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
      error=${errors.fortune} max="100" hint="0–100: the agent's full Fortune; reaching a conclusion at 0 reclaims it." />
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
  if (!Number.isInteger(fortune) || fortune < 0 || fortune > 100) errors.fortune = "A whole number from 0 to 100.";
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

const ORDINALS = ["first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth", "tenth"];

// A die as people say it: "d6", or "the second d6" where the list it stands in holds several.
function dieName(die, dice) {
  const alike = dice.filter((d) => d.sides === die.sides);
  if (alike.length < 2) return `d${die.sides}`;
  const n = alike.findIndex((d) => d.id === die.id);
  return `the ${ORDINALS[n] ?? `${n + 1}th`} d${die.sides}`;
}

function resultOf(face) {
  return face <= 3 ? "hit" : face <= 5 ? "miss" : "turncoat";
}

// The peril dice the narrator rolls: not dice of the pool, so drawn as many d8 as the peril.
function perilDice(view) {
  const contest = view.rules.contest;
  return contest ? Array.from({ length: contest.peril }, (_, i) => ({ id: `peril-${i + 1}`, sides: 8 })) : [];
}

// The dice at one place of the table: a hand (agent, narrator), the pool, the reserve, the spent dice, the peril.
function diceAt(view, place) {
  const rules = view.rules;
  if (place === "agent" || place === "narrator") return rules.sides[place].hand;
  if (place === "peril") return perilDice(view);
  return rules[place] ?? [];
}

// The faces the dice of a place show: the hands' and the peril's, in the test after the round's roll.
function facesAt(view, place) {
  const rules = view.rules;
  const roll = rules.last_roll;
  const faces = new Map();
  if (!roll || rules.phase !== "test") return faces;
  if (place === "agent" || place === "narrator") {
    for (const d of [...roll.agent, ...roll.narrator]) faces.set(d.die, { face: d.face, result: d.result });
  } else if (place === "peril") {
    roll.peril.forEach((face, i) => faces.set(`peril-${i + 1}`, { face, result: resultOf(face) }));
  }
  return faces;
}

// "d6 showing 5", or "d6" before it is rolled.
function spokenDie(die, faces) {
  const shown = faces.get(die.id);
  return shown ? `d${die.sides} showing ${shown.face}` : `d${die.sides}`;
}

// "a", "a and b", "a, b and c".
function words(list) {
  return list.length < 2 ? list.join("") : `${list.slice(0, -1).join(", ")} and ${list.at(-1)}`;
}

function diceWord(n) {
  return n === 1 ? "one die" : `${n} dice`;
}

function moreDice(n) {
  return n === 1 ? "one more die" : `${n} more dice`;
}

const PLACES = {
  agent: "of the agent's hand",
  narrator: "of the narrator's hand",
  pool: "of the main pool",
  reserve: "of the reserve",
  spent: "set aside",
};

// A refusal's message with every die named as people say it (the server names dice by their ids).
function spokenError(error, view) {
  if (!error || typeof error.message !== "string") return error;
  const known = names(view);
  const message = error.message.replace(/'?\b([dr])(\d+)-\d+\b'?/g, (id, _kind, sides) => known[id.replace(/'/g, "")] ?? `a d${sides}`);
  return { ...error, message };
}

function roles(view, me) {
  const gm = me?.role === "gm";
  const agent = (me?.contestants ?? []).includes(view.rules.agent) || (gm && !agentHasPlayer(view));
  return { gm, agent };
}

function agentHasPlayer(view) {
  return view.rules.played === true;
}

// Whether the dice a rule takes from the pool are named at the table (physical dice, or the `choose` setting).
function namedDraws(view) {
  return view.dice === "physical" || view.rules.draw === "choose";
}

// --- the dice a viewer taps ----------------------------------------------------------------------------

// What this page's viewer has tapped for the choice open now, shared by the board (where the dice are) and the
// actions (which hold the rest of the choice): the choice's key, the dice tapped ({place, id, to}), why the last
// tap was refused, the GM's draft of a new challenge, and who sends the commands of this contest.
const table = { key: "", picks: [], why: "", challenge: { contest: null, value: "" }, actor: null };
const watchers = new Set();

function changed() {
  for (const watch of watchers) watch();
}

// The GM's draft of a new challenge for this contest.
function draftOf(view) {
  return table.challenge.contest === view.contest ? table.challenge.value : "";
}

function setDraft(view, value) {
  table.challenge = { contest: view.contest, value };
  changed();
}

function setPicks(key, picks, why = "") {
  Object.assign(table, { key, picks, why });
  changed();
}

function useTable() {
  const [, bump] = useState(0);
  useEffect(() => {
    const watch = () => bump((n) => n + 1);
    watchers.add(watch);
    return () => watchers.delete(watch);
  }, []);
  return table;
}

// The actions panel sends this contest's commands; while it is shown, the board's dice may be tapped.
function useActor(contest, act) {
  useEffect(() => {
    const actor = { contest, act };
    table.actor = actor;
    changed();
    return () => {
      if (table.actor === actor) {
        table.actor = null;
        changed();
      }
    };
  }, [contest]);
  if (table.actor?.contest === contest) table.actor.act = act;
}

// The dice tapped for `choice`, those still where they were tapped.
function picksOf(choice, view) {
  if (!choice || table.key !== choice.key) return [];
  return table.picks.filter((p) => choice.places.includes(p.place) && diceAt(view, p.place).some((d) => d.id === p.id));
}

function tapDie(choice, view, pick) {
  const picks = picksOf(choice, view);
  if (picks.some((p) => p.place === pick.place && p.id === pick.id)) {
    setPicks(choice.key, picks.filter((p) => !(p.place === pick.place && p.id === pick.id)));
    return;
  }
  const tapped = choice.tap(picks, pick);
  if (tapped.why) setPicks(choice.key, picks, tapped.why);
  else setPicks(choice.key, tapped.picks);
}

// The dice of `picks` at `place`, as people say them.
function said(view, picks, place) {
  const dice = diceAt(view, place);
  const faces = facesAt(view, place);
  return picks.filter((p) => p.place === place).map((p) => spokenDie(dice.find((d) => d.id === p.id), faces));
}

function idsAt(picks, place) {
  return picks.filter((p) => p.place === place).map((p) => p.id);
}

const HOW = "Tap a die to choose it and again to let it go (or Tab to it and press Enter).";

// A break: a peril die (security), the narrator's dice (footing), or one or two of the agent's dice and as many
// of the reserve's (advantage). Tapping a die of another choice starts that choice afresh.
function breakChoice(view, key) {
  const rules = view.rules;
  const peril = rules.contest.peril;
  const gift = Math.min(2, rules.sides.narrator.hand.length);
  const trade = Math.min(2, rules.reserve.length); // a stunning plan takes as many reserve dice as it gives
  const plan = (place) => (place === "peril" ? "security" : place === "narrator" ? "footing" : "advantage");
  const ways = [
    peril > 0 && "A peril die: seize the moment.",
    gift === 1 && "The narrator's one die: a slim opening.",
    gift === 2 && "Two of the narrator's dice: a slim opening.",
    trade === 1 && "One of your dice and the reserve's one die: a stunning plan.",
    trade === 2 && "One or two of your dice and as many of the reserve's: a stunning plan.",
  ];
  return {
    kind: "break",
    key: `${key}|break`,
    places: [...(trade ? ["agent", "reserve"] : []), "narrator", ...(peril > 0 ? ["peril"] : [])],
    title: "Your break: tap the dice",
    how: ways.filter(Boolean).join(" "),
    confirm: "Confirm the break",
    tap(picks, pick) {
      const same = picks.filter((p) => plan(p.place) === plan(pick.place));
      const at = (place) => same.filter((p) => p.place === place).length;
      if (plan(pick.place) === "security") return { picks: [pick] };
      if (plan(pick.place) === "footing" && at("narrator") >= gift) {
        return { why: `A slim opening takes ${gift === 1 ? "the narrator's one die" : "two of the narrator's dice"}: tap a chosen die to let it go first.` };
      }
      if (pick.place === "agent" && at("agent") >= trade) {
        return { why: `A stunning plan trades ${trade === 1 ? "one of your dice, for the reserve's one die" : "two of your dice at most"}: tap a chosen one to let it go first.` };
      }
      if (pick.place === "reserve" && at("reserve") >= trade) return { why: `A stunning plan takes ${trade === 1 ? "the reserve's one die" : "two reserve dice at most"}: tap a chosen one to let it go first.` };
      return { picks: [...same, pick] };
    },
    say(picks) {
      if (!picks.length) return { text: "No die chosen yet.", ready: false };
      const choice = plan(picks[0].place);
      if (choice === "security") {
        return { text: `Break with the peril ${said(view, picks, "peril")[0]}: you seize the moment, and the peril falls from ${peril} to ${peril - 1}.`, ready: true };
      }
      if (choice === "footing") {
        const taken = said(view, picks, "narrator");
        if (taken.length < gift) return { text: `The narrator's ${words(taken)}: tap ${gift - taken.length} more of the narrator's dice (a slim opening takes two).`, ready: false };
        const one = taken.length === 1;
        return { text: `Break with the narrator's ${words(taken)}: a slim opening, and ${one ? "it leaves" : "they leave"} the narrator's hand and ${one ? "joins" : "join"} yours.`, ready: true };
      }
      const away = said(view, picks, "agent");
      const back = said(view, picks, "reserve");
      if (!away.length) return { text: `The reserve's ${words(back)}: now tap ${diceWord(back.length)} of your hand to trade for ${back.length === 1 ? "it" : "them"}.`, ready: false };
      if (back.length < away.length) {
        return { text: `Your ${words(away)} to trade: now tap ${diceWord(away.length - back.length)} of the reserve to take in ${away.length === 1 ? "its" : "their"} place.`, ready: false };
      }
      if (back.length > away.length) return { text: `The reserve's ${words(back)} for your ${words(away)}: tap one more of your dice, or let a reserve die go.`, ready: false };
      const one = away.length === 1;
      return {
        text: `Break with your ${words(away)} and the reserve's ${words(back)}: a stunning plan, and your ${words(away)} ${one ? "goes" : "go"} to the reserve while the reserve's ${words(back)} ${one ? "joins" : "join"} your hand.`,
        ready: true,
      };
    },
    command(picks) {
      const choice = plan(picks[0]?.place);
      if (choice === "security") return { type: "karbon.choose_break", choice };
      if (choice === "footing") return { type: "karbon.choose_break", choice, option: "dice", dice: idsAt(picks, "narrator") };
      return { type: "karbon.choose_break", choice, dice: idsAt(picks, "agent"), reserve: idsAt(picks, "reserve") };
    },
  };
}

// A glitch, side-swiped: the player erases a win (X) and takes two of the narrator's dice (all it has, if fewer).
function glitchChoice(view, key) {
  const rules = view.rules;
  const gift = Math.min(2, rules.sides.narrator.hand.length);
  if (!rules.contest.track.includes("X") || gift === 0) return null;
  return {
    kind: "glitch",
    key: `${key}|glitch`,
    places: ["narrator"],
    title: "Your glitch: tap the narrator's dice",
    how: `Side-swiped: erase a win (X) and take ${gift === 1 ? "the narrator's one die" : "two of the narrator's dice"}.`,
    confirm: "Confirm the glitch",
    tap(picks, pick) {
      if (picks.length >= gift) return { why: `Side-swiped takes ${gift === 1 ? "the narrator's one die" : "two of the narrator's dice"}: tap a chosen die to let it go first.` };
      return { picks: [...picks, pick] };
    },
    say(picks) {
      const taken = said(view, picks, "narrator");
      if (!taken.length) return { text: "No die chosen yet.", ready: false };
      if (taken.length < gift) return { text: `The narrator's ${words(taken)}: tap ${gift - taken.length} more of the narrator's dice (side-swiped takes two).`, ready: false };
      return { text: `Glitch, side-swiped with the narrator's ${words(taken)}: your win (X) is erased, and ${taken.length === 1 ? "the die joins" : "the dice join"} your hand.`, ready: true };
    },
    command(picks) {
      return { type: "karbon.choose_glitch", choice: "side_swiped", option: "dice", dice: idsAt(picks, "narrator") };
    },
  };
}

// `need` dice of the main pool, for a rule that takes dice named at the table.
function poolChoice({ view, key, kind, need, title, how, confirm, sentence, command, most = need }) {
  return {
    kind,
    key: `${key}|${kind}`,
    places: ["pool"],
    title,
    how,
    confirm,
    tap(picks, pick) {
      if (picks.length >= most) return { why: `At most ${diceWord(most)}: tap a chosen die to let it go first.` };
      return { picks: [...picks, pick] };
    },
    say(picks) {
      const taken = said(view, picks, "pool");
      if (!taken.length) return { text: need ? `No die chosen yet (tap ${diceWord(need)}).` : "No die chosen yet.", ready: need === 0 };
      const left = need - taken.length;
      return { text: `${sentence(words(taken), taken.length)}${left > 0 ? ` Tap ${moreDice(left)}.` : ""}`, ready: left === 0 };
    },
    command: command && ((picks) => command(idsAt(picks, "pool"))),
  };
}

// The hands drawn at the table: the first taps fill the agent's hand, the next the narrator's.
function drawChoice(view, key) {
  const rules = view.rules;
  const contest = rules.contest;
  const pool = rules.pool.length;
  const needs = { agent: Math.min(contest.level, pool) };
  needs.narrator = Math.min(contest.challenge, pool - needs.agent);
  const count = (picks, to) => picks.filter((p) => p.to === to).length;
  return {
    kind: "draw",
    key: `${key}|draw`,
    places: ["pool"],
    title: "The hands drawn at the table: tap them in the main pool",
    how: `The agent's hand takes ${diceWord(needs.agent)} (its level), the narrator's ${diceWord(needs.narrator)} (the challenge): the first dice tapped go to the agent's hand, the next to the narrator's.`,
    confirm: "Enter the hands",
    tap(picks, pick) {
      for (const to of ["agent", "narrator"]) if (count(picks, to) < needs[to]) return { picks: [...picks, { ...pick, to }] };
      return { why: "Both hands are full: tap a chosen die to put it back in the pool first." };
    },
    say(picks) {
      const pool = diceAt(view, "pool");
      const hand = (to) => picks.filter((p) => p.to === to).map((p) => spokenDie(pool.find((d) => d.id === p.id), new Map()));
      const part = (to, whose) => `${whose}: ${words(hand(to)) || "none yet"} (${count(picks, to)} of ${needs[to]})`;
      const left = needs.agent + needs.narrator - picks.length;
      return { text: `${part("agent", "The agent's hand")}; ${part("narrator", "the narrator's hand")}.${left > 0 ? ` Tap ${moreDice(left)}.` : ""}`, ready: left === 0 };
    },
    command(picks) {
      const to = (side) => picks.filter((p) => p.to === side).map((p) => p.id);
      return { type: "karbon.draw_hands", agent: to("agent"), narrator: to("narrator") };
    },
  };
}

// The GM's new challenge: lowering it returns narrator dice to the pool (named, always); raising it with named
// draws takes pool dice into the narrator's hand.
function challengeChoice(view, key, draft) {
  const rules = view.rules;
  const contest = rules.contest;
  const text = String(draft ?? "").trim();
  const wanted = Number(text);
  if (!text || !Number.isInteger(wanted) || wanted < 1 || wanted > 15 || wanted === contest.challenge) return null;
  const hand = rules.sides.narrator.hand.length;
  if (wanted < contest.challenge) {
    const need = Math.min(contest.challenge - wanted, hand);
    if (need === 0) return null;
    return {
      kind: "challenge",
      key: `${key}|challenge-${wanted}`,
      places: ["narrator"],
      title: `The challenge falls to ${wanted}: tap the narrator's dice to return`,
      how: `${need === 1 ? "One die of the narrator's hand goes" : `${need} dice of the narrator's hand go`} back to the main pool.`,
      confirm: "Confirm the challenge",
      tap(picks, pick) {
        if (picks.length >= need) return { why: `${need === 1 ? "One die goes" : `${need} dice go`} back: tap a chosen die to let it go first.` };
        return { picks: [...picks, pick] };
      },
      say(picks) {
        const back = said(view, picks, "narrator");
        if (!back.length) return { text: `No die chosen yet (tap ${diceWord(need)}).`, ready: false };
        const left = need - back.length;
        return { text: `The challenge falls from ${contest.challenge} to ${wanted}: the narrator's ${words(back)} ${back.length === 1 ? "goes" : "go"} back to the pool.${left > 0 ? ` Tap ${moreDice(left)}.` : ""}`, ready: left === 0 };
      },
      command(picks) {
        return { type: "karbon.change_challenge", challenge: wanted, dice: idsAt(picks, "narrator") };
      },
    };
  }
  const need = Math.min(wanted - contest.challenge, rules.pool.length);
  if (!namedDraws(view) || need === 0) return null;
  return poolChoice({
    view,
    key: `${key}|${wanted}`,
    kind: "challenge",
    need,
    title: `The challenge rises to ${wanted}: tap the dice drawn from the main pool`,
    how: `${need === 1 ? "One die of the main pool joins" : `${need} dice of the main pool join`} the narrator's hand.`,
    confirm: "Confirm the challenge",
    sentence: (dice, n) => `The challenge rises from ${contest.challenge} to ${wanted}: the ${dice} ${n === 1 ? "joins" : "join"} the narrator's hand.`,
    command: (dice) => ({ type: "karbon.change_challenge", challenge: wanted, dice }),
  });
}

// The choice among particular dice open to this viewer now, if any: which places' dice may be tapped, what a
// tap does (or why it is refused), the sentence the dice tapped make, and the command they send.
function diceChoice(view, me, draft = draftOf(view)) {
  const rules = view.rules;
  const contest = rules.contest;
  if (view.concluded || !contest) return null;
  const { gm, agent } = roles(view, me);
  const pending = rules.pending[0];
  const key = `${view.contest}|${contest.number}|${contest.round}|${contest.track.join("")}|${rules.pending.length}`;
  if (rules.phase === "test" && pending) {
    if (pending.payout === "break" && agent) return breakChoice(view, key);
    if (pending.payout === "glitch" && pending.chooser === "agent" && agent) return glitchChoice(view, key);
    if (pending.chooser === "narrator" && pending.choice === "plans" && gm && namedDraws(view) && rules.pool.length) {
      const need = Math.min(2, rules.pool.length);
      return poolChoice({
        view,
        key,
        kind: "plans",
        need,
        title: "The plans turn worse: tap the dice the narrator takes",
        how: `${need === 1 ? "One die of the main pool joins" : `${need} dice of the main pool join`} the narrator's hand.`,
        confirm: "Confirm the dice taken",
        sentence: (dice) => `The narrator takes the pool's ${dice} into its hand.`,
        command: (dice) => ({ type: "karbon.narrator_option", option: "dice", dice }),
      });
    }
  }
  if (rules.phase === "drawing") return gm && namedDraws(view) ? drawChoice(view, key) : null;
  if (gm) {
    const change = challengeChoice(view, key, draft);
    if (change) return change;
  }
  if (rules.phase === "ready" && rules.all_in && view.dice === "physical" && (gm || (agent && rules.players_type_faces)) && rules.pool.length) {
    const most = Math.min(3, rules.pool.length);
    return poolChoice({
      view,
      key,
      kind: "drawn",
      need: 0,
      most,
      title: "All on the line: tap the dice drawn for the risk's hits",
      how: `One die of the main pool for each hit of the three risk d8 (${diceWord(most)} at most); they go with the faces.`,
      confirm: "",
      sentence: (dice, n) => `Drawn for the risk's hits: the pool's ${dice} (${diceWord(n)}); they are sent with the faces.`,
      command: null,
    });
  }
  return null;
}

// --- the board -----------------------------------------------------------------------------------------

function Die({ die, among, faces, place, choice, view, picks }) {
  const shown = faces.get(die.id);
  const name = shown ? `d${die.sides} showing ${shown.face}, a ${shown.result}` : dieName(die, among);
  const look = `die d${die.sides} ${shown ? `${shown.result} drawn` : ""} ${place === "peril" ? "peril" : ""}`;
  const tone = shown ? { hit: "ok", turncoat: "bad" }[shown.result] ?? "" : "";
  const inside = shown
    ? html`<${DrawnDie} sides=${die.sides} face=${shown.face} tone=${tone} hidden=${true} /><span class="kind">d${die.sides}</span>`
    : html`<span class="kind">d${die.sides}</span>`;
  if (!choice) return html`<li class=${look} aria-label=${name} data-testid=${`die-${die.id}`}>${inside}</li>`;
  const picked = picks.find((p) => p.place === place && p.id === die.id);
  const label = picked?.to ? `${name}, for the ${picked.to}'s hand` : name;
  return html`<li class="die-slot">
    <button type="button" class=${`${look} tappable ${picked ? "picked" : ""}`} aria-pressed=${picked ? "true" : "false"} aria-label=${label}
      onClick=${() => tapDie(choice, view, { place, id: die.id })} data-testid=${`die-${die.id}`}>
      ${inside}${picked && html`<span class="picked-tag" aria-hidden="true">${picked.to ?? "✓"}</span>`}
    </button>
  </li>`;
}

function Dice({ view, place, label, testid, choice = null, picks = [] }) {
  const dice = diceAt(view, place);
  const faces = facesAt(view, place);
  const open = choice?.places.includes(place) ? choice : null;
  return html`<div class=${`dice-row ${open ? "choosing" : ""}`} data-testid=${testid}>
    <span class="dice-label">${label} (${dice.length})</span>
    ${dice.length === 0
      ? html`<span class="none"> — none</span>`
      : html`<ul class="dice" aria-label=${label}>${dice.map(
          (d) => html`<${Die} key=${d.id} die=${d} among=${dice} faces=${faces} place=${place} choice=${open} view=${view} picks=${picks} />`,
        )}</ul>`}
  </div>`;
}

// The sentence the dice tapped make, and the button that sends it.
function DiceChoice({ view, choice, picks }) {
  const sentence = choice.say(picks);
  const why = table.key === choice.key ? table.why : "";
  const send = async () => {
    await table.actor.act(choice.command(picks));
    if (choice.kind === "challenge") table.challenge = { contest: view.contest, value: "" };
    setPicks(choice.key, []);
  };
  return html`<div class="dice-choice" role="group" aria-labelledby="dice-choice-title" data-testid="dice-choice">
    <h3 id="dice-choice-title">${choice.title}</h3>
    <p class="how">${choice.how} ${HOW}</p>
    <p class="sentence" aria-live="polite" data-testid="dice-sentence">${sentence.text}</p>
    <p class="why" role="status" data-testid="dice-why">${why}</p>
    <div class="form-end">
      ${choice.command && html`<${ActionButton} kind="primary" label=${choice.confirm} disabled=${!sentence.ready} run=${send} testid="dice-confirm" />`}
      ${picks.length > 0 && html`<button type="button" onClick=${() => setPicks(choice.key, [])} data-testid="dice-clear">Let every die go</button>`}
    </div>
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

const TONES = { hit: "ok", turncoat: "bad" };

// The last round's dice as rows ({caption, dice, roll, testid}): the agent's hand, the narrator's, the three risk d8
// of an agent all in, the peril d8.
function rollRows(view) {
  const rules = view.rules;
  const roll = rules.last_roll;
  if (!roll) return [];
  const agent = rules.name || "the agent";
  const die = (owner, sides, face, result) => ({ sides, face, tone: TONES[result] ?? "", label: `${owner} d${sides} showing ${face}, a ${result}`, note: result });
  const rows = [
    { testid: "last-roll-agent", caption: `Round ${roll.round}: ${agent}'s hand`, dice: roll.agent.map((d) => die(`${agent}'s`, d.sides, d.face, d.result)) },
    { testid: "last-roll-narrator", caption: `Round ${roll.round}: the narrator's hand`, dice: roll.narrator.map((d) => die("the narrator's", d.sides, d.face, d.result)) },
    { testid: "risk-dice", caption: "All on the line: the three risk d8", dice: roll.all_in ? roll.risk.map((face) => die("risk", 8, face, resultOf(face))) : [] },
    { testid: "last-roll-peril", caption: `Round ${roll.round}: the peril d8`, dice: roll.peril.map((face) => die("peril", 8, face, resultOf(face))) },
  ];
  return rows.filter((row) => row.dice.length > 0).map((row) => ({ ...row, roll: `${row.testid}-${rules.contests}-${roll.round}` }));
}

// The newest roll's dice, for the stream overlay: the whole last round.
function lastDice(view) {
  return rollRows(view);
}

// The last round's dice on the board: in the test that follows the roll the hands and the peril show their faces
// where they lie, so only the risk dice are drawn here; after it, every die of the round.
function LastRound({ view }) {
  const inTest = view.rules.phase === "test";
  return rollRows(view)
    .filter((row) => row.testid === "risk-dice" || !inTest)
    .map((row) => html`<${DiceRow} key=${row.testid} dice=${row.dice} caption=${row.caption} roll=${row.roll} testid=${row.testid} />`);
}

function RollWords({ rules }) {
  const roll = rules.last_roll;
  if (!roll) return null;
  const side = (which) => (which === "agent" ? rules.name || "the agent" : "the narrator");
  const winner = roll.winner ? `${side(roll.winner)} wins the round` : "a tie in hits";
  const opening = roll.opening ? `; ${side(roll.opening)} offers an opening` : "";
  return html`<p class="last" data-testid="last-roll">Round ${roll.round}: ${side("agent")} ${roll.agent_hits} hit(s), ${roll.agent_turncoats} turncoat(s);
    the narrator ${roll.narrator_hits} hit(s), ${roll.narrator_turncoats} turncoat(s): ${winner}${opening}.
    ${roll.all_in ? ` All on the line: ${roll.risk.join(", ")}.` : ""}${roll.peril.length ? ` Peril: ${roll.peril.join(", ")}.` : ""}</p>`;
}

function Board({ view, me }) {
  useTable();
  const rules = view.rules;
  const contest = rules.contest;
  const outcome = rules.last_outcome;
  const choice = table.actor?.contest === view.contest ? diceChoice(view, me) : null;
  const picks = picksOf(choice, view);
  const row = (place, label, testid) => html`<${Dice} view=${view} place=${place} label=${label} testid=${testid} choice=${choice} picks=${picks} />`;
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
          ${row(side, side === "agent" ? `${rules.name}'s hand` : "Narrator's hand", `hand-${side}`)}
          <${Chips} side=${side} rules=${rules} />
        </article>`,
      )}
    </div>
    ${contest && contest.peril > 0 && row("peril", "Peril dice", "peril-dice")}
    ${choice && html`<${DiceChoice} view=${view} choice=${choice} picks=${picks} />`}
    ${row("pool", "Main pool", "pool")}
    ${row("reserve", "Reserve", "reserve")}
    ${rules.spent.length > 0 && row("spent", "Set aside", "spent")}
    ${rules.all_in !== null && contest && html`<p data-testid="risk">${rules.all_in ? "The agent puts it all on the line this round." : "No risk this round."}</p>`}
    <${RollWords} rules=${rules} />
    <${LastRound} view=${view} />
    ${rules.pending.length > 0 && html`<p class="waiting" data-testid="pending">Waiting for ${rules.pending[0].chooser === "agent" ? "the player's" : "the narrator's"} choice after a ${rules.pending[0].payout}.</p>`}
    ${outcome && !contest && html`<section class="outcome" data-testid="outcome"><h3>Contest ${outcome.contest}: ${
      outcome.outcome === "won" ? "won" : outcome.outcome === "lost" ? "lost" : "unclear"}</h3>
      <p>${outcome.wins} X, ${outcome.losses} O${outcome.fortune !== outcome.fortune_before ? ` · Fortune ${outcome.fortune_before} → ${outcome.fortune}` : ""}</p></section>`}
  </section>`;
}

// --- actions -------------------------------------------------------------------------------------------

// Faces typed as a list: "2, 5, 7".
function faceList(text) {
  return String(text).split(/[\s,]+/).map((s) => s.trim()).filter(Boolean).map(Number);
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
    <${Field} type="number" min="0" max="15" label="Other significant factors (+1 each)" name="guide-factors" value=${guide.factors}
      onInput=${(v) => set("factors", v)} hint="0–15; the challenge comes to 15 at most." testid="guide-factors" />
  </fieldset>`;
}

function ConsequenceGuide({ guide, onChange }) {
  const set = (key, value) => onChange({ ...guide, [key]: value });
  return html`<fieldset class="guide" data-testid="consequence-guide">
    <legend>The consequence guide</legend>
    <${Select} label="The contest is" name="guide-scope" value=${guide.scope} onChange=${(v) => set("scope", v)}
      options=${[["minor", "minor (1 win)"], ["moderate", "moderate (2)"], ["major", "major (3)"]]} />
    ${guide.scope === "major" && html`<${Field} type="number" min="0" max="20" label="A major contest needing more wins (+1 each)" name="guide-major-extra"
      value=${guide.major_extra} onInput=${(v) => set("major_extra", v)} hint="0–20." />`}
    <${Field} type="number" min="0" max="20" label="Profiles involved (+1 each)" name="guide-profiles" value=${guide.profiles}
      onInput=${(v) => set("profiles", v)} hint="0–20." testid="guide-profiles" />
    <${Field} type="number" min="0" max="20" label="Requisite assets, paid or not (+1 each)" name="guide-assets" value=${guide.assets}
      onInput=${(v) => set("assets", v)} hint="0–20; the track holds 20 wins at most." />
    <${Field} type="number" min="0" max="2" label="More work but not harder (+0 to +2)" name="guide-fictional" value=${guide.fictional}
      onInput=${(v) => set("fictional", v)} hint="0–2." />
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
      <${Field} label="Goal" name="goal" value=${goal} onInput=${setGoal} hint="Up to 200 characters." testid="goal" />
      <${Field} label="Ability" name="ability" value=${ability} onInput=${setAbility} hint="Up to 200 characters." testid="ability" />
      <${Field} type="number" min="0" max="15" label="Level (the agent's dice)" name="level" value=${level} onInput=${setLevel} hint="0–15." testid="level" />
      ${!challengeGuide && html`<${Field} type="number" min="1" max="15" label="Challenge (the narrator's dice)" name="challenge" value=${challenge}
        onInput=${setChallenge} hint="1–15: 1 easy, 2 moderate, 3 difficult; +1 a profile, +1 its element, +1/+2 several/many opponents, +1 per factor."
        testid="challenge" />`}
      ${!consequenceGuide && html`<${Field} type="number" min="1" max="20" label="Consequence (wins on the track)" name="consequence" value=${consequence}
        onInput=${setConsequence} hint="1–20: 1 minor, 2 moderate, 3+ major; +1 per profile and per requisite asset." testid="consequence" />`}
      <${Field} type="number" min="0" max="2" label="Peril" name="peril" value=${peril} onInput=${setPeril} hint="0–2." testid="peril-input" />
      <${Field} type="number" min="0" max="10" label="Applicable injuries" name="injuries" value=${injuries} onInput=${setInjuries} hint="0–10, added to the peril." />
    </div>
    <${Check} label="Work the challenge out with the guide" name="use-challenge-guide" checked=${challengeGuide !== null}
      onChange=${(on) => setChallengeGuide(on ? newChallengeGuide() : null)} />
    ${challengeGuide && html`<${ChallengeGuide} guide=${challengeGuide} onChange=${setChallengeGuide} />`}
    <${Check} label="Work the consequence out with the guide" name="use-consequence-guide" checked=${consequenceGuide !== null}
      onChange=${(on) => setConsequenceGuide(on ? newConsequenceGuide() : null)} />
    ${consequenceGuide && html`<${ConsequenceGuide} guide=${consequenceGuide} onChange=${setConsequenceGuide} />`}
  <//>`;
}

function DrawHands({ view }) {
  const contest = view.rules.contest;
  return html`<div class="draw" data-testid="draw-hands">
    <p>Tap the dice drawn at the table in the main pool above: ${diceWord(contest.level)} for the agent's hand (its level), then ${diceWord(contest.challenge)} for
      the narrator's (the challenge); the pool holds ${diceWord(view.rules.pool.length)}. Then enter the hands there.</p>
  </div>`;
}

function RiskForm({ view, act }) {
  const agent = view.rules.agent;
  const declared = view.seal?.declared.find((d) => d.participant === agent);
  const [move, setMove] = useState("");
  const declare = (allIn) => act({ type: "seal.declare", participant: agent, payload: { type: "karbon.risk", all_in: allIn, move } });
  return html`<div class="risk" role="group" aria-label="Risk" data-testid="risk-form">
    <p>Before the dice: does ${view.rules.name} put it all on the line? (sealed until declared)</p>
    ${declared && html`<p role="status" data-testid="risk-sealed">Sealed.</p>`}
    <${Field} label="The risky move (if all in)" name="risk-move" value=${move} onInput=${setMove} hint="Up to 500 characters." />
    <${ActionButton} kind="primary" label="All on the line" run=${() => declare(true)} testid="all-in" />
    <${ActionButton} label="No risk" run=${() => declare(false)} testid="no-risk" />
  </div>`;
}

function FacesForm({ view, me, act }) {
  useTable();
  const rules = view.rules;
  const agentHand = rules.sides.agent.hand;
  const narratorHand = rules.sides.narrator.hand;
  const hand = [...agentHand, ...narratorHand];
  const [faces, setFaces] = useState({});
  const [risk, setRisk] = useState("");
  const [peril, setPeril] = useState("");
  const contest = rules.contest;
  const choice = diceChoice(view, me);
  const drawn = choice?.kind === "drawn" ? idsAt(picksOf(choice, view), "pool") : [];
  const hits = faceList(risk).filter((f) => f >= 1 && f <= 3).length;
  const wanted = Math.min(hits, rules.pool.length);
  const send = () => {
    const command = { type: "karbon.roll", faces: Object.fromEntries(hand.map((d) => [d.id, num(faces[d.id] ?? "")])) };
    if (rules.all_in) {
      command.risk = faceList(risk);
      command.drawn = drawn;
    }
    if (contest.peril > 0) command.peril = faceList(peril);
    return act(command);
  };
  const label = (d) => {
    const mine = agentHand.includes(d);
    return `${mine ? "Agent's" : "Narrator's"} ${dieName(d, mine ? agentHand : narratorHand).replace(/^the /, "")}`;
  };
  return html`<${ActionForm} run=${send} label="Enter the faces" testid="faces">
    <p>Physical dice: tap (or type) the face each die shows.</p>
    <div class="grid">
      ${hand.map((d) => html`<${FaceField} key=${d.id} sides=${d.sides} label=${label(d)} name=${`face-${d.id}`}
        value=${faces[d.id] ?? ""} onInput=${(v) => setFaces({ ...faces, [d.id]: v })} testid=${`face-${d.id}`} />`)}
      ${rules.all_in && html`<div class="face-field"><${Field} label="Risk: the three d8" name="risk-faces" value=${risk} onInput=${setRisk} hint="Three faces, 1–8 each, e.g. 2, 5, 7; or tap them." testid="risk-faces" />
        <${ListPicks} sizes=${[8, 8, 8]} text=${risk} onText=${setRisk} label=${(i) => `Risk d8 ${i + 1}`} testid="risk-faces-pick" /></div>`}
      ${contest.peril > 0 && html`<div class="face-field"><${Field} label=${`Peril: ${contest.peril} d8`} name="peril-faces" value=${peril} onInput=${setPeril}
        hint=${contest.peril === 1 ? "One face, 1–8; or tap it." : `${contest.peril} faces, 1–8 each; or tap them.`} testid="peril-faces" />
        <${ListPicks} sizes=${Array.from({ length: contest.peril }, () => 8)} text=${peril} onText=${setPeril} label=${(i) => `Peril d8 ${i + 1}`} testid="peril-faces-pick" /></div>`}
    </div>
    ${rules.all_in && html`<p class="karbon-limit" data-testid="risk-drawn">Dice drawn from the pool for the risk's hits: the risk shows ${hits} ${hits === 1 ? "hit" : "hits"}, so tap ${diceWord(wanted)} in the main pool above; ${drawn.length} tapped.</p>`}
  <//>`;
}

function StackControls({ view, side, act }) {
  const s = view.rules.sides[side];
  const room = STACK - s.stack;
  // chips beyond a payout start the next stack; with the track full a stack stops at four
  const slots = view.rules.contest.consequence - view.rules.contest.track.length;
  const held = Math.min(s.chips, room + STACK * (slots - 1) + STACK - 1);
  const payout = side === "agent" ? "break" : "glitch";
  const [chips, setChips] = useState("");
  const stack = (n) => act({ type: "karbon.stack", side, chips: n });
  return html`<div class="stacking" role="group" aria-label=${`${SIDE_NAMES[side]}'s test`} data-testid=${`test-${side}`}>
    <p class="karbon-limit" data-testid=${`stack-limit-${side}`}>${SIDE_NAMES[side]}: ${s.chips} ${s.chips === 1 ? "chip" : "chips"} in hand, so stack ${held === 1 ? "1" : `1 to ${held}`}${held < s.chips ? " (the victory track has no room for more)" : ""}.
      The stack holds ${s.stack} of ${STACK}: ${room} more ${room === 1 ? "makes" : "make"} a ${payout}${held > room ? ", and the chips beyond start the next stack" : ""}.</p>
    ${held <= 10
      ? Array.from({ length: held }, (_, i) => i + 1).map(
          (n) => html`<${ActionButton} key=${n} label=${`Stack ${n}`} run=${() => stack(n)} testid=${`stack-${side}-${n}`} />`,
        )
      : html`<${ActionForm} run=${() => stack(num(chips))} label="Stack them" kind="">
          <${Field} type="number" min="1" max=${held} label="Chips to stack" name=${`stack-${side}`} value=${chips} onInput=${setChips} hint=${`1–${held}.`} />
        <//>`}
    <${ActionButton} label="End the test" run=${() => act({ type: "karbon.end_test", side })} testid=${`end-test-${side}`} />
  </div>`;
}

// Backing out of the contest being played (the GM or the agent's player): it ends with no outcome.
function BackOut({ view, act }) {
  const contest = view.rules.contest;
  const question = `Back out of contest ${contest.number}, “${contest.goal}”? It ends with no outcome: nobody wins or loses, its chips and marks go with it, and its hands leave the table as at the end of a contest.`;
  return html`<div class="back-out" data-testid="back-out-group">
    <${ActionButton} label="Back out of this contest" confirm=${question} run=${() => act({ type: "karbon.back_out" })} testid="back-out" />
  </div>`;
}

function BreakChoices({ view, act }) {
  const rules = view.rules;
  const peril = rules.contest.peril;
  const held = rules.sides.narrator.chips;
  const gift = Math.min(2, rules.sides.narrator.hand.length);
  const choose = (command) => act({ type: "karbon.choose_break", ...command });
  return html`<div class="choices" role="group" aria-label="Your break" data-testid="break-choices">
    <h3>A break: you marked a win (X). Pick one.</h3>
    <ul class="karbon-options">
      <li>Seize the moment: ${peril > 0 ? "tap a peril die on the board to remove it." : "no peril die to remove (the peril is 0)."}</li>
      <li>A slim opening: ${gift ? `tap ${gift === 1 ? "the narrator's one die" : "two of the narrator's dice"} on the board to take ${gift === 1 ? "it" : "them"}, or ` : ""}<${ActionButton} label=${`Make the narrator discard its ${held} ${held === 1 ? "chip" : "chips"}`} run=${() => choose({ choice: "footing", option: "discard" })} testid="break-discard" /></li>
      <li>A stunning plan: ${rules.reserve.length
        ? `tap one or two of your dice and as many of the reserve's (${diceWord(rules.reserve.length)} there) to trade them.`
        : "the reserve is empty, so there is nothing to trade."}</li>
    </ul>
  </div>`;
}

function GlitchChoices({ view, act }) {
  const rules = view.rules;
  const noWin = !rules.contest.track.includes("X");
  const held = rules.sides.narrator.chips;
  const gift = Math.min(2, rules.sides.narrator.hand.length);
  const choose = (command) => act({ type: "karbon.choose_glitch", ...command });
  return html`<div class="choices" role="group" aria-label="Your glitch" data-testid="glitch-choices">
    <h3>A glitch: a loss (O) is marked. Pick one.</h3>
    <${ActionButton} label="Hurt, but persisting (the narrator picks)" run=${() => choose({ choice: "hurt" })} testid="glitch-hurt" />
    <${ActionButton} label="Plans take a turn for the worse (the narrator picks)" run=${() => choose({ choice: "plans" })} testid="glitch-plans" />
    <div class="choice">
      ${noWin
        ? html`<p class="karbon-limit" data-testid="no-win">Side-swiped erases a win (X), and the track has none.</p>`
        : html`<p>Side-swiped: erase a win (X), then ${gift ? `tap ${gift === 1 ? "the narrator's one die" : "two of the narrator's dice"} on the board to take ${gift === 1 ? "it" : "them"}, or` : ""}</p>
          <${ActionButton} label=${`Erase an X and take the narrator's ${held} ${held === 1 ? "chip" : "chips"}`} run=${() => choose({ choice: "side_swiped", option: "chips" })} testid="glitch-chips" />`}
    </div>
  </div>`;
}

function NarratorOptions({ view, act, choice }) {
  const [label, setLabel] = useState("");
  const named = namedDraws(view);
  const pool = view.rules.pool.length;
  const pick = (option, extra = {}) => act({ type: "karbon.narrator_option", option, ...extra });
  if (choice === "hurt") {
    return html`<div class="choices" role="group" aria-label="The narrator's option" data-testid="narrator-options">
      <h3>The agent is hurt: injury and two chips, or a condition and none</h3>
      <${Field} label="Injury or condition" name="hurt-label" value=${label} onInput=${setLabel} hint="Up to 80 characters." />
      <${ActionButton} label="An injury and two chips" run=${() => pick("injury", { label })} testid="narrator-injury" />
      <${ActionButton} label="A condition, no chips" run=${() => pick("condition", { label })} testid="narrator-condition" />
    </div>`;
  }
  return html`<div class="choices" role="group" aria-label="The narrator's option" data-testid="narrator-options">
    <h3>The plans turn worse: take two dice from the pool, or add a peril die</h3>
    ${pool === 0
      ? html`<p class="karbon-limit">The main pool is empty: no dice to take.</p>`
      : named
        ? html`<p class="karbon-limit">Tap ${diceWord(Math.min(2, pool))} in the main pool on the board (it holds ${diceWord(pool)}), then confirm there.</p>`
        : html`<${ActionButton} label=${`Take ${diceWord(Math.min(2, pool))} from the pool at random`} run=${() => pick("dice")} testid="narrator-dice" />`}
    <${ActionButton} label="Add a peril die" run=${() => pick("peril")} testid="narrator-peril" />
  </div>`;
}

const ADJUST_LIMITS = {
  fortune: [0, 100, "Fortune stays 0–100"],
  hand: [0, 1000, "chips in hand stay 0–1,000"],
  stack: [0, 4, "a stack stays 0–4 between payouts"],
};

function signed(n) {
  return n > 0 ? `+${n.toLocaleString("en")}` : n < 0 ? `−${(-n).toLocaleString("en")}` : "0";
}

function GmControls({ view, me, act }) {
  useTable();
  const rules = view.rules;
  const contest = rules.contest;
  const [peril, setPeril] = useState("");
  const [target, setTarget] = useState("narrator_hand");
  const [delta, setDelta] = useState("");
  const [reason, setReason] = useState("");
  const draft = draftOf(view);
  const choice = diceChoice(view, me);
  const changing = choice?.kind === "challenge" ? choice : null;
  const setChallenge = async () => {
    await act(changing ? changing.command(picksOf(changing, view)) : { type: "karbon.change_challenge", challenge: num(draft) });
    setDraft(view, "");
  };
  const kind = target === "fortune" ? "fortune" : target.endsWith("_stack") ? "stack" : "hand";
  const now = target === "fortune" ? rules.fortune : contest ? rules.sides[target.split("_")[0]][kind === "stack" ? "stack" : "chips"] : null;
  const [low, high, stays] = ADJUST_LIMITS[kind];
  return html`<details class="adjust"><summary>Change the challenge or the peril; corrections</summary>
    ${contest && html`<${ActionForm} run=${() => act({ type: "karbon.change_peril", peril: num(peril) })} label="Set the peril" kind="">
      <${Field} type="number" min="0" max="20" label="Peril" name="change-peril" value=${peril} onInput=${setPeril} hint=${`0–20; now ${contest.peril}.`} />
    <//>`}
    ${contest && html`<${ActionForm} run=${setChallenge} label="Set the challenge" kind="">
      <${Field} type="number" min="1" max="15" label="Challenge" name="change-challenge" value=${draft} onInput=${(value) => setDraft(view, value)}
        hint=${`1–15; now ${contest.challenge}. ${changing ? `Tap the dice on the board: ${changing.how}` : "Lowering it returns narrator dice, which you then tap on the board."}`} />
    <//>`}
    <${ActionForm} run=${() => act({ type: "karbon.adjust", target, delta: num(delta), reason })} label="Correct" kind="">
      <div class="grid">
        <${Select} label="Count" name="adjust-target" value=${target} onChange=${setTarget}
          options=${[["agent_hand", "agent's chips in hand"], ["agent_stack", "agent's stack"], ["narrator_hand", "narrator's chips in hand"], ["narrator_stack", "narrator's stack"], ["fortune", "Fortune"]]} />
        <${Field} type="number" min=${now === null ? undefined : low - now} max=${now === null ? undefined : high - now} label="Change (+/−)" name="adjust-delta" value=${delta} onInput=${setDelta}
          hint=${now === null ? "Chips are corrected while a contest runs." : `Now ${now}; ${stays}, so ${signed(low - now)} to ${signed(high - now)}.`} />
        <${Field} label="Reason" name="adjust-reason" value=${reason} onInput=${setReason} hint="Required; up to 500 characters." />
      </div>
    <//>
  </details>`;
}

// What this viewer can do now, and nothing it cannot.
function Actions({ view, me, act }) {
  const send = (command) => Promise.resolve(act(command)).catch((error) => Promise.reject(spokenError(error, view)));
  useActor(view.contest, send);
  const rules = view.rules;
  const { gm, agent } = roles(view, me);
  if (view.concluded) return html`<p>The scene is over.</p>`;
  const parts = [];
  const pending = rules.pending[0];
  switch (rules.phase) {
    case "between":
      if (gm) parts.push(html`<${StartForm} key="start" act=${send} previous=${rules.last_outcome?.contest} />`);
      if (agent && rules.last_outcome?.outcome === "unclear" && rules.last_outcome.contest === rules.contests) {
        parts.push(html`<${ActionButton} key="sudden" kind="primary" label="Call a sudden death" run=${() => send({ type: "karbon.sudden_death" })} testid="sudden-death" />`);
      }
      break;
    case "aftermath":
      if (agent) {
        parts.push(html`<div key="aftermath" role="group" aria-label="After the loss"><p>A loss at zero Fortune: pick what befalls ${rules.name}.</p>
          <${ActionButton} label="A Blackout" run=${() => send({ type: "karbon.choose_aftermath", aftermath: "blackout" })} testid="blackout" />
          <${ActionButton} label="A Moment of Madness" run=${() => send({ type: "karbon.choose_aftermath", aftermath: "madness" })} testid="madness" /></div>`);
      }
      break;
    case "drawing":
      if (gm) parts.push(html`<${DrawHands} key="draw" view=${view} />`);
      break;
    case "declaring":
      if (agent) parts.push(html`<${RiskForm} key="risk" view=${view} act=${send} />`);
      else parts.push(html`<p key="wait">Waiting for the agent's risk.</p>`);
      break;
    case "ready":
      if (view.dice === "physical" && (gm || (agent && rules.players_type_faces))) parts.push(html`<${FacesForm} key="faces" view=${view} me=${me} act=${send} />`);
      else if (view.dice === "server" && (gm || agent)) parts.push(html`<${ActionButton} key="roll" kind="primary" label="Roll the round" run=${() => send({ type: "karbon.roll" })} testid="roll" />`);
      else parts.push(html`<p key="wait">The GM enters the faces rolled at the table.</p>`);
      break;
    case "test":
      if (pending && pending.payout === "break" && agent) parts.push(html`<${BreakChoices} key="break" view=${view} act=${send} />`);
      else if (pending && pending.payout === "glitch" && pending.chooser === "agent" && agent) parts.push(html`<${GlitchChoices} key="glitch" view=${view} act=${send} />`);
      else if (pending && pending.chooser === "narrator" && gm) parts.push(html`<${NarratorOptions} key="narrator" view=${view} act=${send} choice=${pending.choice} />`);
      else if (!pending) {
        for (const side of rules.stacking) {
          if ((side === "agent" && agent) || (side === "narrator" && gm)) parts.push(html`<${StackControls} key=${side} view=${view} side=${side} act=${send} />`);
        }
      }
      break;
    default:
      break;
  }
  if (rules.contest && !pending && (gm || agent)) parts.push(html`<${BackOut} key="back-out" view=${view} act=${send} />`);
  if (gm) parts.push(html`<${GmControls} key="gm" view=${view} me=${me} act=${send} />`);
  if (parts.length === 0) parts.push(html`<p>Nothing for you to do right now.</p>`);
  return html`<div class="actions">${parts}</div>`;
}

function chartPoints() {
  return null;
}

function mine(view) {
  return [view.rules.agent];
}

// Who and what the view names by id: the agent, and every die as people say it, with its place.
function names(view) {
  const found = { [view.rules.agent]: view.rules.name };
  for (const [place, where] of Object.entries(PLACES)) {
    const dice = diceAt(view, place);
    for (const die of dice) found[die.id] = `${dieName(die, dice)} ${where}`;
  }
  return found;
}

function declarationWords(payload) {
  if (payload?.type !== "karbon.risk") return "";
  return `${payload.all_in ? "all on the line" : "no risk"}${payload.move ? `: “${payload.move}”` : ""}`;
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
  names,
  declarationWords,
  lastDice,
});
