// Games for boardgame.io, the same shapes as agon bench's loads.
//
// Bidding: Agon's adjust load (two contestants with action points, a GM who adjusts them, players who bid),
// every seat may move at any time.
//
// Rounds: a table night's round as a script of moves, each by a named seat: sealed declarations (each seat's
// value is seen by that seat and the GM only, until the last one reveals them all), other steps, rolls
// (two d20 rolled by the server) and answers. The script is the round of one of Agon's rulesets, with the
// same number of moves (setupData.script: [[seat, kind], ...], seat 0 the GM); a move out of turn is invalid.
// Every move runs on the server only (client: false), as every command does in Agon.
const { ActivePlayers, INVALID_MOVE } = require('boardgame.io/core');

const Bidding = {
  name: 'bidding',
  minPlayers: 5,
  maxPlayers: 5,
  setup: () => ({ ap: { aria: 15, orc: 12 }, bids: {}, log: [] }),
  turn: { activePlayers: ActivePlayers.ALL },
  moves: {
    adjust: ({ G }, contestant, delta, reason) => {
      G.ap[contestant] += delta;
      G.log.push({ contestant, delta, reason });
      if (G.log.length > 20) G.log.shift();
    },
    bid: ({ G, playerID }, amount) => {
      G.bids[playerID] = amount;
    },
  },
};

// The script's next move must be this seat's and of this kind; then the script moves on (a new round after
// its last move).
function take(G, playerID, kind) {
  const [seat, expected] = G.script[G.step];
  if (String(seat) !== playerID || expected !== kind) return false;
  G.step += 1;
  if (G.step === G.script.length) {
    G.step = 0;
    G.round += 1;
  }
  return true;
}

function note(G, line) {
  G.log.push(line);
  if (G.log.length > 20) G.log.shift();
}

const Rounds = {
  name: 'rounds',
  minPlayers: 5,
  maxPlayers: 5,
  setup: (_, setupData) => ({
    script: setupData.script,
    step: 0,
    round: 1,
    players: { 0: {}, 1: {}, 2: {}, 3: {}, 4: {} }, // each seat's sealed value
    declared: [], // who has sealed this round (public)
    revealed: {}, // every sealed value, once the last is in (public)
    exchange: null,
    log: [],
  }),
  // a seat sees its own sealed value, the GM every one, a spectator none
  playerView: ({ G, playerID }) =>
    playerID === '0' ? G : { ...G, players: playerID ? { [playerID]: G.players[playerID] } : {} },
  turn: { activePlayers: ActivePlayers.ALL },
  moves: {
    seal: {
      client: false,
      move: ({ G, playerID }, value) => {
        if (!take(G, playerID, 'seal')) return INVALID_MOVE;
        if (G.declared.length === 0) G.revealed = {};
        G.players[playerID] = { sealed: value };
        G.declared.push(playerID);
        if (G.script[G.step][1] !== 'seal') {
          for (const p of G.declared) G.revealed[p] = G.players[p].sealed;
          G.declared = [];
        }
        note(G, `${playerID} sealed`);
      },
    },
    step: {
      client: false,
      move: ({ G, playerID }, what) => {
        if (!take(G, playerID, 'step')) return INVALID_MOVE;
        note(G, `${playerID}: ${what}`);
      },
    },
    roll: {
      client: false,
      move: ({ G, playerID, random }) => {
        if (!take(G, playerID, 'roll')) return INVALID_MOVE;
        G.exchange = { by: playerID, faces: [random.D20(), random.D20()], answers: [] };
        note(G, `${playerID} rolled ${G.exchange.faces.join(' and ')}`);
      },
    },
    answer: {
      client: false,
      move: ({ G, playerID }, spend) => {
        if (!take(G, playerID, 'answer')) return INVALID_MOVE;
        G.exchange.answers.push({ seat: playerID, spend });
        note(G, `${playerID} lets it stand`);
      },
    },
  },
};

module.exports = { Bidding, Rounds };
