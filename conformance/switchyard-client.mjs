// A conformance client that drives each scenario through Switchyard's public API only (the package's
// own entry, "switchyard", built into dist/ by `npm run build`). The suite runs it as
// `node conformance/switchyard-client.mjs <server-url>` with MCP_CONFORMANCE_SCENARIO set.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { authorizeServer, isSwitchyardError, Switchyard } from "switchyard";
import { argumentsFor, promptArguments } from "./scenario-input.mjs";

// Tokens of a login go to a folder of this run's, never the user's config folder; removed on exit.
const authHome = mkdtempSync(path.join(tmpdir(), "switchyard-conformance-auth-"));
process.env.XDG_CONFIG_HOME = authHome;
process.on("exit", () => rmSync(authHome, { recursive: true, force: true }));

const url = process.argv[2];
const scenario = process.env.MCP_CONFORMANCE_SCENARIO ?? "";
if (!url) {
  console.error("usage: switchyard-client.mjs <server-url>");
  process.exit(2);
}

// What the suite hands a client for a scenario (credentials registered with its authorization server),
// put where a user would: the server's `oauth` section.
const context = process.env.MCP_CONFORMANCE_CONTEXT ? JSON.parse(process.env.MCP_CONFORMANCE_CONTEXT) : {};

/** The `oauth` section a user of this scenario's server would write. */
function oauthSection() {
  if (scenario === "auth/client-credentials-basic")
    return { grant: "client_credentials", clientId: context.client_id, clientSecret: context.client_secret };
  if (scenario === "auth/client-credentials-jwt")
    return {
      grant: "client_credentials",
      clientId: context.client_id,
      privateKey: context.private_key_pem,
      signingAlgorithm: context.signing_algorithm,
    };
  // Enterprise-managed authorization (SEP-990; cross-app-access-complete-flow before suite 0.2).
  if (
    scenario === "auth/enterprise-managed-authorization" ||
    scenario === "auth/cross-app-access-complete-flow"
  )
    return {
      grant: "cross_app_access",
      clientId: context.client_id,
      clientSecret: context.client_secret,
      idp: {
        tokenEndpoint: context.idp_token_endpoint,
        clientId: context.idp_client_id,
        idToken: context.idp_id_token,
      },
    };
  // The authorization-code flow: discovery, then a client ID metadata document where the
  // authorization server supports one, else the pre-registered client, else dynamic registration.
  return {
    clientMetadataUrl: "https://conformance-test.local/client-metadata.json",
    ...(context.client_id ? { clientId: context.client_id } : {}),
    ...(context.client_secret ? { clientSecret: context.client_secret } : {}),
  };
}

const yard = await Switchyard.connect(
  {
    mcpServers: { conformance: { url, connectTimeoutMs: 15_000, timeoutMs: 15_000, oauth: oauthSection() } },
  },
  {
    // The form's defaults are applied by Switchyard to what the user leaves out (SEP-1034).
    onElicitation: async () => ({ action: "accept", content: {} }),
    // Sampling declared and answered (request-metadata checks the declared capability).
    onSamplingRequest: async () => ({
      role: "assistant",
      content: { type: "text", text: "conformance" },
      model: "conformance",
    }),
  },
);

/** As `switchyard login` would: the suite's authorization server approves at once, so "the browser"
 * follows the authorization URL's redirect to Switchyard's loopback listener. */
async function login() {
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

let failed = false;
/** Runs `step`; a request refused for a narrow scope (step-up) is answered with a new login, once. */
async function withLogin(what, step) {
  try {
    return await step().catch(async (error) => {
      if (!isSwitchyardError(error, "AUTH_REQUIRED")) throw error;
      console.log(`${what}: ${error.message}; logging in again`);
      await login();
      return await step();
    });
  } catch (error) {
    if (!isSwitchyardError(error)) throw error;
    console.error(`${what}: ${error.code} ${error.message}`);
    // A scenario whose server lists tools and serves no call (json-schema-ref-no-deref) is no failure.
    if (!(error.code === "CAPABILITY_MISSING" && error.message.includes("-32601"))) failed = true;
    return undefined;
  }
}

try {
  let [server] = yard.servers();
  console.log(
    `scenario ${scenario}: ${server.status} ${server.transport ?? ""} ${server.protocolVersion ?? ""}`,
  );
  // A login, and another when the server refuses its token after all (it moved to another
  // authorization server, say: auth/authorization-server-migration).
  for (let logins = 0; logins < 2 && yard.servers()[0].status === "needs-auth"; logins++) await login();
  if (yard.servers()[0].status !== "ready") {
    [server] = yard.servers();
    console.error(`connect failed: ${server.errorCode ?? ""} ${server.error ?? ""}`);
    failed = true;
  } else {
    // What the scenario's server offers, each used once: every tool (with the scenario's arguments),
    // every resource read, every prompt got.
    const schemas = new Map(yard.tools().map((tool) => [tool.tool, tool.inputSchema]));
    for (const tool of yard.tools()) {
      for (const args of argumentsFor(tool.tool, schemas, context)) {
        const result = await withLogin(tool.tool, () => yard.callTool(tool.name, args));
        if (result) console.log(`${tool.tool}: isError=${result.isError} ${result.text}`);
      }
    }
    for (const resource of yard.resources()) {
      const read = await withLogin(resource.uri, () => yard.readResource(resource.uri));
      if (read) console.log(`${resource.uri}: ${read.contents?.length ?? 0} content(s)`);
    }
    for (const prompt of yard.prompts()) {
      const got = await withLogin(prompt.prompt, () =>
        yard.getPrompt(prompt.name, promptArguments(prompt.arguments)),
      );
      if (got) console.log(`${prompt.prompt}: ${got.messages?.length ?? 0} message(s)`);
    }
  }
} finally {
  await yard.close();
}
process.exit(failed ? 1 : 0);
