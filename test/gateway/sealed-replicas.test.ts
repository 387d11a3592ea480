// Three `switchyard serve --http` replicas behind a real nginx (round-robin, no stickiness), sessions
// sealed with one gateway.sessionKey and no store on the session path. Each replica is SIGKILLed and
// started again in turn while a 2025-11-25 session client and two 2026-07-28 clients keep calling:
// 0 failed calls, and the session is never lost (its id is the same at the end, no request met a 404).
//
// Who sends a request again, and when (the MCP spec makes no request idempotent by itself):
// - A replica that is down refuses the connection before anything was sent: nginx's
//   `proxy_next_upstream error timeout` passes the request to the next replica, POSTs included (nothing
//   reached the dead one, so nothing can run twice). The client sees none of these.
// - A request in flight on the replica that is killed may have run there. nginx does not send it again
//   (no `non_idempotent`: a tool call that is not idempotent must not run twice unasked); the client gets
//   502, or an answer stream cut short. The client sends it again itself only when the request is
//   idempotent: a listing, or a call of a tool whose annotations say `idempotentHint: true` (here echo).
//
// Then the same with a PostgreSQL store for runs and audit (skipped without SWITCHYARD_TEST_POSTGRES_URL):
// every replica records there, and the store holds no session rows.
import type { ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CLI, NODE, SDK_SERVER } from "../helpers.js";
import { freshSchema, POSTGRES_SKIP_REASON, POSTGRES_URL } from "../store/postgres-url.js";
import { freePort, NGINX, passedOn, servedBy, start, startNginx, stop } from "./nginx.js";

const SESSION_KEY = "one-session-key-for-every-replica-0123456789";
/** Requests that change nothing, which a client may send again after a failure it cannot read. */
const READS = new Set(["ping", "tools/list", "resources/list", "resources/templates/list", "resources/read"]);

/** What the clients saw: requests sent again, and every HTTP status nginx answered with. */
interface Seen {
  retried: string[];
  statuses: Map<number, number>;
}

/**
 * A fetch for the SDK's transport that reads each POST's answer whole (a call's SSE stream ends with its
 * response) and sends an idempotent request again when nginx answered 502/503/504 or the answer was cut
 * short (its replica was killed mid-request); anything else goes through as it came.
 */
function idempotentRetries(idempotentTools: Set<string>, seen: Seen): typeof fetch {
  const idempotent = (message: { method?: string; params?: { name?: string } }) =>
    READS.has(message.method ?? "") ||
    (message.method === "tools/call" && idempotentTools.has(message.params?.name ?? ""));
  return async (input, init) => {
    const message = typeof init?.body === "string" ? JSON.parse(init.body) : undefined;
    if (init?.method !== "POST" || !message || Array.isArray(message) || message.id === undefined)
      return fetch(input, init);
    for (let attempt = 1; ; attempt += 1) {
      let why: string;
      try {
        const response = await fetch(input, init);
        seen.statuses.set(response.status, (seen.statuses.get(response.status) ?? 0) + 1);
        const text = await response.text();
        const answered = text.includes(`"id":${JSON.stringify(message.id)}`);
        if (![502, 503, 504].includes(response.status) && (answered || !response.ok))
          return new Response(text, { status: response.status, headers: response.headers });
        why = answered ? `HTTP ${response.status}` : `HTTP ${response.status}, answer cut short`;
      } catch (error) {
        why = (error as Error).message;
      }
      if (!idempotent(message) || attempt >= 5)
        return Response.json({ error: `not sent again: ${why}` }, { status: 502 });
      seen.retried.push(`${message.method} ${message.params?.name ?? ""}: ${why}`);
      await new Promise((resolve) => setTimeout(resolve, 50 * attempt));
    }
  };
}

