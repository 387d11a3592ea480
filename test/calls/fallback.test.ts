// Fallback servers (issue 27): while a server is down — failed, restarting, its breaker open — its tool
// calls go to its `fallback`'s tool of the same own name, checked and admitted there; the result, the
// events and the stored record say which server served it.
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { openStore, type Store, Switchyard, type SwitchyardEvent } from "../../src/index.js";
import { NODE, ROOT, startHttpServer, waitFor } from "../helpers.js";

const TWIN = `${ROOT}test/fixtures/twin-server.mjs`;
const twin = (name: string, extra: Record<string, unknown> = {}, ...flags: string[]) => ({
  command: NODE,
  args: [TWIN, "--name", name, ...flags],
  ...extra,
});

const opened: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((resource) => resource.close()));
});

/** A twin served over Streamable HTTP (its own process); closed after the test unless the test kills it. */
async function httpTwin(name: string, ...flags: string[]) {
  const http = await startHttpServer(NODE, [TWIN, "--name", name, "--http", "0", ...flags]);
  opened.push(http);
  return http;
}

/** Every call row the store keeps, over all its runs. */
async function storedCalls(store: Store) {
  const runs = await store.runs();
  return (await Promise.all(runs.map((run) => store.run(run.id)))).flatMap((run) => run!.calls);
}

async function yardOf(
  config: Record<string, unknown>,
  options: Parameters<typeof Switchyard.connect>[1] = {},
) {
  const yard = await Switchyard.connect(config, options);
  opened.push(yard);
  for (const state of yard.servers()) expect(state.status, state.error).toBe("ready");
  return yard;
}

/** Kill the server's process from outside and wait until the Switchyard sees it as `status`. */
async function kill(yard: Switchyard, server: string, status: string) {
  const pid = yard.servers().find((state) => state.name === server)!.pid!;
  process.kill(pid, "SIGKILL");
  await waitFor(() => yard.servers().find((state) => state.name === server)?.status === status);
}

describe("fallback servers", () => {
  it("serve a failed server's tool: servedBy in the result, the events and the stored record", async () => {
    const store: Store = await openStore({
      path: path.join(mkdtempSync(path.join(tmpdir(), "switchyard-fallback-")), "s.db"),
    });
    opened.push(store);
    const events: SwitchyardEvent[] = [];
    const yard = await yardOf(
      {
        mcpServers: {
          primary: twin("primary", { fallback: "backup", restart: { maxRestarts: 0 } }),
          backup: twin("backup"),
        },
      },
      { store },
    );
    yard.observe((event) => events.push(event));
    const own = await yard.callTool("primary_lookup", { key: "a" });
    expect(own.text).toBe("primary: a");
    expect(own.servedBy).toBeUndefined();
    await kill(yard, "primary", "failed");
    const served = await yard.callTool("primary_lookup", { key: "b" });
    expect(served.text).toBe("backup: b");
    expect(served.servedBy).toBe("backup");
    expect(events.filter((event) => event.type === "call_finished").at(-1)).toMatchObject({
      name: "primary_lookup",
      server: "primary",
      servedBy: "backup",
    });
    await yard.close();
    const runs = await store.runs();
    const calls = (await Promise.all(runs.map((run) => store.run(run.id)))).flatMap((run) => run!.calls);
    expect(calls.map((call) => [call.name, call.server, call.servedBy, call.ok])).toEqual(
      expect.arrayContaining([
        ["primary_lookup", "primary", undefined, true],
        ["primary_lookup", "primary", "backup", true],
      ]),
    );
  });

  it("serve the tools of a server that crashed on start (never listed), checked and admitted on the fallback", async () => {
    const yard = await Switchyard.connect({
      mcpServers: {
        primary: {
          command: NODE,
          args: ["-e", "process.exit(1)"],
          fallback: "backup",
          restart: { maxRestarts: 0 },
        },
        backup: twin("backup"),
      },
    });
    opened.push(yard);
    expect(yard.servers().find((state) => state.name === "primary")!.status).toBe("failed");
    expect(await yard.callTool("primary_lookup", { key: "s" })).toMatchObject({
      text: "backup: s",
      servedBy: "backup",
    });
    // The fallback tool's schema checks the arguments: none fit, so no fallback; the server's failure.
    await expect(yard.callTool("primary_lookup", { nokey: 1 })).rejects.toMatchObject({
      code: "SERVER_UNAVAILABLE",
      server: "primary",
    });
  });

  it("serve a restarting server's tool rather than wait out its restart", async () => {
    const yard = await yardOf({
      mcpServers: {
        primary: twin("primary", { fallback: ["backup"], restart: { maxRestarts: 3, backoffMs: 60_000 } }),
        backup: twin("backup"),
      },
    });
    await kill(yard, "primary", "restarting");
    const served = await yard.callTool("primary_lookup", { key: "r" }, { timeoutMs: 5_000 });
    expect(served).toMatchObject({ text: "backup: r", servedBy: "backup" });
  });

  it("serve a tool whose server's circuit breaker is open", async () => {
    const yard = await yardOf({
      mcpServers: {
        primary: twin(
          "primary",
          { fallback: "backup", timeoutMs: 200, circuitBreaker: { failureThreshold: 1, cooldownMs: 60_000 } },
          "--hang-on-call",
        ),
        backup: twin("backup"),
      },
    });
    // Its call was sent and timed out: it may have run, so it is not sent again elsewhere.
    await expect(yard.callTool("primary_lookup", { key: "t" })).rejects.toMatchObject({ code: "TIMEOUT" });
    expect(yard.servers().find((state) => state.name === "primary")!.breaker).toBe("open");
    const served = await yard.callTool("primary_lookup", { key: "o" });
    expect(served).toMatchObject({ text: "backup: o", servedBy: "backup" });
  });

  it("fail as the server failed when the policy denies the fallback", async () => {
    const yard = await yardOf({
      mcpServers: {
        primary: twin("primary", { fallback: "backup", restart: { maxRestarts: 0 } }),
        backup: twin("backup"),
      },
      policy: { default: "allow", rules: [{ id: "no-backup", effect: "deny", servers: ["backup"] }] },
    });
    await kill(yard, "primary", "failed");
    await expect(yard.callTool("primary_lookup", { key: "d" })).rejects.toMatchObject({
      code: "SERVER_UNAVAILABLE",
      server: "primary",
    });
  });

  it("fail as the server failed when the fallback has no tool of that name", async () => {
    const yard = await yardOf({
      mcpServers: {
        primary: twin("primary", { fallback: "backup", restart: { maxRestarts: 0 } }),
        backup: twin("backup", {}, "--tools", "other"),
      },
    });
    await kill(yard, "primary", "failed");
    await expect(yard.callTool("primary_lookup", { key: "n" })).rejects.toMatchObject({
      code: "SERVER_UNAVAILABLE",
      server: "primary",
    });
  });

  it("are checked: the servers named exist, are not the server itself, and go round in no circle", async () => {
    const config = (servers: Record<string, unknown>) => Switchyard.connect({ mcpServers: servers });
    await expect(config({ a: twin("a", { fallback: "nope" }) })).rejects.toMatchObject({
      code: "CONFIG_INVALID",
      message: expect.stringContaining('mcpServers.a.fallback: no server named "nope"'),
    });
    await expect(config({ a: twin("a", { fallback: "a" }) })).rejects.toMatchObject({
      code: "CONFIG_INVALID",
      message: expect.stringContaining("cannot be its own fallback"),
    });
    await expect(
      config({ a: twin("a", { fallback: "b" }), b: twin("b", { fallback: ["a"] }) }),
    ).rejects.toMatchObject({
      code: "CONFIG_INVALID",
      message: expect.stringContaining("a → b → a"),
    });
  });
});

