// `switchyard ui`'s flags and errors through the built CLI (`npm run build` first), the JSON API's bad
// queries, and the wire trace file read as it grows (a character cut between two writes kept whole).

import { spawn } from "node:child_process";
import { appendFileSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { openStore, type Store } from "../../src/index.js";
import { startViewer, type Viewer, WireTraceFile } from "../../src/viewer/index.js";
import { CLI, NODE, ROOT, runCli, sdk } from "../helpers.js";

const open: Array<Store | Viewer> = [];
afterEach(async () => {
  for (const thing of open.splice(0).reverse()) await thing.close();
});

const temp = () => mkdtempSync(path.join(tmpdir(), "switchyard-ui-cli-"));

describe("switchyard ui's flags", () => {
  it("refuses a --store file that does not exist, a bad --port and --trace -, each naming what to give", async () => {
    const dir = temp();
    const missing = await runCli(["ui", "--store", path.join(dir, "none.db")]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain("none.db: no such file; give the SQLite file runs are recorded in");
    const store = path.join(dir, "runs.db");
    writeFileSync(store, "");
    const port = await runCli(["ui", "--store", store, "--port", "70000"]);
    expect(port.code).toBe(2);
    expect(port.stderr).toContain('--port needs a TCP port from 0 to 65535 (got "70000"');
    const trace = await runCli(["ui", "--store", store, "--trace", "-"]);
    expect(trace.code).toBe(2);
    expect(trace.stderr).toContain("--trace needs the file a run's --trace-wire wrote");
  });
});

describe("switchyard ui --fleet", () => {
  it("adds the live fleet's servers (status, health, breaker, restarts) to /api/servers, beside the records", async () => {
    const dir = temp();
    const config = path.join(dir, "switchyard.config.json");
    writeFileSync(
      config,
      JSON.stringify({ mcpServers: { a: sdk() }, store: { path: path.join(dir, "runs.db") } }),
    );
    const child = spawn(NODE, [CLI, "--config", config, "ui", "--fleet"], { cwd: ROOT, stdio: "pipe" });
    const exited = new Promise((resolve) => child.once("close", resolve));
    try {
      let stdout = "";
      child.stdout.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk));
      for (let i = 0; i < 300 && !stdout.includes("token="); i++) await new Promise((r) => setTimeout(r, 50));
      const url = stdout.trim();
      const servers = (await (await fetch(url.replace("/?", "/api/servers?"))).json()) as {
        runsScanned: number;
        servers: unknown[];
        live: Array<Record<string, unknown>>;
      };
      expect(servers.servers).toEqual([]);
      expect(servers.live).toEqual([
        expect.objectContaining({ name: "a", status: "ready", restarts: 0, breaker: "closed" }),
      ]);
    } finally {
      child.kill("SIGTERM");
      await exited;
    }
  });
});

describe("the viewer's API", () => {
  it("answers 400 for a time that does not parse and a bad last, 404 for an unknown run, 405 for a POST", async () => {
    const store = await openStore({ path: path.join(temp(), "runs.db") });
    open.push(store);
    const viewer = await startViewer({ store });
    open.push(viewer);
    const at = (where: string) => viewer.url.replace("/?", `${where}${where.includes("?") ? "&" : "?"}`);
    const since = await fetch(at("/api/runs?since=yesterday"));
    expect(since.status).toBe(400);
    expect(((await since.json()) as { error: string }).error).toContain("since=yesterday is not a time");
    expect((await fetch(at("/api/audit?last=0"))).status).toBe(400);
    const unknown = await fetch(at("/api/runs/run_nope"));
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toEqual({ error: "no run run_nope in the store" });
    expect((await fetch(at("/api/runs"), { method: "POST" })).status).toBe(405);
    // The token in a header does too; a wrong one does not.
    const base = viewer.url.split("?")[0]!;
    expect(
      (await fetch(`${base}api/runs`, { headers: { authorization: `Bearer ${viewer.token}` } })).status,
    ).toBe(200);
    expect((await fetch(`${base}api/runs`, { headers: { authorization: "Bearer nope" } })).status).toBe(403);
  });
});

describe("a wire trace file", () => {
  it("is read by run as it grows, a line (and a character) cut between two writes kept whole", () => {
    const file = path.join(temp(), "trace.jsonl");
    const trace = new WireTraceFile(file);
    expect(trace.forRun("run_a")).toEqual([]); // not written yet
    const line = (runId: string, text: string) =>
      `${JSON.stringify({ server: "s", direction: "to-server", time: "2026-01-01T00:00:00.000Z", runId, callId: "c", message: { text } })}\n`;
    const second = Buffer.from(line("run_a", "客户张伟"));
    const cut = second.indexOf(Buffer.from("张")) + 1; // inside the character's three bytes
    writeFileSync(file, line("run_a", "one") + line("run_b", "other"));
    appendFileSync(file, second.subarray(0, cut));
    expect(trace.forRun("run_a").map((r) => (r.message as { text: string }).text)).toEqual(["one"]);
    appendFileSync(file, second.subarray(cut));
    expect(trace.forRun("run_a").map((r) => (r.message as { text: string }).text)).toEqual([
      "one",
      "客户张伟",
    ]);
    expect(trace.forRun("run_b")).toHaveLength(1);
  });
});
