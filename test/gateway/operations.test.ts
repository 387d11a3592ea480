import { spawnSync } from "node:child_process";
import { get as httpGet } from "node:http";
import parsePrometheusTextFormat from "parse-prometheus-text-format";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CLI, NODE, ROOT } from "../helpers.js";
import { configFile, DATA_DIR, httpClient, startHttpGateway } from "./fleet.js";

// These tests run the CLI from dist/: `npm run build` first.

const APP_SERVER = `${ROOT}test/fixtures/app-server.mjs`;
const TOKEN = "ops-token-0123456789abcdef";
const auth = { authorization: `Bearer ${TOKEN}` };

/** The servers: three (one with a poisoned tool), and `more` besides. */
function servers(more: Record<string, unknown> = {}) {
  return {
    maps: { command: NODE, args: [APP_SERVER, "--name", "maps"] },
    shady: { command: NODE, args: [APP_SERVER, "--name", "shady", "--poison"] },
    later: { command: NODE, args: [APP_SERVER, "--name", "later"] },
    ...more,
  };
}

/** The origin (`http://127.0.0.1:<port>`) of a gateway whose MCP URL is `url`. */
const originOf = (url: string) => new URL(url).origin;

describe("the gateway's operations endpoints (switchyard serve --http)", () => {
  let gateway: Awaited<ReturnType<typeof startHttpGateway>>;
  beforeAll(async () => {
    const file = configFile({
      mcpServers: servers({
        // A server that cannot start: readiness says so.
        broken: { command: NODE, args: ["-e", "process.exit(3)"], restart: { maxRestarts: 0 } },
      }),
      gateway: { auth: { tokens: [{ token: TOKEN, user: "ops" }] } },
    });
    gateway = await startHttpGateway(file);
  }, 60_000);
  afterAll(async () => {
    await gateway?.close();
  });

  it("/metrics needs the gateway's token like its MCP path; probes get a bare status without one", async () => {
    const origin = originOf(gateway.url);
    expect((await fetch(`${origin}/metrics`)).status).toBe(401);
    expect((await fetch(`${origin}/metrics`, { headers: auth })).status).toBe(200);
    // A kubelet's probe carries no token and names the pod's address in Host.
    for (const host of [undefined, "10.1.2.3:8080"]) {
      const health = await get(`${origin}/healthz`, host);
      expect(health).toEqual({ status: 200, body: { status: "ok" } });
      // Which servers fail, and why, is for those with a token.
      expect(await get(`${origin}/readyz`, host)).toEqual({ status: 503, body: { ready: false } });
    }
    // Anything else with a foreign Host is still refused (DNS-rebinding protection).
    expect((await get(`${origin}/metrics`, "10.1.2.3:8080", auth)).status).toBe(403);
  });

  it("/readyz is 503 and names each server that is neither ready nor lazy, and why", async () => {
    const ready = await fetch(`${originOf(gateway.url)}/readyz`, { headers: auth });
    expect(ready.status).toBe(503);
    const body = (await ready.json()) as { ready: boolean; servers: Array<Record<string, string>> };
    expect(body.ready).toBe(false);
    // The servers that can take requests are not named; the one that could not start is, with its reason.
    expect(body.servers.map((server) => server.name)).toEqual(["broken"]);
    expect(body.servers[0]).toMatchObject({ name: "broken", status: "failed" });
    expect(body.servers[0]!.error).toEqual(expect.any(String));
  });

  it("/metrics is Prometheus text: operation durations by method, server and error type, and per-server gauges", async () => {
    const client = await httpClient(gateway.url, "modern", { headers: auth });
    try {
      const tools = (await client.listTools()).tools.map((tool) => tool.name);
      const show = tools.find((name) => name.endsWith("show") && name.startsWith("maps"))!;
      const fail = tools.find((name) => name.endsWith("fail") && name.startsWith("maps"))!;
      await client.callTool({ name: show, arguments: { city: "Oslo" } });
      expect((await client.callTool({ name: fail, arguments: {} })).isError).toBe(true);
      const brief = (await client.listPrompts()).prompts.find((prompt) => prompt.name.startsWith("maps"))!;
      await client.getPrompt({ name: brief.name, arguments: { city: "Oslo" } });
      const widget = (await client.listResources()).resources.find((resource) =>
        resource.uri.includes("maps"),
      )!;
      expect((await client.readResource({ uri: widget.uri })).contents).toHaveLength(1);
    } finally {
      await client.close();
    }
    const response = await fetch(`${originOf(gateway.url)}/metrics`, { headers: auth });
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toMatch(/^text\/plain; version=0\.0\.4/);
    const text = await response.text();
    const families = parsePrometheusTextFormat(text);
    // The parser (1.1.1) folds all series of a labelled histogram into one; read without their TYPE
    // lines, each histogram's _bucket, _sum and _count lines are families of their own (one per run of
    // lines of a name), labels kept.
    const series = parsePrometheusTextFormat(text.replace(/^# TYPE \S+ histogram$/gm, ""));
    const family = (name: string, from = families) => {
      const found = from.find((candidate) => candidate.name === name);
      expect(found, name).toBeDefined();
      return found!;
    };
    const sample = (name: string, labels: Record<string, string>, from = families) =>
      from
        .filter((candidate) => candidate.name === name)
        .flatMap((candidate) => candidate.metrics)
        .find((metric) =>
          Object.entries(labels).every(([key, value]) => (metric.labels?.[key] ?? "") === value),
        );
    const count = (name: string, labels: Record<string, string>) =>
      sample(`${name}_count`, labels, series)?.value;

    for (const name of ["mcp_client_operation_duration_seconds", "mcp_server_operation_duration_seconds"]) {
      expect(family(name).type).toBe("HISTOGRAM");
      const ok = { mcp_method_name: "tools/call", mcp_server: "maps", error_type: "" };
      expect(count(name, ok), `${name} ok`).toBe("1");
      expect(count(name, { ...ok, error_type: "tool_error" }), `${name} tool_error`).toBe("1");
      expect(sample(`${name}_bucket`, { ...ok, le: "+Inf" }, series)?.value).toBe("1");
      expect(Number(sample(`${name}_sum`, ok, series)?.value)).toBeGreaterThan(0);
    }
    // A prompt's server is its label; a resource's URI is no label at all (one series per URI would grow
    // without bound).
    expect(
      count("mcp_server_operation_duration_seconds", { mcp_method_name: "prompts/get", mcp_server: "maps" }),
    ).toBe("1");
    expect(
      count("mcp_server_operation_duration_seconds", { mcp_method_name: "resources/read", mcp_server: "" }),
    ).toBe("1");
    expect(text).not.toMatch(/ui:\/\/|widget/);
    // The gateway answered tools/list too (no fleet server behind it).
    expect(
      count("mcp_server_operation_duration_seconds", { mcp_method_name: "tools/list", mcp_server: "" }),
    ).toBe("1");

    for (const server of ["maps", "shady", "later", "broken"]) {
      expect(sample("switchyard_server_calls_in_flight", { mcp_server: server })?.value, server).toBe("0");
      expect(sample("switchyard_server_queue_length", { mcp_server: server })?.value, server).toBe("0");
      expect(
        Number(sample("switchyard_server_concurrency_limit", { mcp_server: server })?.value),
      ).toBeGreaterThan(0);
      expect(sample("switchyard_server_breaker_state", { mcp_server: server, state: "closed" })?.value).toBe(
        "1",
      );
      expect(sample("switchyard_server_breaker_state", { mcp_server: server, state: "open" })?.value).toBe(
        "0",
      );
    }
    expect(sample("switchyard_server_ready", { mcp_server: "maps", status: "ready" })?.value).toBe("1");
    expect(sample("switchyard_server_ready", { mcp_server: "broken", status: "failed" })?.value).toBe("0");
    // The poisoned tool's finding, counted for its server alone.
    expect(
      Number(sample("switchyard_server_trust_findings", { mcp_server: "shady", severity: "high" })?.value),
    ).toBeGreaterThan(0);
    expect(sample("switchyard_server_trust_findings", { mcp_server: "maps" })).toBeUndefined();
  });
});

describe("gateway.operations.open", () => {
  it("answers /healthz, /readyz and /metrics without a token on loopback; the MCP path still needs one", async () => {
    const file = configFile({
      mcpServers: servers(),
      gateway: { auth: { tokens: [{ token: TOKEN, user: "ops" }] }, operations: { open: true } },
    });
    const gateway = await startHttpGateway(file);
    try {
      const origin = originOf(gateway.url);
      expect((await fetch(`${origin}/healthz`)).status).toBe(200);
      const ready = await fetch(`${origin}/readyz`);
      expect(ready.status).toBe(200);
      expect(await ready.json()).toEqual({ ready: true });
      const metrics = await fetch(`${origin}/metrics`);
      expect(metrics.status).toBe(200);
      expect(parsePrometheusTextFormat(await metrics.text()).length).toBeGreaterThan(0);
      const mcp = await fetch(gateway.url, {
        method: "POST",
        headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list", params: {} }),
      });
      expect(mcp.status).toBe(401);
    } finally {
      await gateway.close();
    }
  }, 60_000);

  it("counts a lazy server (left unstarted, its catalog cached) as ready", async () => {
    const file = configFile({
      mcpServers: { idle: { command: NODE, args: [APP_SERVER, "--name", "idle"], lazy: true } },
      gateway: { operations: { open: true } },
    });
    // The first start lists the server and caches its catalog; the second leaves it unstarted.
    await (await startHttpGateway(file)).close();
    const gateway = await startHttpGateway(file);
    try {
      const origin = originOf(gateway.url);
      const ready = await fetch(`${origin}/readyz`);
      expect(await ready.json()).toEqual({ ready: true });
      expect(ready.status).toBe(200);
      const metrics = parsePrometheusTextFormat(await (await fetch(`${origin}/metrics`)).text());
      const states = metrics.find((family) => family.name === "switchyard_server_ready")?.metrics ?? [];
      expect(states.find((metric) => metric.labels?.status === "lazy")).toMatchObject({
        labels: { mcp_server: "idle", status: "lazy" },
      });
    } finally {
      await gateway.close();
    }
  }, 60_000);

  it("is refused on an address that is not loopback (exit 2, before anything starts)", () => {
    const file = configFile({
      mcpServers: servers(),
      gateway: { auth: { tokens: [{ token: TOKEN, user: "ops" }] }, operations: { open: true } },
    });
    const run = spawnSync(NODE, [CLI, "--config", file, "serve", "--http", "0", "--host", "0.0.0.0"], {
      env: { ...process.env, SWITCHYARD_DATA_DIR: DATA_DIR },
      encoding: "utf8",
      timeout: 60_000,
    });
    expect(run.status).toBe(2);
    expect(run.stderr).toContain("gateway.operations.open");
    expect(run.stderr).toContain("loopback");
  });
});

/** A GET with the Host header given (fetch will not send one of its own choosing). */
function get(
  url: string,
  host?: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: unknown }> {
  return new Promise((resolve, reject) => {
    const request = httpGet(url, { headers: { ...headers, ...(host ? { host } : {}) } }, (response) => {
      let text = "";
      response.setEncoding("utf8");
      response.on("data", (chunk: string) => {
        text += chunk;
      });
      response.on("end", () => {
        let body: unknown = text;
        try {
          body = JSON.parse(text);
        } catch {}
        resolve({ status: response.statusCode ?? 0, body });
      });
    });
    request.on("error", reject);
  });
}
