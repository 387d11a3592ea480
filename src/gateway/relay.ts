import { AsyncLocalStorage } from "node:async_hooks";
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
 * Carries what servers ask the client during a gateway call — elicitation, sampling — to the client
 * whose call it is, and servers' log messages to the gateway's clients. Make it before the Switchyard
 * and give the Switchyard its {@link switchyardOptions}, then give it to `createGateway`.
 *
 * Which call a server's question belongs to: the call whose work is running when it comes (HTTP
 * servers, 2026-07-28 `input_required`), else the latest call still running on that server (a stdio
 * 2025 server's pushed request carries nothing that names its call).
 */
export class ClientRelay {
  readonly #scope = new AsyncLocalStorage<GatewayCall>();
  /** Calls by id: running ones, and ended ones kept until their client collects the result. */
  readonly #calls = new Map<string, GatewayCall>();
  /** The timers that drop ended calls nobody came back for. */
  readonly #expiries = new Map<string, NodeJS.Timeout>();
  readonly #logListeners = new Set<(log: ServerLog) => void>();
  #logger: Logger = silentLogger;

  /**
   * The Switchyard options that route servers' questions and logs through this relay: `onElicitation`
   * (form and URL mode), `onSamplingRequest`, and the `logger` given wrapped so servers' log messages
   * are passed on as well as written.
   */
  switchyardOptions(
    options: { logger?: Logger } = {},
  ): Pick<SwitchyardOptions, "onElicitation" | "elicitationUrl" | "onSamplingRequest" | "logger"> {
    this.#logger = options.logger ?? silentLogger;
    return {
      onElicitation: (request) => this.#elicit(request),
      elicitationUrl: true,
      onSamplingRequest: (request) => this.#sample(request),
      logger: relayLogger(this.#logger, {}, (log) => this.#serverLog(log)),
    };
  }

  /** Be told of every server log message; returns the function that stops it. */
  onServerLog(listener: (log: ServerLog) => void): () => void {
    this.#logListeners.add(listener);
    return () => this.#logListeners.delete(listener);
  }

  /** Start a call: `run` does it inside the call's scope; the call is kept until `forget`. */
  start(server: string, user: string, run: (call: GatewayCall) => Promise<unknown>): GatewayCall {
    const call = new GatewayCall(server, user);
    this.#calls.set(call.id, call);
    call.result = this.#scope.run(call, () => run(call));
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

  /** The call a server's question belongs to (see the class's doc). */
  #callFor(server: string): GatewayCall | undefined {
    const scoped = this.#scope.getStore();
    if (scoped && scoped.server === server && !scoped.settled) return scoped;
    let latest: GatewayCall | undefined;
    for (const call of this.#calls.values()) if (call.server === server && !call.settled) latest = call;
    return latest;
  }

  async #elicit(request: ElicitationRequest): Promise<ElicitationAnswer> {
    const call = this.#callFor(request.server);
    if (!call) {
      this.#logger.warn(
        { server: request.server },
        `server ${request.server} asked "${request.message}" outside any client's call: cancelled`,
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
    const call = this.#callFor(request.server);
    if (!call)
      throw new SwitchyardError(
        "CAPABILITY_MISSING",
        `server ${request.server} asked for a completion outside any client's call`,
        { server: request.server, capability: "sampling" },
      );
    return (await call.ask("sampling", request.params, request.signal)) as CreateMessageResult;
  }

  #serverLog(log: ServerLog): void {
    for (const listener of this.#logListeners) listener(log);
  }
}

/** MCP's log levels for ours, for server log messages logged at one of ours. */
const MCP_LEVELS: Record<string, LoggingLevel> = {
  trace: "debug",
  debug: "debug",
  info: "info",
  warn: "warning",
  error: "error",
};

/**
 * `logger`, also handing every server log message (`source: "server log"`, which the fleet logs with the
 * server's level as `serverLevel`) to `onLog`.
 */
function relayLogger(
  logger: Logger,
  bindings: Record<string, unknown>,
  onLog: (log: ServerLog) => void,
): Logger {
  const level =
    (name: "trace" | "debug" | "info" | "warn" | "error") =>
    (fields: Record<string, unknown>, message: string) => {
      if (fields.source === "server log" && typeof bindings.server === "string") {
        onLog({
          level: (fields.serverLevel as LoggingLevel | undefined) ?? MCP_LEVELS[name] ?? "info",
          logger: bindings.server,
          data: message,
        });
      }
      logger[name](fields, message);
    };
  return {
    trace: level("trace"),
    debug: level("debug"),
    info: level("info"),
    warn: level("warn"),
    error: level("error"),
    child: (more) => relayLogger(logger.child(more), { ...bindings, ...more }, onLog),
    ...(logger.isLevelEnabled ? { isLevelEnabled: (name: string) => logger.isLevelEnabled!(name) } : {}),
  };
}
