import { afterEach, describe, expect, it } from "vitest";
import { Switchyard, type WireRecord } from "../../src/index.js";
import { NODE, ROOT, startHttpServer, waitFor } from "../helpers.js";

const FAULT_SERVER = `${ROOT}test/fixtures/fault-server.mjs`;
const fault = (extra: Record<string, unknown> = {}) => ({ command: NODE, args: [FAULT_SERVER], ...extra });

const opened: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((resource) => resource.close()));
});

async function yardOf(servers: Record<string, unknown>, wire?: WireRecord[]) {
  const yard = await Switchyard.connect(
    { mcpServers: servers },
    wire ? { wireTrace: (r) => wire.push(r) } : {},
  );
  opened.push(yard);
  for (const state of yard.servers()) expect(state.status, state.error).toBe("ready");
  return yard;
}

const stats = async (yard: Switchyard, server = "f") =>
  (await yard.callTool(`${server}_stats`, {})).structuredContent as {
    maxInFlight: number;
    calls: number;
    cancelled: number[];
  };

describe("timeouts and cancellation", () => {
  it("reject at the deadline with TIMEOUT, tell the server to cancel, and drop the late answer", async () => {
    const wire: WireRecord[] = [];
    const yard = await yardOf({ f: fault() }, wire);
    const started = Date.now();
    await expect(
      yard.callTool("f_work", { id: "late", fault: "slow", ms: 600 }, { timeoutMs: 200 }),
    ).rejects.toMatchObject({
      code: "TIMEOUT",
      server: "f",
      tool: "work",
      message: expect.stringContaining("200 ms"),
    });
    expect(Date.now() - started).toBeLessThan(1_000);
    const cancel = wire.find((r) => (r.message as { method?: string }).method === "notifications/cancelled");
    expect(cancel).toMatchObject({
      direction: "to-server",
      message: { params: { requestId: expect.any(Number) } },
    });
    await new Promise((resolve) => setTimeout(resolve, 500));
    // The late answer arrived and went nowhere; the next call gets its own answer.
    expect((await yard.callTool("f_work", { id: "next" })).text).toBe("done next");
    expect((await stats(yard)).cancelled).toContain(
      (cancel!.message as { params: { requestId: number } }).params.requestId,
    );
  });

  it("let progress notifications extend the deadline up to maxTotalTimeoutMs", async () => {
    const yard = await yardOf({
      extended: fault({ timeoutMs: 300, maxTotalTimeoutMs: 3_000 }),
      strict: fault({ timeoutMs: 300 }),
    });
    const long = { ms: 900, every: 100 };
    expect((await yard.callTool("extended_progress", long, { timeoutMs: 300 })).text).toBe(
      "progressed for 900 ms",
    );
    await expect(yard.callTool("strict_progress", long)).rejects.toMatchObject({ code: "TIMEOUT" });
  });

  it("cancel through the caller's signal with CANCELLED", async () => {
    const yard = await yardOf({ f: fault() });
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 100);
    await expect(
      yard.callTool("f_work", { id: "x", fault: "hang" }, { signal: controller.signal }),
    ).rejects.toMatchObject({
      code: "CANCELLED",
    });
  });

  it("refuse a call whose signal is aborted already with CANCELLED, sending nothing", async () => {
    const wire: WireRecord[] = [];
    const yard = await yardOf({ f: fault() }, wire);
    for (const reason of [undefined, new Error("the user stopped")]) {
      const controller = new AbortController();
      controller.abort(reason);
      await expect(yard.callTool("f_work", { id: "x" }, { signal: controller.signal })).rejects.toMatchObject(
        { code: "CANCELLED", message: expect.stringContaining("before it started") },
      );
    }
    expect(wire.filter((r) => (r.message as { method?: string }).method === "tools/call")).toEqual([]);
  });
});

