// A routed step's record says why each tool was offered: the router's score and reason beside the name
// (what `switchyard ui` shows as the step's routing decision); an unrouted step keeps plain names.
import { afterEach, describe, expect, it } from "vitest";
import {
  Agent,
  type AgentEvent,
  OpenAIChatModel,
  routeTools,
  Switchyard,
  type SwitchyardEvent,
} from "../../src/index.js";
import { startScriptedOpenAIServer } from "../../src/testing/index.js";
import { raw } from "../helpers.js";

const opened: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((resource) => resource.close()));
});

const names = (stem: string, n: number) =>
  Array.from({ length: n }, (_, i) => `${stem}_${String.fromCharCode(97 + i)}`).join(",");

describe("the offered tools of a routed step", () => {
  it("carry the router's score and reason; without a router they are names only", async () => {
    const yard = await Switchyard.connect({
      mcpServers: {
        wx: raw("--tools", names("weather_forecast", 12)),
        sea: raw("--tools", names("tide_table", 12)),
      },
    });
    const model = await startScriptedOpenAIServer([{ content: "sunny" }, { content: "sunny" }]);
    opened.push(yard, model);
    const started = (events: AgentEvent[]) =>
      events.filter(
        (e): e is Extract<SwitchyardEvent, { type: "step_started" }> => e.type === "step_started",
      );

    const routed: AgentEvent[] = [];
    await new Agent({
      model: new OpenAIChatModel({ baseURL: model.baseURL, model: "scripted" }),
      host: yard,
      selectTools: routeTools(yard, { topK: 3 }),
      onEvent: (event) => routed.push(event),
    }).run("What is the weather forecast?");
    const [step] = started(routed);
    expect(step!.tools).toBe(3);
    expect(step!.offered).toHaveLength(3);
    for (const tool of step!.offered!) {
      expect(tool).toEqual({
        name: expect.stringMatching(/^wx_weather_forecast_/),
        reason: "ranked",
        score: expect.any(Number),
      });
      expect((tool as { score: number }).score).toBeGreaterThan(0);
    }

    const plain: AgentEvent[] = [];
    await new Agent({
      model: new OpenAIChatModel({ baseURL: model.baseURL, model: "scripted" }),
      host: yard,
      onEvent: (event) => plain.push(event),
    }).run("What is the weather forecast?");
    expect(started(plain)[0]!.offered!.every((tool) => typeof tool === "string")).toBe(true);
  });
});
