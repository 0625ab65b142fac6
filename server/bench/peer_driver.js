// Drives boardgame.io like agon bench drives Agon: rooms of 7 clients (a GM, four players, two spectators).
//
// Without SCRIPTS the GM moves (the adjust load): closed loop (next move once the whole room has the last
// one) or paced. With SCRIPTS (a JSON file: a list of rounds, each [[seat, kind], ...]) room i plays the
// Rounds game with round i % length, each move sent by its seat's client; as in Agon's mix a room has one
// move in flight: the next goes once the mover's, the GM's and the next mover's clients have the last one
// (boardgame.io refuses a move from a client behind the state), at once (closed loop) or at the room's next
// slot of the pace.
// Prints one JSON line of figures. Usage: node peer_driver.js PORT SERVER_PID CONTESTS SECONDS RATE [SCRIPTS]
const fs = require('fs');
const { Client } = require('boardgame.io/client');
const { SocketIO } = require('boardgame.io/multiplayer');
const { Bidding, Rounds } = require('./peer_game.js');

const [port, pid, contests, seconds, rate] = process.argv.slice(2, 7).map(Number);
const scripts = process.argv[7] ? JSON.parse(fs.readFileSync(process.argv[7], 'utf8')) : null;
const game = scripts ? Rounds : Bidding;
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
  const script = scripts ? scripts[index % scripts.length] : null;
  const { matchID } = await post(`/games/${game.name}/create`, { numPlayers: 5, setupData: script ? { script } : undefined });
  const room = { index, script, clients: [], seen: [], sent: new Map(), latencies: [], moves: 0, rolls: 0, waiters: [] };
  const seats = ['0', '1', '2', '3', '4', null, null];
  for (const [i, playerID] of seats.entries()) {
    let credentials;
    if (playerID !== null) {
      ({ playerCredentials: credentials } = await post(`/games/${game.name}/${matchID}/join`, { playerID, playerName: `p${playerID}` }));
    }
    const client = Client({ game, multiplayer: SocketIO({ server: base }), matchID, playerID: playerID ?? undefined, credentials });
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

// Latencies once the whole room has a move; waiters once the clients they wait for have it.
function check(room) {
  const reached = Math.min(...room.seen);
  for (const [n, at] of room.sent) {
    if (room.base + n <= reached) {
      room.sent.delete(n);
      room.latencies.push([at, performance.now() - at]);
    }
  }
  room.waiters = room.waiters.filter(([n, who, resolve]) => {
    const got = Math.min(...who.map((i) => room.seen[i]));
    return room.base + n <= got ? (resolve(), false) : true;
  });
}

function move(room) {
  const n = ++room.moves;
  room.sent.set(n, performance.now());
  let who = room.clients.map((_, i) => i); // the whole room
  if (room.script) {
    const [seat, kind] = room.script[(n - 1) % room.script.length];
    const moves = room.clients[seat].moves;
    if (kind === 'seal') moves.seal(`intent ${n}`);
    else if (kind === 'step') moves.step(`step ${n}`);
    else if (kind === 'roll') { moves.roll(); room.rolls += 1; }
    else moves.answer(false);
    // boardgame.io refuses a move from a client that has not got the last state ("invalid stateID"):
    // the next mover's client must have this one too
    who = [seat, 0, room.script[n % room.script.length][0]];
  } else {
    room.clients[0].moves.adjust('aria', n % 2 ? 1 : -1, 'bench');
  }
  return new Promise((resolve) => { room.waiters.push([n, who, resolve]); check(room); });
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

function pct(values, q) {
  if (!values.length) return null;
  const s = [...values].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(s.length * q))];
}

async function settle(rooms) {
  const deadline = performance.now() + 30000;
  while (rooms.some((r) => r.sent.size) && performance.now() < deadline) await sleep(5);
}

async function measure(rooms, paced) {
  for (const r of rooms) r.latencies = [];
  const before = rooms.reduce((a, r) => a + r.moves, 0);
  const rollsBefore = rooms.reduce((a, r) => a + r.rolls, 0);
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
      if (room.script) {
        await move(room); // one move in flight: the next is another seat's, valid once this one is in
        at = Math.max(at + interval, performance.now() - interval);
      } else {
        pending.push(move(room));
        at += interval;
      }
    }
    await Promise.all(pending);
  }));
  await settle(rooms);
  const elapsed = (performance.now() - start) / 1000;
  const moves = rooms.reduce((a, r) => a + r.moves, 0) - before;
  const rolls = rooms.reduce((a, r) => a + r.rolls, 0) - rollsBefore;
  const warm = start + Math.min(500, (seconds * 1000) / 5);
  const lat = rooms.flatMap((r) => r.latencies.filter(([at]) => at >= warm).map(([, ms]) => ms));
  return {
    commands_per_s: moves / elapsed,
    exchanges_per_s: scripts ? rolls / elapsed : null,
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
