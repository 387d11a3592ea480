// Without anything registered with the OpenTelemetry API, Switchyard does not even load it: a call
// costs no span objects and the API no memory. Checked in a fresh process, where nothing else could
// have loaded it.
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { NODE, ROOT, SDK_SERVER } from "../helpers.js";

const run = promisify(execFile);

const script = (register: boolean) => `
  import { createRequire } from "node:module";
  ${register ? 'import { trace } from "@opentelemetry/api"; import { BasicTracerProvider } from "@opentelemetry/sdk-trace-base"; trace.setGlobalTracerProvider(new BasicTracerProvider());' : ""}
  const { Switchyard } = await import(${JSON.stringify(`${ROOT}dist/index.js`)});
  const yard = await Switchyard.connect({ mcpServers: { s: { command: ${JSON.stringify(NODE)}, args: [${JSON.stringify(SDK_SERVER)}, "--tools", "echo"] } } });
  const result = await yard.callTool("s_echo", { text: "hi" });
  await yard.close();
  const loaded = Object.keys(createRequire(import.meta.url).cache).some((path) => path.includes("@opentelemetry/api"));
  console.log(JSON.stringify({ text: result.text, loaded }));
`;

describe("tracing off", () => {
  it.each([
    [false, "nothing registered: the API is never loaded"],
    [true, "a tracer provider registered: the API is in use"],
  ])("register=%s — %s", async (register) => {
    const { stdout } = await run(NODE, ["--input-type=module", "-e", script(register)], {
      cwd: ROOT,
      timeout: 30_000,
    });
    const outcome = JSON.parse(stdout.trim().split("\n").pop()!) as { text: string; loaded: boolean };
    expect(outcome.text).toBe("hi");
    expect(outcome.loaded).toBe(register);
  });
});
