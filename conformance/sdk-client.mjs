// The same scenarios through the bare MCP SDK (v2, @modelcontextprotocol/client), for comparison:
// connect over Streamable HTTP, list the tools, call each one. Elicitation is declared with the SDK's
// applyDefaults. OAuth goes through the SDK: the client-credentials extension with its own providers
// (ClientCredentialsProvider, PrivateKeyJwtProvider) and the credentials the suite passes in
// MCP_CONFORMANCE_CONTEXT; the authorization-code flow with a small in-memory OAuthClientProvider whose
// "browser" follows the authorization URL's redirect (the suite's authorization server approves at once)
// and hands the callback's parameters to transport.finishAuth; cross-app access with the SDK's
// CrossAppAccessProvider and requestJwtAuthorizationGrant (the ID token exchanged at the suite's IdP).
import {
  Client,
  ClientCredentialsProvider,
  CrossAppAccessProvider,
  PrivateKeyJwtProvider,
  requestJwtAuthorizationGrant,
  StreamableHTTPClientTransport,
  UnauthorizedError,
} from "@modelcontextprotocol/client";
import { argumentsFor, promptArguments } from "./scenario-input.mjs";

const url = process.argv[2];
const scenario = process.env.MCP_CONFORMANCE_SCENARIO ?? "";
if (!url) {
  console.error("usage: sdk-client.mjs <server-url>");
  process.exit(2);
}

const context = process.env.MCP_CONFORMANCE_CONTEXT ? JSON.parse(process.env.MCP_CONFORMANCE_CONTEXT) : {};
const REDIRECT = "http://localhost:3000/callback";

/** OAuthClientProvider, in memory; the authorization step is a fetch that reads the redirect. */
class HeadlessOAuthProvider {
  #client;
  #tokens;
  #verifier = "";
  #discovery;
  /** The callback's query parameters, waiting for finishAuth. */
  callback;
  // A client ID metadata document URL (CIMD): used when the authorization server supports it.
  clientMetadataUrl = "https://conformance-test.local/client-metadata.json";

  constructor(preRegistered) {
    this.#client = preRegistered;
  }
  get redirectUrl() {
    return REDIRECT;
  }
  get clientMetadata() {
    return {
      client_name: "sdk-conformance-client",
      redirect_uris: [REDIRECT],
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
    };
  }
  clientInformation() {
    return this.#client;
  }
  saveClientInformation(info) {
    this.#client = info;
  }
  tokens() {
    return this.#tokens;
  }
  saveTokens(tokens) {
    this.#tokens = tokens;
  }
  async redirectToAuthorization(url) {
    const response = await fetch(url, { redirect: "manual" });
    const location = response.headers.get("location");
    if (!location) throw new Error(`authorization endpoint answered ${response.status} without a redirect`);
    this.callback = new URL(location, url).searchParams;
  }
  saveCodeVerifier(verifier) {
    this.#verifier = verifier;
  }
  codeVerifier() {
    return this.#verifier;
  }
  saveDiscoveryState(state) {
    this.#discovery = state;
  }
  discoveryState() {
    return this.#discovery;
  }
}

// Enterprise-managed authorization (SEP-990; cross-app-access-complete-flow before suite 0.2).
const crossApp =
  scenario === "auth/enterprise-managed-authorization" || scenario === "auth/cross-app-access-complete-flow";

const oauth =
  scenario.startsWith("auth/") && !scenario.startsWith("auth/client-credentials-") && !crossApp
    ? new HeadlessOAuthProvider(
        scenario === "auth/pre-registration"
          ? { client_id: context.client_id, client_secret: context.client_secret, redirect_uris: [REDIRECT] }
          : undefined,
      )
    : undefined;

function newClient() {
  const client = new Client(
    { name: "sdk-conformance-client", version: "1.0.0" },
    {
      capabilities: { elicitation: { form: { applyDefaults: true } }, sampling: {} },
      // Both protocol eras, as Switchyard: server/discover first (2026-07-28), else initialize.
      versionNegotiation: { mode: "auto" },
    },
  );
  client.setRequestHandler("elicitation/create", async () => ({ action: "accept", content: {} }));
  client.setRequestHandler("sampling/createMessage", async () => ({
    role: "assistant",
    content: { type: "text", text: "conformance" },
    model: "conformance",
  }));
  return client;
}

