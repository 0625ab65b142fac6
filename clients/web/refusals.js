// What a refusal means to the person who caused it, by its stable code (protocol/errors.py,
// server/rules/*/codes.py, and the page's own net/* codes): what went wrong, and what to do.
// One entry a line, `"code": "Sentence.",` — tests/web/test_refusals_catalogue.py reads them so.
export const REFUSALS = {
  // what came over the wire
  "protocol/bad_frame": "The page sent something the server could not read: reload the page and try again.",
  "protocol/unknown_message": "The server does not know that request: reload the page, it may be out of date.",
  "protocol/bad_field": "A value is not accepted: check what you typed and try again.",
  "protocol/wrong_path": "The page reached the server at the wrong address: reload the page.",

  // who may do what
  "auth/unauthenticated": "The server does not know who you are: open the contest again with your invitation link.",
  "auth/bad_token": "This link does not work: it is incomplete, altered or from another server. Ask the GM for the link again.",
  "auth/expired_token": "This invitation has expired: ask the GM for a new link.",
  "auth/forbidden": "Your part in this contest does not allow that: ask the GM.",
  "auth/wrong_contest": "This link opens another contest: use this contest's own invitation link.",
  "auth/not_your_seat": "That contestant is not yours: act only for your own.",
  "auth/revoked": "This invitation was re-issued: ask the GM for the new link.",

  // contests
  "contest/not_found": "There is no such contest on this server: check the link with the GM.",
  "contest/exists": "A contest with that name already exists here: try again to open a new one.",
  "contest/over": "The contest is over: nothing more can change.",
  "contest/unknown_ruleset": "This server does not know that ruleset: choose another one.",
  "contest/bad_setup": "The contest cannot be set up like this: correct the highlighted field and try again.",
  "contest/read_only": "This contest was imported: it can be replayed, not changed.",
  "contest/no_such_seat": "That seat is not part of this contest: choose one of its players, the spectators or an auditor.",
  "contest/foreign_ruleset": "That belongs to another kind of contest than this one: reload the page.",

  // sealed intents, undo, dice
  "seal/no_window": "No intents are being gathered right now: wait for the next round.",
  "seal/not_expected": "No intent is expected from that contestant now.",
  "undo/nothing_to_undo": "There is nothing to undo: the contest is at its first checkpoint.",
  "undo/nothing_to_redo": "There is nothing to redo: nothing was undone since the last change.",
  "undo/bad_version": "The contest cannot be rewound to that point: choose a line that offers it.",
  "dice/wrong_mode": "Those dice do not match how this contest rolls: reload the page.",
  "dice/bad_face": "The faces typed do not fit the dice rolled: type the face each die shows.",
  "dice/typed_by_gm": "The GM types in the dice rolled at the table: tell the GM what you rolled.",

  // table talk
  "talk/too_long": "That line is too long: say it in 500 characters or fewer, or split it in two.",
  "talk/empty": "There is nothing to send: type a line first.",
  "talk/too_fast": "Too many lines in a short time: wait a few seconds, then send it again.",
  "talk/full": "This contest's table talk is full: no more lines can be added to it.",
  "talk/not_allowed": "You cannot say that here: spectators and auditors only read, and a player whispers to the GM only.",
  "talk/unknown_seat": "Nobody sits there: choose someone at the table to whisper to.",
  "talk/bad_roll": "That roll cannot be read: write it like /roll 2d6+1 or /r d20 stealth.",

  // storage, the server, the connection
  "store/conflict": "The contest changed at the same moment: try again.",
  "store/unavailable": "The server cannot reach its storage right now: try again in a moment.",
  "store/error": "The server could not record that: try again.",
  "store/duplicate": "That was already recorded with other contents: reload the page and try again.",
  "store/bad_batch": "The server could not record that change: try again.",
  "store/behind": "The server is catching up with the contest: try again in a moment.",
  "rate/limited": "Too fast: wait a moment, then try again.",
  "server/internal": "Something went wrong on the server: try again, and tell the GM if it keeps happening.",
  "server/shutting_down": "The server is restarting: the page reconnects by itself, then try again.",
  "server/too_slow": "The connection could not keep up: the page reconnects by itself, then try again.",
  "net/offline": "Not connected right now: wait for the connection to come back, then try again.",
  "net/closed": "The connection closed before the server answered: try again.",

  // turns, bids and corrections (every ruleset)
  "rules/out_of_phase": "That cannot be done at this point of the contest: wait until it comes up.",
  "rules/out_of_turn": "It is not that contestant's moment to act: wait for its turn.",
  "rules/bid_too_low": "A bid is at least 1 AP: raise it.",
  "rules/bid_too_high": "That is more AP than can be staked: use a smaller number.",
  "rules/bad_rating": "That rating cannot be read: write it like 14, 5W or 5W2.",
  "rules/bad_order": "The order must name every contestant still to act, each once.",
  "rules/bad_intent": "That intent is incomplete or not allowed: check the form and send it again.",
  "rules/no_proposal": "The GM has not proposed a bid to that contestant.",
  "rules/not_the_victor": "Only the contestant who has just won may take a parting shot.",
  "rules/no_reason": "Give a reason for the correction.",
  "rules/bad_delta": "That correction is out of range: change it by another amount, never zero.",
  "rules/no_such_contestant": "There is no such contestant in this contest: reload the page.",
  "rules/bad_tie": "The tie cannot be settled that way: check the winner and the AP lost.",

  // group contests and their options
  "rules/bad_target": "That target cannot be chosen: pick an opponent still in the contest.",
  "rules/no_target": "There is no opponent to act against: name one still in the contest.",
  "rules/out_of_contest": "That contestant is out of the contest and cannot do that.",
  "rules/not_a_group": "That is possible in a group contest only.",
  "rules/not_delayed": "That contestant is not delaying its action.",
  "rules/change_not_allowed": "The GM has not allowed this action to change: ask the GM first.",
  "rules/change_already_allowed": "That contestant may already change its action.",
  "rules/no_group_tie": "Only a Fumble against a Fumble in a group contest may cost both sides.",
  "rules/not_a_pc": "Only a player's character can do that, not one the GM runs.",
  "rules/still_in": "A final action is for a defeated contestant only.",
  "rules/dying": "A Dying contestant can take no action.",
  "rules/final_action_used": "That contestant has already taken its one final action.",
  "rules/not_withdrawn": "That contestant has not withdrawn, so it cannot rejoin.",
  "rules/self_loan": "A contestant cannot lend AP to itself: choose someone else on its side.",
  "rules/not_your_side": "AP can be lent only to someone on the same side.",
  "rules/follower_ap": "That follower's AP already counts in its leader's total: it cannot be lent or given again.",
  "rules/in_the_contest": "A gift comes from someone outside the contest: a contestant lends AP instead.",
  "rules/switch_in_round_1": "Round 1 is fought with the first ability: switch abilities from round 2.",
  "rules/no_hero_point": "That contestant has no hero point to spend.",
  "rules/hero_point_no_effect": "A hero point would not change this result: let it stand.",

  // dice pools and chips
  "rules/not_round_winner": "Only the side that won the round stacks chips.",
  "rules/too_many_dice": "That moves too many dice: a stunning plan trades one or two.",
  "rules/pool_empty": "The main pool is empty: no die can be taken from it.",
  "rules/wrong_place": "That die is not where this rule takes dice from: pick another one.",
  "rules/wrong_count": "That is not the number of dice this needs: name the right number of dice.",
  "rules/draws_random": "These dice are drawn at random: do not pick them.",
  "rules/not_enough_chips": "There are not that many chips to stack: use fewer.",
  "rules/track_full": "The victory track has no room for that many chips: stack fewer.",
  "rules/choice_pending": "A choice is still waiting to be made: make it first.",
  "rules/bad_choice": "That choice does not fit this option: check what the option asks for.",
  "rules/no_peril": "There is no peril die to remove.",
  "rules/no_win_to_erase": "The track has no win to erase.",
  "rules/not_unclear": "Sudden death follows only a contest that ended in a tie.",
  "rules/bad_stats": "That challenge or peril is out of range: use another value.",

  // scored sequences
  "rules/same_side": "Those two are on the same side: choose an opponent.",
  "rules/not_a_teammate": "Those two are not on the same side.",
  "rules/not_in_rounds": "Secondary contestants and supporters roll no rounds: choose a main contestant.",
  "rules/supporter_does_not_engage": "A supporter assists: it engages nobody and takes no shot.",
  "rules/otherwise_engaged": "That opponent is already engaged with someone still in the sequence.",
  "rules/assist_self": "An assist helps someone else, never the helper itself.",
  "rules/not_secondary": "That follower is not that contestant's secondary contestant.",
  "rules/not_a_follower": "That contestant is nobody's follower.",
  "rules/bad_points": "That many resolution points cannot be spent: stay within the points held.",
  "rules/not_taken_out": "That target has not been taken out by resolution points.",
  "rules/shot_taken": "That parting shot has already been taken.",
  "rules/shot_too_late": "The chance for that parting shot has passed.",
  "rules/beaten": "The sequence is decided: the beaten side acts no more.",
  "rules/already_in": "That contestant is already in the sequence.",
  "rules/not_a_comrade": "A late arrival shares the tally of a main contestant only.",
  "rules/no_story_point": "That contestant has no story point to spend now.",
  "rules/bad_tactic": "That tactic is incomplete: another ability needs both its name and its rating.",

  // combat over a map: actions
  "rules/unknown_action": "That is not one of the character's action cards.",
  "rules/repeated_action": "That action was already used this round: choose another one.",
  "rules/no_such_action": "There is no such action waiting this round.",
  "rules/action_not_planned": "That action is no longer waiting: it was resolved or changed already.",
  "rules/triggered_when_triggered": "That action is performed when its trigger is met, not before.",
  "rules/not_triggered": "That action is not a Triggered one.",
  "rules/not_instant": "That action is not Instant, and no omen taken grants it.",
  "rules/no_action_yet": "An Instant action joins an action the character already has: announce one first.",
  "rules/awaiting_penalty": "A rolled action is waiting for its player to take the penalty first.",
  "rules/nothing_rolled": "No rolled action is waiting for a penalty.",
  "rules/bad_reductions": "Those reductions do not fit the penalty: split it again.",
  "rules/bad_difficulty": "A difficulty is a number from 1 to 100.",
  "rules/gm_sets_difficulty": "The GM sets the difficulty.",
  "rules/no_change_asked": "Nobody asked to change that action.",
  "rules/change_pending": "A change of that action is already waiting for the GM.",
  "rules/bad_penalty": "A penalty is a number from 0 to 100.",
  "rules/no_omen": "That character has no omen to take.",
  "rules/omen_taken": "That omen was already taken in this action.",
  "rules/no_movement_points": "That character has no movement points: it has not repositioned this round.",
  "rules/not_enough_movement_points": "That path costs more movement points than the character has: choose a shorter one.",
  "rules/no_such_skill": "That character has no dice for that attribute and skill.",

  // combat over a map: the map and movement
  "rules/no_such_zone": "There is no such zone on the map.",
  "rules/no_such_character": "There is no such character in the encounter.",
  "rules/no_such_target": "Nothing by that name is on the map.",
  "rules/id_taken": "That name is empty or already used on the map: choose another.",
  "rules/last_zone": "An encounter keeps at least one zone.",
  "rules/unplaced": "Everyone standing in that zone needs a new place: place them all.",
  "rules/bad_placement": "That place is not one of the new zones.",
  "rules/bad_split": "A zone splits into two or more zones.",
  "rules/bad_merge": "Merge two or more zones at once.",
  "rules/has_trait": "That zone already has that trait.",
  "rules/no_trait": "That zone does not have that trait, or the trait has no name.",
  "rules/bad_modifier": "That movement modifier is not possible: use 0 to 100 extra points, and never sweep a zone into itself.",
  "rules/already_connected": "Those zones are already connected.",
  "rules/not_connected": "Those zones are not connected.",
  "rules/bad_connection": "A connection joins two different zones.",
  "rules/bad_dice": "Those skill dice are not possible: a skill roll is three dice of 2 to 100 sides.",
  "rules/table_full": "The table is full: remove something first.",
  "rules/engaged": "An engaged character cannot take a step: disengage first.",
  "rules/one_step": "A character takes one step a round.",
  "rules/not_adjacent": "Those zones are not next to each other: move one zone at a time.",
  "rules/barrier": "A barrier is in the way: crossing it takes a roll of its own.",
  "rules/not_in_zone": "They are not in the same zone.",
  "rules/already_engaged": "Those two are already engaged.",
  "rules/not_engaged": "Those two are not engaged.",
  "rules/bad_step": "Say where the step goes: one zone, one engagement or one reach.",
};

