import { afterEach, describe, expect, it } from "vitest";
import { Switchyard } from "../../src/index.js";
import { failureOf, memoryLogger, NODE, ROOT, sdk, waitFor } from "../helpers.js";

const HOSTILE_SERVER = `${ROOT}test/fixtures/hostile-http-server.mjs`;
const MB = 1024 * 1024;

const closers: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  await Promise.all(closers.splice(0).map((close) => close()));
});

/** A Switchyard with the hostile HTTP server (`hostile`) beside a well-behaved stdio one (`calm`). */
async function fleet(options: Partial<Parameters<typeof Switchyard.connect>[1]> = {}): Promise<Switchyard> {
  const yard = await Switchyard.connect(
    {
      mcpServers: {
        hostile: {
          url: "http://127.0.0.1:{{port}}/mcp",
          transport: "http",
          command: NODE,
          args: [HOSTILE_SERVER, "--port", "{{port}}"],
          timeoutMs: 8_000,
          retry: { maxRetries: 0 },
        },
        calm: sdk(),
      },
    },
    options,
  );
  closers.push(() => yard.close());
  expect(yard.servers().map((s) => s.status)).toEqual(["ready", "ready"]);
  return yard;
}

/**
 * Run `work` while sampling this process's heap every few ms; returns its outcome, the heap's
 * largest growth over where it started, and how many calls to the calm server answered meanwhile.
 */
async function watched<T>(yard: Switchyard, work: () => Promise<T>) {
  global.gc?.();
  const start = process.memoryUsage().heapUsed;
  let peak = start;
  const sampler = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage().heapUsed);
  }, 5);
  let calmAnswers = 0;
  let done = false;
  const calm = (async () => {
    while (!done) {
      const result = await yard.callTool("calm_echo", { text: "still here" });
      if (result.text === "still here") calmAnswers += 1;
    }
  })();
  try {
    const outcome = await work();
    return { outcome, growthMb: (peak - start) / MB, calmAnswers };
  } finally {
    done = true;
    clearInterval(sampler);
    await calm;
  }
}

describe("an HTTP server's answers are bounded by maxResultBytes", () => {
  it("fails a 50 MB JSON answer with RESULT_TOO_LARGE, streamed or declared, and the fleet goes on", async () => {
    const yard = await fleet();
    for (const declared of [false, true]) {
      const { outcome, growthMb, calmAnswers } = await watched(yard, () =>
        failureOf(yard.callTool("hostile_big", { bytes: 50_000_000, declared })),
      );
      expect(outcome).toMatchObject({ code: "RESULT_TOO_LARGE", server: "hostile" });
      expect(outcome.message).toContain("4194304-byte limit (maxResultBytes)");
      // A sanity bound, not a measurement: the whole answer held would be 50 MB and more.
      expect(growthMb).toBeLessThan(40);
      expect(calmAnswers).toBeGreaterThan(0);
    }
    // The connection lives on: the same server answers the next call.
    expect((await yard.callTool("hostile_echo", { text: "next" })).text).toBe("next");
  }, 60_000);

  it("cuts an SSE answer that never ends, of many events or of one, and the server stops sending", async () => {
    const yard = await fleet();
    for (const event of [false, true]) {
      const { outcome, growthMb, calmAnswers } = await watched(yard, () =>
        failureOf(yard.callTool("hostile_endless", { event })),
      );
      expect(outcome).toMatchObject({ code: "RESULT_TOO_LARGE", server: "hostile" });
      expect(outcome.message).toContain("over the 4194304-byte limit (maxResultBytes)");
      expect(growthMb).toBeLessThan(40);
      expect(calmAnswers).toBeGreaterThanOrEqual(0);
    }
    // The client hung up on both answers: the server sees each stream closed (the last close may
    // reach it a moment after the call has failed here, so it is asked until it has seen both).
    let stopped = 0;
    const deadline = Date.now() + 10_000;
    while (stopped < 2 && Date.now() < deadline) {
      const stats = await yard.callTool("hostile_stats", {});
      stopped = (stats.structuredContent as { endlessStopped: number }).endlessStopped;
      if (stopped < 2) await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(stopped).toBe(2);
    expect((await yard.callTool("calm_echo", { text: "after" })).text).toBe("after");
  }, 60_000);

  it("holds a smaller maxResultBytes too", async () => {
    const yard = await Switchyard.connect({
      mcpServers: {
        hostile: {
          url: "http://127.0.0.1:{{port}}/mcp",
          transport: "http",
          command: NODE,
          args: [HOSTILE_SERVER, "--port", "{{port}}"],
          maxResultBytes: 64 * 1024,
        },
      },
    });
    closers.push(() => yard.close());
    await expect(yard.callTool("hostile_big", { bytes: 100_000 })).rejects.toMatchObject({
      code: "RESULT_TOO_LARGE",
    });
    expect((await yard.callTool("hostile_big", { bytes: 30_000 })).text).toHaveLength(30_000);
  }, 30_000);

  it("skips an event over the limit on the lasting stream of server-to-client messages, which lives on", async () => {
    const { logger, lines } = memoryLogger();
    const yard = await fleet({ logger });
    const { growthMb } = await watched(yard, async () => {
      await yard.callTool("hostile_loud", { bytes: 50_000_000 });
      await waitFor(
        () => lines().some((line) => line.msg === "after the loud one"),
        30_000,
        "the log message after the loud one",
      );
    });
    expect(growthMb).toBeLessThan(40);
    expect(lines().some((line) => String(line.msg).startsWith("lll"))).toBe(false);
    expect((await yard.callTool("hostile_echo", { text: "next" })).text).toBe("next");
  }, 60_000);
});
