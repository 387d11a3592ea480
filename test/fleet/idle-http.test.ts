import { createServer, request as httpRequest, type IncomingHttpHeaders, type Server } from "node:http";
import { afterEach, describe, expect, it } from "vitest";
import { fetchOnIdleSocket, opensLastingStream } from "../../src/fleet/stream-fetch.js";
import { Switchyard, silentLogger } from "../../src/index.js";
import { EVERYTHING, NODE, ROOT, SDK_SERVER, SSE_SERVER, startHttpServer, waitFor } from "../helpers.js";
import {
  CALL_HOST,
  connectedLine,
  fleetFile,
  HASHER,
  type Host,
  MARKER_VAR,
  marked,
  newMarker,
  startHost,
} from "./hosts.js";

// The process tests run test/fixtures/call-host.mjs on the library's source (src/index.ts under tsx): no build.

/** How long a script that is done may take to exit by itself. */
const EXIT_WITHIN_MS = 5_000;
/** How long the slow tool takes to answer. */
const SLEEP_MS = 1_500;

/** HTTP servers the fleet launches, every one carrying `marker` in its environment. */
function httpServers(marker: string) {
  const env = { [MARKER_VAR]: marker };
  const launched = (url: string, ...args: string[]) => ({ url, command: NODE, args, env });
  const sdkHttp = launched("http://127.0.0.1:{{port}}/mcp", SDK_SERVER, "--http", "{{port}}");
  return {
    /** The SDK fixture on the newest revision: a `subscriptions/listen` stream stays open. */
    modern: sdkHttp,
    /** The SDK fixture spoken to in the 2025 era: the standalone GET stream stays open. */
    legacy: { ...sdkHttp, versionNegotiation: "legacy" },
    /** The legacy HTTP+SSE fixture: its GET stream is the connection. */
    sse: { ...launched("http://127.0.0.1:{{port}}/sse", SSE_SERVER, "--port", "{{port}}"), transport: "sse" },
    /** A legacy HTTP+SSE server whose `sleep` answers on the stream long after the POST's 202. */
    slowSse: {
      ...launched("http://127.0.0.1:{{port}}/sse", SSE_SERVER, "--port", "{{port}}", "--slow"),
      transport: "sse",
    },
    hasher: launched("http://127.0.0.1:{{port}}/mcp", HASHER, "--port", "{{port}}"),
    everything: {
      ...launched("http://127.0.0.1:{{port}}/mcp", EVERYTHING, "streamableHttp"),
      env: { ...env, PORT: "{{port}}" },
    },
  };
}

/** Run call-host.mjs on src with these servers and arguments, noting when it prints each line. */
function startSrcHost(servers: Record<string, unknown>, args: string[]) {
  const host = startHost(["--import", "tsx", CALL_HOST, fleetFile(servers), ...args], {
    CALL_HOST_LIBRARY: `${ROOT}src/index.ts`,
  });
  const seen = new Map<string, number>();
  host.child.stdout!.on("data", () => {
    for (const line of host.stdout().split("\n")) if (!seen.has(line)) seen.set(line, performance.now());
  });
  return { ...host, at: (line: string) => seen.get(line) };
}

async function exitsWithin(host: Host, ms: number) {
  const timer = setTimeout(() => host.child.kill("SIGKILL"), ms);
  const exit = await host.exited;
  clearTimeout(timer);
  return exit;
}

