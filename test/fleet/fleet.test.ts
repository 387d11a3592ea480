import { describe, expect, it } from "vitest";
import { Switchyard, type SwitchyardError } from "../../src/index.js";
import {
  EVERYTHING,
  isAlive,
  memoryLogger,
  NODE,
  raw,
  SDK_SERVER,
  SSE_SERVER,
  sdk,
  startHttpServer,
  waitFor,
} from "../helpers.js";

describe("a fleet of stdio servers", () => {
  it("connects good servers in parallel while bad ones fail alone, each with a clear reason", async () => {
    const { logger, lines } = memoryLogger();
    await using yard = await Switchyard.connect(
      {
        mcpServers: {
          clean: sdk("--name", "clean"),
          noisy: raw("--noise", "--name", "noisy"),
          old: raw("--protocol", "2024-11-05"),
          missing: { command: "switchyard-no-such-command" },
          dies: raw("--exit-on-initialize", "4"),
          silent: { ...raw("--silent", "--stderr-lines", "2"), connectTimeoutMs: 1_500 },
          off: { ...raw(), disabled: true },
        },
      },
      { logger },
    );
    const byName = Object.fromEntries(yard.servers().map((s) => [s.name, s]));

    expect(byName.clean).toMatchObject({
      status: "ready",
      transport: "stdio",
      protocolVersion: "2026-07-28",
      tools: 5,
    });
    expect(byName.clean!.connectMs).toBeGreaterThan(0);
    expect(byName.noisy).toMatchObject({ status: "ready" });
    expect(byName.old).toMatchObject({ status: "ready", protocolVersion: "2024-11-05" });
    expect(byName.off).toMatchObject({ status: "disabled", tools: 0 });

    expect(byName.missing).toMatchObject({ status: "failed" });
    expect(byName.missing!.error).toContain("command not found: switchyard-no-such-command");
    expect(byName.dies).toMatchObject({ status: "failed" });
    expect(byName.dies!.error).toMatch(
      /exited during the handshake \(exit code 4\); stderr: fatal: cannot open database/,
    );
    expect(byName.silent).toMatchObject({ status: "failed" });
    expect(byName.silent!.error).toMatch(/no answer to initialize within 1500 ms.*stderr: raw: stderr line/);

    // The noisy server works, and its noise is reported once, with a sample, at warn level.
    expect((await yard.callTool("noisy_echo", { text: "still works" })).text).toBe("still works");
    const noise = lines().filter((l) => String(l.msg).includes("non-JSON-RPC lines on stdout"));
    expect(noise).toHaveLength(1);
    expect(noise[0]).toMatchObject({
      level: 40,
      server: "noisy",
      sample: "Server starting... (debug banner)",
    });

    // stderr is passed through at debug level.
    expect(
      lines().some((l) => l.level === 20 && l.server === "silent" && l.msg === "raw: stderr line 1"),
    ).toBe(true);
  });

  it("logs a server that fails to connect once, at warn, or at info for a caller that reports it itself", async () => {
    for (const [given, level] of [
      [undefined, 40],
      ["info", 30],
    ] as const) {
      const { logger, lines } = memoryLogger();
      await using yard = await Switchyard.connect(
        { mcpServers: { dies: raw("--exit-on-initialize", "4") } },
        { logger, ...(given ? { serverFailureLogLevel: given } : {}) },
      );
      expect(yard.servers()[0]).toMatchObject({ status: "failed" });
      const said = lines().filter((line) => String(line.msg).startsWith("failed to connect:"));
      expect(said).toEqual([expect.objectContaining({ level, server: "dies" })]);
      expect(String(said[0]!.msg)).toContain("exit code 4");
    }
  });

  it("lists every page of a paginated tools/list", async () => {
    await using yard = await Switchyard.connect({
      mcpServers: { paged: raw("--page-size", "1", "--tools", "a,b,c,d") },
    });
    expect(yard.tools().map((t) => t.tool)).toEqual(["a", "add_tool", "b", "c", "crash", "d", "sleep"]);
  });

  it("refreshes a server's tools on tools/list_changed, keeping the names of unchanged tools", async () => {
    await using yard = await Switchyard.connect({ mcpServers: { live: raw("--list-changed") } });
    const before = yard.tools().map((t) => t.name);
    expect(before).not.toContain("live_fresh");
    await yard.callTool("live_add_tool", { name: "fresh" });
    await waitFor(() => yard.tools().some((t) => t.name === "live_fresh"), 5_000, "the new tool");
    expect(yard.tools().map((t) => t.name)).toEqual([...before, "live_fresh"].sort());
    expect((await yard.callTool("live_fresh", {})).text).toContain("fresh called with");
  });

  it("rejects a pending call at once with SERVER_UNAVAILABLE when the server crashes, and says so in its status", async () => {
    await using yard = await Switchyard.connect({
      mcpServers: { fragile: { ...raw(), restart: { maxRestarts: 0 } }, steady: raw() },
    });
    const slow = yard.callTool("fragile_sleep", { ms: 20_000 });
    const started = Date.now();
    const crash = yard.callTool("fragile_crash", {});
    await expect(slow).rejects.toMatchObject({
      code: "SERVER_UNAVAILABLE",
      server: "fragile",
      tool: "sleep",
    });
    await expect(crash).rejects.toMatchObject({ code: "SERVER_UNAVAILABLE" });
    expect(Date.now() - started).toBeLessThan(5_000);
    const fragile = yard.servers().find((s) => s.name === "fragile")!;
    expect(fragile.status).toBe("failed");
    expect(fragile.error).toMatch(/exit code 3/);
    await expect(yard.callTool("fragile_echo", { text: "x" })).rejects.toMatchObject({
      code: "SERVER_UNAVAILABLE",
    });
    expect((await yard.callTool("steady_echo", { text: "fine" })).text).toBe("fine");
    expect(yard.tools().every((t) => t.server === "steady")).toBe(true);
  });

  it("marks a server that dies after connecting as failed even with no call in flight", async () => {
    await using yard = await Switchyard.connect({
      mcpServers: { brief: { ...raw("--crash-after-ms", "200"), restart: { maxRestarts: 0 } } },
    });
    await waitFor(() => yard.servers()[0]!.status === "failed", 5_000, "the crash to be noticed");
    expect(yard.servers()[0]!.error).toMatch(/exit code 7/);
  });
});

