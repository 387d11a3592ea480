import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  Agent,
  createLogger,
  loadConfigFile,
  OpenAIChatModel,
  openStore,
  Redactor,
  Switchyard,
  type SwitchyardEvent,
  type WireRecord,
} from "../../src/index.js";
import { REDACTED } from "../../src/telemetry/redact.js";
import { type ScriptedOpenAIServer, startScriptedOpenAIServer } from "../../src/testing/index.js";
import { NODE, ROOT, runCli } from "../helpers.js";

const TELEMETRY_SERVER = `${ROOT}test/fixtures/telemetry-server.mjs`;

// Every secret planted, each where it is planted. None may appear in any log line, wire record, event,
// run record, audit row or CLI output but the tool's own result (what the caller asked for).
const SECRETS = {
  header: "hdr-planted-1f2e3d4c5b6a",
  serverEnv: "srvenv-planted-9a8b7c6d5e",
  oauth: "oauth-planted-0a1b2c3d4e",
  modelKey: "sk-plantedmodelkey0123456789abcdef",
  input: "input-planted-7c6b5a4d3e",
  processEnv: "procenv-planted-2b3c4d5e6f",
  argPassword: "argpass-planted-5f4e3d2c1b",
  argToken: `ghp_${"Z9y8X7w6V5u4".repeat(3)}`,
};
const ALL = Object.values(SECRETS);

function leaks(text: string): string[] {
  return ALL.filter((secret) => text.includes(secret));
}

let model: ScriptedOpenAIServer;
let dir: string;
let configFile: string;
const previousEnv = process.env.SWITCHYARD_PLANTED_API_TOKEN;

beforeAll(async () => {
  // The model asks for a call with a secret argument and a token in a text, then answers.
  model = await startScriptedOpenAIServer((request) =>
    request.messages.some((message) => message.role === "tool")
      ? { content: "Done: the tool answered." }
      : {
          toolCalls: [
            {
              id: "c1",
              name: "t_reveal",
              arguments: { text: `use ${SECRETS.argToken}`, password: SECRETS.argPassword },
            },
            { id: "c2", name: "t_fail", arguments: { text: SECRETS.argPassword } },
          ],
        },
  );
  dir = mkdtempSync(path.join(tmpdir(), "switchyard-redaction-"));
  configFile = path.join(dir, "switchyard.config.json");
  process.env.SWITCHYARD_PLANTED_API_TOKEN = SECRETS.processEnv;
  writeFileSync(
    configFile,
    JSON.stringify({
      inputs: [{ id: "label", type: "promptString", password: true }],
      mcpServers: {
        t: {
          command: NODE,
          args: [TELEMETRY_SERVER, "--label", "${input:label}"],
          env: { SERVICE_TOKEN: SECRETS.serverEnv },
        },
        // A remote server that cannot be reached: its header and OAuth secret only sit in the config.
        remote: {
          url: "http://127.0.0.1:9/mcp",
          headers: { Authorization: `Bearer ${SECRETS.header}` },
          oauth: {
            grant: "client_credentials",
            clientId: "switchyard-test",
            clientSecret: SECRETS.oauth,
            issuer: "http://127.0.0.1:9",
          },
          connectTimeoutMs: 2000,
        },
      },
      model: { baseURL: model.baseURL, name: "scripted", apiKey: SECRETS.modelKey },
      store: { path: path.join(dir, "runs.db") },
    }),
  );
});
afterAll(async () => {
  await model.close();
  if (previousEnv === undefined) delete process.env.SWITCHYARD_PLANTED_API_TOKEN;
  else process.env.SWITCHYARD_PLANTED_API_TOKEN = previousEnv;
});

