// The echo servers every scenario uses, and a pool of running Streamable HTTP servers.
import { type ChildProcess, spawn } from "node:child_process";
import { join } from "node:path";
import type { ServerKind, ServerSpec } from "../clients/client.js";
import { REPO } from "../paths.js";

/** The small SDK-based echo server: the SDK v2 test fixture, with only `echo` among its own tools. */
export const SDK_SERVER = join(REPO, "test/fixtures/sdk-server.mjs");
/** The hand-written echo server (no SDK), for the hand-written limit. */
export const RAW_SERVER = join(REPO, "bench/servers/raw-echo.mjs");

const SERVER_ARGS: Record<ServerKind, string[]> = {
  sdk: [SDK_SERVER, "--tools", "echo"],
  raw: [RAW_SERVER],
};

/** `count` copies of a kind of stdio echo server. */
export function stdioServers(kind: ServerKind, count: number): ServerSpec[] {
  return Array.from({ length: count }, () => ({
    transport: "stdio" as const,
    command: process.execPath,
    args: SERVER_ARGS[kind],
  }));
}

/** How long an HTTP server gets to print its URL. */
const LISTEN_TIMEOUT_MS = 15_000;

/** Running Streamable HTTP echo servers of both kinds, shared by every client of a run. */
export class HttpServerPool {
  readonly #urls: Record<ServerKind, string[]> = { sdk: [], raw: [] };
  readonly #children: ChildProcess[] = [];

  /** Start `count` servers of each kind on free loopback ports. */
  static async start(count: number): Promise<HttpServerPool> {
    const pool = new HttpServerPool();
    try {
      await Promise.all(
        (["sdk", "raw"] as const).flatMap((kind) =>
          Array.from({ length: count }, async () => pool.#urls[kind].push(await pool.#startOne(kind))),
        ),
      );
    } catch (error) {
      await pool.close();
      throw error;
    }
    return pool;
  }

  /** The first `count` servers of a kind, as specs. */
  servers(kind: ServerKind, count: number): ServerSpec[] {
    const urls = this.#urls[kind];
    if (count > urls.length)
      throw new Error(`the pool has ${urls.length} ${kind} HTTP servers, not ${count}`);
    return urls.slice(0, count).map((url) => ({ transport: "http" as const, url }));
  }

  /** Stop every server (SIGTERM, then SIGKILL after a second) and wait for each to exit. */
  async close(): Promise<void> {
    await Promise.all(this.#children.map((child) => stopChild(child)));
  }

  #startOne(kind: ServerKind): Promise<string> {
    const child = spawn(process.execPath, [...SERVER_ARGS[kind], "--http", "0"], {
      stdio: ["ignore", "ignore", "pipe"],
    });
    this.#children.push(child);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`${kind} HTTP server did not listen in time`)),
        LISTEN_TIMEOUT_MS,
      );
      let seen = "";
      const onData = (chunk: string) => {
        seen += chunk;
        const match = /listening (http:\/\/\S+)/.exec(seen);
        if (!match) return;
        clearTimeout(timer);
        // Keep draining: the server logs every session, and a full pipe would block it.
        child.stderr!.off("data", onData).on("data", () => {});
        resolve(match[1]!);
      };
      child.stderr!.setEncoding("utf8");
      child.stderr!.on("data", onData);
      child.once("exit", (code) => {
        clearTimeout(timer);
        reject(new Error(`${kind} HTTP server exited (code ${code}) before listening`));
      });
    });
  }
}

/** SIGTERM a child, SIGKILL it after a second, and resolve once it has exited. */
export function stopChild(child: ChildProcess, graceMs = 1_000): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => child.kill("SIGKILL"), graceMs);
    child.once("exit", () => {
      clearTimeout(timer);
      resolve();
    });
    child.kill("SIGTERM");
  });
}