describe("calls", () => {
  it("validate arguments against the tool's schema before sending, with safe coercion", async () => {
    await using yard = await Switchyard.connect({ mcpServers: { s: sdk() } });
    expect((await yard.callTool("s_add", { a: "2", b: 3 })).structuredContent).toEqual({ sum: 5 });
    await expect(yard.callTool("s_add", { a: 1 })).rejects.toMatchObject({
      code: "INVALID_ARGUMENTS",
      server: "s",
      tool: "add",
      message: expect.stringContaining('missing required field "b"'),
    });
    await expect(yard.callTool("s_add", { a: "two", b: 1 })).rejects.toMatchObject({
      code: "INVALID_ARGUMENTS",
    });
    await expect(yard.callTool("s_add", [1, 2])).rejects.toMatchObject({ code: "INVALID_ARGUMENTS" });
  });

  it("resolve with isError results instead of throwing", async () => {
    await using yard = await Switchyard.connect({ mcpServers: { s: sdk() } });
    const result = await yard.callTool("s_fail", {});
    expect(result).toMatchObject({ isError: true, text: "fail: requested failure" });
  });

  it("fail with TOOL_NOT_FOUND and a suggestion for an unknown name", async () => {
    await using yard = await Switchyard.connect({ mcpServers: { s: sdk() } });
    await expect(yard.callTool("s_ech", {})).rejects.toMatchObject({
      code: "TOOL_NOT_FOUND",
      message: expect.stringContaining("did you mean s_echo"),
    });
  });

  it("time out with TIMEOUT naming the server, tool and limit", async () => {
    await using yard = await Switchyard.connect({ mcpServers: { s: sdk() } });
    const error = (await yard
      .callTool("s_sleep", { ms: 5_000 }, { timeoutMs: 200 })
      .catch((e) => e)) as SwitchyardError;
    expect(error).toMatchObject({ code: "TIMEOUT", server: "s", tool: "sleep" });
    expect(error.message).toContain("200 ms");
    expect((await yard.callTool("s_echo", { text: "after" })).text).toBe("after");
  });

  it("cancel with CANCELLED when the caller's signal aborts", async () => {
    await using yard = await Switchyard.connect({ mcpServers: { s: sdk() } });
    const controller = new AbortController();
    const call = yard.callTool("s_sleep", { ms: 5_000 }, { signal: controller.signal });
    setTimeout(() => controller.abort(), 100);
    await expect(call).rejects.toMatchObject({ code: "CANCELLED", server: "s" });
  });

  it("refuse calls after close", async () => {
    const yard = await Switchyard.connect({ mcpServers: { s: sdk() } });
    await yard.close();
    await yard.close();
    await expect(yard.callTool("s_echo", { text: "x" })).rejects.toMatchObject({ code: "CLOSED" });
  });
});