describe("idle HTTP connections do not keep the process alive", () => {
  it.each([
    {
      name: "modern",
      tool: "echo",
      args: { text: "hi" },
      era: "2026-07-28",
      what: "Streamable HTTP on 2026-07-28 (subscriptions/listen)",
    },
    {
      name: "legacy",
      tool: "echo",
      args: { text: "hi" },
      era: "2025",
      what: "Streamable HTTP on a 2025 revision (the standalone GET stream)",
    },
    {
      name: "sse",
      tool: "echo",
      args: { text: "hi" },
      era: "2024-11-05",
      what: "legacy SSE (its GET stream)",
    },
  ] as const)(
    "a script that forgets close() exits by itself after its call: $what",
    async ({ name, tool, args, era }) => {
      const marker = newMarker(`idle-${name}`);
      const server = httpServers(marker)[name];
      const host = startSrcHost({ [name]: server }, [
        "--call",
        `${name}_${tool}`,
        JSON.stringify(args),
        "--await",
      ]);
      await waitFor(() => host.stdout().includes("done"), 20_000, "the call to be answered");
      expect(host.stderr()).not.toContain("calls failed");
      expect(connectedLine(host)!.protocols[name]).toMatch(new RegExp(`^${era}`));
      expect(connectedLine(host)!.servers[name]).toEqual(expect.any(Number));

      const exit = await exitsWithin(host, EXIT_WITHIN_MS);
      console.info(
        `${name}: the script exited by itself ${Math.round(exit.at - host.at("done")!)} ms after its answer`,
      );
      expect(exit).toMatchObject({ code: 0, signal: null });
      await waitFor(() => marked(marker).length === 0, 5_000, "the server to end");
    },
  );

  it("a script with the example hasher and server-everything over Streamable HTTP exits by itself", async () => {
    const marker = newMarker("idle-examples");
    const { hasher, everything } = httpServers(marker);
    const host = startSrcHost({ hasher, everything }, [
      ...["--call", "hasher_hash_text", '{"text":"hi"}'],
      ...["--call", "everything_echo", '{"message":"hi"}'],
      "--await",
    ]);
    await waitFor(() => host.stdout().includes("done"), 30_000, "the calls to be answered");
    expect(host.stderr()).not.toContain("calls failed");
    const exit = await exitsWithin(host, EXIT_WITHIN_MS);
    console.info(
      `hasher + everything: the script exited by itself ${Math.round(exit.at - host.at("done")!)} ms after its answers`,
    );
    expect(exit).toMatchObject({ code: 0, signal: null });
    await waitFor(() => marked(marker).length === 0, 5_000, "the servers to end");
  });

  it.each([
    { name: "modern", what: "Streamable HTTP on 2026-07-28" },
    { name: "legacy", what: "Streamable HTTP on a 2025 revision" },
    { name: "slowSse", what: "legacy SSE (the answer comes on the stream after a 202)" },
  ] as const)("a call in flight holds the process until it is answered: $what", async ({ name }) => {
    const marker = newMarker(`busy-${name}`);
    const server = httpServers(marker)[name];
    const host = startSrcHost({ [name]: server }, [
      "--call",
      `${name}_sleep`,
      JSON.stringify({ ms: SLEEP_MS }),
      "--await",
    ]);
    await waitFor(() => host.stdout().includes("calling"), 20_000, "the host to call");
    const calling = host.at("calling")!;
    const exit = await exitsWithin(host, SLEEP_MS + EXIT_WITHIN_MS);
    expect(host.stderr()).not.toContain("calls failed");
    expect(host.stdout()).toContain("done");
    expect(exit).toMatchObject({ code: 0, signal: null });
    expect(exit.at - calling).toBeGreaterThanOrEqual(SLEEP_MS - 100);
    console.info(
      `${name}: answered ${Math.round(host.at("done")! - calling)} ms after the call, exited ${Math.round(exit.at - host.at("done")!)} ms after the answer`,
    );
    await waitFor(() => marked(marker).length === 0, 5_000, "the server to end");
  });
});

const closers: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  await Promise.all(closers.splice(0).map((close) => close()));
});

/** An HTTP server on a free port, closed after the test. */
async function listen(handle: Parameters<typeof createServer>[1]): Promise<string> {
  const server: Server = createServer(handle);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  closers.push(
    () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(resolve);
      }),
  );
  return `http://127.0.0.1:${(server.address() as { port: number }).port}`;
}

