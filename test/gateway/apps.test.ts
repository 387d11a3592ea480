import type { Client } from "@modelcontextprotocol/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAgent, OpenAIChatModel, Switchyard } from "../../src/index.js";
import { startScriptedOpenAIServer } from "../../src/testing/index.js";
import { NODE, ROOT } from "../helpers.js";
import { configFile, type Era, httpClient, startHttpGateway, textOf } from "./fleet.js";

// MCP Apps (io.modelcontextprotocol/ui) through the gateway: two servers that both name their view
// `ui://widget`. These tests run the CLI from dist/: `npm run build` first.

const APP_SERVER = `${ROOT}test/fixtures/app-server.mjs`;
const mcpServers = {
  alpha: { command: NODE, args: [APP_SERVER, "--name", "alpha"] },
  beta: { command: NODE, args: [APP_SERVER, "--name", "beta"] },
};

describe.each<Era>(["modern", "legacy"])("MCP Apps through switchyard serve --http (%s client)", (era) => {
  let gateway: Awaited<ReturnType<typeof startHttpGateway>>;
  let client: Client;
  beforeAll(async () => {
    gateway = await startHttpGateway(configFile({ mcpServers }));
    client = await httpClient(gateway.url, era);
  }, 60_000);
  afterAll(async () => {
    await client?.close();
    await gateway?.close();
  });

  it("passes each tool's _meta on, its ui.resourceUri rewritten to its server's ui://<server>/… view", async () => {
    const tools = new Map((await client.listTools()).tools.map((tool) => [tool.name, tool]));
    for (const server of ["alpha", "beta"]) {
      const show = [...tools.values()].find(
        (tool) => tool._meta?.["switchyard/server"] === server && tool.name.endsWith("show"),
      );
      expect(show?._meta).toMatchObject({
        ui: { resourceUri: `ui://${server}/widget` },
        "ui/resourceUri": `ui://${server}/widget`,
        "switchyard/server": server,
      });
      const refresh = [...tools.values()].find(
        (tool) => tool._meta?.["switchyard/server"] === server && tool.name.endsWith("refresh"),
      );
      // An app-only tool is listed to the host (its app calls it), its visibility kept.
      expect(refresh?._meta).toMatchObject({
        ui: { resourceUri: `ui://${server}/widget`, visibility: ["app"] },
      });
    }
  });

  it("lists the two servers' ui://widget apart, and reads each from its own server", async () => {
    const uris = (await client.listResources()).resources.map((resource) => resource.uri);
    expect(uris).toEqual(expect.arrayContaining(["ui://alpha/widget", "ui://beta/widget"]));
    expect(uris).not.toContain("ui://widget");
    for (const server of ["alpha", "beta"]) {
      const read = await client.readResource({ uri: `ui://${server}/widget` });
      expect(read.contents).toEqual([
        {
          uri: `ui://${server}/widget`,
          mimeType: "text/html;profile=mcp-app",
          text: `<p>widget of ${server}</p>`,
        },
      ]);
    }
  });

  it("declares MCP Apps to the servers behind it (the view type a host renders), so apps offered only to such hosts come through", async () => {
    const tools = (await client.listTools()).tools;
    const probe = tools.find(
      (tool) => tool._meta?.["switchyard/server"] === "alpha" && tool.name.endsWith("ui_support"),
    )!;
    expect(JSON.parse(textOf(await client.callTool({ name: probe.name, arguments: {} })))).toEqual({
      mimeTypes: ["text/html;profile=mcp-app"],
    });
  });

  it("runs an app's own tool (visibility app) for the host's app", async () => {
    const tools = (await client.listTools()).tools;
    const refresh = tools.find(
      (tool) => tool._meta?.["switchyard/server"] === "beta" && tool.name.endsWith("refresh"),
    )!;
    expect(textOf(await client.callTool({ name: refresh.name, arguments: {} }))).toBe("beta: refreshed");
  });
});

describe("an app-only tool (visibility app)", () => {
  it("is listed by the Switchyard but never offered to the agent's model", async () => {
    await using yard = await Switchyard.connect({ mcpServers: { alpha: mcpServers.alpha } });
    const listed = yard.tools().map((tool) => [tool.tool, tool.appOnly === true]);
    expect(listed).toEqual(
      expect.arrayContaining([
        ["show", false],
        ["refresh", true],
      ]),
    );
    await using model = await startScriptedOpenAIServer([{ content: "done" }]);
    const agent = createAgent(
      yard,
      {},
      { model: new OpenAIChatModel({ baseURL: model.baseURL, model: "scripted", apiKey: "k" }) },
    );
    // A Switchyard that renders no app declares none: the server sees no MCP Apps client.
    expect((await yard.callTool("alpha_ui_support", {})).text).toBe("null");
    await agent.run("Refresh the widget and show the weather in Oslo");
    const offered = model.requests[0]!.tools?.map((tool) => tool.function.name) ?? [];
    expect(offered.some((name) => name.endsWith("show"))).toBe(true);
    expect(offered.some((name) => name.endsWith("refresh"))).toBe(false);
  });
});
