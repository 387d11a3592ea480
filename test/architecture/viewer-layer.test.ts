import { describe, expect, it } from "vitest";
import { madeTrees } from "./made-tree.js";

// The viewer's layer rule, run on a small tree: viewer/ reads the store's and telemetry's records (and
// config/) only; nothing below it imports it; cli/ reaches it through src/viewer/index.ts only.

const { tree, violations } = madeTrees("viewer-layer");

describe("the viewer's layer rule", () => {
  it("refuses agent/, plan/, gateway/, cli/ and the facade in viewer/, and viewer/ below it or past its entry", () => {
    const files: Record<string, string> = {
      "src/viewer/server.ts": [
        'import { Agent } from "../agent/agent.js";',
        'import { runPlan } from "../plan/index.js";',
        'import { isLoopbackHost } from "../gateway/http-guard.js";',
        'import { main } from "../cli/main.js";',
        'import { Switchyard } from "../switchyard.js";',
        'import { verifyAudit } from "../store/audit-chain.js";',
        'import type { WireRecord } from "../telemetry/wire-trace.js";',
        'import { DEFAULT_VIEWER_PORT } from "../config/defaults.js";',
        'import { SwitchyardError } from "../errors.js";',
        'import { createServer } from "node:http";',
        "",
      ].join("\n"),
      "src/calls/pipeline.ts": 'import { startViewer } from "../viewer/server.js";\n',
      "src/cli/commands/ui.ts":
        'import { startViewer } from "../../viewer/index.js";\nimport { WireTraceFile } from "../../viewer/wire.js";\n',
    };
    for (const file of [
      "src/agent/agent.ts",
      "src/plan/index.ts",
      "src/gateway/http-guard.ts",
      "src/cli/main.ts",
      "src/switchyard.ts",
      "src/store/audit-chain.ts",
      "src/telemetry/wire-trace.ts",
      "src/config/defaults.ts",
      "src/errors.ts",
      "src/viewer/index.ts",
      "src/viewer/wire.ts",
    ])
      files[file] = "export {};\n";
    expect(violations(tree(files))).toEqual([
      "cli-public-api-only src/cli/commands/ui.ts:2 → src/viewer/wire.ts",
      "lower-layers-look-down src/calls/pipeline.ts:1 → src/viewer/server.ts",
      "viewer-reads-records src/viewer/server.ts:1 → src/agent/agent.ts",
      "viewer-reads-records src/viewer/server.ts:2 → src/plan/index.ts",
      "viewer-reads-records src/viewer/server.ts:3 → src/gateway/http-guard.ts",
      "viewer-reads-records src/viewer/server.ts:4 → src/cli/main.ts",
      "viewer-reads-records src/viewer/server.ts:5 → src/switchyard.ts",
    ]);
  });
});
