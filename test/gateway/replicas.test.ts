// Scale-out without sticky sessions: two `switchyard serve --http` replicas (one config, the PostgreSQL
// store) behind a real nginx (round-robin, a non-daemon child with a config and folders of its own). A
// stateless (2026-07-28) SDK client keeps calling while one replica is SIGKILLed: no call fails. A
// 2025-11-25 session client goes through the same round-robin: its session is kept in the store, so the
// replica that did not begin it takes it up (and the one left after the kill too).
import { type ChildProcess, spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CLI, NODE, SDK_SERVER } from "../helpers.js";
import { freshSchema } from "../store/postgres-url.js";
import { freePort, NGINX, servedBy, start, startNginx, stop } from "./nginx.js";

const POSTGRES_URL = process.env.SWITCHYARD_TEST_POSTGRES_URL;
const missing = [
  ...(NGINX ? [] : ["nginx is not installed (apt-get install -y nginx)"]),
  ...(POSTGRES_URL
    ? []
    : ["SWITCHYARD_TEST_POSTGRES_URL is not set (.ci/run starts a PostgreSQL and sets it)"]),
].join("; ");

describe.skipIf(missing !== "")(
  `two gateway replicas behind nginx${missing ? ` (skipped: ${missing})` : ""}`,
  () => {
    let dir: string;
    let replicas: ChildProcess[] = [];
    let ports: number[] = [];
    let nginx: ChildProcess | undefined;
    let url: string;

    beforeAll(async () => {
      dir = mkdtempSync(join(tmpdir(), "switchyard-replicas-"));
      const config = join(dir, "switchyard.config.json");
      writeFileSync(
        config,
        JSON.stringify({
          mcpServers: { sdk: { command: NODE, args: [SDK_SERVER, "--tools", "echo"] } },
          // A schema of its own: other test files write to the same database at the same time.
          store: { url: await freshSchema("gateway_replicas") },
        }),
      );
      ports = [await freePort(), await freePort()];
      replicas = await Promise.all(
        ports.map((port) =>
          start(NODE, [CLI, "--config", config, "serve", "--http", String(port)], /serving .* at http/, dir),
        ),
      );
      // A replica that is gone (refused, reset, 502) is skipped for the next one, POSTs included: a call
      // in flight on a killed replica is sent again to another (at-least-once for that one call).
      ({ nginx, url } = await startNginx(dir, ports, {
        nextUpstream: "error timeout http_502 http_503 non_idempotent",
        failTimeout: "60s",
      }));
    }, 60_000);

    afterAll(async () => {
      await stop(nginx);
      await Promise.all(replicas.map((replica) => stop(replica)));
      if (dir) rmSync(dir, { recursive: true, force: true });
    });

    /** Plain calls recorded in the shared store, as `switchyard runs` lists them. */
    const recordedCalls = () => {
      const listed = spawnSync(
        NODE,
        [CLI, "--config", join(dir, "switchyard.config.json"), "runs", "--json", "--limit", "100000"],
        { encoding: "utf8" },
      );
      if (listed.status !== 0) throw new Error(`switchyard runs failed: ${listed.stderr}`);
      return (JSON.parse(listed.stdout) as Array<{ kind: string }>).filter((run) => run.kind === "call")
        .length;
    };

    /** Which replica answered each request so far, from nginx's access log. */
    const served = () => servedBy(dir);

    it("a 2025-11-25 session client's requests go to either replica and all succeed: the other takes the session up from the store", async () => {
      const client = new Client({ name: "replicas-2025", version: "0" });
      const errors: string[] = [];
      client.onerror = (error) => errors.push(error.message);
      const before = served().length;
      await client.connect(new StreamableHTTPClientTransport(new URL(url)));
      expect(client.getNegotiatedProtocolVersion()).toBe("2025-11-25");
      for (let i = 0; i < 6; i += 1) {
        expect((await client.listTools()).tools.map((tool) => tool.name)).toContain("sdk_echo");
        const result = await client.callTool({ name: "sdk_echo", arguments: { text: `s${i}` } });
        expect(JSON.stringify(result.content)).toContain(`s${i}`);
      }
      await client.close();
      // Round-robin sent the session's requests to both replicas.
      expect(new Set(served().slice(before)).size).toBe(2);
      expect(errors.filter((message) => /404|Session not found/.test(message))).toEqual([]);
    }, 60_000);

    it("a stateless client's calls all succeed while one replica is SIGKILLed", async () => {
      const recordedBefore = recordedCalls();
      const client = new Client({ name: "replicas", version: "0" }, { versionNegotiation: { mode: "auto" } });
      await client.connect(new StreamableHTTPClientTransport(new URL(url)));
      expect(client.getNegotiatedProtocolVersion()).toBe("2026-07-28");
      const failures: string[] = [];
      let done = 0;
      const call = async (i: number) => {
        try {
          const result = await client.callTool({ name: "sdk_echo", arguments: { text: `n${i}` } });
          if (result.isError) failures.push(JSON.stringify(result.content));
          else done += 1;
        } catch (error) {
          failures.push((error as Error).message);
        }
      };
      // Four callers at once, before, during and after the kill.
      const worker = async (from: number, count: number) => {
        for (let i = from; i < from + count; i += 1) await call(i);
      };
      // Beside it, a 2025-11-25 session client calling one call after another the whole time.
      const session = new Client({ name: "replicas-2025-kill", version: "0" });
      await session.connect(new StreamableHTTPClientTransport(new URL(url)));
      expect(session.getNegotiatedProtocolVersion()).toBe("2025-11-25");
      const sessionFailures: string[] = [];
      let sessionDone = 0;
      let calling = true;
      const sessionCalls = (async () => {
        for (let i = 0; calling; i += 1) {
          try {
            const result = await session.callTool({ name: "sdk_echo", arguments: { text: `k${i}` } });
            if (result.isError) sessionFailures.push(JSON.stringify(result.content));
            else sessionDone += 1;
          } catch (error) {
            sessionFailures.push((error as Error).message);
          }
        }
      })();
      const before = Promise.all([0, 1, 2, 3].map((w) => worker(w * 1000, 40)));
      await before;
      const both = new Set(served());
      expect(both.size).toBe(2); // round-robin: both replicas answered
      const during = Promise.all([0, 1, 2, 3].map((w) => worker(w * 1000 + 100, 60)));
      replicas[0]!.kill("SIGKILL");
      await during;
      await Promise.all([0, 1, 2, 3].map((w) => worker(w * 1000 + 200, 20)));
      calling = false;
      await sessionCalls;
      await client.close();
      await session.close();
      expect(failures).toEqual([]);
      // The session went on at the replica left (taken up from the store); its call in flight at the
      // kill is sent again there by nginx, or at worst that one call fails.
      console.info(
        `2025-11-25 session client across the kill: ${sessionDone} calls answered, failed: ${JSON.stringify(sessionFailures)}`,
      );
      expect(sessionFailures.length).toBeLessThanOrEqual(1);
      expect(sessionDone).toBeGreaterThan(20);
      expect(done).toBe(4 * (40 + 60 + 20));
      // After the kill, every call was answered by the replica left.
      const after = served().slice(-4 * 20);
      expect(new Set(after)).toEqual(new Set([`127.0.0.1:${ports[1]}`]));
      // Both replicas recorded their calls in the one PostgreSQL store: more calls are there than the
      // surviving replica answered requests (a SIGKILLed replica loses at most what it had not written yet).
      const recorded = recordedCalls() - recordedBefore;
      const survivor = served().filter((upstream) => upstream === `127.0.0.1:${ports[1]}`).length;
      expect(recorded).toBeGreaterThan(survivor);
      // (Calls in flight at the kill, sent again by nginx, may be recorded twice: 4 stateless, 1 session.)
      expect(recorded).toBeLessThanOrEqual(done + sessionDone + sessionFailures.length + 5);
    }, 120_000);
  },
);
