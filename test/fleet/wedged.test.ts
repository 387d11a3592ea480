import { describe, expect, it } from "vitest";
import { Switchyard } from "../../src/index.js";
import { isAlive, memoryLogger, NODE, ROOT, waitFor } from "../helpers.js";

const WEDGED_SERVER = `${ROOT}test/fixtures/wedged-server.mjs`;

/** A server whose process lives on while its connection can carry nothing: it is restarted like a crashed one. */
describe("wedged connections recover", () => {
  const cases = [
    {
      how: "close-stdout",
      what: "a server that closes its stdout and keeps running",
      // No health checks: stdout closing is the connection lost, by itself.
      extra: {},
      lost: "the server closed its stdout and kept running",
    },
    {
      how: "partial",
      what: "a server that starts an answer line, never ends it, and hangs",
      // Pings that get no answer, past the bound, restart it.
      extra: { health: { intervalMs: 100, timeoutMs: 300, maxFailures: 2 } },
      lost: "its process runs, but 2 pings in a row got no answer within 300 ms (health.maxFailures)",
    },
  ];
  for (const { how, what, extra, lost } of cases) {
    it(`${what} is restarted: new process, the old one gone, calls work again`, async () => {
      const { logger, lines } = memoryLogger();
      await using yard = await Switchyard.connect(
        {
          mcpServers: {
            w: {
              command: NODE,
              args: [WEDGED_SERVER],
              timeoutMs: 2_000,
              restart: { maxRestarts: 3, backoffMs: 50 },
              ...extra,
            },
          },
        },
        { logger },
      );
      const [before] = yard.servers();
      expect(before).toMatchObject({ status: "ready", restarts: 0 });
      const oldPid = before!.pid!;

      const wedging = yard.callTool("w_wedge", { how }).then(
        () => "answered",
        (error: Error) => error.message,
      );
      await waitFor(
        () => {
          const [now] = yard.servers();
          return now!.restarts > 0 && now!.status === "ready" && now!.pid !== oldPid;
        },
        15_000,
        "the server to be restarted",
      );
      expect(await wedging).not.toBe("answered");
      await waitFor(() => !isAlive(oldPid), 5_000, "the old process to be gone");
      expect((await yard.callTool("w_echo", { text: "back" })).text).toBe("back");
      expect(yard.servers()[0]).toMatchObject({ status: "ready", restarts: 1 });
      const losses = lines().filter((line) => String(line.msg).startsWith("server lost"));
      expect(losses).toHaveLength(1);
      expect(String(losses[0]!.msg)).toContain(`server lost (${lost}`);
    });
  }
});
