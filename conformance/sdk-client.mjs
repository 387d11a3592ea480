// The same scenarios through the bare MCP SDK (v2, @modelcontextprotocol/client), for comparison:
// connect over Streamable HTTP, list the tools, call each one. Elicitation is declared with the SDK's
// applyDefaults. Of OAuth, only the client-credentials extension is wired, with the SDK's own providers
// (ClientCredentialsProvider, PrivateKeyJwtProvider) and the credentials the suite passes in
// MCP_CONFORMANCE_CONTEXT; the authorization-code flow (an OAuthClientProvider and a redirect) is not.
import {
  Client,
  ClientCredentialsProvider,
  PrivateKeyJwtProvider,
  StreamableHTTPClientTransport,
} from "@modelcontextprotocol/client";

const url = process.argv[2];
const scenario = process.env.MCP_CONFORMANCE_SCENARIO ?? "";
if (!url) {
  console.error("usage: sdk-client.mjs <server-url>");
  process.exit(2);
}

const ARGS = { add_numbers: { a: 5, b: 3 } };

const client = new Client(
  { name: "sdk-conformance-client", version: "1.0.0" },
  { capabilities: { elicitation: { form: { applyDefaults: true } } } },
);
client.setRequestHandler("elicitation/create", async () => ({ action: "accept", content: {} }));

function authProvider() {
  const context = process.env.MCP_CONFORMANCE_CONTEXT ? JSON.parse(process.env.MCP_CONFORMANCE_CONTEXT) : {};
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
try {
  const provider = authProvider();
  await client.connect(
    new StreamableHTTPClientTransport(new URL(url), provider ? { authProvider: provider } : {}),
  );
  console.log(`scenario ${scenario}: connected ${client.getServerVersion()?.name ?? ""}`);
  const { tools } = await client.listTools();
  for (const tool of tools) {
    try {
      const result = await client.callTool({ name: tool.name, arguments: ARGS[tool.name] ?? {} });
      console.log(`${tool.name}: isError=${result.isError === true} ${JSON.stringify(result.content)}`);
    } catch (error) {
      console.error(`${tool.name}: ${error instanceof Error ? error.message : String(error)}`);
      failed = true;
    }
  }
} catch (error) {
  console.error(`connect failed: ${error instanceof Error ? error.message : String(error)}`);
  failed = true;
} finally {
  await client.close().catch(() => {});
}
process.exit(failed ? 1 : 0);