/** Runs `step`; after an authorization redirect, finishes it on the transport and runs it again. */
async function authorized(transport, step) {
  // transport: a function, since a connect that must authorize starts again on a new transport.
  for (let attempt = 0; ; attempt++) {
    try {
      return await step();
    } catch (error) {
      if (!(error instanceof UnauthorizedError) || !oauth?.callback || attempt >= 2) throw error;
      const callback = oauth.callback;
      oauth.callback = undefined;
      await transport().finishAuth(callback);
    }
  }
}

function authProvider() {
  if (oauth) return oauth;
  if (crossApp)
    return new CrossAppAccessProvider({
      clientId: context.client_id,
      clientSecret: context.client_secret,
      assertion: async (target) =>
        (
          await requestJwtAuthorizationGrant({
            tokenEndpoint: context.idp_token_endpoint,
            audience: target.authorizationServerUrl,
            resource: target.resourceUrl,
            idToken: context.idp_id_token,
            clientId: context.idp_client_id,
            ...(target.scope ? { scope: target.scope } : {}),
            fetchFn: target.fetchFn,
          })
        ).jwtAuthGrant,
    });
  if (scenario === "auth/client-credentials-basic")
    return new ClientCredentialsProvider({
      clientId: context.client_id,
      clientSecret: context.client_secret,
    });
  if (scenario === "auth/client-credentials-jwt")
    return new PrivateKeyJwtProvider({
      clientId: context.client_id,
      privateKey: context.private_key_pem,
      algorithm: context.signing_algorithm ?? "ES256",
    });
  return undefined;
}

let failed = false;
let client = newClient();
try {
  const provider = authProvider();
  let transport;
  const current = () => transport;
  await authorized(current, async () => {
    transport = new StreamableHTTPClientTransport(new URL(url), provider ? { authProvider: provider } : {});
    client = newClient();
    await client.connect(transport);
  });
  console.log(`scenario ${scenario}: connected ${client.getServerVersion()?.name ?? ""}`);
  const { tools } = await authorized(current, () => client.listTools());
  const schemas = new Map(tools.map((tool) => [tool.name, tool.inputSchema]));
  const attempt = async (what, step) => {
    try {
      return await authorized(current, step);
    } catch (error) {
      console.error(`${what}: ${error instanceof Error ? error.message : String(error)}`);
      // A scenario whose server lists tools and serves no call (json-schema-ref-no-deref) is no failure.
      if (error?.code !== -32601) failed = true;
      return undefined;
    }
  };
  for (const tool of tools) {
    for (const args of argumentsFor(tool.name, schemas, context)) {
      const result = await attempt(tool.name, () => client.callTool({ name: tool.name, arguments: args }));
      if (result)
        console.log(`${tool.name}: isError=${result.isError === true} ${JSON.stringify(result.content)}`);
    }
  }
  // What else the server offers, each used once, as the Switchyard client does.
  const caps = client.getServerCapabilities() ?? {};
  if (caps.resources) {
    const listed = await attempt("resources/list", () => client.listResources());
    for (const resource of listed?.resources ?? []) {
      const read = await attempt(resource.uri, () => client.readResource({ uri: resource.uri }));
      if (read) console.log(`${resource.uri}: ${read.contents.length} content(s)`);
    }
  }
  if (caps.prompts) {
    const listed = await attempt("prompts/list", () => client.listPrompts());
    for (const prompt of listed?.prompts ?? []) {
      const got = await attempt(prompt.name, () =>
        client.getPrompt({ name: prompt.name, arguments: promptArguments(prompt.arguments) }),
      );
      if (got) console.log(`${prompt.name}: ${got.messages.length} message(s)`);
    }
  }
} catch (error) {
  console.error(`connect failed: ${error instanceof Error ? error.message : String(error)}`);
  failed = true;
} finally {
  await client.close().catch(() => {});
}
process.exit(failed ? 1 : 0);