describe("fallback servers of a Streamable HTTP server", () => {
  it("serve the calls of an HTTP server that went down (its process killed): servedBy in the result, the event and the stored row", async () => {
    const store: Store = await openStore({
      path: path.join(mkdtempSync(path.join(tmpdir(), "switchyard-fallback-http-")), "s.db"),
    });
    opened.push(store);
    const primary = await httpTwin("primary");
    const events: SwitchyardEvent[] = [];
    const yard = await yardOf(
      {
        mcpServers: {
          primary: { url: primary.url, transport: "http", fallback: "backup", retry: { maxRetries: 0 } },
          backup: twin("backup"),
        },
      },
      { store },
    );
    yard.observe((event) => events.push(event));
    expect(await yard.callTool("primary_lookup", { key: "a" })).toMatchObject({ text: "primary: a" });
    await primary.close();
    const served = await yard.callTool("primary_lookup", { key: "b" });
    expect(served).toMatchObject({ text: "backup: b", servedBy: "backup" });
    expect(events.filter((event) => event.type === "call_finished").at(-1)).toMatchObject({
      name: "primary_lookup",
      server: "primary",
      servedBy: "backup",
      ok: true,
    });
    await yard.close();
    expect(
      (await storedCalls(store)).map((call) => [call.name, call.server, call.servedBy, call.ok]),
    ).toEqual(
      expect.arrayContaining([
        ["primary_lookup", "primary", undefined, true],
        ["primary_lookup", "primary", "backup", true],
      ]),
    );
  });

  it("serve the calls of an HTTP server whose breaker is open on another HTTP server", async () => {
    const primary = await httpTwin("primary", "--hang-on-call");
    const backup = await httpTwin("backup");
    const yard = await yardOf({
      mcpServers: {
        primary: {
          url: primary.url,
          transport: "http",
          fallback: "backup",
          timeoutMs: 300,
          circuitBreaker: { failureThreshold: 1, cooldownMs: 60_000 },
        },
        backup: { url: backup.url, transport: "http" },
      },
    });
    await expect(yard.callTool("primary_lookup", { key: "t" })).rejects.toMatchObject({ code: "TIMEOUT" });
    expect(yard.servers().find((state) => state.name === "primary")!.breaker).toBe("open");
    expect(await yard.callTool("primary_lookup", { key: "o" })).toMatchObject({
      text: "backup: o",
      servedBy: "backup",
    });
  });
});
