// A conformance client that drives each scenario through Switchyard's public API only (the package's
// own entry, "switchyard", built into dist/ by `npm run build`). The suite runs it as
// `node conformance/switchyard-client.mjs <server-url>` with MCP_CONFORMANCE_SCENARIO set.
import { isSwitchyardError, Switchyard } from "switchyard";

const url = process.argv[2];
const scenario = process.env.MCP_CONFORMANCE_SCENARIO ?? "";
if (!url) {
  console.error("usage: switchyard-client.mjs <server-url>");
  process.exit(2);
}

// Arguments for the tools the scenarios offer; any other tool is called with {}.
const ARGS = { add_numbers: { a: 5, b: 3 } };

const yard = await Switchyard.connect(
  { mcpServers: { conformance: { url, connectTimeoutMs: 15_000, timeoutMs: 15_000 } } },
  {
    // The form's defaults are applied by Switchyard to what the user leaves out (SEP-1034).
    onElicitation: async () => ({ action: "accept", content: {} }),
  },
);
let failed = false;
try {
  const [server] = yard.servers();
  console.log(
    `scenario ${scenario}: ${server.status} ${server.transport ?? ""} ${server.protocolVersion ?? ""}`,
  );
  if (server.status !== "ready") {
    console.error(`connect failed: ${server.error?.code ?? ""} ${server.error?.message ?? ""}`);
    failed = true;
  } else {
    for (const tool of yard.tools()) {
      try {
        const result = await yard.callTool(tool.name, ARGS[tool.tool] ?? {});
        console.log(`${tool.tool}: isError=${result.isError} ${result.text}`);
      } catch (error) {
        if (!isSwitchyardError(error)) throw error;
        console.error(`${tool.tool}: ${error.code} ${error.message}`);
        failed = true;
      }
    }
  }
} finally {
  await yard.close();
}
process.exit(failed ? 1 : 0);