describe("the bulkhead", () => {
  it("keeps at most maxConcurrency calls in flight, queues the rest FIFO, and refuses past maxQueue", async () => {
    const yard = await yardOf({ f: fault({ maxConcurrency: 2, maxQueue: 3 }) });
    const calls = Array.from({ length: 5 }, (_, i) =>
      yard.callTool("f_work", { id: `c${i}`, fault: "slow", ms: 150 }),
    );
    await waitFor(() => yard.servers()[0]!.queued === 3, 2_000, "three queued calls");
    expect(yard.servers()[0]).toMatchObject({ inFlight: 2, queued: 3 });
    await expect(yard.callTool("f_work", { id: "overflow" })).rejects.toMatchObject({
      code: "QUEUE_FULL",
      server: "f",
    });
    const results = await Promise.all(calls);
    expect(results.map((r) => r.text)).toEqual(["done c0", "done c1", "done c2", "done c3", "done c4"]);
    expect((await stats(yard)).maxInFlight).toBe(2);
  });

  it("takes a cancelled call out of the queue before it reaches the server", async () => {
    const yard = await yardOf({ f: fault({ maxConcurrency: 1 }) });
    const busy = yard.callTool("f_work", { id: "busy", fault: "slow", ms: 300 });
    const controller = new AbortController();
    const queued = yard.callTool("f_work", { id: "queued" }, { signal: controller.signal });
    await waitFor(() => yard.servers()[0]!.queued === 1, 2_000, "the queued call");
    controller.abort();
    await expect(queued).rejects.toMatchObject({ code: "CANCELLED" });
    expect(yard.servers()[0]!.queued).toBe(0);
    await busy;
    expect((await stats(yard)).calls).toBe(2); // busy, then stats itself: the cancelled call never ran
  });
});

describe("retries", () => {
  it("retry transient JSON-RPC errors (-32001) with backoff", async () => {
    const yard = await yardOf({ f: fault({ retry: { maxRetries: 2, backoffMs: 10 } }) });
    expect((await yard.callTool("f_flaky", { id: "a", failures: 2 })).text).toBe("done a after 2 failures");
    expect(yard.servers()[0]!.retries).toBe(2);
    await expect(yard.callTool("f_flaky", { id: "b", failures: 5 })).rejects.toMatchObject({
      code: "SERVER_ERROR",
      rpcCode: -32001,
    });
  });

  it("over HTTP: retry a 503, retry a dropped read-only call, never retry a dropped call that may have run", async () => {
    const http = await startHttpServer(NODE, [FAULT_SERVER, "--http", "0"]);
    opened.push(http);
    const yard = await yardOf({ h: { url: http.url, transport: "http", retry: { backoffMs: 10 } } });
    expect((await yard.callTool("h_work", { id: "u1", fault: "unavailable" })).text).toBe("done u1");
    await expect(yard.callTool("h_work", { id: "w1", fault: "drop" })).rejects.toMatchObject({
      code: "SERVER_UNAVAILABLE",
    });
    const before = (await stats(yard, "h")).calls;
    await expect(yard.callTool("h_read", { id: "r1", fault: "drop" })).rejects.toMatchObject({
      code: "SERVER_UNAVAILABLE",
    });
    // The read-only call was sent 1 + maxRetries times; the plain one only once.
    expect((await stats(yard, "h")).calls - before).toBe(1 + 2 + 1);
  });

  it("start a new session when the server forgot the old one (HTTP 404), without losing the call", async () => {
    const http = await startHttpServer(NODE, [FAULT_SERVER, "--http", "0"]);
    opened.push(http);
    const yard = await yardOf({ h: { url: http.url, transport: "http" } });
    await yard.callTool("h_expire_session", {});
    expect((await yard.callTool("h_work", { id: "after-expiry" })).text).toBe("done after-expiry");
    expect(yard.servers()[0]).toMatchObject({ status: "ready", restarts: 1 });
  });
});

describe("the circuit breaker", () => {
  it("opens after failureThreshold failures, fails fast, and closes when the probe ping succeeds", async () => {
    const yard = await yardOf({
      f: fault({ timeoutMs: 100, circuitBreaker: { failureThreshold: 3, cooldownMs: 400 } }),
    });
    for (let i = 0; i < 3; i += 1) {
      await expect(yard.callTool("f_work", { id: `h${i}`, fault: "hang" })).rejects.toMatchObject({
        code: "TIMEOUT",
      });
    }
    expect(yard.servers()[0]).toMatchObject({ breaker: "open", breakerOpenings: 1 });
    const started = Date.now();
    await expect(yard.callTool("f_work", { id: "fast" })).rejects.toMatchObject({
      code: "CIRCUIT_OPEN",
      server: "f",
    });
    expect(Date.now() - started).toBeLessThan(50);
    await new Promise((resolve) => setTimeout(resolve, 450));
    expect((await yard.callTool("f_work", { id: "healed" })).text).toBe("done healed");
    expect(yard.servers()[0]!.breaker).toBe("closed");
  });

  it("stays open when the probe fails", async () => {
    const yard = await yardOf({
      f: fault({
        timeoutMs: 100,
        health: { timeoutMs: 100 },
        circuitBreaker: { failureThreshold: 1, cooldownMs: 100 },
      }),
    });
    await yard.callTool("f_mute", { ms: 2_000 }, { timeoutMs: 100 }).catch(() => {});
    expect(yard.servers()[0]!.breaker).toBe("open");
    await new Promise((resolve) => setTimeout(resolve, 150));
    // The call's own deadline is longer than the probe's, so that the probe decides.
    await expect(yard.callTool("f_work", { id: "x" }, { timeoutMs: 2_000 })).rejects.toMatchObject({
      code: "CIRCUIT_OPEN",
    });
    expect(yard.servers()[0]).toMatchObject({ breaker: "open", breakerOpenings: 2 });
  });

  it("does not count tool errors or bad arguments as failures", async () => {
    const yard = await yardOf({ f: fault({ circuitBreaker: { failureThreshold: 1, cooldownMs: 10_000 } }) });
    expect((await yard.callTool("f_work", { id: "e", fault: "error" })).isError).toBe(true);
    await expect(yard.callTool("f_work", {})).rejects.toMatchObject({ code: "INVALID_ARGUMENTS" });
    expect(yard.servers()[0]!.breaker).toBe("closed");
  });
});

