// Dice drawn as dice: one SVG face per die, shaped by its number of sides (a d4 a triangle, a d6 a rounded
// square, a d8 a diamond, a d10 a kite, a d12 a pentagon, a d20 an icosahedron's outline, any other a disc),
// its face written on it. Each die is an image named in words ("Aria's d20 showing 14, Success"); the kept or
// middle die is marked by its outline and a word under it. A die tumbles in when it is first drawn (style.css,
// "Dice you can see"; none with reduced motion).
import { html } from "./ui.js";

const SIZE = 48;

// The outline of a die of `sides` sides, and the facet lines drawn faintly inside it; `y` is the face's baseline.
function shapeOf(sides) {
  switch (sides) {
    case 4:
      return { outline: html`<polygon class="die-body" points="24,3 45,43 3,43" />`, facets: "", y: 37, small: true };
    case 6:
      return { outline: html`<rect class="die-body" x="5" y="5" width="38" height="38" rx="8" ry="8" />`, facets: "", y: 31 };
    case 8:
      return { outline: html`<polygon class="die-body" points="24,2 45,24 24,46 3,24" />`, facets: "M24,2 L12,33 L36,33 Z", y: 30, small: true };
    case 10:
      return { outline: html`<polygon class="die-body" points="24,2 45,21 24,46 3,21" />`, facets: "M3,21 L24,31 L45,21 M24,31 L24,46", y: 25, small: true };
    case 12:
      return { outline: html`<polygon class="die-body" points="24,2 45,17 37,44 11,44 3,17" />`, facets: "M24,10 L36,19 L31,36 L17,36 L12,19 Z", y: 29 };
    case 20:
      return {
        outline: html`<polygon class="die-body" points="24,2 43,13 43,35 24,46 5,35 5,13" />`,
        facets: "M24,11 L38,33 L10,33 Z M24,2 L24,11 M43,13 L38,33 M5,13 L10,33 M43,35 L38,33 M5,35 L10,33 M24,46 L10,33 M24,46 L38,33",
        y: 29,
        small: true,
      };
    default:
      return { outline: html`<circle class="die-body" cx="24" cy="24" r="21" />`, facets: "", y: 25, generic: true };
  }
}

// One die. `sides`: null when the size is not known (drawn as a disc); `label`: its name in words;
// `tone`: "ok", "best", "bad" or "" (the outline's colour); `hidden`: drawn inside something already named.
export function Die({ sides, face, kept = false, label, tone = "", hidden = false, testid = undefined }) {
  const shape = shapeOf(sides);
  const text = face === null || face === undefined ? "?" : String(face);
  const big = text.length > 2 || (shape.small && text.length > 1);
  const names = hidden ? { "aria-hidden": "true" } : { role: "img", "aria-label": label };
  return html`<svg class=${`rolled-die ${kept ? "kept" : ""} ${tone ? `tone-${tone}` : ""}`} viewBox=${`0 0 ${SIZE} ${SIZE}`}
    width=${SIZE} height=${SIZE} focusable="false" data-sides=${sides ?? ""} data-face=${face ?? ""} data-testid=${testid} ...${names}>
    ${shape.outline}
    ${shape.facets && html`<path class="die-facets" d=${shape.facets} />`}
    <text class=${`die-num ${big ? "long" : ""}`} x="24" y=${shape.y} text-anchor="middle">${text}</text>
    ${shape.generic && sides && html`<text class="die-kind" x="24" y="39" text-anchor="middle">d${sides}</text>`}
  </svg>`;
}

// A row of dice with a caption. `dice`: {sides, face, kept, label, tone, note, who}, `note` a word or two shown
// under the die ("kept", "Success ↑ Critical"), `who` whose die it is, shown above it ("Aria"); `roll` names this
// roll, so a new roll draws (and tumbles) anew.
export function DiceRow({ dice, caption = "", roll = "", testid = "dice-drawn" }) {
  const shown = dice.filter((d) => d.face !== null && d.face !== undefined);
  if (shown.length === 0) return null;
  return html`<div class="dice-drawn" data-testid=${testid}>
    ${caption && html`<p class="dice-caption">${caption}</p>`}
    <ul class="dice-drawn-row">
      ${shown.map(
        (d, i) => html`<li key=${`${roll}|${i}|${d.sides}|${d.face}`} class=${`drawn-die ${d.kept ? "kept" : ""}`}>
          ${d.who && html`<span class="die-who" aria-hidden="true">${d.who}</span>`}
          <${Die} sides=${d.sides} face=${d.face} kept=${d.kept} label=${d.label} tone=${d.tone ?? ""} testid=${d.testid} />
          ${d.note && html`<span class="die-note" aria-hidden="true">${d.note}</span>`}
        </li>`,
      )}
    </ul>
  </div>`;
}

// The QuestWorlds levels, worst first, with the tone each is drawn in.
export const LEVELS = ["Fumble", "Failure", "Success", "Critical"];
const LEVEL_TONES = { Fumble: "bad", Failure: "", Success: "ok", Critical: "best" };

// A QuestWorlds d20 of one side of an exchange: `raw` the level the face reached before masteries (null: not
// known), `level` the level it stands at, `heroPoint` a hero point raised it one step. Null for no die.
export function questDie({ name, face, raw = null, level, heroPoint = false }) {
  if (face === null || face === undefined) return null;
  const steps = [];
  let words = `${name}'s d20 showing ${face}`;
  const before = heroPoint ? LEVELS[LEVELS.indexOf(level) - 1] : raw;
  if (heroPoint && before) {
    if (raw && raw !== before) steps.push(raw);
    steps.push(before, level);
    words += `, ${before}, raised to ${level} by a hero point`;
  } else if (raw && raw !== level && LEVELS.includes(raw)) {
    const up = LEVELS.indexOf(level) > LEVELS.indexOf(raw);
    steps.push(raw, level);
    words += `, ${raw}, ${up ? "bumped up" : "knocked down"} to ${level}`;
  } else {
    words += `, ${level}`;
  }
  const arrow = (a, b) => (LEVELS.indexOf(b) > LEVELS.indexOf(a) ? "↑" : "↓");
  const note = steps.length ? steps.map((s, i) => (i ? `${arrow(steps[i - 1], s)} ${s}` : s)).join(" ") : level;
  return { sides: 20, face, label: words, tone: LEVEL_TONES[level] ?? "", note, who: name };
}