describe("the fetch for lasting streams", () => {
  it("takes only the GET text/event-stream and the subscriptions/listen POST", () => {
    const url = "http://127.0.0.1:1234/mcp";
    const post = (body: unknown) => ({
      method: "POST",
      headers: { accept: "application/json, text/event-stream" },
      body: JSON.stringify(body),
    });
    expect(opensLastingStream(url, { method: "GET", headers: { Accept: "text/event-stream" } })).toBe(true);
    expect(
      opensLastingStream(url, { headers: new Headers({ accept: "application/json, text/event-stream" }) }),
    ).toBe(true);
    expect(
      opensLastingStream(url, post({ jsonrpc: "2.0", id: "listen:1", method: "subscriptions/listen" })),
    ).toBe(true);
    expect(opensLastingStream(url, post({ jsonrpc: "2.0", id: 1, method: "tools/call" }))).toBe(false);
    expect(
      opensLastingStream(
        url,
        post({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "subscriptions/listen" } }),
      ),
    ).toBe(false);
    expect(opensLastingStream(url, { method: "GET", headers: { accept: "application/json" } })).toBe(false);
    expect(opensLastingStream(url, { method: "DELETE", headers: { accept: "text/event-stream" } })).toBe(
      false,
    );
  });

  it("sends the method, headers and body, and answers with the status, headers and a streamed body", async () => {
    let seen: { method?: string; headers?: IncomingHttpHeaders; body?: string } = {};
    const base = await listen(async (request, response) => {
      const chunks: Buffer[] = [];
      for await (const chunk of request) chunks.push(chunk as Buffer);
      seen = { method: request.method!, headers: request.headers, body: Buffer.concat(chunks).toString() };
      response.writeHead(201, "Made", { "content-type": "text/event-stream", "x-reply": "yes" });
      response.write("data: one\n\n");
      setTimeout(() => response.end("data: two\n\n"), 50);
    });
    const body = JSON.stringify({ jsonrpc: "2.0", id: "listen:0", method: "subscriptions/listen" });
    const response = await fetchOnIdleSocket(`${base}/mcp`, {
      method: "POST",
      headers: { "mcp-protocol-version": "2026-07-28", "X-Test": "1" },
      body,
    });
    expect(response).toMatchObject({ status: 201, statusText: "Made", ok: true });
    expect(response.headers.get("x-reply")).toBe("yes");
    expect(await response.text()).toBe("data: one\n\ndata: two\n\n");
    expect(seen).toMatchObject({ method: "POST", body });
    expect(seen.headers).toMatchObject({ "mcp-protocol-version": "2026-07-28", "x-test": "1" });
  });

  it("ends the request when the signal aborts, before or during the body", async () => {
    let closedOnServer = 0;
    const base = await listen((request, response) => {
      request.on("close", () => closedOnServer++);
      if (request.url === "/never") return;
      response.writeHead(200, { "content-type": "text/event-stream" });
      response.write(": open\n\n");
    });
    const early = new AbortController();
    const pending = fetchOnIdleSocket(`${base}/never`, { signal: early.signal });
    setTimeout(() => early.abort(), 50);
    await expect(pending).rejects.toMatchObject({ name: "AbortError" });

    const late = new AbortController();
    const response = await fetchOnIdleSocket(`${base}/stream`, { signal: late.signal });
    const reader = response.body!.getReader();
    expect(new TextDecoder().decode((await reader.read()).value)).toBe(": open\n\n");
    late.abort();
    await expect(reader.read()).rejects.toMatchObject({ name: "AbortError" });
    await waitFor(() => closedOnServer === 2, 2_000, "the server to see both requests end");
    await expect(fetchOnIdleSocket(`${base}/stream`, { signal: late.signal })).rejects.toMatchObject({
      name: "AbortError",
    });
  });

  it("fails as fetch does: TypeError fetch failed with the system error, bad ports refused", async () => {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const { port } = server.address() as { port: number };
    await new Promise((resolve) => server.close(resolve));
    const refused = fetchOnIdleSocket(`http://127.0.0.1:${port}/sse`, {
      headers: { accept: "text/event-stream" },
    });
    await expect(refused).rejects.toThrow(TypeError);
    await expect(refused).rejects.toMatchObject({ message: "fetch failed", cause: { code: "ECONNREFUSED" } });
    await expect(fetchOnIdleSocket("http://127.0.0.1:9/sse")).rejects.toMatchObject({
      message: "fetch failed",
      cause: { message: "bad port" },
    });
  });

  it("a body cut short by the server errors with TypeError terminated", async () => {
    const base = await listen((_request, response) => {
      response.writeHead(200, { "content-type": "text/event-stream" });
      response.write(": open\n\n");
      setTimeout(() => response.socket?.destroy(), 50);
    });
    const response = await fetchOnIdleSocket(`${base}/sse`);
    await expect(response.text()).rejects.toMatchObject({ name: "TypeError", message: "terminated" });
  });

  it("the streams carry the config's headers, once, and the SDK's (session id, protocol version)", async () => {
    const upstream = await startHttpServer(NODE, [SDK_SERVER, "--http", "0"]);
    closers.push(() => upstream.close());
    const target = new URL(upstream.url);
    const requests: Array<{ method: string; headers: IncomingHttpHeaders }> = [];
    // A recording proxy in front of the SDK fixture.
    const base = await listen((request, response) => {
      requests.push({ method: request.method!, headers: request.headers });
      const forward = httpRequest(
        {
          host: target.hostname,
          port: target.port,
          path: request.url,
          method: request.method,
          headers: request.headers,
        },
        (answer) => {
          response.writeHead(answer.statusCode!, answer.headers);
          answer.pipe(response);
        },
      );
      forward.on("error", () => response.destroy());
      request.pipe(forward);
    });
    const url = `${base}/mcp`;
    const yard = await Switchyard.connect(
      {
        mcpServers: {
          modern: { url, headers: { "X-Test": "modern" } },
          legacy: { url, headers: { "X-Test": "legacy" }, versionNegotiation: "legacy" },
        },
      },
      { logger: silentLogger },
    );
    closers.unshift(() => yard.close());
    expect(yard.servers().map((server) => server.status)).toEqual(["ready", "ready"]);
    await waitFor(
      () => requests.some((r) => r.method === "GET" && r.headers["x-test"] === "legacy"),
      5_000,
      "the standalone GET stream",
    );
    const get = requests.find((r) => r.method === "GET")!;
    expect(get.headers).toMatchObject({
      accept: expect.stringContaining("text/event-stream"),
      "x-test": "legacy",
    });
    expect(get.headers["mcp-session-id"]).toEqual(expect.any(String));
    expect(get.headers["mcp-protocol-version"]).toMatch(/^2025-/);
    const listenPost = requests.find(
      (r) => r.method === "POST" && r.headers["mcp-method"] === "subscriptions/listen",
    );
    expect(listenPost?.headers).toMatchObject({ "x-test": "modern", "mcp-protocol-version": "2026-07-28" });
    // Every request carries the config's header once, under whatever case the SDK gave it.
    expect(new Set(requests.map((r) => r.headers["x-test"]))).toEqual(new Set(["modern", "legacy"]));
    expect((await yard.callTool("modern_echo", { text: "still" })).text).toBe("still");
    expect((await yard.callTool("legacy_echo", { text: "here" })).text).toBe("here");
  });
});
