import { createServer, type Server } from "node:http";
import { afterEach, describe, expect, it } from "vitest";
import { resolveConfig } from "../../src/config/load.js";
import { ServerSession } from "../../src/fleet/session.js";
import { isSwitchyardError, Switchyard, silentLogger } from "../../src/index.js";

/** A real HTTP server that refuses every request with `status`, and counts requests by method. */
async function authWall(status: 401 | 403, challenge?: string) {
  const methods: Record<string, number> = {};
  const server: Server = createServer((request, response) => {
    methods[request.method ?? "?"] = (methods[request.method ?? "?"] ?? 0) + 1;
    request.resume();
    response.writeHead(status, {
      "content-type": "application/json",
      ...(challenge !== undefined ? { "www-authenticate": challenge } : {}),
    });
    response.end(JSON.stringify({ error: status === 401 ? "unauthorized" : "forbidden" }));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  const close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return { url: `http://127.0.0.1:${port}/mcp`, methods, close };
}

const opened: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((resource) => resource.close()));
});

describe("a Streamable HTTP server that refuses the client", () => {
  it("is reported as AUTH_REQUIRED with its challenge on a 401, with no legacy SSE fallback", async () => {
    const wall = await authWall(401, 'Bearer realm="x"');
    opened.push(wall);
    const yard = await Switchyard.connect({ mcpServers: { guarded: { url: wall.url } } });
    opened.push(yard);
    const [state] = yard.servers();
    expect(state).toMatchObject({ status: "failed", transport: "http", errorCode: "AUTH_REQUIRED" });
    expect(state!.error).toContain("HTTP 401");
    expect(state!.error).toContain('Bearer realm="x"');
    expect(state!.error).toContain(wall.url);
    expect(state!.error).toContain("guarded");
    expect(state!.error).toMatch(/Authorization.*headers/);
    expect(wall.methods.GET ?? 0).toBe(0);
    expect(wall.methods.POST).toBeGreaterThan(0);
  });

  it("is reported as AUTH_REQUIRED on a 403 without a challenge, with no legacy SSE fallback", async () => {
    const wall = await authWall(403);
    opened.push(wall);
    const yard = await Switchyard.connect({ mcpServers: { denied: { url: wall.url } } });
    opened.push(yard);
    const [state] = yard.servers();
    expect(state).toMatchObject({ status: "failed", transport: "http", errorCode: "AUTH_REQUIRED" });
    expect(state!.error).toContain("HTTP 403");
    expect(state!.error).not.toContain("legacy SSE");
    expect(wall.methods.GET ?? 0).toBe(0);
  });

  it("is reported as AUTH_REQUIRED on a forced legacy SSE connection too", async () => {
    const wall = await authWall(401, 'Bearer realm="sse"');
    opened.push(wall);
    const yard = await Switchyard.connect({ mcpServers: { old: { url: wall.url, transport: "sse" } } });
    opened.push(yard);
    const [state] = yard.servers();
    expect(state).toMatchObject({ status: "failed", transport: "sse", errorCode: "AUTH_REQUIRED" });
    expect(state!.error).toContain("HTTP 401");
    expect(state!.error).toContain('Bearer realm="sse"');
  });

  it("rejects session.open() with a SwitchyardError that carries the status and the challenge", async () => {
    const wall = await authWall(401, 'Bearer realm="x", scope="tools"');
    opened.push(wall);
    const [config] = resolveConfig({ mcpServers: { guarded: { url: wall.url } } }).servers;
    const session = new ServerSession(config!, {
      logger: silentLogger,
      onNoise: () => {},
      onToolsChanged: () => {},
      onLost: () => {},
    });
    const error: unknown = await session.open().catch((e: unknown) => e);
    expect(isSwitchyardError(error, "AUTH_REQUIRED")).toBe(true);
    expect(error).toMatchObject({
      server: "guarded",
      status: 401,
      challenge: 'Bearer realm="x", scope="tools"',
    });
    expect(session.transportKind).toBe("http");
    expect(wall.methods.GET ?? 0).toBe(0);
  });
});
