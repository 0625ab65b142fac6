// Physical dice picked by tapping a face. Under the typed field of a die, its faces drawn as dice (1 to its sides),
// each a button pressed when it is the face chosen: a row up to a d12, a compact grid for a d20 (five a line); a die
// of more sides (a d100) is typed only. A tap fills the field, a second tap on the same face empties it; typing
// stays possible everywhere. Every button is at least 44 px square, to be tapped on a phone (style.css, "Faces
// picked by tapping").
import { Field, html } from "./ui.js";
import { Die } from "./dice.js";

export const MOST_PICKED = 20; // the largest die whose faces are offered to tap
const ROW_MOST = 12; // up to this many sides, one row of faces (wrapping on a phone); above it, a grid

// The faces of a die of `sides` sides to tap; `value` the face chosen (text or number), `onPick(text)` called
// with the face tapped ("" when it is tapped again). Null for a die whose size is not known or too large.
export function FacePicks({ sides, value, onPick, label, testid = undefined }) {
  if (!Number.isInteger(sides) || sides < 2 || sides > MOST_PICKED) return null;
  const chosen = String(value ?? "").trim();
  const faces = Array.from({ length: sides }, (_, i) => i + 1);
  return html`<div class=${`face-picks ${sides > ROW_MOST ? "compact" : "row"}`} role="group" aria-label=${`${label}: tap the face rolled`} data-testid=${testid}>
    ${faces.map((face) => {
      const on = chosen === String(face);
      return html`<button key=${face} type="button" class=${`face-pick ${on ? "on" : ""}`} aria-pressed=${on ? "true" : "false"}
        aria-label=${String(face)} onClick=${() => onPick(on ? "" : String(face))} data-testid=${testid && `${testid}-${face}`}>
        <${Die} sides=${sides} face=${face} hidden=${true} />
      </button>`;
    })}
  </div>`;
}

// A die's face: its typed field (`testid` on the input, as before) and, under it, its faces to tap
// (`<testid>-pick-<face>`).
export function FaceField({ label, sides, value, onInput, name = "", testid = undefined, hint = undefined }) {
  const words = hint ?? (sides <= MOST_PICKED ? `1 to ${sides}: tap the face rolled, or type it.` : `1 to ${sides}.`);
  return html`<div class="face-field">
    <${Field} type="number" min="1" max=${sides} label=${label} name=${name} value=${value} onInput=${onInput} hint=${words} testid=${testid} inputmode="numeric" />
    <${FacePicks} sides=${sides} value=${value} onPick=${onInput} label=${label} testid=${testid && `${testid}-pick`} />
  </div>`;
}

// Faces typed as one list ("1 4 9", "2, 5, 7"), as some forms take them: the `i`-th face, and the list with the
// `i`-th set to `face` ("" leaves it out when it is the last), for a picker per die.
export function faceAt(text, i) {
  return String(text ?? "").split(/[\s,]+/).filter(Boolean)[i] ?? "";
}

export function withFaceAt(text, i, face, count) {
  const faces = String(text ?? "").split(/[\s,]+/).filter(Boolean);
  while (faces.length < count) faces.push("?");
  faces[i] = face === "" ? "?" : face;
  while (faces.length && faces.at(-1) === "?") faces.pop();
  return faces.join(" ");
}

// The dice of one list of faces (`sizes`: each die's sides), each with its faces to tap under the typed list.
export function ListPicks({ sizes, text, onText, label, testid = undefined }) {
  if (!sizes?.length || sizes.some((n) => !Number.isInteger(n) || n > MOST_PICKED)) return null;
  return html`<div class="face-lists">
    ${sizes.map(
      (sides, i) => html`<div key=${i} class="face-list">
        <p class="face-list-title" aria-hidden="true">${label(i, sides)}</p>
        <${FacePicks} sides=${sides} value=${faceAt(text, i)} onPick=${(face) => onText(withFaceAt(text, i, face, sizes.length))}
          label=${label(i, sides)} testid=${testid && `${testid}-${i}`} />
      </div>`,
    )}
  </div>`;
}