function replicasSuite(variant: "no store" | "PostgreSQL store") {
  const missing = [
    ...(NGINX ? [] : ["nginx is not installed (apt-get install -y nginx)"]),
    ...(variant === "PostgreSQL store" && !POSTGRES_URL ? [POSTGRES_SKIP_REASON] : []),
  ].join("; ");
  describe.skipIf(missing !== "")(
    `three sealed-session replicas behind nginx, ${variant}${missing ? ` (skipped: ${missing})` : ""}`,
    () => {
      let dir: string;
      let config: string;
      let storeUrl: string | undefined;
      const replicas: ChildProcess[] = [];
      let ports: number[] = [];
      let nginx: ChildProcess | undefined;
      let url: string;

      const startReplica = (port: number) =>
        start(NODE, [CLI, "--config", config, "serve", "--http", String(port)], /serving .* at http/, dir, {
          SWITCHYARD_SESSION_KEY: SESSION_KEY,
        });

      beforeAll(async () => {
        dir = mkdtempSync(join(tmpdir(), "switchyard-sealed-replicas-"));
        config = join(dir, "switchyard.config.json");
        storeUrl = variant === "PostgreSQL store" ? await freshSchema("gateway_sealed_replicas") : undefined;
        writeFileSync(
          config,
          JSON.stringify({
            mcpServers: {
              sdk: { command: NODE, args: [SDK_SERVER, "--tools", "echo", "--idempotent-echo", "1"] },
            },
            store: storeUrl ? { url: storeUrl } : false,
            gateway: { sessionKey: "${SWITCHYARD_SESSION_KEY}" },
          }),
        );
        ports = [await freePort(), await freePort(), await freePort()];
        // One after another: three at once on a loaded machine take longer than each alone.
        for (const port of ports) replicas.push(await startReplica(port));
        ({ nginx, url } = await startNginx(dir, ports, {
          // Connection failures only (see the top of this file); a replica that failed is tried again
          // after a second, so one started again soon gets its share.
          nextUpstream: "error timeout",
          failTimeout: "1s",
        }));
      }, 180_000);

      afterAll(async () => {
        await stop(nginx);
        await Promise.all(replicas.map((replica) => stop(replica)));
        if (dir) rmSync(dir, { recursive: true, force: true });
      });

      it("each replica SIGKILLed and started again in turn: 0 failed calls, the 2025-11-25 session never lost", async () => {
        const seen: Seen = { retried: [], statuses: new Map() };
        const idempotentTools = new Set<string>();
        const connect = async (name: string, modern: boolean) => {
          const transport = new StreamableHTTPClientTransport(new URL(url), {
            fetch: idempotentRetries(idempotentTools, seen),
          });
          const client = new Client(
            { name, version: "0" },
            modern ? { versionNegotiation: { mode: "auto" } } : {},
          );
          await client.connect(transport);
          expect(client.getNegotiatedProtocolVersion()).toBe(modern ? "2026-07-28" : "2025-11-25");
          return { client, transport };
        };
        const session = await connect("sealed-2025", false);
        const sessionId = session.transport.sessionId;
        expect(sessionId).toMatch(/^sy1\./);
        const modern = [await connect("stateless-a", true), await connect("stateless-b", true)];
        // What the spec lets a client know: the tool says it is idempotent.
        for (const tool of (await session.client.listTools()).tools)
          if (tool.annotations?.idempotentHint) idempotentTools.add(tool.name);
        expect(idempotentTools).toEqual(new Set(["sdk_echo"]));

        const failures: string[] = [];
        const answered = { session: 0, modern: 0 };
        let calling = true;
        const caller = async (client: Client, who: "session" | "modern", tag: string) => {
          for (let i = 0; calling; i += 1) {
            try {
              if (i % 10 === 9) {
                const listed = await client.listTools();
                if (!listed.tools.some((tool) => tool.name === "sdk_echo"))
                  failures.push(`${tag}: no sdk_echo`);
                continue;
              }
              const result = await client.callTool({ name: "sdk_echo", arguments: { text: `${tag}${i}` } });
              if (result.isError || !JSON.stringify(result.content).includes(`${tag}${i}`))
                failures.push(`${tag}${i}: ${JSON.stringify(result.content)}`);
              else answered[who] += 1;
            } catch (error) {
              failures.push(`${tag}${i}: ${(error as Error).message}`);
            }
          }
        };
        const traffic = Promise.all([
          caller(session.client, "session", "s"),
          caller(modern[0]!.client, "modern", "a"),
          caller(modern[0]!.client, "modern", "b"),
          caller(modern[1]!.client, "modern", "c"),
          caller(modern[1]!.client, "modern", "d"),
        ]);
        const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
        await pause(500);
        const kills: number[] = [];
        for (const [i, port] of ports.entries()) {
          const killed = replicas[i]!;
          const gone = new Promise((resolve) => killed.once("exit", resolve));
          killed.kill("SIGKILL");
          await gone;
          kills.push(port);
          await pause(500); // traffic while it is down
          replicas[i] = await startReplica(port);
          await pause(500);
        }
        calling = false;
        await traffic;
        const lastSessionCall = await session.client.callTool({
          name: "sdk_echo",
          arguments: { text: "end" },
        });
        expect(JSON.stringify(lastSessionCall.content)).toContain("end");
        await Promise.all([session, ...modern].map(({ client }) => client.close()));

        console.info(
          `${variant}: ${answered.session} session calls and ${answered.modern} stateless calls answered across 3 kills; ` +
            `${passedOn(dir)} requests passed on by nginx to another replica; statuses ${JSON.stringify([...seen.statuses])}; sent again by the client (idempotent): ${seen.retried.length} ${JSON.stringify(seen.retried)}`,
        );
        expect(failures).toEqual([]);
        // The session was never lost: the same id all along, and no request of anyone's met a 404.
        expect(session.transport.sessionId).toBe(sessionId);
        expect(seen.statuses.get(404)).toBeUndefined();
        expect(answered.session).toBeGreaterThan(10);
        expect(answered.modern).toBeGreaterThan(40);
        // At most the requests in flight at each kill (5 callers) were sent again by a client: a replica
        // that was down cost none (nginx passed its connections on).
        expect(seen.retried.length).toBeLessThanOrEqual(kills.length * 5);
        // Every replica served, before and after its restart.
        expect(new Set(servedBy(dir))).toEqual(new Set(ports.map((port) => `127.0.0.1:${port}`)));

        if (storeUrl) {
          const db = new pg.Client({ connectionString: storeUrl });
          await db.connect();
          try {
            const counted = await db.query(
              "SELECT (SELECT count(*) FROM runs WHERE kind = 'call') AS calls, (SELECT count(*) FROM audit) AS audit, (SELECT count(*) FROM gateway_sessions) AS sessions",
            );
            const { calls, audit, sessions } = counted.rows[0] as Record<string, string>;
            console.info(
              `${variant}: ${calls} calls recorded, ${audit} audit rows, ${sessions} session rows`,
            );
            // Sealed sessions are not kept in the store; runs and audit are, from every replica (a
            // SIGKILLed one loses what it had not written yet).
            expect(Number(sessions)).toBe(0);
            const total = answered.session + answered.modern;
            expect(Number(calls)).toBeGreaterThan(total * 0.8);
            expect(Number(audit)).toBeGreaterThan(0);
          } finally {
            await db.end();
          }
        }
      }, 240_000);
    },
  );
}

replicasSuite("no store");
replicasSuite("PostgreSQL store");
