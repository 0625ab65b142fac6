// boardgame.io's own server (socket.io, in-memory storage) serving the bench's games on loopback.
const { Server, Origins } = require('boardgame.io/server');
const { Bidding, Rounds } = require('./peer_game.js');

const port = Number(process.argv[2]);
const server = Server({ games: [Bidding, Rounds], origins: [Origins.LOCALHOST, 'http://127.0.0.1:' + port] });
server.run({ port });
