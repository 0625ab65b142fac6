// Who is at the table now: the server's `presence` message (docs/protocol.md, "presence") as one line under the
// contest page's topbar — each seat by name, held (●) or away (○, and "away" in words), and how many spectators
// watch. Live across every server process sharing the store; nothing of it is in the contest's log.
import { html, useContext } from "./vendor/preact-htm.js";
import { Names } from "./ui.js";

// The name people read for a seat: the name the GM gave it; else the GM's seat is "the GM", and a player's is
// named by the contestants it plays ("Aria's player").
export function seatName(seat, names = {}) {
  if (seat.name) return seat.name;
  if (seat.role === "gm") return "the GM";
  const played = (seat.contestants ?? []).map((c) => names[c] ?? c);
  if (played.length > 0) return `${played.join(" and ")}’s player`;
  return names[seat.seat] ?? seat.seat;
}

function counted(count, one, many) {
  return `${count} ${count === 1 ? one : many}`;
}

// `presence`: the last presence frame of the contest (null: none yet, or the connection is down); `me`: the
// viewer ({ role, seat }).
export function PresenceStrip({ presence, me }) {
  const names = useContext(Names) ?? {};
  if (!presence) return null;
  const seats = presence.seats ?? [];
  return html`<section class="presence" aria-label="Who is at the table" data-testid="presence">
    <span class="presence-title">At the table:</span>
    <ul class="presence-seats">
      ${seats.map((seat) => html`<li key=${seat.seat} class=${`presence-seat ${seat.here ? "here" : "away"}`}
          data-testid=${`presence-${seat.seat}`} data-here=${seat.here ? "yes" : "no"}>
        <span class="presence-dot" aria-hidden="true">${seat.here ? "●" : "○"}</span>
        <span class="presence-name">${seatName(seat, names)}${seat.seat === me?.seat ? " (you)" : ""}</span>
        ${seat.here ? html`<span class="sr-only"> (here)</span>` : html`<span class="presence-away"> (away)</span>`}
      </li>`)}
    </ul>
    ${presence.spectators > 0 && html`<span class="presence-count" data-testid="presence-spectators">· ${counted(presence.spectators, "spectator", "spectators")}</span>`}
    ${presence.auditors > 0 && html`<span class="presence-count" data-testid="presence-auditors">· ${counted(presence.auditors, "auditor", "auditors")} reading</span>`}
  </section>`;
}