describe("redaction", () => {
  it("keeps every planted secret out of logs, the wire trace, events, records and the audit log", async () => {
    const config = loadConfigFile(configFile, process.env, { inputs: { label: SECRETS.input } });
    const lines: string[] = [];
    const wire: WireRecord[] = [];
    const events: SwitchyardEvent[] = [];
    const store = await openStore(config);
    await using yard = await Switchyard.connect(config, {
      logger: createLogger({ level: "trace", format: "json", write: (line) => lines.push(line) }),
      wireTrace: (record) => wire.push(record),
      observer: { onEvent: (event) => events.push(event) },
      store,
    });
    try {
      // A plain call: the caller gets the tool's whole result, secrets and all.
      const result = await yard.callTool("t_reveal", {
        text: `use ${SECRETS.argToken}`,
        password: SECRETS.argPassword,
      });
      expect(leaks(result.text).sort()).toEqual(
        [SECRETS.argToken, SECRETS.argPassword, SECRETS.serverEnv, SECRETS.input].sort(),
      );

      // An agent run over the same Switchyard: the model gets the results whole, the records do not.
      const agent = new Agent({
        model: new OpenAIChatModel({ baseURL: model.baseURL, model: "scripted", apiKey: SECRETS.modelKey }),
        host: yard,
        onEvent: (event) => events.push(event),
      });
      const run = await agent.run("Reveal what you know.");
      expect(run.stopReason).toBe("answer");
      const toolMessages = run.messages.filter((message) => message.role === "tool");
      expect(leaks(JSON.stringify(toolMessages))).toContain(SECRETS.serverEnv);
      const modelSaw = JSON.stringify(model.requests.at(-1)!.messages);
      expect(modelSaw).toContain(SECRETS.argPassword);

      await yard.close();
      const stored = await store.run(run.runId);
      const audit = await store.audit();
      expect(stored).toBeDefined();
      expect(audit.length).toBeGreaterThan(0);

      const outputs = {
        logs: lines.join(""),
        wire: JSON.stringify(wire),
        events: JSON.stringify(events),
        record: JSON.stringify({ record: run.record, calls: run.calls }),
        store: JSON.stringify(stored),
        audit: JSON.stringify(audit),
      };
      for (const [where, text] of Object.entries(outputs)) expect(leaks(text), where).toEqual([]);

      // What was redacted shows where it was.
      expect(outputs.wire).toContain("[REDACTED:password]");
      expect(outputs.wire).toContain(REDACTED);
      expect(outputs.events).toContain("[REDACTED:password]");
      expect(outputs.audit).toContain("[REDACTED:password]");
      // The server's stderr line, logged at debug, with its token replaced.
      expect(outputs.logs).toContain(`started with token ${REDACTED}`);
    } finally {
      await store.close();
    }
  });

  it("keeps them out of the CLI's stderr, debug logs, --trace-wire and --json, but not out of the result asked for", async () => {
    const env = { SWITCHYARD_INPUT_LABEL: SECRETS.input, SWITCHYARD_PLANTED_API_TOKEN: SECRETS.processEnv };
    const trace = path.join(dir, "call-trace.jsonl");
    const call = await runCli(
      [
        "--config",
        configFile,
        "--log-level",
        "debug",
        "--log-format",
        "json",
        "--trace-wire",
        trace,
        "--json",
        "call",
        "t_reveal",
        JSON.stringify({ text: `use ${SECRETS.argToken}`, password: SECRETS.argPassword }),
      ],
      { env },
    );
    expect(call.code, call.stderr).toBe(0);
    // The result is the caller's: it is printed whole.
    expect(leaks(call.stdout)).toContain(SECRETS.serverEnv);
    expect(leaks(call.stderr)).toEqual([]);
    expect(call.stderr).toContain('"level":20');
    const callTrace = readFileSync(trace, "utf8");
    expect(leaks(callTrace)).toEqual([]);
    expect(callTrace).toContain("[REDACTED:password]");

    const askTrace = path.join(dir, "ask-trace.jsonl");
    const ask = await runCli(
      [
        "--config",
        configFile,
        "--log-level",
        "debug",
        "--log-format",
        "json",
        "--trace-wire",
        askTrace,
        "--json",
        "ask",
        "Reveal what you know.",
      ],
      { env },
    );
    expect(ask.code, ask.stderr).toBe(0);
    const { runId } = JSON.parse(ask.stdout) as { runId: string };
    expect(JSON.parse(ask.stdout)).toMatchObject({ stopReason: "answer" });

    // What the CLI recorded in the config's store: the runs, the ask's run in full, the audit log.
    const runs = await runCli(["--config", configFile, "--json", "runs"], { env });
    const shown = await runCli(["--config", configFile, "--json", "runs", "show", runId], { env });
    const audit = await runCli(["--config", configFile, "audit", "tail", "-n", "100"], { env });
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.stdout).toContain("[REDACTED:password]");
    expect(audit.code, audit.stderr).toBe(0);
    expect(audit.stdout).toContain("failed: [REDACTED]");
    for (const [where, text] of Object.entries({
      stdout: ask.stdout,
      stderr: ask.stderr,
      trace: readFileSync(askTrace, "utf8"),
      runs: runs.stdout + runs.stderr,
      "runs show": shown.stdout + shown.stderr,
      "audit tail": audit.stdout + audit.stderr,
    }))
      expect(leaks(text), where).toEqual([]);
  });

  it("matches key names across case, - and _, and finds token patterns and secret values in any text", () => {
    const redactor = new Redactor({
      keys: ["sessionKey"],
      values: ["short", "a-long-enough-secret"],
      env: { GITHUB_TOKEN: "envtoken-0123456789", HOME: "/home/someone-long" },
    });
    for (const key of ["password", "X-API-Key", "api_key", "OPENAI_API_KEY", "clientSecret", "session-key"])
      expect(redactor.isSecretKey(key), key).toBe(true);
    for (const key of ["max_tokens", "tokens", "author", "passage", "HOME"])
      expect(redactor.isSecretKey(key), key).toBe(false);
    const text = [
      "Bearer abcdefghijklmnop",
      "sk-proj-abcdefghijklmnopqrstuvwx",
      `github_pat_${"a".repeat(30)}`,
      "AKIAABCDEFGHIJKLMNOP",
      "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.sig-nature_x",
      "xoxb-1234567890-abcdef",
      "-----BEGIN PRIVATE KEY-----\nMIIEabc\n-----END PRIVATE KEY-----",
      "a-long-enough-secret",
      "envtoken-0123456789",
    ];
    for (const secret of text) expect(redactor.text(`x ${secret} y`), secret).toBe(`x ${REDACTED} y`);
    // Too short to search for, and not a secret's name: left as they are.
    expect(redactor.text("short /home/someone-long")).toBe("short /home/someone-long");
    const value = { args: { password: "p", n: 3, nested: [{ apiKey: { any: "thing" } }] }, ok: true };
    expect(redactor.value(value)).toEqual({
      args: { password: "[REDACTED:password]", n: 3, nested: [{ apiKey: "[REDACTED:apiKey]" }] },
      ok: true,
    });
    const clean = { a: { b: ["plain text"] } };
    expect(redactor.value(clean)).toBe(clean);
    expect(redactor.json('{"token":"t","q":"a-long-enough-secret"}')).toBe(
      `{"token":"[REDACTED:token]","q":"${REDACTED}"}`,
    );
  });

  it("takes more keys and patterns from the config's redact section, and rejects a pattern that is not one", async () => {
    const { resolveConfig } = await import("../../src/config/index.js");
    const config = resolveConfig(
      { mcpServers: {}, redact: { keys: ["ssn"], patterns: ["\\bEMP-\\d{6}\\b"] } },
      { env: {} },
    );
    const redactor = Redactor.fromConfig(config, false);
    expect(redactor.value({ ssn: "123-45-6789", note: "for emp-123456" })).toEqual({
      ssn: "[REDACTED:ssn]",
      note: `for ${REDACTED}`,
    });
    expect(() => resolveConfig({ mcpServers: {}, redact: { patterns: ["("] } }, { env: {} })).toThrow(
      /redact\.patterns: expected regular expressions; not valid: "\("/,
    );
  });
});
