import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { Switchyard, silentLogger } from "../../src/index.js";
import { NODE, ROOT } from "../helpers.js";

// SEP-2243: on 2026-07-28 over HTTP, a tool argument whose schema property has `x-mcp-header` goes in an
// `Mcp-Param-<name>` header as well as in the body. test/fixtures/header-server.mjs answers with the
// Mcp-Param headers its call came with.
const HEADER_SERVER = join(ROOT, "test", "fixtures", "header-server.mjs");
const launched = {
  url: "http://127.0.0.1:{{port}}/mcp",
  command: NODE,
  args: [HEADER_SERVER, "--port", "{{port}}"],
};

let yard: Switchyard | undefined;
afterEach(async () => {
  await yard?.close();
  yard = undefined;
});

describe("arguments designated for headers (x-mcp-header)", () => {
  it("mirrors them into Mcp-Param headers on 2026-07-28, with no tracing set up", async () => {
    yard = await Switchyard.connect({ mcpServers: { header: launched } }, { logger: silentLogger });
    expect(yard.servers()[0]).toMatchObject({ status: "ready", protocolVersion: "2026-07-28" });
    const result = await yard.callTool("header_where", { region: "eu-west1", note: "not mirrored" });
    expect(JSON.parse(result.text)).toEqual({ "mcp-param-region": "eu-west1" });
  });

  it("sends no Mcp-Param header in the 2025 era, where there are none", async () => {
    yard = await Switchyard.connect(
      { mcpServers: { header: { ...launched, versionNegotiation: "legacy" } } },
      { logger: silentLogger },
    );
    expect(yard.servers()[0]?.protocolVersion).not.toBe("2026-07-28");
    const result = await yard.callTool("header_where", { region: "eu-west1", note: "n" });
    expect(JSON.parse(result.text)).toEqual({});
  });
});
