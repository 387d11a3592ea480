import { describe, expect, it } from "vitest";
import { madeTrees } from "./made-tree.js";

// The layer check (`npm run lint:layers`) run on small trees made here: each forbidden import of
// ARCHITECTURE.md is reported, each allowed one is not.

const { tree, check, violations } = madeTrees("layers");

/** Files every tree has: the shared root files and the public entry points. */
const BASE = {
  "src/errors.ts": "export class SwitchyardError extends Error {}\n",
  "src/lazy-require.ts":
    "export function lazyRequire<T>(name: string): () => T { return () => ({}) as T; }\n",
  "src/index.ts": 'export { Switchyard } from "./switchyard.js";\n',
  "src/switchyard.ts": 'import { SwitchyardError } from "./errors.js";\nexport class Switchyard {}\n',
  "src/routing/index.ts": "export const createStrategy = () => ({});\n",
  "src/plan/index.ts": "export const runPlan = () => ({});\n",
  "src/testing/index.ts": 'export { ScriptedModel } from "./scripted-model.js";\n',
  "src/testing/scripted-model.ts": "export class ScriptedModel {}\n",
};

describe("the layer check", () => {
  it("reports every kind of forbidden import, with its file and line", () => {
    const root = tree({
      ...BASE,
      "src/config/load.ts": [
        'import { Bulkhead } from "../calls/bulkhead.js";',
        'import { SwitchyardError } from "../errors.js";',
        'import { parseYaml } from "../lazy-require.js";',
        'import type { ServerSession } from "../fleet/session.js";',
        'import { DEFAULT_TOP_K } from "./defaults.js";',
        "",
      ].join("\n"),
      "src/calls/retry.ts": [
        'import { SdkError, type ToolAnnotations } from "@modelcontextprotocol/client";',
        'import type { Tool } from "@modelcontextprotocol/client";',
        'export type { CallToolResult } from "@modelcontextprotocol/client";',
        'import { type Transport } from "@modelcontextprotocol/client";',
        "",
      ].join("\n"),
      "src/catalog/catalog.ts": [
        'import { Agent } from "../agent/agent.js";',
        'import { Switchyard } from "../switchyard.js";',
        'import { naming } from "./naming.js";',
        "",
      ].join("\n"),
      "src/routing/spawn.ts": 'import { spawn } from "node:child_process";\n',
      "src/context/exec.ts": 'const { exec } = require("child_process");\n',
      "src/fleet/server-process.ts":
        'import { spawn } from "node:child_process";\nimport { Client } from "@modelcontextprotocol/client";\n',
      "src/models/model.ts":
        'import type { JsonSchema } from "../calls/validate.js";\nexport * from "../routing/strategy.js";\n',
      "src/telemetry/logger.ts": [
        'import { lazyRequire } from "../lazy-require.js";',
        'import { DEFAULT_LOG_LEVEL } from "../config/defaults.js";',
        'import { Router } from "../routing/router.js";',
        'const loadPino = lazyRequire<typeof import("pino")>("pino");',
        "",
      ].join("\n"),
      "src/cli/main.ts": [
        'import { Command } from "commander";',
        'import { Switchyard } from "../index.js";',
        'import { createStrategy } from "../routing/index.js";',
        'import { runPlan } from "../plan/index.js";',
        'import { ScriptedModel } from "../testing/index.js";',
        'import { CommandContext } from "./context.js";',
        'import { loadConfigFile } from "../config/load.js";',
        'import { ScriptedReply } from "../testing/scripted-reply.js";',
        "",
      ].join("\n"),
      "src/agent/plan/run-plan.ts": 'import { Client } from "@modelcontextprotocol/client";\n',
      "src/plan/expressions.ts": 'const sdk = await import("@modelcontextprotocol/client");\n',
      "src/agent/agent.ts": 'import { ScriptedModel } from "../testing/scripted-model.js";\n',
      "src/store/runs.ts":
        'import { runPlan } from "../plan/run-plan.js";\nimport { Agent } from "../agent/agent.js";\n',
      "src/gateway/serve.ts":
        'import { Agent } from "../agent/agent.js";\nimport { runPlan } from "../plan/index.js";\n',
    });
    expect(violations(root)).toEqual(
      [
        "config-is-the-bottom src/config/load.ts:1 → src/calls/bulkhead.ts",
        "config-is-the-bottom src/config/load.ts:4 → src/fleet/session.ts",
        "sdk-types-only src/calls/retry.ts:1 → @modelcontextprotocol/client",
        "sdk-types-only src/calls/retry.ts:4 → @modelcontextprotocol/client",
        "lower-layers-look-down src/catalog/catalog.ts:1 → src/agent/agent.ts",
        "lower-layers-look-down src/catalog/catalog.ts:2 → src/switchyard.ts",
        "child-processes-in-fleet src/routing/spawn.ts:1 → node:child_process",
        "child-processes-in-fleet src/context/exec.ts:1 → child_process",
        "models-below-calls-and-routing src/models/model.ts:1 → src/calls/validate.ts",
        "models-below-calls-and-routing src/models/model.ts:2 → src/routing/strategy.ts",
        "telemetry-reads-only-config src/telemetry/logger.ts:3 → src/routing/router.ts",
        "cli-public-api-only src/cli/main.ts:7 → src/config/load.ts",
        "cli-public-api-only src/cli/main.ts:8 → src/testing/scripted-reply.ts",
        "nothing-imports-testing src/cli/main.ts:8 → src/testing/scripted-reply.ts",
        "sdk-types-only src/agent/plan/run-plan.ts:1 → @modelcontextprotocol/client",
        "sdk-types-only src/plan/expressions.ts:1 → @modelcontextprotocol/client",
        "nothing-imports-testing src/agent/agent.ts:1 → src/testing/scripted-model.ts",
        "store-records-telemetry src/store/runs.ts:1 → src/plan/run-plan.ts",
        "store-records-telemetry src/store/runs.ts:2 → src/agent/agent.ts",
        "gateway-not-agent src/gateway/serve.ts:1 → src/agent/agent.ts",
      ].sort(),
    );
  });

  it("keeps trust/ to config/, telemetry/ and the shared root files", () => {
    const root = tree({
      ...BASE,
      "src/trust/scan.ts": [
        'import { DEFAULT_TRUST_TEXT_CHARS } from "../config/defaults.js";',
        'import type { SwitchyardEvent } from "../telemetry/events.js";',
        'import { SwitchyardError } from "../errors.js";',
        'import { stripHidden } from "./hidden-text.js";',
        'import { Catalog } from "../catalog/catalog.js";',
        'import type { RequestOutcome } from "../calls/request.js";',
        'import { Router } from "../routing/router.js";',
        'import { openStore } from "../store/open.js";',
        'import { Switchyard } from "../switchyard.js";',
        "",
      ].join("\n"),
    });
    expect(violations(root)).toEqual(
      [
        "trust-judges-text src/trust/scan.ts:5 → src/catalog/catalog.ts",
        "trust-judges-text src/trust/scan.ts:6 → src/calls/request.ts",
        "trust-judges-text src/trust/scan.ts:7 → src/routing/router.ts",
        "trust-judges-text src/trust/scan.ts:8 → src/store/open.ts",
        "lower-layers-look-down src/trust/scan.ts:8 → src/store/open.ts",
        "trust-judges-text src/trust/scan.ts:9 → src/switchyard.ts",
        "lower-layers-look-down src/trust/scan.ts:9 → src/switchyard.ts",
      ].sort(),
    );
  });

  it("does not take comments, strings, template literals or regular expressions for imports", () => {
    const root = tree({
      ...BASE,
      "src/config/schema.ts": [
        '// import { Agent } from "../agent/agent.js";',
        '/* import { Bulkhead } from "../calls/bulkhead.js"; */',
        "const example = 'import { Router } from \"../routing/router.js\"';",
        'const glob = "src/**/*.ts"; // a "/*" inside a string opens no comment',
        'import { z } from "zod";',
        "const quote = /[\"'`]/g;",
        'const url = /^https?:\\/\\//i.test("x") ? `${glob} from "../fleet/x.js"` : "";',
        "const nested = `a ${`b ${example} c`} d`;",
        "export { z, example, glob, quote, url, nested };",
        "",
      ].join("\n"),
    });
    expect(violations(root)).toEqual([]);
  });

  it("passes a tree whose imports all flow downward, and says so", () => {
    const root = tree({
      ...BASE,
      "src/config/index.ts":
        'export * from "./defaults.js";\nimport { parseYaml } from "../lazy-require.js";\n',
      "src/calls/retry.ts":
        'import type { Tool } from "@modelcontextprotocol/client";\nimport { DEFAULT_MAX_RETRIES } from "../config/index.js";\n',
      "src/fleet/session.ts":
        'import { Client } from "@modelcontextprotocol/client";\nimport { spawn } from "node:child_process";\n',
      "src/agent/agent.ts":
        'import { Router } from "../routing/router.js";\nimport type { ChatMessage } from "../models/model.js";\n',
      "src/cli/main.ts":
        'import { Switchyard } from "../index.js";\nimport { ScriptedModel } from "../testing/index.js";\n',
    });
    const { code, stdout } = check(root);
    expect(stdout).toContain("no import breaks a rule");
    expect(code).toBe(0);
  });

  it("prints each violation with its rule and why the rule exists", () => {
    const root = tree({
      ...BASE,
      "src/config/load.ts": 'import { Bulkhead } from "../calls/bulkhead.js";\n',
    });
    const { code, stdout } = check(root);
    expect(code).toBe(1);
    expect(stdout).toContain("error config-is-the-bottom: src/config/load.ts:1 → src/calls/bulkhead.ts");
    expect(stdout).toContain("config/ imports no other layer");
    expect(stdout).toContain("1 import(s) break 1 rule(s)");
  });

  it("refuses a request sent to a connection any other way than the pipeline's server guard", () => {
    const root = tree({
      ...BASE,
      "src/calls/server-guard.ts": "export const run = (c: any, r: any) => c.attempt(r, {});\n",
      "src/gateway/server.ts": [
        "export async function read(connection: any) {",
        '  return connection.attempt({ method: "resources/read", uri: "x://a" }, { timeoutMs: 1 });',
        "}",
        "// a comment about connection.attempt(...) is not a call",
        'const said = "yard.attempt(x)";',
        "",
      ].join("\n"),
      "src/switchyard.ts":
        'export class Switchyard { f(c: any) { return c.attempt<"tools/call">({}, {}); } }\n',
    });
    expect(violations(root)).toEqual([
      "one-way-to-a-server src/gateway/server.ts:2 → .attempt(",
      "one-way-to-a-server src/switchyard.ts:1 → .attempt(",
    ]);
  });
});
