import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import {
  type ElicitationRequest,
  isSwitchyardError,
  resolveConfig,
  type SamplingRequest,
  Switchyard,
  type SwitchyardOptions,
  type ToolResult,
  type WireRecord,
} from "../../src/index.js";
import { type ScriptedOpenAIServer, startScriptedOpenAIServer } from "../../src/testing/index.js";
import { NODE, ROOT } from "../helpers.js";

const ASKING_SERVER = `${ROOT}test/fixtures/asking-server.mjs`;
const NEEDY_SERVER = `${ROOT}test/fixtures/needy-server.mjs`;
const FILESYSTEM_SERVER = `${ROOT}node_modules/@modelcontextprotocol/server-filesystem/dist/index.js`;

const opened: Array<Switchyard | ScriptedOpenAIServer> = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((open) => open.close()));
});

/** Both protocol eras: 2025 push-style requests (`legacy`) and 2026-07-28 `input_required` (`auto`). */
const ERAS = [
  { era: "legacy", versionNegotiation: "legacy" },
  { era: "modern", versionNegotiation: "auto" },
] as const;

async function yardOf(config: Record<string, unknown>, options: SwitchyardOptions = {}) {
  const yard = await Switchyard.connect(config, options);
  opened.push(yard);
  for (const server of yard.servers()) expect(server.status, server.error).toBe("ready");
  return yard;
}

function asking(versionNegotiation: string, more: Record<string, unknown> = {}) {
  return { mcpServers: { a: { command: NODE, args: [ASKING_SERVER], versionNegotiation } }, ...more };
}

function answerOf(result: ToolResult): Record<string, unknown> {
  expect(result.isError, result.text).toBe(false);
  return JSON.parse(result.text) as Record<string, unknown>;
}

describe.each(ERAS)("elicitation ($era)", ({ era, versionNegotiation }) => {
  it("accepted: the handler sees the form, the server gets the content with the schema's defaults", async () => {
    const asked: ElicitationRequest[] = [];
    const yard = await yardOf(asking(versionNegotiation), {
      onElicitation: async (request) => {
        asked.push(request);
        return { action: "accept", content: { name: "Ada", newsletter: true } };
      },
    });
    const answer = answerOf(await yard.callTool("a_profile", {}));
    expect(answer).toEqual({
      era,
      action: "accept",
      content: { name: "Ada", newsletter: true, age: 30, color: "green" },
    });
    expect(asked).toHaveLength(1);
    expect(asked[0]).toMatchObject({ server: "a", mode: "form", message: "Who are you?" });
    expect(asked[0]!.requestedSchema).toMatchObject({ required: ["name"] });
  });

  it("content is coerced and checked against the schema: what does not fit is cancelled", async () => {
    let content: Record<string, unknown> = { name: "Ada", age: "41" };
    const yard = await yardOf(asking(versionNegotiation), {
      onElicitation: async () => ({ action: "accept", content }),
    });
    expect(answerOf(await yard.callTool("a_profile", {}))).toMatchObject({
      action: "accept",
      content: { name: "Ada", age: 41, color: "green" },
    });
    content = { age: 200 }; // no name, and too old
    expect(answerOf(await yard.callTool("a_profile", {}))).toEqual({ era, action: "cancel", content: null });
  });

  it("declined and cancelled reach the server as such, without content", async () => {
    const actions = ["decline", "cancel"] as const;
    let next = 0;
    const yard = await yardOf(asking(versionNegotiation), {
      onElicitation: async () => ({ action: actions[next++]!, content: { name: "ignored" } }),
    });
    expect(answerOf(await yard.callTool("a_profile", {}))).toEqual({ era, action: "decline", content: null });
    expect(answerOf(await yard.callTool("a_profile", {}))).toEqual({ era, action: "cancel", content: null });
  });

  it("URL mode is offered only when the handler says it can open URLs", async () => {
    const asked: ElicitationRequest[] = [];
    const yard = await yardOf(asking(versionNegotiation), {
      onElicitation: async (request) => {
        asked.push(request);
        return { action: "accept" };
      },
      elicitationUrl: true,
    });
    expect(answerOf(await yard.callTool("a_visit", {}))).toEqual({ era, action: "accept" });
    expect(asked[0]).toMatchObject({
      mode: "url",
      message: "Connect your account",
      url: "https://example.com/connect",
    });

    const formOnly = await yardOf(asking(versionNegotiation), {
      onElicitation: async () => ({ action: "accept" }),
    });
    const refused = await formOnly.callTool("a_visit", {}).then(
      (result) => result,
      (error: unknown) => error,
    );
    // The SDK client refuses a URL request it did not declare: the tool fails, one way or the other.
    expect(isSwitchyardError(refused) || (refused as ToolResult).isError, JSON.stringify(refused)).toBe(true);
  });

  it("roots: exactly the config's folders, as file:// URIs; none unless set", async () => {
    const yard = await yardOf(asking(versionNegotiation, { roots: ["./test/fixtures", "/srv/shared"] }), {
      baseDir: ROOT,
    });
    expect(answerOf(await yard.callTool("a_roots", {}))).toEqual({
      era,
      roots: [pathToFileURL(path.join(ROOT, "test/fixtures")).href, pathToFileURL("/srv/shared").href],
    });
    const empty = await yardOf(asking(versionNegotiation, { roots: [] }), { baseDir: ROOT });
    expect(answerOf(await empty.callTool("a_roots", {}))).toEqual({ era, roots: [] });
    // No roots setting: no folder is offered — not the config's folder, nor the working directory. A
    // server asking anyway is told the client has none to give (the tool fails; it never gets a folder).
    const unset = await yardOf(asking(versionNegotiation), { baseDir: ROOT });
    expect(unset.config.roots).toBeUndefined();
    const asked = await unset.callTool("a_roots", {}).then(
      (result) => result,
      (error: unknown) => error,
    );
    expect(isSwitchyardError(asked) || (asked as ToolResult).isError, JSON.stringify(asked)).toBe(true);
    expect(JSON.stringify(asked)).not.toContain("file://");
  });

  it("sampling: approved requests go to the configured model, refused ones never reach it", async () => {
    const model = await startScriptedOpenAIServer([{ content: "It is short." }]);
    opened.push(model);
    const approvals: SamplingRequest[] = [];
    let approve = true;
    const yard = await yardOf(asking(versionNegotiation, { model: { baseURL: model.baseURL, name: "m" } }), {
      onSampling: (request) => {
        approvals.push(request);
        return approve;
      },
    });
    expect(answerOf(await yard.callTool("a_summarize", { text: "a long story" }))).toEqual({
      era,
      model: "m",
      text: "It is short.",
    });
    expect(approvals[0]).toMatchObject({
      server: "a",
      systemPrompt: "You summarize.",
      messages: [{ role: "user", text: "Summarize: a long story" }],
      maxTokens: 100,
    });
    expect(model.requests[0]!.messages).toEqual([
      { role: "system", content: "You summarize." },
      { role: "user", content: "Summarize: a long story" },
    ]);

    approve = false;
    const refused = await yard.callTool("a_summarize", { text: "again" }).then(
      (result) => result,
      (error: unknown) => error,
    );
    if (era === "modern") {
      expect(isSwitchyardError(refused, "POLICY_DENIED")).toBe(true);
      expect(refused).toMatchObject({ serverFault: false, delivery: "final" });
    } else expect((refused as ToolResult).isError).toBe(true);
    expect(
      String((refused as { message?: string; text?: string }).message ?? (refused as ToolResult).text),
    ).toMatch(/declined the sampling request/);
    expect(model.requests).toHaveLength(1);
  });
});

