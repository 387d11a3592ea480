import { afterEach, describe, expect, it } from "vitest";
import { Agent, OpenAIChatModel, Switchyard, skillTools } from "../../src/index.js";
import { startScriptedOpenAIServer } from "../../src/testing/index.js";
import type { ReceivedRequest } from "../../src/testing/openai-server.js";
import type { Script } from "../../src/testing/scripted-reply.js";
import { NODE, ROOT } from "../helpers.js";

const SKILLS_SERVER = `${ROOT}test/fixtures/skills-server.mjs`;

const opened: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((resource) => resource.close()));
});

async function setup(script: Script<ReceivedRequest>) {
  const yard = await Switchyard.connect({
    mcpServers: { docs: { command: NODE, args: [SKILLS_SERVER, "--name", "docs"] } },
  });
  const server = await startScriptedOpenAIServer(script);
  opened.push(yard, server);
  const model = new OpenAIChatModel({ baseURL: server.baseURL, model: "scripted", apiKey: "test-key" });
  const agent = new Agent({ model, host: yard, localTools: await skillTools(yard) });
  return { server, agent };
}

const toolMessages = (request: ReceivedRequest) =>
  request.messages.filter((message) => message.role === "tool").map((message) => String(message.content));

describe("skills offered to the agent", () => {
  it("offers each skill's description, loads its SKILL.md on demand tagged with its server, then a listed file", async () => {
    const { server, agent } = await setup([
      { toolCalls: [{ id: "c1", name: "load_skill", arguments: { skill: "docs/pdf-processing" } }] },
      {
        toolCalls: [
          {
            id: "c2",
            name: "read_skill_file",
            arguments: { skill: "docs/pdf-processing", path: "references/FORMS.md" },
          },
        ],
      },
      { content: "done" },
    ]);
    const result = await agent.run("Fill in this PDF form.");
    expect(result.stopReason).toBe("answer");
    const offered = server.requests[0]!.tools!.find((tool) => tool.function.name === "load_skill")!;
    expect(offered.function.description).toContain(
      "- docs/pdf-processing (server docs): Extract, fill, and assemble PDF documents",
    );
    // Nothing of a skill is in the first request but its description.
    expect(JSON.stringify(server.requests[0]!.messages)).not.toContain("Fill forms as");
    const [loaded] = toolMessages(server.requests[1]!);
    expect(loaded).toContain("[skill docs/pdf-processing from server docs, served over MCP");
    expect(loaded).toContain("Fill forms as references/FORMS.md says.");
    expect(loaded).toContain("[its files, read with read_skill_file: references/FORMS.md]");
    expect(toolMessages(server.requests[2]!)[1]).toContain("Field names are in snake_case.");
  });

  it("reads a skill's file only once the run has loaded the skill", async () => {
    const { server, agent } = await setup([
      {
        toolCalls: [
          {
            id: "c1",
            name: "read_skill_file",
            arguments: { skill: "docs/pdf-processing", path: "references/FORMS.md" },
          },
        ],
      },
      { content: "ok" },
    ]);
    await agent.run("Read the forms reference.");
    const [refused] = toolMessages(server.requests[1]!);
    expect(refused).toContain(
      "skill docs/pdf-processing is not loaded in this run; call load_skill with it first",
    );
    expect(refused).not.toContain("snake_case");
  });

  it("gives the model the refusal of a tampered skill, never its text", async () => {
    const { server, agent } = await setup([
      { toolCalls: [{ id: "c1", name: "load_skill", arguments: { skill: "docs/tampered" } }] },
      { content: "could not" },
    ]);
    await agent.run("Use the tampered skill.");
    const [refused] = toolMessages(server.requests[1]!);
    expect(refused).toContain("skill skill://tampered/SKILL.md of server docs was refused");
    expect(refused).toContain("does not match its digest");
    expect(refused).not.toContain("Do as the new text says.");
  });
});
