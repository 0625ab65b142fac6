// Drives boardgame.io like agon bench drives Agon: rooms of 7 clients (a GM, four players, two
// spectators), the GM moving; closed loop (next move once the whole room has the last one) or paced.
// Prints one JSON line of figures. Usage: node peer_driver.js PORT SERVER_PID CONTESTS SECONDS RATE
const fs = require('fs');
const { Client } = require('boardgame.io/client');
const { SocketIO } = require('boardgame.io/multiplayer');
const { Bidding } = require('./peer_game.js');

const [port, pid, contests, seconds, rate] = process.argv.slice(2).map(Number);
const base = `http://127.0.0.1:${port}`;
const ticks = 100; // clock ticks per second on Linux

function cpu() {
  const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(')').pop().trim().split(/\s+/);
  return (Number(fields[11]) + Number(fields[12])) / ticks;
}

async function post(path, body) {
  const res = await fetch(base + path, {
    method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body),
  });
  if (!res.ok) throw new Error(`${path}: ${res.status}`);
  return res.json();
}

async function openRoom(index) {
  const { matchID } = await post('/games/bidding/create', { numPlayers: 5 });
  const room = { index, clients: [], seen: [], sent: new Map(), latencies: [], moves: 0, waiters: [] };
  const seats = ['0', '1', '2', '3', '4', null, null];
  for (const [i, playerID] of seats.entries()) {
    let credentials;
    if (playerID !== null) {
      ({ playerCredentials: credentials } = await post(`/games/bidding/${matchID}/join`, { playerID, playerName: `p${playerID}` }));
    }
    const client = Client({ game: Bidding, multiplayer: SocketIO({ server: base }), matchID, playerID: playerID ?? undefined, credentials });
    room.seen.push(-1);
    await new Promise((resolve) => {
      client.subscribe((state) => {
        if (!state) return;
        room.seen[i] = Math.max(room.seen[i], state._stateID);
        if (state.isConnected !== false && room.seen[i] >= 0) resolve();
        check(room);
      });
      client.start();
    });
    room.clients.push(client);
  }
  room.base = Math.min(...room.seen);
  return room;
}

function check(room) {
  const reached = Math.min(...room.seen);
  for (const [n, at] of room.sent) {
    if (room.base + n <= reached) {
      room.sent.delete(n);
      room.latencies.push([at, performance.now() - at]);
    }
  }
  room.waiters = room.waiters.filter(([n, resolve]) => (room.base + n <= reached ? (resolve(), false) : true));
}

function move(room) {
  const n = ++room.moves;
  room.sent.set(n, performance.now());
  room.clients[0].moves.adjust('aria', n % 2 ? 1 : -1, 'bench');
  return new Promise((resolve) => { room.waiters.push([n, resolve]); check(room); });
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

function pct(values, q) {
  if (!values.length) return null;
  const s = [...values].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(s.length * q))];
}

async function measure(rooms, paced) {
  for (const r of rooms) r.latencies = [];
  const before = rooms.reduce((a, r) => a + r.moves, 0);
  const cpuBefore = cpu();
  const start = performance.now();
  const deadline = start + seconds * 1000;
  await Promise.all(rooms.map(async (room) => {
    if (!paced) {
      while (performance.now() < deadline) await move(room);
      return;
    }
    const interval = (rooms.length / rate) * 1000;
    let at = start + (interval * room.index) / rooms.length;
    const pending = [];
    while (at < deadline) {
      const wait = at - performance.now();
      if (wait > 0) await sleep(wait);
      pending.push(move(room));
      at += interval;
    }
    await Promise.all(pending);
  }));
  const elapsed = (performance.now() - start) / 1000;
  const moves = rooms.reduce((a, r) => a + r.moves, 0) - before;
  const warm = start + Math.min(500, (seconds * 1000) / 5);
  const lat = rooms.flatMap((r) => r.latencies.filter(([at]) => at >= warm).map(([, ms]) => ms));
  return {
    commands_per_s: moves / elapsed,
    cpu_ms: (1000 * (cpu() - cpuBefore)) / Math.max(moves, 1),
    p50_ms: pct(lat, 0.5),
    p99_ms: pct(lat, 0.99),
  };
}

(async () => {
  const rooms = [];
  for (let i = 0; i < contests; i++) rooms.push(await openRoom(i));
  await measure(rooms, false); // warm up
  const closed = await measure(rooms, false);
  const paced = await measure(rooms, true);
  process.stdout.write(JSON.stringify({ closed, paced }) + '\n');
  for (const room of rooms) for (const client of room.clients) client.stop();
  process.exit(0);
})().catch((error) => {
  process.stderr.write(String(error && error.stack ? error.stack : error) + '\n');
  process.exit(1);
});