describe("without a handler", () => {
  it("nothing is declared: on 2026-07-28 an eliciting tool fails with CAPABILITY_MISSING", async () => {
    const yard = await yardOf({ mcpServers: { n: { command: NODE, args: [NEEDY_SERVER] } } });
    const error = await yard.callTool("n_confirm", {}).catch((e: unknown) => e);
    expect(isSwitchyardError(error, "CAPABILITY_MISSING"), String(error)).toBe(true);
    expect((error as { capability?: string }).capability).toMatch(/elicitation/);
  });

  it("nothing is declared: a 2025 server is told so and its tool answers with an error", async () => {
    const yard = await yardOf({
      mcpServers: { n: { command: NODE, args: [NEEDY_SERVER], versionNegotiation: "legacy" } },
    });
    const result = await yard.callTool("n_confirm", {});
    expect(result).toMatchObject({ isError: true, text: "Client does not support form elicitation." });
  });

  it("a tool that needs what the client did not declare is CAPABILITY_MISSING each time, and never opens the breaker on the server's healthy tools", async () => {
    // Elicitation is answered, sampling is not: a tool that asks for sampling (2026-07-28 input_required)
    // cannot be served here (the SDK server refuses to ask, -32021; a server that asks anyway meets the
    // client's "no handler is registered": both are the client's limit, test/fleet/call-errors.test.ts).
    const yard = await yardOf(
      asking("auto", {
        mcpServers: { a: { command: NODE, args: [ASKING_SERVER], circuitBreaker: { failureThreshold: 3 } } },
      }),
      { onElicitation: async () => ({ action: "accept", content: { name: "Ada" } }) },
    );
    for (let i = 0; i < 6; i++) {
      const error = await yard.callTool("a_summarize", { text: "x" }).catch((e: unknown) => e);
      expect(isSwitchyardError(error, "CAPABILITY_MISSING"), String(error)).toBe(true);
      expect(error).toMatchObject({ capability: "sampling", serverFault: false });
    }
    expect(yard.servers()[0]).toMatchObject({ breaker: "closed", breakerOpenings: 0 });
    expect(answerOf(await yard.callTool("a_profile", {}))).toMatchObject({ action: "accept" });
  });

  it("sampling is not declared without the approval hook, even with a model", async () => {
    const model = await startScriptedOpenAIServer([{ content: "never" }]);
    opened.push(model);
    const yard = await yardOf(asking("auto", { model: { baseURL: model.baseURL, name: "m" } }));
    const error = await yard.callTool("a_summarize", { text: "x" }).catch((e: unknown) => e);
    expect(isSwitchyardError(error, "CAPABILITY_MISSING"), String(error)).toBe(true);
    expect((error as { capability?: string }).capability).toMatch(/sampling/);
    expect(model.requests).toHaveLength(0);
  });
});

