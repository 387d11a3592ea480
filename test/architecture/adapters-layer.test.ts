import { describe, expect, it } from "vitest";
import { madeTrees } from "./made-tree.js";

// The adapters' layer rule, run on a small tree: adapters/ reach servers through the facade only.

const { tree, violations } = madeTrees("adapters-layer");

describe("the adapters' layer rule", () => {
  it("refuses fleet/, store/, gateway/ and cli/ in adapters/, and lets the facade, calls/ and agent/ through", () => {
    const files: Record<string, string> = {
      "src/adapters/langchain.ts": [
        'import { Fleet } from "../fleet/fleet.js";',
        'import { openStore } from "../store/open.js";',
        'import { createGateway } from "../gateway/index.js";',
        'import { main } from "../cli/main.js";',
        'import type { Switchyard } from "../switchyard.js";',
        'import { runToolCall } from "../agent/run-call.js";',
        'import { validateArguments } from "../calls/validate.js";',
        'import { tool } from "@langchain/core/tools";',
        "",
      ].join("\n"),
    };
    for (const file of [
      "src/fleet/fleet.ts",
      "src/store/open.ts",
      "src/gateway/index.ts",
      "src/cli/main.ts",
      "src/switchyard.ts",
      "src/agent/run-call.ts",
      "src/calls/validate.ts",
    ])
      files[file] = "export {};\n";
    expect(violations(tree(files))).toEqual([
      "adapters-over-the-facade src/adapters/langchain.ts:1 → src/fleet/fleet.ts",
      "adapters-over-the-facade src/adapters/langchain.ts:2 → src/store/open.ts",
      "adapters-over-the-facade src/adapters/langchain.ts:3 → src/gateway/index.ts",
      "adapters-over-the-facade src/adapters/langchain.ts:4 → src/cli/main.ts",
    ]);
  });
});