describe("server-everything, a server nobody here wrote", () => {
  it("works over stdio", async () => {
    await using yard = await Switchyard.connect({
      mcpServers: { everything: { command: NODE, args: [EVERYTHING, "stdio"] } },
    });
    expect(yard.servers()[0]).toMatchObject({ status: "ready", transport: "stdio" });
    expect(yard.tools().length).toBeGreaterThan(5);
    expect((await yard.callTool("everything_echo", { message: "hi" })).text).toBe("Echo: hi");
    const image = await yard.callTool("everything_get-tiny-image", {});
    expect(image.text).toMatch(/\[image image\/png, \d+ bytes\]/);
  });

  it("works over Streamable HTTP", async () => {
    const port = 20_000 + Math.floor(Math.random() * 20_000);
    const server = await startHttpServer(NODE, [EVERYTHING, "streamableHttp"], {
      env: { PORT: String(port) },
      urlFrom: (output) =>
        /listening on port (\d+)/.exec(output) ? `http://127.0.0.1:${port}/mcp` : undefined,
    });
    try {
      await using yard = await Switchyard.connect({ mcpServers: { everything: { url: server.url } } });
      expect(yard.servers()[0]).toMatchObject({ status: "ready", transport: "http" });
      expect((await yard.callTool("everything_get-sum", { a: 2, b: 3 })).text).toContain("5");
    } finally {
      await server.close();
    }
  });
});

describe("HTTP transports", () => {
  it("speak Streamable HTTP, and fall back to legacy SSE when the server only speaks that", async () => {
    const http = await startHttpServer(NODE, [SDK_SERVER, "--http", "0"]);
    const sse = await startHttpServer(NODE, [SSE_SERVER, "--port", "0"]);
    try {
      await using yard = await Switchyard.connect({
        mcpServers: {
          modern: { url: http.url, headers: { "X-Test": "1" } },
          legacy: { url: sse.url },
          forcedSse: { url: sse.url, transport: "sse" },
          unreachable: { url: "http://127.0.0.1:9/mcp", connectTimeoutMs: 3_000 },
        },
      });
      const byName = Object.fromEntries(yard.servers().map((s) => [s.name, s]));
      expect(byName.modern).toMatchObject({ status: "ready", transport: "http" });
      expect(byName.legacy).toMatchObject({
        status: "ready",
        transport: "sse",
        protocolVersion: "2024-11-05",
      });
      expect(byName.forcedSse).toMatchObject({ status: "ready", transport: "sse" });
      expect(byName.unreachable!.status).toBe("failed");
      expect(byName.unreachable!.error).toMatch(/Streamable HTTP: .*legacy SSE: /);
      expect((await yard.callTool("modern_echo", { text: "over http" })).text).toBe("over http");
      expect((await yard.callTool("legacy_add", { a: 1, b: 2 })).text).toBe("3");
    } finally {
      await Promise.all([http.close(), sse.close()]);
    }
  });
});

