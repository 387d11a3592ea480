import { randomUUID } from "node:crypto";
import type {
  CreateMessageRequestParams,
  CreateMessageResult,
  ElicitRequestParams,
  ElicitResult,
  LoggingLevel,
} from "@modelcontextprotocol/server";
import type { ElicitationAnswer, ElicitationRequest } from "../client-answers.js";
import { DEFAULT_GATEWAY_PENDING_KEEP_MS } from "../config/defaults.js";
import { SwitchyardError } from "../errors.js";
import type { ServerLogMessage } from "../fleet/client-requests.js";
import { type RequestOrigin, withRequestOrigin } from "../fleet/request-origin.js";
import type { ForwardedSamplingRequest, SwitchyardOptions } from "../switchyard.js";
import type { Logger } from "../telemetry/logger.js";
import { silentLogger } from "../telemetry/logger.js";

/** A server's log message, as the gateway passes it on (`notifications/message`). */
export interface ServerLog {
  level: LoggingLevel;
  /** The server's config name. */
  logger: string;
  data: unknown;
}

/** One question a server asked during a gateway call, waiting for the client's answer. */
export interface Question {
  /** Its key in the `input_required` result's `inputRequests`. */
  key: string;
  kind: "elicitation" | "sampling";
  params: ElicitRequestParams | CreateMessageRequestParams;
  answer(value: unknown): void;
  /** The client cannot answer it: the server's request fails with this error. */
  refuse(error: Error): void;
}

/** How a round of a gateway call ends: the call settled, or it waits for the client's answers. */
export type Round = { done: true } | { done: false; questions: Question[] };

/**
 * A tool call the gateway makes for a client, for as long as it runs: its server, who it is for, the
 * questions its server asked that the client has not answered yet, and where its progress goes now.
 */
export class GatewayCall {
  readonly id = randomUUID();
  readonly server: string;
  readonly user: string;
  readonly abort = new AbortController();
  /** Where progress goes: the request being served now (a retried call's latest round). */
  progress: ((progress: { progress: number; total?: number; message?: string }) => void) | undefined;
  /** Where its server's log messages go: the request being served now, as `progress`. */
  log: ((log: ServerLog) => void) | undefined;
  settled = false;
  result!: Promise<unknown>;
  readonly #questions = new Map<string, Question>();
  #asked = 0;
  #wake: (() => void) | undefined;

  constructor(server: string, user: string) {
    this.server = server;
    this.user = user;
  }

  /** Questions not answered yet. */
  get questions(): Question[] {
    return [...this.#questions.values()];
  }

  /** Ask the client (through the round being served); resolves with its answer. */
  ask(kind: Question["kind"], params: Question["params"], signal: AbortSignal): Promise<unknown> {
    return new Promise((resolve, reject) => {
      const key = `${kind}-${++this.#asked}`;
      const onAbort = () => {
        this.#questions.delete(key);
        reject(signal.reason ?? new Error("the server withdrew its request"));
      };
      signal.addEventListener("abort", onAbort, { once: true });
      this.#questions.set(key, {
        key,
        kind,
        params,
        answer: (value) => {
          signal.removeEventListener("abort", onAbort);
          this.#questions.delete(key);
          resolve(value);
        },
        refuse: (error) => {
          signal.removeEventListener("abort", onAbort);
          this.#questions.delete(key);
          reject(error);
        },
      });
      this.#wake?.();
    });
  }

  /** Hand the client's answers (`inputResponses` of a retried request) to the questions they answer. */
  answer(responses: Record<string, unknown> | undefined): void {
    for (const [key, value] of Object.entries(responses ?? {})) this.#questions.get(key)?.answer(value);
  }

  /** Wait until the call settles, or a question is waiting for the client. */
  async next(): Promise<Round> {
    for (;;) {
      if (this.settled) return { done: true };
      const waiting = this.questions;
      if (waiting.length) return { done: false, questions: waiting };
      await new Promise<void>((resolve) => {
        this.#wake = resolve;
        this.result.then(
          () => resolve(),
          () => resolve(),
        );
      });
      this.#wake = undefined;
    }
  }
}

/**
 * Carries what servers send during a gateway call — elicitation, sampling, log messages — to the client
 * whose call it is, and to no other. Make it before the Switchyard and give the Switchyard its
 * {@link switchyardOptions}, then give it to `createGateway`.
 *
 * Which call a server's message belongs to is the fleet's to say (its `origin`, see
 * `fleet/request-origin.ts`): the call whose request's answer carries it (2026-07-28 `input_required`)
 * or whose request's stream it came on (Streamable HTTP), else the call whose requests are all that is
 * in flight on that server. Otherwise — several calls in flight on a server that names no request (a
 * stdio server before 2026-07-28), or none — it belongs to nobody: a question is cancelled (sampling
 * refused) and a log message is dropped, never handed to a client that may not be the one.
 */
export class ClientRelay {
  /** Calls by id: running ones, and ended ones kept until their client collects the result. */
  readonly #calls = new Map<string, GatewayCall>();
  /** The timers that drop ended calls nobody came back for. */
  readonly #expiries = new Map<string, NodeJS.Timeout>();
  #logger: Logger = silentLogger;

