// __NAME__: a __TITLE__ bot made from the arena's starter kit (node, no packages).
// Reads one JSON object per line on stdin, answers on stdout; stderr is its log.
// Check it with `arena check .`; the protocol is protocol/README.md in the arena.
"use strict";
const readline = require("readline");

// A small seeded generator (mulberry32), seeded from the match id and seat at each start.
function seeded(text) {
  let h = 2166136261;
  for (const ch of text) h = Math.imul(h ^ ch.charCodeAt(0), 16777619);
  return () => {
    h = (h + 0x6d2b79f5) | 0;
    let t = Math.imul(h ^ (h >>> 15), 1 | h);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

let random = seeded("");
let match = { game: "", seat: 0, seats: 0, options: {}, events: [] };

// REPLACE THIS: the index in `legal` of the action to play (here a random one).
// `observation` is what your seat sees now; `match.events` every event it saw in this match.
function choose(observation, legal, match) {
  return Math.floor(random() * legal.length);
}

const send = (message) => process.stdout.write(JSON.stringify(message) + "\n");
const lines = readline.createInterface({ input: process.stdin });

lines.on("line", (line) => {
  if (!line.trim()) return;
  const message = JSON.parse(line);
  switch (message.type) {
    case "hello":
      send({ name: "__NAME__", version: "0.1", protocol: 1 });
      break;
    case "start":
      match = { ...message, events: [] };
      random = seeded(`${message.match}:${message.seat}`);
      break;
    case "act": {
      match.events.push(...(message.events || []));
      let index = 0;
      try {
        index = choose(message.observation, message.legal, match);
      } catch (error) {
        console.error(error); // the log; the first legal action keeps the match going
      }
      send({ id: message.id, index });
      break;
    }
    case "end":
      match.events.push(...(message.events || []));
      break;
    case "bye":
      process.exit(0);
    // anything else: ignored (later protocol versions may add messages)
  }
});
lines.on("close", () => process.exit(0));
