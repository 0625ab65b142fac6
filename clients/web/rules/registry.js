// The rulesets the browser client knows. Each ruleset is one module under rules/ that calls
// registerRuleset() with its panels; app.js imports the modules (one line per ruleset). See docs/web.md.
const RULESETS = new Map();

export function registerRuleset(panels) {
  for (const key of ["name", "label", "newSetup", "SetupForm", "buildContest", "Board", "Actions", "chartPoints"]) {
    if (!(key in panels)) throw new Error(`ruleset panels of ${panels.name ?? "?"}: missing ${key}`);
  }
  RULESETS.set(panels.name, panels);
}

export function ruleset(name) {
  return RULESETS.get(name) ?? null;
}

export function rulesets() {
  return [...RULESETS.values()];
}