describe("restarts", () => {
  it("restart a crashed server: calls in flight fail, calls that arrive meanwhile wait, names stay", async () => {
    const yard = await yardOf({ f: fault({ restart: { maxRestarts: 2, backoffMs: 200 } }) });
    const names = yard.tools().map((t) => t.name);
    const inFlight = yard.callTool("f_work", { id: "victim", fault: "slow", ms: 5_000 });
    const crash = yard.callTool("f_work", { id: "boom", fault: "crash" });
    await expect(crash).rejects.toMatchObject({ code: "SERVER_UNAVAILABLE" });
    await expect(inFlight).rejects.toMatchObject({ code: "SERVER_UNAVAILABLE" });
    expect(yard.servers()[0]!.status).toBe("restarting");
    const waiting = yard.callTool("f_work", { id: "patient" });
    expect((await waiting).text).toBe("done patient");
    expect(yard.servers()[0]).toMatchObject({ status: "ready", restarts: 1 });
    expect(yard.tools().map((t) => t.name)).toEqual(names);
  });

  it("give up after maxRestarts and mark the server failed", async () => {
    const yard = await yardOf({ f: fault({ restart: { maxRestarts: 1, backoffMs: 10 } }) });
    await expect(yard.callTool("f_work", { id: "1", fault: "crash" })).rejects.toMatchObject({
      code: "SERVER_UNAVAILABLE",
    });
    await waitFor(() => yard.servers()[0]!.status === "ready", 5_000, "the restart");
    await expect(yard.callTool("f_work", { id: "2", fault: "crash" })).rejects.toMatchObject({
      code: "SERVER_UNAVAILABLE",
    });
    await waitFor(() => yard.servers()[0]!.status === "failed", 5_000, "giving up");
    expect(yard.servers()[0]!.error).toMatch(/exit code 3.*gave up after 1 restart/);
    await expect(yard.callTool("f_work", { id: "3" })).rejects.toMatchObject({ code: "SERVER_UNAVAILABLE" });
  });

  it("let a call that waits for a restart time out at its own deadline", async () => {
    const yard = await yardOf({ f: fault({ restart: { maxRestarts: 1, backoffMs: 2_000 } }) });
    await expect(yard.callTool("f_work", { id: "1", fault: "crash" })).rejects.toMatchObject({
      code: "SERVER_UNAVAILABLE",
    });
    await expect(yard.callTool("f_work", { id: "2" }, { timeoutMs: 200 })).rejects.toMatchObject({
      code: "TIMEOUT",
    });
  });
});

describe("large results and noise", () => {
  it("fail one call with RESULT_TOO_LARGE and keep the connection", async () => {
    const yard = await yardOf({ f: fault({ maxResultBytes: 1024 * 1024 }) });
    await expect(
      yard.callTool("f_work", { id: "big", fault: "huge", bytes: 3 * 1024 * 1024 }),
    ).rejects.toMatchObject({
      code: "RESULT_TOO_LARGE",
      message: expect.stringMatching(/over the 1048576-byte limit/),
    });
    expect((await yard.callTool("f_work", { id: "garbled", fault: "garbage" })).text).toBe("done garbled");
    expect((await yard.callTool("f_work", { id: "after" })).text).toBe("done after");
    expect(yard.servers()[0]).toMatchObject({ status: "ready", restarts: 0 });
  });
});

describe("health", () => {
  it("pings servers periodically when asked, and reports it", async () => {
    const yard = await yardOf({ pinged: fault({ health: { intervalMs: 50 } }), quiet: fault() });
    await waitFor(() => yard.servers()[0]!.health === "ok", 2_000, "a health ping");
    expect(yard.servers()[1]!.health).toBe("unknown");
  });
});