// A refusal whose code this page does not know, or an error that is no refusal at all.
const UNKNOWN = "The server refused that.";
const BROKEN = "Something went wrong on this page: reload it and try again.";

// The field path a message starts with, as the server writes it: "bid: ", "faces[0]: ", "ability, rating: ".
const PATH = String.raw`[a-z_][\w-]*(?:\[\d+\])*(?:\.[\w-]+(?:\[\d+\])*)*`;
const PREFIX = new RegExp(`^${PATH}(?:, ${PATH})*: `);

const escape = (text) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

// A validation message of the wire format ("Expected `int` <= 99 - at `$.command.bid`"), in words.
function wireWords(message) {
  const text = message.replace(/ - at `[^`]*`$/, "");
  const bound = /^Expected `\w+`(?: of length)? (<=|>=|<|>) (-?[\d.]+)$/.exec(text);
  if (bound) {
    const [, op, n] = bound;
    const unit = /of length/.test(text) ? (/`str`/.test(text) ? " characters" : " items") : "";
    return `${{ "<=": "at most", ">=": "at least", "<": "less than", ">": "more than" }[op]} ${n}${unit}`;
  }
  return text.replace(/`/g, "");
}

// The server's message as words for the page: no field path, whole ids by their names, a capital, a full stop.
// `found` says whether it carries a specific worth showing: a number, a value quoted, or someone named.
export function specific(error, names = {}) {
  let text = String(error?.message ?? "").trim();
  if (!text) return { text: "", found: false };
  if (error.code === "protocol/bad_field") text = wireWords(text);
  for (let before = ""; before !== text; ) {
    before = text;
    text = text.replace(PREFIX, "");
  }
  let named = false;
  const known = Object.entries(names ?? {}).filter(([id, name]) => id && name).sort((a, b) => b[0].length - a[0].length);
  for (const [id, name] of known) {
    const quoted = new RegExp(`(['"])${escape(id)}\\1`, "g");
    const bare = new RegExp(`(?<![\\w'-])${escape(id)}(?![\\w-])`, "g");
    const next = text.replace(quoted, name).replace(bare, (m) => (id.length >= 3 ? name : m));
    if (next !== text) named = true;
    text = next;
  }
  text = text.replace(/(^|[\s(])\[([^[\]]*)\]/g, (_, lead, items) => `${lead}${items.trim() || "none"}`);
  let quoted = false;
  text = text.replace(/(^|[\s(,])'([^'\n]*)'(?=$|[^\w])/g, (_, lead, value) => {
    quoted = true;
    return `${lead}“${value}”`;
  });
  text = text.charAt(0).toUpperCase() + text.slice(1);
  if (!/[.!?]$/.test(text)) text += ".";
  return { text, found: named || quoted || /\d/.test(text) };
}

// The sentence for a refusal, followed by its specific when the message carries one.
export function refusalWords(error, names = {}) {
  if (!error) return "";
  if (typeof error !== "object" || !error.code) return BROKEN;
  const sentence = REFUSALS[error.code];
  const detail = specific(error, names);
  if (!sentence) return detail.text ? `${UNKNOWN} ${detail.text}` : UNKNOWN;
  return detail.found ? `${sentence} ${detail.text}` : sentence;
}
