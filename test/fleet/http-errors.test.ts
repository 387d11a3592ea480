import { createServer, type Server } from "node:http";
import { afterEach, describe, expect, it } from "vitest";
import { OpenAIChatModel, Switchyard } from "../../src/index.js";
import { startScriptedOpenAIServer } from "../../src/testing/index.js";

const closers: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  await Promise.all(closers.splice(0).map((close) => close()));
});

/** A port nothing listens on: bound once, then closed. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** A proxy's error page: HTTP 502 (or `status`) with an HTML body titled by it, for every request. */
async function htmlErrorPage(status = 502, title = "502 Bad Gateway"): Promise<string> {
  const server: Server = createServer((_req, res) => {
    res.writeHead(status, { "content-type": "text/html" });
    res.end(
      `<html><head><title>${title}</title></head><body><h1>${title}</h1>${"<p>nginx</p>".repeat(100)}</body></html>`,
    );
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  closers.push(() => new Promise((resolve) => server.close(resolve)));
  return `http://127.0.0.1:${(server.address() as { port: number }).port}/mcp`;
}

describe("HTTP failures a user reads", () => {
  it("say the URL and the cause, once, and the transport that was configured", async () => {
    const port = await closedPort();
    const yard = await Switchyard.connect({ mcpServers: { down: { url: `http://127.0.0.1:${port}/mcp` } } });
    closers.push(() => yard.close());
    const [state] = yard.servers();
    expect(state).toMatchObject({ status: "failed", transport: "http" });
    expect(state!.error).toBe(
      `http://127.0.0.1:${port}/mcp: connect ECONNREFUSED 127.0.0.1:${port} (tried Streamable HTTP and legacy SSE)`,
    );
  });

  it("turn an HTML error page into its status and title, never the page", async () => {
    const url = await htmlErrorPage();
    const yard = await Switchyard.connect({
      mcpServers: {
        proxy: { url, versionNegotiation: "legacy" },
        forced: { url, transport: "http", versionNegotiation: "legacy" },
      },
    });
    closers.push(() => yard.close());
    for (const state of yard.servers()) {
      expect(state.status).toBe("failed");
      expect(state.error).toContain('HTTP 502 "502 Bad Gateway"');
      expect(state.error).not.toContain("<html");
      expect(state.error).not.toContain("nginx");
    }
  });

  it("keep the page's title when it answers the version probe, as when it answers initialize", async () => {
    const gateway = await htmlErrorPage();
    const unavailable = await htmlErrorPage(503, "503 Service Unavailable");
    const notFound = await htmlErrorPage(404, "404 Not Found");
    const yard = await Switchyard.connect({
      mcpServers: {
        // versionNegotiation "auto" (the default): the server/discover probe is the first request.
        probed: { url: gateway, transport: "http" },
        fellBack: { url: gateway },
        unavailable: { url: unavailable, transport: "http" },
        // A 4xx answer to the probe sends the client on to initialize, which meets the page again.
        notFound: { url: notFound, transport: "http" },
      },
    });
    closers.push(() => yard.close());
    const errors = Object.fromEntries(yard.servers().map((state) => [state.name, state.error ?? ""]));
    expect(errors.probed).toMatch(/with HTTP 502 "502 Bad Gateway" \(an HTML page, not MCP\)$/);
    expect(errors.fellBack).toContain('HTTP 502 "502 Bad Gateway" (an HTML page, not MCP)');
    expect(errors.unavailable).toContain('HTTP 503 "503 Service Unavailable" (an HTML page, not MCP)');
    expect(errors.notFound).toContain('HTTP 404 "404 Not Found" (an HTML page, not MCP)');
    for (const error of Object.values(errors)) expect(error).not.toMatch(/<html|nginx/);
  });

  it("the model endpoint too: a refused connection names the address, an HTML page its title", async () => {
    const port = await closedPort();
    const refused = new OpenAIChatModel({
      baseURL: `http://127.0.0.1:${port}/v1`,
      model: "m",
      maxRetries: 0,
    });
    const failure = await refused
      .complete({ messages: [{ role: "user", content: "hi" }], tools: [] })
      .catch((e: unknown) => e);
    expect((failure as Error).message).toContain(`connect ECONNREFUSED 127.0.0.1:${port}`);
    expect((failure as Error).message).not.toContain("fetch failed");

    const server = await startScriptedOpenAIServer([
      {
        status: 404,
        body: "<!DOCTYPE html><html><head><title>404 Not Found</title></head><body>nope</body></html>",
      },
    ]);
    closers.push(() => server.close());
    const wrongPath = new OpenAIChatModel({ baseURL: server.baseURL, model: "m", maxRetries: 0 });
    const page = await wrongPath
      .complete({ messages: [{ role: "user", content: "hi" }], tools: [] })
      .catch((e: unknown) => e);
    expect((page as Error).message).toContain('an HTML page titled "404 Not Found"');
    expect((page as Error).message).toContain("check baseURL");
    expect((page as Error).message).not.toContain("<html");
  });
});