  /**
   * The Switchyard options that route servers' questions and log messages through this relay:
   * `onElicitation` (form and URL mode), `onSamplingRequest`, `onServerLog`; `mcpApps` (the gateway
   * passes apps on); and the `logger` given,
   * which the relay warns on of questions it could not put to anyone.
   */
  switchyardOptions(
    options: { logger?: Logger } = {},
  ): Pick<
    SwitchyardOptions,
    "onElicitation" | "elicitationUrl" | "onSamplingRequest" | "onServerLog" | "mcpApps" | "logger"
  > {
    this.#logger = options.logger ?? silentLogger;
    return {
      onElicitation: (request) => this.#elicit(request),
      elicitationUrl: true,
      onSamplingRequest: (request) => this.#sample(request),
      onServerLog: (log) => this.#serverLog(log),
      // The gateway passes each server's apps on (its tools' `_meta.ui`, its `ui://` views kept apart).
      mcpApps: true,
      ...(options.logger ? { logger: options.logger } : {}),
    };
  }

  /** Start a call: `run` does it inside the call's scope; the call is kept until `forget`. */
  start(server: string, user: string, run: (call: GatewayCall) => Promise<unknown>): GatewayCall {
    const call = new GatewayCall(server, user);
    this.#calls.set(call.id, call);
    // Every request the call sends goes out with it as its origin: what the server sends back is the call's.
    call.result = withRequestOrigin(call, () => run(call));
    call.result.then(
      () => this.#ended(call),
      () => this.#ended(call),
    );
    return call;
  }

  /**
   * The call a retried request continues (its `requestState`), for the same user.
   * @throws SwitchyardError `INVALID_INPUT` when it is unknown here (ended and collected, or started on
   *   another replica) or another user's.
   */
  resume(id: string, user: string): GatewayCall {
    const call = this.#calls.get(id);
    if (!call || call.user !== user)
      throw new SwitchyardError(
        "INVALID_INPUT",
        "this gateway knows no call with that requestState (it ended, or another gateway replica started it): call the tool again",
      );
    return call;
  }

  /** The call's result was handed to its client: drop it (and its keep-alive timer, which holds it). */
  forget(call: GatewayCall): void {
    this.#calls.delete(call.id);
    clearTimeout(this.#expiries.get(call.id));
    this.#expiries.delete(call.id);
  }

  #ended(call: GatewayCall): void {
    call.settled = true;
    // Kept a while for a client that will come back for the result (a retried 2026-07-28 request) —
    // unless its result has been handed over already.
    if (!this.#calls.has(call.id)) return;
    const expiry = setTimeout(() => this.forget(call), DEFAULT_GATEWAY_PENDING_KEEP_MS);
    this.#expiries.set(call.id, expiry.unref());
  }

  /** The call of `origin`, when it is one of ours still running on `server` (see the class's doc). */
  #callFor(server: string, origin: RequestOrigin | undefined): GatewayCall | undefined {
    if (!(origin instanceof GatewayCall) || this.#calls.get(origin.id) !== origin) return undefined;
    return origin.server === server && !origin.settled ? origin : undefined;
  }

  async #elicit(request: ElicitationRequest): Promise<ElicitationAnswer> {
    const call = this.#callFor(request.server, request.origin);
    if (!call) {
      this.#logger.warn(
        { server: request.server },
        `server ${request.server} asked "${request.message}" outside any one client's call (none in flight, or several and the server named none of them): cancelled; run a server that cannot tell its callers apart once per identity (docs/gateway.md)`,
      );
      return { action: "cancel" };
    }
    const params: ElicitRequestParams =
      request.mode === "url"
        ? { mode: "url", message: request.message, url: request.url ?? "", elicitationId: randomUUID() }
        : {
            mode: "form",
            message: request.message,
            requestedSchema: request.requestedSchema as Extract<
              ElicitRequestParams,
              { requestedSchema: unknown }
            >["requestedSchema"],
          };
    const answer = (await call.ask("elicitation", params, request.signal)) as ElicitResult;
    return {
      action: answer.action,
      ...(answer.content ? { content: answer.content as Record<string, unknown> } : {}),
    };
  }

  async #sample(request: ForwardedSamplingRequest): Promise<CreateMessageResult> {
    const call = this.#callFor(request.server, request.origin);
    if (!call)
      throw new SwitchyardError(
        "CAPABILITY_MISSING",
        `server ${request.server} asked for a completion outside any one client's call (none in flight, or several and the server named none of them); run a server that cannot tell its callers apart once per identity (docs/gateway.md)`,
        { server: request.server, capability: "sampling" },
      );
    return (await call.ask("sampling", request.params, request.signal)) as CreateMessageResult;
  }

  /** A server's log message goes to the client whose call it belongs to; one of nobody's is dropped. */
  #serverLog(log: ServerLogMessage): void {
    this.#callFor(log.server, log.origin)?.log?.({ level: log.level, logger: log.server, data: log.data });
  }
}
