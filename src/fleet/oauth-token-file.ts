// Where a `url` server's OAuth state is kept: one file per server URL (mode 0600, in a 0700 folder),
// holding its client registration, tokens, PKCE verifier and discovery state.
import { createHash } from "node:crypto";
import { chmodSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import type {
  OAuthDiscoveryState,
  StoredOAuthClientInformation,
  StoredOAuthTokens,
} from "@modelcontextprotocol/client";

/** What one server's token file holds. */
export interface StoredAuth {
  clientInformation?: StoredOAuthClientInformation;
  tokens?: StoredOAuthTokens;
  codeVerifier?: string;
  discoveryState?: OAuthDiscoveryState;
  /** The scope a 403 `insufficient_scope` asked for during a session: the next login asks for it too. */
  stepUpScope?: string;
}

/**
 * The folder of the token files: `$XDG_CONFIG_HOME/switchyard/auth`, else `~/.config/switchyard/auth`.
 */
export function oauthStoreFolder(env: NodeJS.ProcessEnv = process.env): string {
  const base = env.XDG_CONFIG_HOME ? env.XDG_CONFIG_HOME : path.join(os.homedir(), ".config");
  return path.join(base, "switchyard", "auth");
}

/** The token file of the server at `serverUrl`: `<folder>/<sha-256 of the URL, 32 hex digits>.json`. */
export function oauthStorePath(serverUrl: string, env: NodeJS.ProcessEnv = process.env): string {
  const hash = createHash("sha256").update(serverUrl).digest("hex").slice(0, 32);
  return path.join(oauthStoreFolder(env), `${hash}.json`);
}

/** A file store of one server's OAuth state, written with mode 0600 in a 0700 folder. */
export class TokenFile {
  readonly path: string;
  constructor(file: string) {
    this.path = file;
  }
  read(): StoredAuth {
    try {
      return JSON.parse(readFileSync(this.path, "utf8")) as StoredAuth;
    } catch {
      return {};
    }
  }
  update(change: (stored: StoredAuth) => void): void {
    const stored = this.read();
    change(stored);
    mkdirSync(path.dirname(this.path), { recursive: true, mode: 0o700 });
    writeFileSync(this.path, `${JSON.stringify(stored, null, 2)}\n`, { mode: 0o600 });
    chmodSync(this.path, 0o600);
  }
  exists(): boolean {
    return existsSync(this.path);
  }
  remove(): boolean {
    try {
      rmSync(this.path);
      return true;
    } catch {
      return false;
    }
  }
}
