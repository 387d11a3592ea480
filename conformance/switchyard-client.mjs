// A conformance client that drives each scenario through Switchyard's public API only (the package's
// own entry, "switchyard", built into dist/ by `npm run build`). The suite runs it as
// `node conformance/switchyard-client.mjs <server-url>` with MCP_CONFORMANCE_SCENARIO set.
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { authorizeServer, isSwitchyardError, Switchyard } from "switchyard";

// Tokens of a login go to a folder of this run's, never the user's config folder.
process.env.XDG_CONFIG_HOME = mkdtempSync(path.join(tmpdir(), "switchyard-conformance-auth-"));

const url = process.argv[2];
const scenario = process.env.MCP_CONFORMANCE_SCENARIO ?? "";
if (!url) {
  console.error("usage: switchyard-client.mjs <server-url>");
  process.exit(2);
}

// Arguments for the tools the scenarios offer; any other tool is called with {}.
const ARGS = { add_numbers: { a: 5, b: 3 } };

const yard = await Switchyard.connect(
  // `oauth: {}`: log in the way the server says (discovery, dynamic client registration, PKCE).
  { mcpServers: { conformance: { url, connectTimeoutMs: 15_000, timeoutMs: 15_000, oauth: {} } } },
  {
    // The form's defaults are applied by Switchyard to what the user leaves out (SEP-1034).
    onElicitation: async () => ({ action: "accept", content: {} }),
  },
);
let failed = false;
try {
  let [server] = yard.servers();
  console.log(
    `scenario ${scenario}: ${server.status} ${server.transport ?? ""} ${server.protocolVersion ?? ""}`,
  );
  if (server.status === "needs-auth") {
    // As `switchyard login` would: the suite's authorization server approves at once, so "the browser"
    // follows the authorization URL's redirect to Switchyard's loopback listener.
    await authorizeServer(yard.config.servers[0], {
      timeoutMs: 15_000,
      onAuthorizationUrl: async (authorizationUrl) => {
        const answer = await fetch(authorizationUrl, { redirect: "manual" });
        const location = answer.headers.get("location");
        if (location) await (await fetch(new URL(location, authorizationUrl))).text();
      },
    });
    await yard.reconnect();
  }
  if (yard.servers()[0].status !== "ready") {
    [server] = yard.servers();
    console.error(`connect failed: ${server.errorCode ?? ""} ${server.error ?? ""}`);
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
