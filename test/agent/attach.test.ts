import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { ATTACHED_RESOURCES_NOTE } from "../../src/agent/attach.js";
import { Agent, OpenAIChatModel, Switchyard } from "../../src/index.js";
import { startScriptedOpenAIServer } from "../../src/testing/index.js";
import type { ReceivedRequest } from "../../src/testing/openai-server.js";
import type { Script } from "../../src/testing/scripted-reply.js";
import { NODE, ROOT, runCli } from "../helpers.js";

const RESOURCE_SERVER = `${ROOT}test/fixtures/resource-server.mjs`;
const notes = (name: string) => ({ command: NODE, args: [RESOURCE_SERVER, "--name", name, "--big"] });

const opened: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((resource) => resource.close()));
});

async function setup(script: Script<ReceivedRequest>) {
  const yard = await Switchyard.connect({ mcpServers: { docs: notes("docs"), wiki: notes("wiki") } });
  const server = await startScriptedOpenAIServer(script);
  opened.push(yard, server);
  const model = new OpenAIChatModel({ baseURL: server.baseURL, model: "scripted", apiKey: "test-key" });
  return { yard, server, agent: new Agent({ model, host: yard }) };
}

const userMessages = (request: ReceivedRequest) =>
  request.messages.filter((message) => message.role === "user").map((message) => String(message.content));

describe("resources attached to a run", () => {
  it("reads each one through its server and gives it to the model before the question", async () => {
    const { server, agent } = await setup([{ content: "done" }]);
    const result = await agent.run("What do the readme and the logo say?", {
      attach: ["notes://docs/readme", "notes://wiki/logo"],
    });
    expect(result.stopReason).toBe("answer");
    const [attached, question] = userMessages(server.requests[0]!);
    expect(question).toBe("What do the readme and the logo say?");
    expect(attached).toContain(ATTACHED_RESOURCES_NOTE);
    expect(attached).toContain("[server docs] [resource notes://docs/readme (text/plain)]\nreadme of docs");
    // A binary resource is described, never sent as base64.
    expect(attached).toContain("[server wiki] [resource notes://wiki/logo (image/png), 9 bytes, not shown]");
    expect(attached).not.toContain(Buffer.from("PNG-bytes").toString("base64"));
    // The working record keeps the attachment, so a continued conversation still has it.
    expect(result.messages.filter((message) => message.role === "user")).toHaveLength(2);
  });

  it("shapes a big resource to a result's share of the window, saying what was left out", async () => {
    const { server, agent } = await setup([{ content: "done" }]);
    // The fixture's `big_<n>` template answers n characters.
    const result = await agent.run("Summarize it.", { attach: ["notes://docs/big/200000"] });
    expect(result.stopReason).toBe("answer");
    const [attached] = userMessages(server.requests[0]!);
    expect(attached!.length).toBeLessThan(40_000);
    expect(attached).toMatch(/characters left out here; read the resource itself for the rest/);
  });

  it("ends the run with an error naming the resource when one cannot be read, before the model is asked", async () => {
    const { server, agent } = await setup([{ content: "never asked" }]);
    const missing = await agent.run("Read it.", { attach: ["notes://docs/readmee"] });
    expect(missing.stopReason).toBe("error");
    expect(missing.error).toContain("notes://docs/readmee");
    expect(missing.error).toContain("notes://docs/readme"); // the closest URI
    const broken = await agent.run("Read it.", { attach: ["notes://docs/broken"] });
    expect(broken.stopReason).toBe("error");
    expect(broken.error).toContain("the disk is on fire");
    expect(server.requests).toHaveLength(0);
  });

  it("switchyard ask --attach gives the model the resource", async () => {
    const server = await startScriptedOpenAIServer([{ content: "the readme says hello" }]);
    opened.push(server);
    const config = path.join(mkdtempSync(path.join(tmpdir(), "switchyard-attach-")), "fleet.json");
    writeFileSync(
      config,
      JSON.stringify({
        mcpServers: { docs: notes("docs") },
        model: { baseURL: server.baseURL, name: "scripted", apiKey: "k" },
        store: false,
      }),
    );
    const run = await runCli([
      "--config",
      config,
      "ask",
      "What does the readme say?",
      "--attach",
      "notes://docs/readme",
    ]);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain("the readme says hello");
    expect(userMessages(server.requests[0]!)[0]).toContain("readme of docs");
  });
});
