// Sealed 2025-11-25 sessions: what a replica needs to take up a session (its user, and the client's
// `initialize` to replay: client info, capabilities, protocol version) travels in the `Mcp-Session-Id`
// itself, encrypted and authenticated with a key the replicas share (`gateway.sessionKey`), so that any
// replica serves any session with no store. AES-256-GCM from node:crypto: synchronous, no dependency, and
// a shorter id than a compact JWE (no header or empty key segment), on the path of every request.
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from "node:crypto";
import type { Clock } from "../abort.js";
import {
  DEFAULT_GATEWAY_SESSION_KEY_MIN_CHARS,
  DEFAULT_GATEWAY_SESSION_MAX_AGE_MS,
} from "../config/defaults.js";
import { SwitchyardError } from "../errors.js";

/** What a sealed id begins with: the format's version (a later one can be told apart). */
export const SEALED_PREFIX = "sy1.";
/** Bound to every seal: a ciphertext of another purpose under the same key does not open as a session. */
const AAD = Buffer.from("switchyard gateway session v1");
const IV_BYTES = 12;
const TAG_BYTES = 16;

/** What a sealed id carries. */
export interface SealedSession {
  /** The identity's user the session was begun for: another user's token cannot use it. */
  user: string;
  /** The client's `initialize` request, replayed into the server instance of a replica that takes it up. */
  initialize: unknown;
  /** When it was begun and when it stops being accepted (ms since the epoch). */
  issuedAt: number;
  expiresAt: number;
}

/** What opening an id gives: the session, or why it cannot be served. */
export type OpenedSession =
  | { type: "open"; session: SealedSession }
  /** Not sealed by any accepted key, or altered. */
  | { type: "unknown" }
  | { type: "expired"; expiresAt: number };

/** Options of {@link SessionSeal}. */
export interface SessionSealOptions {
  /** The key new ids are sealed with (at least `DEFAULT_GATEWAY_SESSION_KEY_MIN_CHARS` characters). */
  key: string;
  /** Keys ids are still opened with, never sealed with: the ones before a rotation. */
  previousKeys?: readonly string[] | undefined;
  /** How long a sealed id is accepted after its `initialize`; default {@link DEFAULT_GATEWAY_SESSION_MAX_AGE_MS}. */
  maxAgeMs?: number | undefined;
  /** The wall clock (ms since the epoch); default `Date.now`. */
  clock?: Clock | undefined;
}

/**
 * Seals sessions into ids and opens them: AES-256-GCM under a key derived (HKDF-SHA-256) from
 * `key`; ids sealed under one of `previousKeys` still open. An id past its `expiresAt` is `expired`.
 * @throws SwitchyardError `INVALID_INPUT` when a key is shorter than
 *   `DEFAULT_GATEWAY_SESSION_KEY_MIN_CHARS`, or `maxAgeMs` is not a positive integer.
 */
export class SessionSeal {
  readonly #sealKey: Buffer;
  readonly #openKeys: Buffer[];
  readonly #maxAgeMs: number;
  readonly #clock: Clock;

  constructor(options: SessionSealOptions) {
    this.#sealKey = derive(options.key, "gateway.sessionKey");
    this.#openKeys = [
      this.#sealKey,
      ...(options.previousKeys ?? []).map((key) => derive(key, "gateway.previousSessionKeys")),
    ];
    const maxAgeMs = options.maxAgeMs ?? DEFAULT_GATEWAY_SESSION_MAX_AGE_MS;
    if (!Number.isSafeInteger(maxAgeMs) || maxAgeMs <= 0)
      throw new SwitchyardError(
        "INVALID_INPUT",
        `sessionMaxAgeMs must be a positive integer (got ${maxAgeMs})`,
      );
    this.#maxAgeMs = maxAgeMs;
    this.#clock = options.clock ?? { now: () => Date.now() };
  }

  /** A new session id for `user`'s session begun by `initialize`, accepted `maxAgeMs` from now. */
  seal(user: string, initialize: unknown): string {
    const issuedAt = this.#clock.now();
    // Not compressed: deflate would save a third of ~250 bytes at several times the cost of the cipher.
    const plain = JSON.stringify({ u: user, i: initialize, iat: issuedAt, exp: issuedAt + this.#maxAgeMs });
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv("aes-256-gcm", this.#sealKey, iv);
    cipher.setAAD(AAD);
    const sealed = Buffer.concat([iv, cipher.update(plain, "utf8"), cipher.final(), cipher.getAuthTag()]);
    return `${SEALED_PREFIX}${sealed.toString("base64url")}`;
  }

  /** The session `id` carries, when one of the accepted keys sealed it and it has not expired. */
  open(id: string): OpenedSession {
    if (!id.startsWith(SEALED_PREFIX)) return { type: "unknown" };
    const sealed = Buffer.from(id.slice(SEALED_PREFIX.length), "base64url");
    if (sealed.length < IV_BYTES + TAG_BYTES + 1) return { type: "unknown" };
    const iv = sealed.subarray(0, IV_BYTES);
    const tag = sealed.subarray(sealed.length - TAG_BYTES);
    const body = sealed.subarray(IV_BYTES, sealed.length - TAG_BYTES);
    for (const key of this.#openKeys) {
      const session = openWith(key, iv, body, tag);
      if (!session) continue;
      if (this.#clock.now() >= session.expiresAt) return { type: "expired", expiresAt: session.expiresAt };
      return { type: "open", session };
    }
    return { type: "unknown" };
  }
}

/** The session sealed in `body` under `key`, or undefined when the tag does not verify (another key, altered). */
function openWith(key: Buffer, iv: Buffer, body: Buffer, tag: Buffer): SealedSession | undefined {
  try {
    const decipher = createDecipheriv("aes-256-gcm", key, iv);
    decipher.setAAD(AAD);
    decipher.setAuthTag(tag);
    const plain = Buffer.concat([decipher.update(body), decipher.final()]);
    const { u, i, iat, exp } = JSON.parse(plain.toString("utf8")) as Record<string, unknown>;
    if (typeof u !== "string" || typeof iat !== "number" || typeof exp !== "number") return undefined;
    return { user: u, initialize: i, issuedAt: iat, expiresAt: exp };
  } catch {
    return undefined;
  }
}

/** A 256-bit AES key from a configured secret (HKDF-SHA-256: any long random string will do). */
function derive(secret: string, name: string): Buffer {
  if (typeof secret !== "string" || secret.length < DEFAULT_GATEWAY_SESSION_KEY_MIN_CHARS)
    throw new SwitchyardError(
      "INVALID_INPUT",
      `${name} must be at least ${DEFAULT_GATEWAY_SESSION_KEY_MIN_CHARS} characters (make one with: openssl rand -base64 32)`,
    );
  return Buffer.from(hkdfSync("sha256", secret, "switchyard", "gateway session seal v1", 32));
}
