// The MCP Inspector's CLI mode (`@modelcontextprotocol/inspector-cli`, a client nobody here wrote, on the
// v1 SDK) against the gateway, over Streamable HTTP and as a host launches it over stdio: it lists the
// fleet's tools, resources and prompts under their catalog names and calls a tool through the gateway.
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CLI, EVERYTHING, NODE, ROOT } from "../helpers.js";
import { configFile, DATA_DIR, startHttpGateway } from "./fleet.js";

const INSPECTOR_BUILD = `${ROOT}node_modules/@modelcontextprotocol/inspector-cli/build`;
const INSPECTOR = `${INSPECTOR_BUILD}/index.js`;
const run = promisify(execFile);

const file = configFile({
  mcpServers: {
    geo: { command: NODE, args: [`${ROOT}examples/servers/geo.mjs`] },
    everything: { command: NODE, args: [EVERYTHING] },
  },
});

/** The inspector's CLI on a target (a URL, or a command and its arguments); its stdout parsed as JSON. */
async function inspect(target: string[], ...flags: string[]): Promise<Record<string, unknown>> {
  const { stdout } = await run(NODE, [INSPECTOR, ...target, ...flags], {
    env: { ...process.env, SWITCHYARD_DATA_DIR: DATA_DIR },
    // The CLI finds its own package.json by a path it checks against the working directory (1.0.3), so it
    // runs from its build folder; every path given to it is absolute.
    cwd: INSPECTOR_BUILD,
    timeout: 60_000,
  });
  return JSON.parse(stdout) as Record<string, unknown>;
}

let gateway: Awaited<ReturnType<typeof startHttpGateway>>;
beforeAll(async () => {
  gateway = await startHttpGateway(file);
}, 60_000);
afterAll(async () => {
  await gateway?.close();
});

const stdioTarget = [NODE, CLI, "--config", file, "serve", "--stdio"];

describe.each([
  ["Streamable HTTP", () => [gateway.url]],
  ["stdio, launched as a host does", () => stdioTarget],
])("the MCP Inspector's CLI against the gateway (%s)", (_, target) => {
  it("lists the fleet's tools under their catalog names", async () => {
    const listed = (await inspect(target(), "--method", "tools/list")) as { tools: Array<{ name: string }> };
    const names = listed.tools.map((tool) => tool.name);
    expect(names).toContain("geo_simulate_geolocation");
    expect(names).toContain("everything_echo");
  }, 60_000);

  it("calls a tool through the gateway", async () => {
    const result = (await inspect(
      target(),
      "--method",
      "tools/call",
      "--tool-name",
      "everything_echo",
      "--tool-arg",
      "message=你好 inspector",
    )) as { content: Array<{ text?: string }>; isError?: boolean };
    expect(result.isError).toBeFalsy();
    expect(result.content[0]?.text).toContain("你好 inspector");
  }, 60_000);

  it("lists resources and prompts, namespaced", async () => {
    const resources = (await inspect(target(), "--method", "resources/list")) as {
      resources: Array<{ uri: string }>;
    };
    expect(resources.resources.length).toBeGreaterThan(0);
    const prompts = (await inspect(target(), "--method", "prompts/list")) as {
      prompts: Array<{ name: string }>;
    };
    expect(prompts.prompts.map((prompt) => prompt.name).some((name) => name.startsWith("everything_"))).toBe(
      true,
    );
  }, 60_000);

  it("gets an unknown tool's error, not a hang", async () => {
    await expect(inspect(target(), "--method", "tools/call", "--tool-name", "no_such_tool")).rejects.toThrow(
      /no_such_tool|Unknown tool|not found/i,
    );
  }, 60_000);
});
