import { randomUUID } from "node:crypto";
import { createServer, type Server } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { freePort } from "../../src/fleet/launcher.js";
import { Switchyard } from "../../src/index.js";
import { NODE, processesWith, ROOT } from "../helpers.js";

const HASHER = `${ROOT}examples/servers/hasher.mjs`;

const opened: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((resource) => resource.close()));
});

/** A stale listener: a plain TCP server on a loopback port, which drops whatever connects. */
async function occupyPort(): Promise<{ port: number; connections: () => number; close(): Promise<void> }> {
  let connections = 0;
  const server: Server = createServer((socket) => {
    connections += 1;
    socket.destroy();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  return {
    port,
    connections: () => connections,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** A hasher the fleet launches on a fixed port; `mark` is in its environment, to find its process. */
const hasherOn = (port: number, mark: string) => ({
  url: `http://127.0.0.1:${port}/mcp`,
  command: NODE,
  args: [HASHER, "--port", String(port)],
  env: { SWITCHYARD_TEST_MARK: mark },
  connectTimeoutMs: 5_000,
  restart: { maxRestarts: 0 },
});

describe("a launched server on a fixed port", () => {
  it("fails at once when another process already listens there, and starts nothing", async () => {
    const stale = await occupyPort();
    opened.push(stale);
    const mark = `launcher-${randomUUID()}`;
    const started = performance.now();
    const yard = await Switchyard.connect({ mcpServers: { hasher: hasherOn(stale.port, mark) } });
    opened.push(yard);
    const [state] = yard.servers();
    expect(state!.status).toBe("failed");
    expect(state!.error).toContain(
      `port ${stale.port} of http://127.0.0.1:${stale.port}/mcp is already in use by another process; stop it or use {{port}}`,
    );
    expect(performance.now() - started).toBeLessThan(2_000);
    expect(state!.pid).toBeUndefined();
    expect(processesWith(mark, "environ")).toEqual([]);
    expect(stale.connections()).toBe(1); // the check itself; no MCP request went to the stale listener
  });

  it("starts and answers when the port is free", async () => {
    const port = await freePort();
    const mark = `launcher-${randomUUID()}`;
    const yard = await Switchyard.connect({ mcpServers: { hasher: hasherOn(port, mark) } });
    opened.push(yard);
    const [state] = yard.servers();
    expect(state, state!.error).toMatchObject({ status: "ready", transport: "http" });
    expect(processesWith(mark, "environ")).toEqual([state!.pid]);
    const result = await yard.callTool("hasher_hash_text", { text: "abc" });
    expect(result.text).toContain("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    await yard.close();
    expect(processesWith(mark, "environ")).toEqual([]);
  });
});
