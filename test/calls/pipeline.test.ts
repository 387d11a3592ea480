import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import {
  type CatalogChange,
  isSwitchyardError,
  Switchyard,
  type SwitchyardEvent,
  type ToolResult,
  type WireRecord,
} from "../../src/index.js";
import { failureOf, NODE, ROOT, SDK_SERVER, sdk, waitFor } from "../helpers.js";

const FAULT_SERVER = `${ROOT}test/fixtures/fault-server.mjs`;
const NEEDY_SERVER = `${ROOT}test/fixtures/needy-server.mjs`;
const fault = (extra: Record<string, unknown> = {}) => ({ command: NODE, args: [FAULT_SERVER], ...extra });
const needy = (...flags: string[]) => ({ command: NODE, args: [NEEDY_SERVER, ...flags] });

const opened: Switchyard[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((yard) => yard.close()));
});

async function yardOf(
  servers: Record<string, unknown>,
  options: Parameters<typeof Switchyard.connect>[1] = {},
) {
  const yard = await Switchyard.connect({ mcpServers: servers }, options);
  opened.push(yard);
  return yard;
}

describe("failures that share one cause count once", () => {
  it("a crash that takes 16 calls in flight with it does not open the breaker; the restart closes it", async () => {
    const yard = await yardOf({
      f: fault({ maxConcurrency: 16, restart: { maxRestarts: 5, backoffMs: 20 } }),
    });
    const slow = Array.from({ length: 15 }, (_, i) =>
      yard.callTool("f_work", { id: `s${i}`, fault: "slow", ms: 300 }).catch((error: unknown) => error),
    );
    await new Promise((resolve) => setTimeout(resolve, 50));
    const crash = await failureOf(yard.callTool("f_work", { id: "boom", fault: "crash" }));
    expect(crash.code).toBe("SERVER_UNAVAILABLE");
    const lost = await Promise.all(slow);
    expect(lost.every((error) => isSwitchyardError(error, "SERVER_UNAVAILABLE"))).toBe(true);
    // Sixteen failures of one incident: one count, far below the threshold of 5.
    expect(yard.servers()[0]!.breaker).toBe("closed");
    await waitFor(() => yard.servers()[0]!.status === "ready", 5_000, "the restart");
    const after = await yard.callTool("f_work", { id: "after" });
    expect(after.isError).toBe(false);
    expect(yard.servers()[0]).toMatchObject({ breaker: "closed", breakerOpenings: 0, restarts: 1 });
  });

  it("keeps at least 95% of healthy calls succeeding in a 1,500-call soak with 5 crashes", async () => {
    const yard = await yardOf({
      f: fault({ maxConcurrency: 16, restart: { maxRestarts: 10, backoffMs: 20 } }),
    });
    const total = 1_500;
    const crashAt = new Set([250, 500, 750, 1_000, 1_250]);
    const outcomes: Array<string> = [];
    let next = 0;
    const worker = async () => {
      while (next < total) {
        const index = next++;
        const crash = crashAt.has(index);
        try {
          await yard.callTool("f_work", crash ? { id: `c${index}`, fault: "crash" } : { id: `h${index}` });
          if (!crash) outcomes.push("ok");
        } catch (error) {
          if (!crash) outcomes.push(isSwitchyardError(error) ? error.code : "thrown");
        }
      }
    };
    // Twelve callers keep up to 12 of the 16 slots busy: a crash takes the calls in flight with it (a
    // call in flight when its server crashed is never retried), at most 11 besides its own.
    const callers = 12;
    await Promise.all(Array.from({ length: callers }, worker));
    const healthy = outcomes.length;
    const ok = outcomes.filter((outcome) => outcome === "ok").length;
    expect(healthy).toBe(total - crashAt.size);
    expect(new Set(outcomes.filter((outcome) => outcome !== "ok"))).toEqual(
      ok === healthy ? new Set() : new Set(["SERVER_UNAVAILABLE"]),
    );
    expect(healthy - ok).toBeLessThanOrEqual(crashAt.size * (callers - 1));
    console.log(`soak: ${ok} of ${healthy} healthy calls succeeded (${((100 * ok) / healthy).toFixed(1)}%)`);
    expect(ok / healthy).toBeGreaterThanOrEqual(0.95);
    expect(yard.servers()[0]).toMatchObject({ breakerOpenings: 0, restarts: 5 });
  }, 60_000);
});

