import { generateKeyPairSync } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { createServer } from "node:http";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  authorizeServer,
  forgetAuthorization,
  oauthStorePath,
  resolveConfig,
  Switchyard,
  type WireRecord,
} from "../../src/internal.js";
// @ts-expect-error: a JavaScript fixture without types
import { startOAuthServer } from "../fixtures/oauth-server.mjs";
import { memoryLogger, sdk } from "../helpers.js";

interface OAuthFixture {
  url: string;
  origin: string;
  stats: {
    registrations: number;
    codeGrants: number;
    refreshes: number;
    clientCredentials: number;
    issued: string[];
    requestedScopes: string[];
  };
  expireAccessTokens(): void;
  moveAuthorizationTo(other: OAuthFixture, options?: { graceRequests?: number }): void;
  close(): Promise<void>;
}

const opened: Array<{ close(): Promise<void> }> = [];
let configHome: string;
let savedXdg: string | undefined;
beforeEach(() => {
  savedXdg = process.env.XDG_CONFIG_HOME;
  configHome = mkdtempSync(path.join(os.tmpdir(), "switchyard-oauth-"));
  process.env.XDG_CONFIG_HOME = configHome;
});
afterEach(async () => {
  await Promise.all(opened.splice(0).map((resource) => resource.close()));
  if (savedXdg === undefined) delete process.env.XDG_CONFIG_HOME;
  else process.env.XDG_CONFIG_HOME = savedXdg;
  rmSync(configHome, { recursive: true, force: true });
});

async function fixture(
  accessTtlS = 3600,
  clients: unknown[] = [],
  scopes: { challengeScope?: string; stepUpScope?: string } = {},
): Promise<OAuthFixture> {
  const server = (await startOAuthServer({ accessTtlS, clients, ...scopes })) as OAuthFixture;
  opened.push(server);
  return server;
}

const configFor = (url: string) => ({
  mcpServers: { guarded: { url, oauth: {} }, local: sdk("--name", "local") },
});

/** Follow the authorization URL as a browser would: the authorize endpoint, then its redirect. */
async function followInBrowser(url: URL): Promise<void> {
  const answer = await fetch(url, { redirect: "manual" });
  const location = answer.headers.get("location");
  if (!location) throw new Error(`authorize answered ${answer.status} without a redirect`);
  const back = await fetch(new URL(location, url));
  await back.text();
}

async function login(url: string) {
  const [server] = resolveConfig(configFor(url)).servers;
  const seen: URL[] = [];
  const result = await authorizeServer(server!, {
    onAuthorizationUrl: (authorizationUrl) => {
      seen.push(authorizationUrl);
      void followInBrowser(authorizationUrl);
    },
    timeoutMs: 10_000,
  });
  return { result, seen };
}