describe("the roots config key", () => {
  it("offers no folder unless set; set folders resolve against the config file's folder", async () => {
    const folder = mkdtempSync(path.join(tmpdir(), "switchyard-roots-"));
    const file = path.join(folder, "mcp.json");
    writeFileSync(file, JSON.stringify({ mcpServers: { a: { command: NODE, args: [ASKING_SERVER] } } }));
    const yard = await Switchyard.fromFile(file);
    opened.push(yard);
    expect(yard.config.roots).toBeUndefined();
    expect(resolveConfig({ mcpServers: {}, roots: ["data", "../x"] }, { baseDir: folder }).roots).toEqual([
      path.join(folder, "data"),
      path.resolve(folder, "../x"),
    ]);
  });

  it("leaves server-filesystem on the folder it was started with, not the config's folder", async () => {
    // server-filesystem replaces its allowed folders with the client's roots when the client declares
    // any: offering the config's folder (a home folder, often) would open all of it.
    const home = mkdtempSync(path.join(tmpdir(), "switchyard-home-"));
    const allowed = path.join(home, "project");
    mkdirSync(allowed);
    writeFileSync(path.join(home, "secret.txt"), "the key");
    writeFileSync(path.join(allowed, "notes.txt"), "project notes");
    const server = { command: NODE, args: [FILESYSTEM_SERVER, allowed] };
    const file = path.join(home, "mcp.json");
    writeFileSync(file, JSON.stringify({ mcpServers: { fs: server } }));
    const yard = await Switchyard.fromFile(file);
    opened.push(yard);
    expect((await yard.callTool("fs_read_text_file", { path: path.join(allowed, "notes.txt") })).text).toBe(
      "project notes",
    );
    const secret = await yard.callTool("fs_read_text_file", { path: path.join(home, "secret.txt") });
    expect(secret.isError).toBe(true);
    expect(secret.text).not.toContain("the key");
    // With roots set, it works in exactly those.
    writeFileSync(file, JSON.stringify({ mcpServers: { fs: server }, roots: ["./project"] }));
    const rooted = await Switchyard.fromFile(file);
    opened.push(rooted);
    const listed = await rooted.callTool("fs_list_allowed_directories", {});
    expect(listed.text).toContain(allowed);
    expect(listed.text).not.toMatch(new RegExp(`${home}(?!/project)`));
  });

  it("must be a list of folder paths", () => {
    expect(() => resolveConfig({ mcpServers: {}, roots: "./data" })).toThrow(/roots.*list of folders/);
    expect(() => resolveConfig({ mcpServers: {}, roots: [""] })).toThrow(/non-empty folder path/);
  });
});

describe("the capabilities declared", () => {
  /** The client capabilities sent in `initialize` (a 2025 handshake) with these options. */
  async function declared(options: SwitchyardOptions, more: Record<string, unknown> = {}) {
    const wire: WireRecord[] = [];
    await yardOf(asking("legacy", more), { ...options, wireTrace: (record) => wire.push(record) });
    const initialize = wire.find(
      (record) =>
        record.direction === "to-server" && (record.message as { method?: string }).method === "initialize",
    );
    expect(initialize).toBeDefined();
    return (initialize!.message as { params: { capabilities: unknown } }).params.capabilities;
  }

  it("are only what has an answer: roots when the config sets them, elicitation and sampling with their handlers; and the Skills extension, always", async () => {
    // Switchyard is a host of the Skills extension (SEP-2640): every server may serve it skills.
    const skills = { extensions: { "io.modelcontextprotocol/skills": {} } };
    const onElicitation = async () => ({ action: "decline" as const });
    expect(await declared({})).toEqual(skills);
    expect(await declared({}, { roots: [] })).toEqual({ ...skills, roots: {} });
    expect(await declared({}, { roots: ["./data"] })).toEqual({ ...skills, roots: {} });
    expect(await declared({ onElicitation })).toEqual({
      ...skills,
      elicitation: { form: { applyDefaults: true } },
    });
    expect(await declared({ onElicitation, elicitationUrl: true })).toEqual({
      ...skills,
      elicitation: { form: { applyDefaults: true }, url: {} },
    });
    // Sampling needs both the approval hook and a model.
    const model = { baseURL: "http://127.0.0.1:9/v1", name: "m" };
    expect(await declared({}, { model })).toEqual(skills);
    expect(await declared({ onSampling: () => true }, { model })).toEqual({ ...skills, sampling: {} });
  });
});