describe("faults are put where they belong", () => {
  it("a capability the client lacks is CAPABILITY_MISSING and never counts against the server", async () => {
    const yard = await yardOf({
      n: { ...needy(), circuitBreaker: { failureThreshold: 2, cooldownMs: 30_000 } },
    });
    for (let i = 0; i < 4; i += 1) {
      const error = await failureOf(yard.callTool("n_confirm", {}));
      expect(error).toMatchObject({
        code: "CAPABILITY_MISSING",
        server: "n",
        tool: "confirm",
        serverFault: false,
      });
      expect(error.capability).toContain("elicitation");
      expect(error.message).toMatch(/elicitation/);
    }
    expect(yard.servers()[0]!.breaker).toBe("closed");
    expect((await yard.callTool("n_echo", { text: "still fine" })).text).toBe("still fine");
  });

  it("structured content that breaks the tool's output schema is INVALID_RESULT, not INVALID_ARGUMENTS", async () => {
    const yard = await yardOf({ n: needy("--bad-output") });
    const error = await failureOf(yard.callTool("n_sum", { a: 1, b: 2 }));
    expect(error.code).toBe("INVALID_RESULT");
    expect(error.message).toMatch(/output schema/);
    expect(error.message).toMatch(/misbehaved/);
    expect(error.serverFault).toBe(false);
  });
});

describe("a result is checked once, by Switchyard, whichever revision the server speaks", () => {
  it.each(["legacy", "auto"] as const)(
    "%s: good, missing and failed structured content",
    async (versionNegotiation) => {
      const yard = await yardOf({ n: { ...needy("--bad-output"), versionNegotiation } });
      const good = await yard.callTool("n_good", {});
      expect(good.structuredContent).toEqual({ sum: 3 });
      const failed = await yard.callTool("n_failed", {});
      expect(failed.isError).toBe(true);
      expect(failed.text).toBe("could not add");
      const bare = await failureOf(yard.callTool("n_bare", {}));
      expect(bare.code).toBe("INVALID_RESULT");
      expect(bare.message).toMatch(/server n answered the call to bare .*no structured content/);
      const wrong = await failureOf(yard.callTool("n_sum", {}));
      expect(wrong.code).toBe("INVALID_RESULT");
      expect(wrong.message).toMatch(/sum/);
    },
  );
});

describe("every bad input to callTool is a coded error", () => {
  it.each([
    ["undefined", undefined],
    ["null", null],
    ["a number", 42],
    ["an object", { name: "x" }],
    ["an empty string", ""],
  ])("rejects %s as a tool name with INVALID_INPUT", async (_what, name) => {
    const yard = await yardOf({ s: sdk() });
    const error = await failureOf(yard.callTool(name as string, {}));
    expect(error.code).toBe("INVALID_INPUT");
    expect(error.message).toMatch(/tool name/);
  });

  it("rejects arguments that are not an object, and bad options, without sending anything", async () => {
    const wire: WireRecord[] = [];
    const yard = await yardOf({ s: sdk() }, { wireTrace: (record) => wire.push(record) });
    const sent = () => wire.filter((r) => (r.message as { method?: string }).method === "tools/call").length;
    expect((await failureOf(yard.callTool("s_echo", 42))).code).toBe("INVALID_ARGUMENTS");
    expect((await failureOf(yard.callTool("s_echo", "text"))).code).toBe("INVALID_ARGUMENTS");
    expect((await failureOf(yard.callTool("s_echo", { text: "x" }, { timeoutMs: -1 }))).code).toBe(
      "INVALID_INPUT",
    );
    expect((await failureOf(yard.callTool("s_echo", { text: "x" }, { timeoutMs: Number.NaN }))).code).toBe(
      "INVALID_INPUT",
    );
    expect(
      (await failureOf(yard.callTool("s_echo", { text: "x" }, { signal: "stop" as unknown as AbortSignal })))
        .code,
    ).toBe("INVALID_INPUT");
    expect((await failureOf(yard.callTool("s_echo", { text: "x" }, null as never))).code).toBe(
      "INVALID_INPUT",
    );
    expect(sent()).toBe(0);
  });
});

