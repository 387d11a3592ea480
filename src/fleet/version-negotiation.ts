// Which protocol revision a session asks for: what a restart reuses of an earlier life's negotiation,
// and the stdio version probe watched, so that a server that cannot take it is started again without.
import { SdkError, SdkErrorCode } from "@modelcontextprotocol/client";
import { DEFAULT_STDIO_PROBE_WAIT_MS } from "../config/defaults.js";
import type { VersionNegotiation } from "../config/schema.js";
import type { StdioTransport } from "./stdio-transport.js";

/** The first version of the protocol negotiated with `server/discover` rather than `initialize`. */
const FIRST_DISCOVER_VERSION = "2026-07-28";

/**
 * The negotiation that reaches `version` again without a probe: `{ pin: version }` for a revision
 * negotiated with `server/discover` (2026-07-28 and later), `"legacy"` for an older one.
 */
export function negotiationFor(version: string | undefined): VersionNegotiation | undefined {
  if (version === undefined) return undefined;
  return version >= FIRST_DISCOVER_VERSION ? { pin: version } : "legacy";
}

/**
 * The version probe of a stdio server on `"auto"` negotiation, watched for one start. A server that
 * closes during the probe (some exit on any request before `initialize`), or leaves it unanswered for
 * {@link DEFAULT_STDIO_PROBE_WAIT_MS} and is stopped, is started again with a plain `initialize`.
 */
export class StdioProbeWatch {
  readonly #waitMs: number;
  #unanswered = false;

  constructor(connectTimeoutMs: number) {
    this.#waitMs = Math.min(connectTimeoutMs, DEFAULT_STDIO_PROBE_WAIT_MS);
  }

  /** The probe's wait: how long a stdio server may leave it unanswered (capped by `connectTimeoutMs`). */
  get waitMs(): number {
    return this.#waitMs;
  }

  /** The probe went unanswered for the probe's wait, and the server's process was stopped. */
  get unanswered(): boolean {
    return this.#unanswered;
  }

  /**
   * Stop the server if it leaves the version probe unanswered for the probe's wait: it is then started
   * again with a plain `initialize` (see `ServerSession.open`). Falling back on the same connection, as
   * the SDK does, is right only for a server that read the probe and ignored it; a server slow to start
   * reads it later, as a request before `initialize`, which many servers cannot forgive (they exit,
   * answer with an error and refuse the handshake, or end their session and stay silent). Only a fresh
   * process never sees the probe. Clear the timer it returns once connected.
   */
  watch(transport: StdioTransport): NodeJS.Timeout {
    this.#unanswered = false;
    return setTimeout(() => {
      if (!transport.probing) return;
      this.#unanswered = true;
      void transport.close();
    }, this.#waitMs);
  }

  /** Whether a server that failed its first start with `error` goes again with a plain `initialize`. */
  startAgain(error: unknown): boolean {
    return this.#unanswered || isProbeCutShort(error);
  }
}

function isProbeCutShort(error: unknown): boolean {
  return (
    error instanceof SdkError &&
    error.code === SdkErrorCode.EraNegotiationFailed &&
    /closed during the server\/discover probe/.test(error.message)
  );
}
