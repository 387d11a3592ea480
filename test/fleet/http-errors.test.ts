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

/** A proxy's error page: HTTP 502 with an HTML body. */
async function htmlErrorPage(): Promise<string> {
  const server: Server = createServer((_req, res) => {
    res.writeHead(502, { "content-type": "text/html" });
    res.end(
      `<html><head><title>502 Bad Gateway</title></head><body><h1>502 Bad Gateway</h1>${"<p>nginx</p>".repeat(100)}</body></html>`,
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