describe("arguments as models send them", () => {
  it("drops null on an optional parameter whose schema does not allow null, keeps it where it does", async () => {
    const wire: WireRecord[] = [];
    const yard2 = await yardOf(
      { s: sdk("--tools", "echo,add,note") },
      { wireTrace: (record) => wire.push(record) },
    );
    const note = yard2.tools().find((t) => t.name === "s_note")!;
    expect(note.inputSchema).toMatchObject({ properties: { input: { type: "string" } } });
    const result = await yard2.callTool("s_note", { input: null });
    expect(result.isError).toBe(false);
    const call = wire
      .filter((r) => r.server === "s" && r.direction === "to-server")
      .map((r) => r.message as { method?: string; params?: { arguments?: Record<string, unknown> } })
      .find((m) => m.method === "tools/call");
    expect(call?.params?.arguments).toEqual({});
    // A required parameter sent as null is still refused, with nothing sent.
    expect((await failureOf(yard2.callTool("s_echo", { text: null }))).code).toBe("INVALID_ARGUMENTS");
  });
});

describe("a restarting server keeps its tools listed", () => {
  it("lists the tools through a restart, and tells catalog listeners when a server goes and comes back", async () => {
    const yard = await yardOf({
      f: fault({ restart: { maxRestarts: 1, backoffMs: 300 } }),
      s: sdk(),
    });
    const changes: CatalogChange[] = [];
    yard.onCatalogChange((change) => changes.push(change));
    const before = yard.tools().map((tool) => tool.name);
    const version = yard.catalogVersion;
    await failureOf(yard.callTool("f_work", { id: "boom", fault: "crash" }));
    expect(yard.servers().find((s) => s.name === "f")!.status).toBe("restarting");
    expect(yard.tools().map((tool) => tool.name)).toEqual(before);
    await waitFor(() => yard.servers().find((s) => s.name === "f")!.status === "ready", 5_000, "the restart");
    expect(yard.tools().map((tool) => tool.name)).toEqual(before);
    expect(changes).toEqual([]);
    expect(yard.catalogVersion).toBe(version);

    // Restarts run out (one in a row allowed): the server fails, and its tools leave the catalog.
    await failureOf(yard.callTool("f_work", { id: "boom2", fault: "crash" }));
    await waitFor(() => yard.servers().find((s) => s.name === "f")!.status === "failed", 5_000, "giving up");
    const fTools = before.filter((name) => name.startsWith("f_"));
    expect(yard.tools().map((tool) => tool.name)).toEqual(before.filter((name) => !name.startsWith("f_")));
    expect(changes.at(-1)).toMatchObject({ server: "f", added: [], removed: fTools, changed: [] });
    expect(yard.catalogVersion).toBeGreaterThan(version);

    // reconnect brings a failed server back without a new Switchyard; its tools return with their names.
    const states = await yard.reconnect();
    expect(states.find((s) => s.name === "f")!.status).toBe("ready");
    expect(yard.tools().map((tool) => tool.name)).toEqual(before);
    expect(changes.at(-1)).toMatchObject({ server: "f", added: fTools, removed: [] });
    expect((await yard.callTool("f_work", { id: "back" })).isError).toBe(false);
  });

  it("reconnect brings back a server that failed at startup, once it can start", async () => {
    // A server that exits at once until a marker file exists, then starts as the SDK fixture.
    const dir = mkdtempSync(path.join(tmpdir(), "switchyard-late-"));
    const marker = path.join(dir, "ready");
    const wrapper = path.join(dir, "late-server.mjs");
    writeFileSync(
      wrapper,
      `import { existsSync } from "node:fs";
if (!existsSync(${JSON.stringify(marker)})) { console.error("not ready yet"); process.exit(3); }
await import(${JSON.stringify(pathToFileURL(SDK_SERVER).href)});
`,
    );
    const yard = await yardOf({ late: { command: NODE, args: [wrapper] } });
    expect(yard.servers()[0]!).toMatchObject({ name: "late", status: "failed" });
    expect(yard.tools()).toEqual([]);
    // Still unable to start: it stays failed.
    expect(await yard.reconnect({ failedOnly: true })).toMatchObject([{ name: "late", status: "failed" }]);

    writeFileSync(marker, "");
    expect(await yard.reconnect({ failedOnly: true })).toMatchObject([{ name: "late", status: "ready" }]);
    expect(yard.tools().map((tool) => tool.name)).toContain("late_echo");
    expect((await yard.callTool("late_echo", { text: "back" })).text).toBe("back");
    rmSync(dir, { recursive: true, force: true });
  });
});

