// A minimal bidding game for boardgame.io: the same shape as Agon's bench contest (two contestants with
// action points, a GM who adjusts them, players who bid), every seat may move at any time.
const { ActivePlayers } = require('boardgame.io/core');

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

module.exports = { Bidding };
