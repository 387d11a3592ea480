import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { oauthStorePath } from "../../src/internal.js";
// @ts-expect-error: a JavaScript fixture without types
import { startOAuthServer } from "../fixtures/oauth-server.mjs";
import { CLI, NODE, runCli, SDK_SERVER } from "../helpers.js";

interface OAuthFixture {
  url: string;
  stats: { registrations: number; codeGrants: number; refreshes: number; issued: string[] };
  expireAccessTokens(): void;
  close(): Promise<void>;
}

let dir: string;
let configFile: string;
let env: Record<string, string>;
let auth: OAuthFixture;

beforeEach(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), "switchyard-login-"));
  auth = (await startOAuthServer({ accessTtlS: 3600 })) as OAuthFixture;
  configFile = path.join(dir, "switchyard.config.json");
  writeFileSync(
    configFile,
    JSON.stringify({
      mcpServers: {
        guarded: { url: auth.url, oauth: {} },
        local: { command: NODE, args: [SDK_SERVER, "--name", "local"] },
      },
    }),
  );
  // No browser may open: no BROWSER, no PATH with xdg-open (and stdout is a pipe anyway).
  env = { XDG_CONFIG_HOME: path.join(dir, "config"), BROWSER: "" };
});
afterEach(async () => {
  await auth.close();
  rmSync(dir, { recursive: true, force: true });
});

const cli = (...args: string[]) => runCli(["--config", configFile, ...args], { env });

/** `switchyard login`, with a real HTTP client that follows the URL it prints, as a browser would. */
function loginFollowingTheUrl(
  ...extra: string[]
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(NODE, [CLI, "--config", configFile, ...extra, "login", "guarded"], {
      env: { ...process.env, ...env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    let followed = false;
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
      stdout += chunk;
      const url = stdout.match(/^(http:\/\/127\.0\.0\.1:\d+\/authorize\?\S+)$/m)?.[1];
      if (url && !followed) {
        followed = true;
        void (async () => {
          const answer = await fetch(url, { redirect: "manual" });
          const location = answer.headers.get("location")!;
          expect(location).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/callback\?code=/);
          await (await fetch(location)).text();
        })();
      }
    });
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
    child.once("close", (code) => resolve({ code, stdout, stderr }));
  });
}

describe("switchyard login and logout", () => {
  it("needs-auth, login through the printed URL, ready with calls, a refresh, logout, needs-auth again; no token in sight", async () => {
    const before = await cli("servers");
    expect(before.code).toBe(1);
    expect(before.stdout).toMatch(/guarded\s+needs-auth/);
    expect(before.stdout).toContain("switchyard login guarded");
    expect(before.stdout).toMatch(/local\s+ready/);
    const listed = await cli("tools");
    expect(listed.stderr).toContain(
      "warning: server guarded needs a login and is left out: run `switchyard login guarded`",
    );
    expect(listed.stdout).toContain("local_echo");

    const login = await loginFollowingTheUrl("--log-level", "trace");
    expect(login.stderr).not.toContain("Error");
    expect(login.code).toBe(0);
    expect(login.stdout).toContain("logged in to guarded");
    const store = oauthStorePath(auth.url, { XDG_CONFIG_HOME: env.XDG_CONFIG_HOME! });
    expect(statSync(store).mode & 0o777).toBe(0o600);
    expect(JSON.parse(readFileSync(store, "utf8")).tokens.access_token).toBe(auth.stats.issued[0]);

    const after = await cli("servers");
    expect(after.code).toBe(0);
    expect(after.stdout).toMatch(/guarded\s+ready/);

    auth.expireAccessTokens();
    const wire = path.join(dir, "wire.jsonl");
    const called = await cli(
      "--log-level",
      "trace",
      "--trace-wire",
      wire,
      "call",
      "guarded_echo",
      '{"text":"hi"}',
    );
    expect(called.stderr).not.toMatch(/"level":"error"/);
    expect(called.code).toBe(0);
    expect(called.stdout).toContain("hi");
    expect(auth.stats.refreshes).toBe(1);

    const logout = await cli("logout", "guarded");
    expect(logout).toMatchObject({ code: 0 });
    expect(logout.stdout).toContain("logged out of guarded");
    expect(() => statSync(store)).toThrow();
    const again = await cli("servers", "--json");
    const states = JSON.parse(again.stdout) as Array<{ name: string; status: string; error?: string }>;
    expect(states.find((state) => state.name === "guarded")).toMatchObject({ status: "needs-auth" });
    expect(states.find((state) => state.name === "guarded")?.error).toContain("switchyard login guarded");

    const everything = [before, login, after, called, logout, again]
      .map((run) => run.stdout + run.stderr)
      .concat(readFileSync(wire, "utf8"))
      .join("\n");
    expect(auth.stats.issued.length).toBeGreaterThanOrEqual(4);
    for (const secret of auth.stats.issued) expect(everything).not.toContain(secret);
  });

  it("refuses a login to a server that is not remote, naming it", async () => {
    const result = await cli("login", "local");
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("not a remote (url) server");
  });
});
