// What this browser remembers. localStorage: the contests created here (their invitations, which only the
// GM who created them holds) and the owner token. sessionStorage: this tab's last view of a contest, so a
// reload resumes from the version it had reached. A viewer only ever stores what it was sent.
const MINE = "agon.mine";
const OWNER = "agon.owner";

function read(storage, key, fallback) {
  try {
    const text = storage.getItem(key);
    return text === null ? fallback : JSON.parse(text);
  } catch {
    return fallback;
  }
}

function write(storage, key, value) {
  try {
    storage.setItem(key, JSON.stringify(value));
  } catch {
    /* storage full or disabled: the page still works, it just forgets */
  }
}

export function owner() {
  return read(localStorage, OWNER, null);
}

export function myContests() {
  return read(localStorage, MINE, []);
}

export function remember(entry) {
  const mine = myContests().filter((c) => c.contest !== entry.contest);
  mine.unshift(entry);
  write(localStorage, MINE, mine);
  if (entry.invitations?.owner) write(localStorage, OWNER, entry.invitations.owner);
}

export function mine(contest) {
  return myContests().find((c) => c.contest === contest) ?? null;
}

export function updateMine(contest, change) {
  const all = myContests().map((c) => (c.contest === contest ? change(c) : c));
  write(localStorage, MINE, all);
}

export function forget(contest) {
  write(localStorage, MINE, myContests().filter((c) => c.contest !== contest));
}

// --- this tab's resume point ---------------------------------------------------------------------

function sessionKey(token) {
  return `agon.view.${token.slice(-24)}`;
}

export function savedView(token) {
  return read(sessionStorage, sessionKey(token), null);
}

export function saveView(token, saved) {
  write(sessionStorage, sessionKey(token), saved);
}
