import { afterEach, describe, expect, it } from "vitest";
import {
  Agent,
  isSwitchyardError,
  Switchyard,
  type SwitchyardEvent,
  type WireRecord,
} from "../../src/index.js";
import { ScriptedModel } from "../../src/testing/index.js";
import { EVERYTHING, memoryLogger, NODE, ROOT, raw, sdk, waitFor } from "../helpers.js";

const NEEDY_SERVER = `${ROOT}test/fixtures/needy-server.mjs`;

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
  for (const server of yard.servers()) expect(server.status, server.error).toBe("ready");
  return yard;
}

describe("tools that need task augmentation", () => {
  it("are listed and offered to the model like any tool (calls to them run as tasks: test/fleet/tasks.test.ts)", async () => {
    const yard = await yardOf({
      e: { command: NODE, args: [EVERYTHING, "stdio"], versionNegotiation: "legacy" },
    });
    await waitFor(
      () => yard.tools().some((tool) => tool.name === "e_simulate-research-query"),
      5_000,
      "the task tool",
    );
    const research = yard.tools().find((tool) => tool.name === "e_simulate-research-query");
    expect(research?.unsupported).toBeUndefined();

    const model = new ScriptedModel([{ content: "done" }]);
    await new Agent({ model, host: yard }).run("research something");
    const offered = model.requests[0]!.tools.map((tool) => tool.name);
    expect(offered).toContain("e_echo");
    expect(offered).toContain("e_simulate-research-query");
  });
});

describe("progress", () => {
  it("a call asks for progress when something hears it; onProgress and call_progress events report it", async () => {
    const wire: WireRecord[] = [];
    const events: SwitchyardEvent[] = [];
    const yard = await yardOf(
      { n: { command: NODE, args: [NEEDY_SERVER] } },
      { wireTrace: (record) => wire.push(record), observer: { onEvent: (event) => events.push(event) } },
    );
    const seen: Array<{ progress: number; total?: number; message?: string }> = [];
    const result = await yard.callTool(
      "n_steps",
      { n: 3 },
      { onProgress: (progress) => seen.push(progress) },
    );
    expect(result.text).toBe("3 steps");
    expect(seen).toEqual([
      { progress: 1, total: 3, message: "step 1" },
      { progress: 2, total: 3, message: "step 2" },
      { progress: 3, total: 3, message: "step 3" },
    ]);
    expect(events.filter((event) => event.type === "call_progress")).toHaveLength(3);
    // A call without onProgress still carries a progress token: an observer hears call_progress.
    await yard.callTool("n_echo", { text: "hi" });
    const calls = wire
      .filter((record) => record.direction === "to-server")
      .map(
        (record) => record.message as { method?: string; params?: { _meta?: { progressToken?: unknown } } },
      )
      .filter((message) => message.method === "tools/call");
    expect(calls).toHaveLength(2);
    for (const call of calls) expect(call.params?._meta?.progressToken).toBeDefined();
  });

  it("a call nobody would hear the progress of asks for none, unless maxTotalTimeoutMs needs it", async () => {
    const wire: WireRecord[] = [];
    const yard = await yardOf(
      {
        n: { command: NODE, args: [NEEDY_SERVER] },
        // With maxTotalTimeoutMs, progress pushes the deadline back: the token goes out for that.
        m: { command: NODE, args: [NEEDY_SERVER], timeoutMs: 5_000, maxTotalTimeoutMs: 10_000 },
      },
      { wireTrace: (record) => wire.push(record) },
    );
    expect((await yard.callTool("n_echo", { text: "quiet" })).text).toBe("quiet");
    expect((await yard.callTool("m_steps", { n: 2 })).text).toBe("2 steps");
    const tokens = wire
      .filter((record) => record.direction === "to-server")
      .map(
        (record) => record.message as { method?: string; params?: { _meta?: { progressToken?: unknown } } },
      )
      .filter((message) => message.method === "tools/call")
      .map((message) => message.params?._meta?.progressToken);
    expect(tokens).toHaveLength(2);
    expect(tokens[0]).toBeUndefined();
    expect(tokens[1]).toBeDefined();
  });
});

describe("server log messages", () => {
  it("reach the logger at their level, tagged with the server", async () => {
    const { logger, lines } = memoryLogger();
    // Log notifications belong to the 2025 revisions (2026-07-28 deprecates them).
    const yard = await yardOf(
      { n: { command: NODE, args: [NEEDY_SERVER], versionNegotiation: "legacy" } },
      { logger },
    );
    await yard.callTool("n_log", { level: "warning", text: "disk almost full" });
    await yard.callTool("n_log", { level: "error", text: "disk full" });
    const logged = lines().filter((line) => line.source === "server log");
    expect(logged).toEqual([
      expect.objectContaining({
        server: "n",
        serverLevel: "warning",
        logger: "needy-logger",
        msg: "disk almost full",
        level: 40,
      }),
      expect.objectContaining({ server: "n", serverLevel: "error", msg: "disk full", level: 50 }),
    ]);
  });
});

describe("names that collide under namespace: false", () => {
  it("go to neither server: each is renamed with a warning, once, naming both servers and the name given", async () => {
    const { logger, lines } = memoryLogger();
    const yard = await yardOf(
      { first: { ...raw(), namespace: false }, second: { ...raw(), namespace: false } },
      { logger },
    );
    const echoes = yard.tools().filter((tool) => tool.tool === "echo");
    expect(echoes).toHaveLength(2);
    expect(echoes.map((tool) => tool.name)).not.toContain("echo");
    const warnings = lines()
      .filter(
        (line) => typeof line.msg === "string" && (line.msg as string).startsWith("tool echo of server"),
      )
      .map((line) => line.msg as string);
    expect(warnings).toHaveLength(2);
    for (const renamed of echoes) {
      const warning = warnings.find((text) => text.includes(`of server ${renamed.server} `))!;
      expect(warning).toContain(`is named ${renamed.name}`);
      expect(warning).toContain("servers first and second both want it");
    }
    // A restart lists the tools again: no second warning.
    await yard.reconnect({ failedOnly: false });
    expect(lines().filter((line) => String(line.msg).startsWith("tool echo of server"))).toHaveLength(2);
  });
});

describe("liveness on the 2026-07-28 revision (which has no ping)", () => {
  it("health checks and the breaker's probe ask with server/discover", async () => {
    const yard = await yardOf({
      s: {
        ...sdk(),
        health: { intervalMs: 100, timeoutMs: 2_000 },
        circuitBreaker: { failureThreshold: 2, cooldownMs: 200 },
      },
    });
    expect(yard.servers()[0]!.protocolVersion).toBe("2026-07-28");
    await waitFor(() => yard.servers()[0]!.health === "ok", 3_000, "a health check");
    for (let i = 0; i < 2; i += 1) {
      const error = await yard.callTool("s_sleep", { ms: 1_000 }, { timeoutMs: 50 }).catch((e: unknown) => e);
      expect(isSwitchyardError(error, "TIMEOUT")).toBe(true);
    }
    expect(yard.servers()[0]!.breaker).toBe("open");
    await new Promise((resolve) => setTimeout(resolve, 250));
    expect((await yard.callTool("s_echo", { text: "back" })).text).toBe("back");
    expect(yard.servers()[0]).toMatchObject({ breaker: "closed", health: "ok" });
  });
});