describe("interceptors and events", () => {
  it("an interceptor can refuse a call, rewrite its arguments and its result, and see its failures", async () => {
    const seen: string[] = [];
    const yard = await yardOf({ s: sdk() });
    yard.use({
      before(call) {
        seen.push(`before ${call.name}`);
        if (call.args.text === "forbidden") throw new Error("texts like that are not allowed");
        if (call.args.text === "shout") return { text: "SHOUT" };
        return undefined;
      },
      after(call, result) {
        seen.push(`after ${call.name}`);
        if (call.kind !== "tool") return undefined;
        const tool = result as ToolResult;
        return call.args.text === "SHOUT" ? { ...tool, text: `${tool.text}!` } : undefined;
      },
      onError(call, error) {
        seen.push(`error ${call.name} ${error.code}`);
      },
    });
    expect((await yard.callTool("s_echo", { text: "shout" })).text).toBe("SHOUT!");
    const refused = await failureOf(yard.callTool("s_echo", { text: "forbidden" }));
    expect(refused).toMatchObject({ code: "POLICY_DENIED", server: "s", tool: "echo" });
    expect(refused.message).toMatch(/not allowed/);
    expect(seen).toEqual(["before s_echo", "after s_echo", "before s_echo", "error s_echo POLICY_DENIED"]);
  });

  it("a plain callTool emits call_started and call_finished with its ids; wire records name the call", async () => {
    const events: SwitchyardEvent[] = [];
    const wire: WireRecord[] = [];
    const yard = await yardOf({ s: sdk() }, { wireTrace: (record) => wire.push(record) });
    const stop = yard.observe((event) => events.push(event));
    await yard.callTool("s_echo", { text: "hi" }, { runId: "run_test", callId: "call_1" });
    await failureOf(yard.callTool("s_nope", {}));
    stop();
    await yard.callTool("s_echo", { text: "unseen" });
    expect(events.map((event) => event.type)).toEqual([
      "call_started",
      "call_finished",
      "call_started",
      "call_finished",
    ]);
    expect(events[1]).toMatchObject({
      type: "call_finished",
      id: "call_1",
      runId: "run_test",
      ok: true,
      server: "s",
    });
    expect(events[3]).toMatchObject({ ok: false, error: { code: "TOOL_NOT_FOUND" } });
    const call = wire.filter((record) => record.callId === "call_1");
    expect(call.map((record) => record.direction)).toEqual(["to-server", "from-server"]);
    expect(call.every((record) => record.runId === "run_test")).toBe(true);
  });
});