describe("OAuth for a remote server, on the SDK's auth support", () => {
  it("reports a server without a token as needs-auth, naming the login command; the others work", async () => {
    const auth = await fixture();
    const yard = await Switchyard.connect(configFor(auth.url));
    opened.push(yard);
    const guarded = yard.servers().find((state) => state.name === "guarded");
    expect(guarded).toMatchObject({ status: "needs-auth", errorCode: "AUTH_REQUIRED", transport: "http" });
    expect(guarded!.error).toContain("switchyard login guarded");
    expect(yard.servers().find((state) => state.name === "local")?.status).toBe("ready");
    // A connect never leaves a registration or a verifier behind: only a login writes the store.
    expect(() => statSync(oauthStorePath(auth.url))).toThrow();
  });

  it("logs in (registration, PKCE, code), saves the tokens in a 0600 file, and a reconnect brings the server up", async () => {
    const auth = await fixture();
    const yard = await Switchyard.connect(configFor(auth.url));
    opened.push(yard);
    expect(yard.servers().find((state) => state.name === "guarded")?.status).toBe("needs-auth");

    const { result, seen } = await login(auth.url);
    expect(result).toMatchObject({ server: "guarded", redirected: true });
    expect(seen).toHaveLength(1);
    expect(seen[0]!.searchParams.get("code_challenge_method")).toBe("S256");
    expect(seen[0]!.searchParams.get("redirect_uri")).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/callback$/);
    expect(auth.stats).toMatchObject({ registrations: 1, codeGrants: 1 });
    const store = oauthStorePath(auth.url);
    expect(store.startsWith(path.join(configHome, "switchyard", "auth"))).toBe(true);
    expect(statSync(store).mode & 0o777).toBe(0o600);
    expect(JSON.parse(readFileSync(store, "utf8")).tokens.access_token).toBe(auth.stats.issued[0]);

    await yard.reconnect();
    expect(yard.servers().find((state) => state.name === "guarded")?.status).toBe("ready");
    expect((await yard.callTool("guarded_echo", { text: "through oauth" })).text).toBe("through oauth");
  });

  it("refreshes an expired access token without a login", async () => {
    const auth = await fixture();
    await login(auth.url);
    auth.expireAccessTokens();
    const yard = await Switchyard.connect(configFor(auth.url));
    opened.push(yard);
    expect(yard.servers().find((state) => state.name === "guarded")?.status).toBe("ready");
    expect(auth.stats.refreshes).toBe(1);
    expect(auth.stats.codeGrants).toBe(1);
    expect((await yard.callTool("guarded_echo", { text: "refreshed" })).text).toBe("refreshed");
  });

  it("refreshes an access token that expires while connected, inside the call", async () => {
    const auth = await fixture();
    await login(auth.url);
    const yard = await Switchyard.connect(configFor(auth.url));
    opened.push(yard);
    expect((await yard.callTool("guarded_echo", { text: "before" })).text).toBe("before");
    auth.expireAccessTokens();
    expect((await yard.callTool("guarded_echo", { text: "after" })).text).toBe("after");
    expect(auth.stats.refreshes).toBe(1);
  });

  it("is needs-auth again after logout", async () => {
    const auth = await fixture();
    await login(auth.url);
    const [server] = resolveConfig(configFor(auth.url)).servers;
    expect(forgetAuthorization(server!)).toBe(true);
    expect(() => statSync(oauthStorePath(auth.url))).toThrow();
    const yard = await Switchyard.connect(configFor(auth.url));
    opened.push(yard);
    expect(yard.servers().find((state) => state.name === "guarded")?.status).toBe("needs-auth");
  });

  it("follows a server to another authorization server: needs-auth when the token is refused after the handshake, and the login registers there (SEP-2352)", async () => {
    const [first, second] = [await fixture(), await fixture()];
    const yard = await Switchyard.connect(configFor(first.url));
    opened.push(yard);
    await login(first.url);
    await yard.reconnect();
    expect(yard.servers().find((state) => state.name === "guarded")?.status).toBe("ready");

    // The server now names the second authorization server; the first's token still passes the
    // handshake's one request, and is refused when the tools are listed.
    first.moveAuthorizationTo(second, { graceRequests: 1 });
    await yard.reconnect({ failedOnly: false });
    const guarded = yard.servers().find((state) => state.name === "guarded");
    expect(guarded, guarded?.error).toMatchObject({ status: "needs-auth", errorCode: "AUTH_REQUIRED" });

    // The login discovers afresh: a registration at the second, whose token the server accepts (the
    // first's client id would be refused there: unknown client).
    await login(first.url);
    expect(second.stats).toMatchObject({ registrations: 1, codeGrants: 1 });
    expect(first.stats.registrations).toBe(1);
    await yard.reconnect();
    expect((await yard.callTool("guarded_echo", { text: "moved" })).text).toBe("moved");
  });

  it("never puts a token in the log, the wire trace, servers() or an error", async () => {
    const auth = await fixture();
    await login(auth.url);
    auth.expireAccessTokens(); // a refresh, too, must stay out of sight
    const { logger, lines } = memoryLogger();
    const wire: WireRecord[] = [];
    const yard = await Switchyard.connect(configFor(auth.url), {
      logger,
      wireTrace: (record) => wire.push(record),
    });
    opened.push(yard);
    await yard.callTool("guarded_echo", { text: "quiet" });
    expect(auth.stats.issued.length).toBeGreaterThanOrEqual(4);
    const seen = JSON.stringify([lines(), wire, yard.servers()]);
    expect(wire.length).toBeGreaterThan(0);
    for (const secret of auth.stats.issued) expect(seen).not.toContain(secret);
    expect(seen).not.toMatch(/authorization/i);
  });

  it("connects machine to machine with the client_credentials grant (the SDK's provider): no login, no token file", async () => {
    const machine = {
      client_id: "robot",
      client_secret: "robot-secret",
      grant_types: ["client_credentials"],
    };
    const auth = await fixture(3600, [machine]);
    const { logger, lines } = memoryLogger();
    const yard = await Switchyard.connect(
      {
        mcpServers: {
          guarded: {
            url: auth.url,
            oauth: {
              grant: "client_credentials",
              clientId: "robot",
              clientSecret: "robot-secret",
              issuer: auth.origin,
            },
          },
        },
      },
      { logger },
    );
    opened.push(yard);
    expect(yard.servers()[0]).toMatchObject({ status: "ready" });
    expect((await yard.callTool("guarded_echo", { text: "m2m" })).text).toBe("m2m");
    expect(auth.stats).toMatchObject({ clientCredentials: 1, codeGrants: 0, registrations: 0 });
    expect(() => statSync(oauthStorePath(auth.url))).toThrow();
    const seen = JSON.stringify([lines(), yard.servers()]);
    for (const secret of [...auth.stats.issued, "robot-secret"]) expect(seen).not.toContain(secret);
  });

  it("reports a refused client_credentials grant as AUTH_REQUIRED, without the secret", async () => {
    const auth = await fixture(3600, [{ client_id: "robot", client_secret: "right" }]);
    const yard = await Switchyard.connect({
      mcpServers: {
        guarded: {
          url: auth.url,
          oauth: {
            grant: "client_credentials",
            clientId: "robot",
            clientSecret: "wrong-secret",
            issuer: auth.origin,
          },
        },
      },
    });
    opened.push(yard);
    const [state] = yard.servers();
    expect(state).toMatchObject({ status: "failed", errorCode: "AUTH_REQUIRED" });
    expect(state!.error).toContain("client credentials");
    expect(state!.error).not.toContain("wrong-secret");
  });

  it("warns (not fails) when a machine grant names no issuer, and refuses one that lacks its credentials", () => {
    const at = (oauth: Record<string, unknown>) =>
      resolveConfig({ mcpServers: { m: { url: "https://x.example/mcp", oauth } } });
    const open = at({ grant: "client_credentials", clientId: "a", clientSecret: "b" });
    expect(open.warnings.join("\n")).toMatch(/mcpServers\.m\.oauth: no "issuer"/);
    expect(() => at({ grant: "client_credentials", clientId: "a" })).toThrow(
      /mcpServers\.m\.oauth: .*"clientSecret".*"privateKey"/,
    );
    expect(() => at({ grant: "client_credentials", clientSecret: "b" })).toThrow(/needs "clientId"/);
    expect(() => at({ grant: "cross_app_access", clientId: "a", clientSecret: "b" })).toThrow(
      /"cross_app_access" grant needs "idp"/,
    );
    expect(() => at({ grant: "device_code" })).toThrow(
      /mcpServers\.m\.oauth\.grant: expected "authorization_code"/,
    );
    expect(() => at({ clientMetadataUrl: "http://x.example/client.json" })).toThrow(
      /client ID metadata document/,
    );
  });

  it("signs its client_credentials grant with oauth.privateKey (private_key_jwt): no secret, no login", async () => {
    const { privateKey, publicKey } = generateKeyPairSync("ec", { namedCurve: "P-256" });
    const robot = {
      client_id: "signer",
      public_key_pem: publicKey.export({ type: "spki", format: "pem" }),
      grant_types: ["client_credentials"],
    };
    const auth = await fixture(3600, [robot]);
    const pem = privateKey.export({ type: "pkcs8", format: "pem" }).toString();
    const oauth = { grant: "client_credentials", clientId: "signer", issuer: auth.origin };
    const yard = await Switchyard.connect({
      mcpServers: {
        guarded: { url: auth.url, oauth: { ...oauth, privateKey: pem, signingAlgorithm: "ES256" } },
      },
    });
    opened.push(yard);
    expect(yard.servers()[0]).toMatchObject({ status: "ready" });
    expect((await yard.callTool("guarded_echo", { text: "signed" })).text).toBe("signed");
    expect(auth.stats.clientCredentials).toBe(1);

    // A key the authorization server does not know is refused, and the error says what to check.
    const stranger = generateKeyPairSync("ec", { namedCurve: "P-256" }).privateKey;
    const refused = await Switchyard.connect({
      mcpServers: {
        guarded: {
          url: auth.url,
          oauth: {
            ...oauth,
            privateKey: stranger.export({ type: "pkcs8", format: "pem" }).toString(),
            signingAlgorithm: "ES256",
          },
        },
      },
    });
    opened.push(refused);
    expect(refused.servers()[0]).toMatchObject({ status: "failed", errorCode: "AUTH_REQUIRED" });
    expect(refused.servers()[0]!.error).toContain('"oauth.privateKey"');
  });

  it("asks at login for the scope the server's challenge names", async () => {
    const auth = await fixture(3600, [], { challengeScope: "notes:read" });
    const { result } = await login(auth.url);
    expect(result.redirected).toBe(true);
    expect(auth.stats.requestedScopes).toEqual(["notes:read"]);
    const yard = await Switchyard.connect(configFor(auth.url));
    opened.push(yard);
    expect((await yard.callTool("guarded_echo", { text: "scoped" })).text).toBe("scoped");
  });

  it("steps up: a call the server refuses for a narrow scope is AUTH_REQUIRED naming the login, which then asks for the wider scope", async () => {
    const auth = await fixture(3600, [], { challengeScope: "notes:read", stepUpScope: "notes:write" });
    await login(auth.url);
    const yard = await Switchyard.connect(configFor(auth.url));
    opened.push(yard);
    expect(yard.servers().find((state) => state.name === "guarded")?.status).toBe("ready");
    const refused = await yard.callTool("guarded_echo", { text: "x" }).catch((error: unknown) => error);
    expect(refused).toMatchObject({ code: "AUTH_REQUIRED", server: "guarded" });
    expect((refused as Error).message).toContain("switchyard login guarded");

    await login(auth.url);
    expect(auth.stats.requestedScopes).toHaveLength(2);
    expect(auth.stats.requestedScopes[1]!.split(" ").sort()).toEqual(["notes:read", "notes:write"]);
    await yard.reconnect({ failedOnly: false });
    expect((await yard.callTool("guarded_echo", { text: "wider" })).text).toBe("wider");
  });

  it("listens for the redirect on oauth.redirectPort when it is set, and the redirect URI says so", async () => {
    const auth = await fixture();
    const probe = createServer();
    await new Promise<void>((resolve) => probe.listen(0, "127.0.0.1", resolve));
    const port = (probe.address() as { port: number }).port;
    await new Promise<void>((resolve) => probe.close(() => resolve()));
    const [server] = resolveConfig({
      mcpServers: { guarded: { url: auth.url, oauth: { redirectPort: port } } },
    }).servers;
    const seen: URL[] = [];
    await authorizeServer(server!, {
      onAuthorizationUrl: (url) => {
        seen.push(url);
        void followInBrowser(url);
      },
      timeoutMs: 10_000,
    });
    expect(seen[0]!.searchParams.get("redirect_uri")).toBe(`http://127.0.0.1:${port}/callback`);
    expect(auth.stats.codeGrants).toBe(1);
  });

  it("gives up on a login whose redirect never comes (TIMEOUT), and frees the port", async () => {
    const auth = await fixture();
    const [server] = resolveConfig(configFor(auth.url)).servers;
    const error: unknown = await authorizeServer(server!, {
      onAuthorizationUrl: () => {},
      timeoutMs: 200,
    }).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: "TIMEOUT" });
  });
});