describe("protocol versions", () => {
  it("negotiate the 2026-07-28 revision with servers that offer it, and fall back for older ones", async () => {
    const http = await startHttpServer(NODE, [SDK_SERVER, "--http", "0"]);
    try {
      await using yard = await Switchyard.connect({
        mcpServers: {
          modern: sdk(),
          modernHttp: { url: http.url },
          pinnedLegacy: { ...sdk(), versionNegotiation: "legacy" },
          current: raw(),
          old: raw("--protocol", "2024-11-05"),
          strict: raw("--strict-init"),
        },
      });
      const versions = Object.fromEntries(yard.servers().map((s) => [s.name, s.protocolVersion ?? s.error]));
      expect(versions).toEqual({
        modern: "2026-07-28",
        modernHttp: "2026-07-28",
        pinnedLegacy: "2025-11-25",
        current: "2025-11-25",
        old: "2024-11-05",
        strict: "2025-11-25",
      });
      expect((await yard.callTool("modern_echo", { text: "stateless" })).text).toBe("stateless");
      expect((await yard.callTool("modernHttp_echo", { text: "stateless" })).text).toBe("stateless");
      expect((await yard.callTool("strict_echo", { text: "restarted" })).text).toBe("restarted");
    } finally {
      await http.close();
    }
  });

  it("fail loudly when pinned to a revision the server does not offer", async () => {
    await using yard = await Switchyard.connect({
      mcpServers: { old: { ...raw("--protocol", "2024-11-05"), versionNegotiation: { pin: "2026-07-28" } } },
    });
    expect(yard.servers()[0]).toMatchObject({ status: "failed" });
    expect(yard.servers()[0]!.error).toMatch(/2026-07-28/);
  });
});

describe("local HTTP servers the fleet launches (url + command)", () => {
  it("start on a free port, answer over HTTP, and stop on close", async () => {
    const yard = await Switchyard.connect({
      mcpServers: {
        local: {
          url: "http://127.0.0.1:{{port}}/mcp",
          command: NODE,
          args: [SDK_SERVER, "--http", "{{port}}"],
        },
        viaEnv: {
          url: "http://127.0.0.1:{{port}}/mcp",
          command: NODE,
          args: [EVERYTHING, "streamableHttp"],
          env: { PORT: "{{port}}" },
        },
      },
    });
    try {
      for (const state of yard.servers()) expect(state).toMatchObject({ status: "ready", transport: "http" });
      expect((await yard.callTool("local_echo", { text: "launched" })).text).toBe("launched");
      expect((await yard.callTool("viaEnv_echo", { message: "from env" })).text).toBe("Echo: from env");
    } finally {
      await yard.close();
    }
    for (const state of yard.servers()) expect(isAlive(state.pid!)).toBe(false);
  });

  it("fail with the process's exit and output when it dies before listening, or is reported lost later", async () => {
    await using yard = await Switchyard.connect({
      mcpServers: {
        broken: {
          url: "http://127.0.0.1:{{port}}/mcp",
          command: NODE,
          args: ["-e", "console.error('no port for me'); process.exit(5)"],
        },
        later: {
          url: "http://127.0.0.1:{{port}}/mcp",
          command: NODE,
          args: [SDK_SERVER, "--http", "{{port}}"],
          restart: { maxRestarts: 0 },
        },
      },
    });
    const [broken, later] = yard.servers();
    expect(broken!.status).toBe("failed");
    expect(broken!.error).toMatch(/exited \(exit code 5\) before .* accepted connections.*no port for me/);
    process.kill(later!.pid!, "SIGKILL");
    await waitFor(() => yard.servers()[1]!.status === "failed", 5_000, "the loss to be noticed");
    await expect(yard.callTool("later_echo", { text: "x" })).rejects.toMatchObject({
      code: "SERVER_UNAVAILABLE",
    });
  });
});
