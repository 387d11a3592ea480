// The gateway's authentication against a real local issuer: JWTs signed with jose, its metadata and JWKS
// served over loopback HTTP; the gateway served over real HTTP to the SDK client, fronting a real stdio
// MCP server, with a policy per role.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer, request, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { exportJWK, generateKeyPair, type JWK, SignJWT } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { resolveConfig } from "../../src/config/index.js";
import { gatewayAuthSchema } from "../../src/config/schema.js";
import { createGatewayAuth, PROTECTED_RESOURCE_METADATA_PATH } from "../../src/gateway/auth.js";
import { createGateway, type Gateway } from "../../src/gateway/gateway.js";
import { type HttpListener, listenHttp } from "../../src/gateway/http.js";
import { Switchyard } from "../../src/index.js";
import { CLI, type HttpServer, NODE, SDK_SERVER, sdk, startHttpServer } from "../helpers.js";

/** A loopback HTTP server for a fetch-style handler; resolves with its origin. */
async function listen(
  handler: (request: Request) => Promise<Response> | Response,
): Promise<{ origin: string; server: Server }> {
  const server = createServer(async (req, res) => {
    const response = await handler(new Request(`http://127.0.0.1${req.url}`));
    res.writeHead(response.status, Object.fromEntries(response.headers));
    res.end(Buffer.from(await response.arrayBuffer()));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

const close = (server: Server) =>
  new Promise<void>((resolve) => {
    server.closeAllConnections();
    server.close(() => resolve());
  });

/** An authorization server of our own: RFC 8414 metadata and a JWKS, and a signer for its tokens. */
async function startIssuer() {
  const { privateKey, publicKey } = await generateKeyPair("RS256");
  const jwk: JWK = { ...(await exportJWK(publicKey)), kid: "k1", alg: "RS256", use: "sig" };
  let jwksRequests = 0;
  const issuerRef = { url: "" };
  const { origin, server } = await listen((request) => {
    const path = new URL(request.url).pathname;
    if (path === "/.well-known/oauth-authorization-server")
      return Response.json({ issuer: issuerRef.url, jwks_uri: `${issuerRef.url}/jwks` });
    if (path === "/jwks") {
      jwksRequests += 1;
      return Response.json({ keys: [jwk] });
    }
    return new Response("not found", { status: 404 });
  });
  issuerRef.url = origin;
  const sign = (
    claims: Record<string, unknown>,
    options: { expiresIn?: string; key?: Parameters<SignJWT["sign"]>[0] } = {},
  ) =>
    new SignJWT(claims)
      .setProtectedHeader({ alg: "RS256", kid: "k1" })
      .setIssuedAt()
      .setExpirationTime(options.expiresIn ?? "5m")
      .sign(options.key ?? privateKey);
  return { url: origin, server, sign, jwksRequests: () => jwksRequests };
}

type Issuer = Awaited<ReturnType<typeof startIssuer>>;

/** An HTTP proxy in front of an upstream MCP server that keeps every Authorization header it sees. */
async function recordingProxy(target: string) {
  const authorizations: string[] = [];
  const server = createServer(async (req, res) => {
    authorizations.push(req.headers.authorization ?? "");
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const headers = Object.fromEntries(
      Object.entries(req.headers).filter(([key]) => !["host", "content-length", "connection"].includes(key)),
    ) as Record<string, string>;
    const answer = await fetch(new URL(req.url ?? "/", target), {
      method: req.method ?? "GET",
      headers,
      ...(chunks.length > 0 ? { body: Buffer.concat(chunks) } : {}),
    });
    res.writeHead(answer.status, Object.fromEntries(answer.headers));
    try {
      if (answer.body) for await (const chunk of answer.body) res.write(chunk);
    } catch {
      // the upstream went away (its event stream, at the end of the test)
    }
    res.end();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    server,
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`,
    authorizations,
  };
}

describe("gateway authentication", () => {
  let issuer: Issuer;
  let yard: Switchyard;
  let gateway: Gateway;
  let listener: HttpListener;
  let upstream: HttpServer;
  let recorder: Awaited<ReturnType<typeof recordingProxy>>;
  let url: string;

  beforeAll(async () => {
    issuer = await startIssuer();
    upstream = await startHttpServer(NODE, [
      SDK_SERVER,
      "--name",
      "remote",
      "--tools",
      "echo",
      "--http",
      "0",
    ]);
    recorder = await recordingProxy(upstream.url);
    const config = resolveConfig({
      mcpServers: { sdk: sdk("--tools", "echo,add"), remote: { url: recorder.url } },
      policy: {
        rules: [
          { effect: "allow", roles: ["reader"], servers: ["sdk"], tools: ["echo"] },
          { effect: "allow", roles: ["admin"] },
        ],
      },
    });
    yard = await Switchyard.connect(config);
    const auth = createGatewayAuth(
      gatewayAuthSchema.parse({
        tokens: [{ token: "static-token-for-the-ci-0123456789", user: "ci-bot", roles: ["reader"] }],
        oauth: { issuer: issuer.url, rolesClaim: "realm_access.roles" },
      }),
      { resourceUrl: () => url },
    );
    gateway = createGateway(yard, { authenticate: auth.authenticate });
    listener = await listenHttp(gateway, { port: 0, auth });
    url = listener.url;
  });

  afterAll(async () => {
    await listener?.close();
    await gateway?.close();
    await yard?.close();
    await upstream?.close();
    if (recorder) await close(recorder.server);
    if (issuer) await close(issuer.server);
  });

  const post = (headers: Record<string, string>) =>
    fetch(url, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        ...headers,
      },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "initialize",
        params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "t", version: "0" } },
      }),
    });

  /** The SDK client over HTTP with this bearer token; extra headers on every request. */
  async function connect(token: string, headers: Record<string, string> = {}, stateless = false) {
    const client = new Client(
      { name: "auth-test", version: "0" },
      stateless ? { versionNegotiation: { mode: "auto" } } : {},
    );
    await client.connect(
      new StreamableHTTPClientTransport(new URL(url), {
        requestInit: { headers: { authorization: `Bearer ${token}`, ...headers } },
      }),
    );
    return client;
  }

  it("answers a request without a token 401, its WWW-Authenticate naming the protected resource metadata", async () => {
    const response = await post({});
    expect(response.status).toBe(401);
    const challenge = response.headers.get("www-authenticate")!;
    const metadataUrl = /resource_metadata="([^"]+)"/.exec(challenge)?.[1];
    expect(metadataUrl).toBe(`${new URL(url).origin}${PROTECTED_RESOURCE_METADATA_PATH}/mcp`);
    const metadata = await (await fetch(metadataUrl!)).json();
    expect(metadata).toMatchObject({ resource: url, authorization_servers: [issuer.url] });
    // The root well-known URL answers too (clients that try it first).
    expect((await fetch(`${new URL(url).origin}${PROTECTED_RESOURCE_METADATA_PATH}`)).status).toBe(200);
  });

  it("serves a valid token's user, and its roles from the configured claim", async () => {
    const token = await issuer.sign({
      sub: "alice",
      aud: url,
      iss: issuer.url,
      realm_access: { roles: ["admin"] },
    });
    const client = await connect(token);
    try {
      const { tools } = await client.listTools();
      expect(tools.map((tool) => tool.name)).toEqual(expect.arrayContaining(["sdk_add", "sdk_echo"]));
      const result = await client.callTool({ name: "sdk_add", arguments: { a: 2, b: 3 } });
      expect(result.isError).toBeFalsy();
      // Through to an upstream HTTP server: the caller's token is the gateway's to read, never passed on.
      const remote = await client.callTool({ name: "remote_echo", arguments: { text: "hi" } });
      expect(remote.isError).toBeFalsy();
      expect(recorder.authorizations.length).toBeGreaterThan(0);
      expect(recorder.authorizations.filter((header) => header.includes(token))).toEqual([]);
    } finally {
      await client.close();
    }
  });

  it.each([
    [
      "an expired token",
      { sub: "alice", realm_access: { roles: ["admin"] } },
      { expiresIn: "-5m" },
      /expired/,
    ],
    ["a token for another audience", { sub: "alice", aud: "https://other.example/mcp" }, {}, /aud/],
    ["a token of another issuer", { sub: "alice", iss: "https://evil.example" }, {}, /issuer/],
  ])("refuses %s with 401 invalid_token", async (_, claims, options, reason) => {
    const token = await issuer.sign({ aud: url, iss: issuer.url, ...claims }, options);
    const response = await post({ authorization: `Bearer ${token}` });
    expect(response.status).toBe(401);
    const challenge = response.headers.get("www-authenticate")!;
    expect(challenge).toContain('error="invalid_token"');
    expect(challenge).toContain("resource_metadata=");
    expect(((await response.json()) as { error_description: string }).error_description).toMatch(reason);
  });

  it("refuses a token signed with a key the issuer does not publish", async () => {
    const { privateKey } = await generateKeyPair("RS256");
    const token = await issuer.sign({ sub: "mallory", aud: url, iss: issuer.url }, { key: privateKey });
    const response = await post({ authorization: `Bearer ${token}` });
    expect(response.status).toBe(401);
    expect(((await response.json()) as { error_description: string }).error_description).toMatch(/signature/);
  });

  it("accepts a static bearer token of the config as its user and roles, and refuses any other", async () => {
    const client = await connect("static-token-for-the-ci-0123456789");
    try {
      expect((await client.listTools()).tools.map((tool) => tool.name)).toEqual(["sdk_echo"]);
    } finally {
      await client.close();
    }
    const response = await post({ authorization: "Bearer static-token-for-the-ci-012345678X" });
    expect(response.status).toBe(401);
  });

  it.each([
    ["2025-11-25", false],
    ["2026-07-28", true],
  ])(
    "hides a tool the policy denies to the token's roles from tools/list, and refuses its call, whatever the headers say (%s)",
    async (revision, stateless) => {
      const token = await issuer.sign({
        sub: "bob",
        aud: url,
        iss: issuer.url,
        realm_access: { roles: ["reader"] },
      });
      // Headers a client can set (the 2026-07-28 Mcp-Name among them) never name the tool for the policy.
      const client = await connect(
        token,
        { "mcp-name": "sdk_echo", "x-switchyard-tool": "sdk_echo" },
        stateless,
      );
      try {
        expect(client.getNegotiatedProtocolVersion()).toBe(revision);
        const { tools } = await client.listTools();
        expect(tools.map((tool) => tool.name)).toEqual(["sdk_echo"]);
        const echoed = await client.callTool({ name: "sdk_echo", arguments: { text: "hi" } });
        expect(echoed.isError).toBeFalsy();
        const refused = await client.callTool({ name: "sdk_add", arguments: { a: 1, b: 2 } }).then(
          (result) => JSON.stringify(result),
          (error: Error) => error.message,
        );
        expect(refused).toMatch(/sdk_add \(tool add on server sdk\) is denied to user bob/);
        expect(refused).not.toMatch(/"sum"/);
      } finally {
        await client.close();
      }
    },
  );

  it("answers 403 insufficient_scope for a token without a required scope, and 503 when the issuer's keys cannot be read", async () => {
    const scoped = createGatewayAuth(
      gatewayAuthSchema.parse({ oauth: { issuer: issuer.url, scopes: ["mcp:tools"] } }),
      {
        resourceUrl: url,
      },
    );
    const ask = (gate: ReturnType<typeof createGatewayAuth>, token: string) =>
      gate.authenticate(new Request(url, { method: "POST", headers: { authorization: `Bearer ${token}` } }));
    const without = await ask(
      scoped,
      await issuer.sign({ sub: "carol", aud: url, iss: issuer.url, scope: "other" }),
    );
    expect((without as Response).status).toBe(403);
    expect((without as Response).headers.get("www-authenticate")).toContain('error="insufficient_scope"');
    const withScope = await ask(
      scoped,
      await issuer.sign({ sub: "carol", aud: url, iss: issuer.url, scope: "mcp:tools x" }),
    );
    expect(withScope).toMatchObject({ user: "carol", attributes: { scope: "mcp:tools x" } });
    // An issuer nobody answers for (a port just closed): the token cannot be checked, which is not its fault.
    const gone = await listen(() => new Response("", { status: 500 }));
    await close(gone.server);
    const unreachable = createGatewayAuth(gatewayAuthSchema.parse({ oauth: { issuer: gone.origin } }), {
      resourceUrl: url,
    });
    const answer = (await ask(
      unreachable,
      await issuer.sign({ sub: "carol", aud: url, iss: gone.origin }),
    )) as Response;
    expect(answer.status).toBe(503);
    expect(((await answer.json()) as { error_description: string }).error_description).toMatch(
      /no JWKS found for the issuer/,
    );
  });

  it("takes gateway.auth from the config, and names the key of a bad entry", () => {
    const config = resolveConfig(
      { mcpServers: {}, gateway: { auth: { tokens: [{ token: "${T}", user: "ci", roles: ["reader"] }] } } },
      { env: { T: "0123456789abcdef0123" } },
    );
    expect(config.gateway?.auth?.tokens?.[0]).toMatchObject({ token: "0123456789abcdef0123", user: "ci" });
    expect(() =>
      resolveConfig({ mcpServers: {}, gateway: { auth: { tokens: [{ token: "short", user: "u" }] } } }),
    ).toThrow(/gateway\.auth\.tokens\.0\.token: expected a token of at least 16 characters/);
    expect(() => resolveConfig({ mcpServers: {}, gateway: { auth: { oauth: { issuer: "nope" } } } })).toThrow(
      /gateway\.auth\.oauth\.issuer: expected the authorization server's issuer/,
    );
  });

  it("refuses a request whose Host or Origin is not the gateway's (DNS rebinding) before asking for a token", async () => {
    // fetch() sets Host itself: node:http sends the one a rebound page's request would carry.
    const rebound = await new Promise<number>((resolve, reject) => {
      const target = new URL(url);
      request(
        {
          host: target.hostname,
          port: target.port,
          path: target.pathname,
          method: "POST",
          headers: {
            host: "evil.example",
            "content-type": "application/json",
            authorization: "Bearer static-token-for-the-ci-0123456789",
          },
        },
        (response) => {
          response.resume();
          resolve(response.statusCode!);
        },
      )
        .on("error", reject)
        .end("{}");
    });
    expect(rebound).toBe(403);
    const fromPage = await post({
      origin: "http://evil.example",
      authorization: "Bearer static-token-for-the-ci-0123456789",
    });
    expect(fromPage.status).toBe(403);
    expect(((await fromPage.json()) as { error: { message: string } }).error.message).toMatch(
      /gateway\.allowedOrigins/,
    );
  });
});

describe("switchyard serve --http with gateway.auth", () => {
  it("refuses a request without the config's token and serves one with it", async () => {
    const dir = mkdtempSync(join(tmpdir(), "switchyard-serve-auth-"));
    const config = join(dir, "switchyard.config.json");
    writeFileSync(
      config,
      JSON.stringify({
        mcpServers: { sdk: sdk("--tools", "echo") },
        store: false,
        gateway: { auth: { tokens: [{ token: "${GATEWAY_TOKEN}", user: "ci", roles: [] }] } },
      }),
    );
    const served = await startHttpServer(NODE, [CLI, "--config", config, "serve", "--http", "0"], {
      env: { GATEWAY_TOKEN: "a-token-from-the-environment-42" },
      urlFrom: (output) => /serving .* at (http:\/\/\S+)/.exec(output)?.[1],
    });
    try {
      const initialize = (authorization?: string) =>
        fetch(served.url, {
          method: "POST",
          headers: {
            "content-type": "application/json",
            accept: "application/json, text/event-stream",
            ...(authorization ? { authorization } : {}),
          },
          body: JSON.stringify({
            jsonrpc: "2.0",
            id: 1,
            method: "initialize",
            params: {
              protocolVersion: "2025-11-25",
              capabilities: {},
              clientInfo: { name: "t", version: "0" },
            },
          }),
        });
      const refused = await initialize();
      expect(refused.status).toBe(401);
      expect(refused.headers.get("www-authenticate")).toContain("Bearer");
      const accepted = await initialize("Bearer a-token-from-the-environment-42");
      expect(accepted.status).toBe(200);
      await accepted.body?.cancel();
    } finally {
      await served.close();
      rmSync(dir, { recursive: true, force: true });
    }
  }, 30_000);
});
