#!/usr/bin/env node
// Appends audit entries to a store, as fast as it can: for the tests of concurrent appenders and of a
// process killed mid-append. Uses the built package (npm run build first).
//
//   node test/store/appender.mjs <file | postgres://…> <count> <label>
//   count 0: append until killed; prints "appending" once the first row is in.
import { openStore } from "../../dist/index.js";

const [target, countText, label] = process.argv.slice(2);
const count = Number(countText);
const store = await openStore(target.startsWith("postgres") ? { url: target } : { path: target });
for (let i = 1; count === 0 || i <= count; i++) {
  await store.append({
    time: new Date().toISOString(),
    kind: "call",
    outcome: "ok",
    server: label,
    tool: "append",
    arguments: { i },
    runId: `run_${label}`,
    callId: `${label}-${i}`,
  });
  if (i === 1) process.stdout.write("appending\n");
}
await store.close();
