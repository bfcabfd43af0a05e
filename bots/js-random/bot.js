// A random bot in JavaScript: node's standard library only.
// Reads one JSON object per line from stdin, answers on stdout; stderr is its log.
"use strict";
const readline = require("readline");

// A small seeded generator (mulberry32), seeded from the match id and seat.
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
const send = (message) => process.stdout.write(JSON.stringify(message) + "\n");
const lines = readline.createInterface({ input: process.stdin });

lines.on("line", (line) => {
  const message = JSON.parse(line);
  switch (message.type) {
    case "hello":
      send({ name: "js-random", version: "1.0" });
      break;
    case "start":
      random = seeded(`${message.match}:${message.seat}`);
      break;
    case "act":
      send({ id: message.id, index: Math.floor(random() * message.legal.length) });
      break;
    case "bye":
      process.exit(0);
  }
});
lines.on("close", () => process.exit(0));
