// The task bridge (issue 28): `switchyard serve --http` from dist/ (`npm run build` first) in front of a
// real 2026-07-28 task server. A host that does not speak tasks calls a tool the server runs as a task
// and sees a plain tools/call: progress notifications while the task runs (at least every
// DEFAULT_TASK_BRIDGE_PROGRESS_MS), its result at the end; its cancellation reaches the task (tasks/cancel).
import type { Client } from "@modelcontextprotocol/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_TASK_BRIDGE_PROGRESS_MS } from "../../src/config/defaults.js";
import { NODE, ROOT, waitFor } from "../helpers.js";
import { configFile, type Era, httpClient, startHttpGateway, textOf } from "./fleet.js";

const TASK_SERVER = `${ROOT}test/fixtures/tasks-server-2026.mjs`;

let gateway: Awaited<ReturnType<typeof startHttpGateway>>;

beforeAll(async () => {
  const file = configFile({
    mcpServers: {
      jobs: { command: NODE, args: [TASK_SERVER, "--name", "jobs"] },
      // Polled once a minute: while its task works, only the bridge tells the host anything.
      slow: { command: NODE, args: [TASK_SERVER, "--name", "slow", "--poll", "60000"] },
    },
  });
  gateway = await startHttpGateway(file);
}, 60_000);

afterAll(async () => {
  await gateway?.close();
});

type Progress = { progress: number; message?: string | undefined };

describe.each<Era>(["legacy", "modern"])(
  "a task through the gateway, to a host without tasks (%s)",
  (era) => {
    let client: Client;
    beforeAll(async () => {
      client = await httpClient(gateway.url, era);
    });
    afterAll(async () => {
      await client?.close();
    });

    it("is a plain call: the task's statuses come as progress, then its result", async () => {
      const progress: Progress[] = [];
      const result = await client.callTool(
        { name: "jobs_crunch", arguments: { steps: 3, ms: 300 } },
        { onprogress: (p) => progress.push(p) },
      );
      expect(result.isError).toBeFalsy();
      expect(textOf(result)).toBe("crunched 3");
      // (Polls see the statuses the task is in when they come: under load, not necessarily each step.)
      expect(progress.map((p) => p.message)).toContainEqual(expect.stringMatching(/^step \d of 3$/));
      expect(progress.map((p) => p.progress)).toEqual(progress.map((_p, i) => i + 1));
    });

    it("hears progress while a task works silently, and its cancellation reaches the task (tasks/cancel)", async () => {
      const before = JSON.parse(
        textOf(await client.callTool({ name: "slow_seen", arguments: {} })),
      ).cancelled;
      const progress: Progress[] = [];
      const controller = new AbortController();
      const call = client
        .callTool(
          { name: "slow_forever", arguments: {} },
          { onprogress: (p) => progress.push(p), signal: controller.signal, timeout: 120_000 },
        )
        .catch((error: unknown) => error);
      // The first tells the task's first status; the next can only be the bridge's own, as nothing
      // is polled for a minute.
      await waitFor(
        () => progress.length >= 2,
        DEFAULT_TASK_BRIDGE_PROGRESS_MS + 15_000,
        "two progress notifications",
      );
      expect(progress[1]).toMatchObject({ progress: 2, message: "working" });
      controller.abort("the user gave up");
      expect(await call).toBeInstanceOf(Error);
      // The server is shared by both eras' tests: this one's cancellation is the one more it saw.
      const cancelledOf = async () =>
        (
          JSON.parse(textOf(await client.callTool({ name: "slow_seen", arguments: {} }))) as {
            cancelled: string[];
          }
        ).cancelled;
      let cancelled = await cancelledOf();
      for (let i = 0; i < 100 && cancelled.length < before.length + 1; i++) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        cancelled = await cancelledOf();
      }
      expect(cancelled).toHaveLength(before.length + 1);
    }, 90_000);
  },
);
