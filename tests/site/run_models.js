// Runs the replay viewer's game models in node for tests/site/jsmodel.py: reads
// {"records": [{game, seed, seats, options, actions, frames}]} on stdin (frames: the frames whose
// tables to give, or null for all) and writes, per record, {error, steps, events, moves, tables,
// seconds} on stdout.
"use strict";
const fs = require("fs");
const path = require("path");
globalThis.window = globalThis;
const dir = path.join(__dirname, "..", "..", "templates", "static", "models");
for (const name of fs.readdirSync(dir).sort()) {
  if (name.endsWith(".js")) require(path.join(dir, name));
}
const input = JSON.parse(fs.readFileSync(0, "utf8"));
const out = input.records.map((r) => {
  const started = process.hrtime.bigint();
  const replay = window.arenaReplay(r.game, String(r.seed), r.seats, r.options, r.actions);
  const opened = Number(process.hrtime.bigint() - started) / 1e9;
  const result = { error: replay.error, steps: replay.steps, seconds: opened, tables: {} };
  if (!replay.tableAt) return result;
  result.events = replay.events;
  result.moves = replay.moves;
  const frames = r.frames === null ? [...Array(replay.steps).keys()] : r.frames.filter((f) => f < replay.steps);
  for (const f of frames) {
    try {
      result.tables[f] = replay.tableAt(f);
    } catch (e) {
      result.tables[f] = { "model error": String(e && e.stack ? e.stack : e) };
    }
  }
  return result;
});
process.stdout.write(JSON.stringify(out));
