// Writes a request's audit rows, and what happens when one cannot be written (`audit.onWriteError`):
// the request fails (`fail`, the default: nothing goes out without its row), or goes on, said loudly,
// the entries lost counted and marked in the chain by a `gap` row once a row can be written again.
import { DEFAULT_AUDIT_ON_WRITE_ERROR } from "../config/defaults.js";
import type { AuditWriteErrorMode } from "../config/vocabulary.js";
import { messageOf, SwitchyardError } from "../errors.js";
import type { AuditEntry, AuditSink } from "../telemetry/audit.js";
import type { SwitchyardEvent } from "../telemetry/events.js";
import type { Logger } from "../telemetry/logger.js";
import type { RequestContext } from "./request.js";

/** One audit row of a request, beside what every row of it carries. */
export type AuditRowOf = Pick<AuditEntry, "kind" | "outcome" | "rule" | "summary" | "ms">;

/** Options of {@link AuditWriter}. */
export interface AuditWriterOptions {
  /** Applied to the arguments before they go to the log. */
  redact?: ((value: unknown) => unknown) | undefined;
  logger: Logger;
  /** What a request does when its row cannot be written; default `DEFAULT_AUDIT_ON_WRITE_ERROR` (`fail`). */
  onWriteError?: AuditWriteErrorMode | undefined;
  /** Told of each row that could not be written (an `audit_unwritten` event for the observers). */
  onUnwritten?: ((event: Extract<SwitchyardEvent, { type: "audit_unwritten" }>) => void) | undefined;
}

/** Entries not written since the last row that was. */
interface Lost {
  count: number;
  /** When the first of them could not be written. */
  since: string;
  /** Why the last of them could not. */
  reason: string;
}

/**
 * Writes a request's audit rows: who, what, the arguments (through `redact`), and the row's own part.
 * A row that cannot be written (the sink throws or rejects) is logged as an error and counted: a `gap`
 * row saying how many, since when and why goes in the chain before the next row that can be written
 * (or at {@link close}). With `onWriteError: "fail"` {@link write} also resolves with the
 * `STORE_ERROR` the request must fail with.
 */
export class AuditWriter {
  readonly #sink: AuditSink;
  readonly #redact: (value: unknown) => unknown;
  readonly #logger: Logger;
  readonly #mode: AuditWriteErrorMode;
  readonly #onUnwritten: AuditWriterOptions["onUnwritten"];
  #lost: Lost | undefined;

  constructor(sink: AuditSink, options: AuditWriterOptions) {
    this.#sink = sink;
    this.#redact = options.redact ?? ((value) => value);
    this.#logger = options.logger;
    this.#mode = options.onWriteError ?? DEFAULT_AUDIT_ON_WRITE_ERROR;
    this.#onUnwritten = options.onUnwritten;
  }

  /**
   * Append one row of a request. Resolves once it is written; when it cannot be: with `fail`, with
   * the `STORE_ERROR` the request must fail with; with `continue`, with nothing (the loss is logged
   * and counted for the gap row).
   */
  async write(request: RequestContext, row: AuditRowOf): Promise<SwitchyardError | undefined> {
    const entry: AuditEntry = {
      time: new Date().toISOString(),
      identity: request.identity,
      server: request.server,
      tool: request.tool,
      name: request.name,
      ...(request.kind === "tool" ? {} : { method: request.method }),
      arguments: this.#redact(request.args),
      callId: request.id,
      ...(request.runId !== undefined ? { runId: request.runId } : {}),
      ...row,
    };
    try {
      await this.#markGap();
      await this.#sink.append(entry);
      return undefined;
    } catch (error) {
      return this.#failed(entry, error);
    }
  }

  /** Write the gap row still owed, if any (before the log is closed); else say loudly what was lost. */
  async close(): Promise<void> {
    try {
      await this.#markGap();
    } catch (error) {
      const lost = this.#lost;
      if (lost)
        this.#logger.error(
          { lost: lost.count, since: lost.since, error: messageOf(error) },
          `audit log: ${lost.count} entr${lost.count === 1 ? "y" : "ies"} since ${lost.since} could not be written, and neither could the gap row that marks them: the log is incomplete and verify cannot tell (${messageOf(error)})`,
        );
    }
  }

  /** The gap row, before anything else is written after entries were lost. */
  async #markGap(): Promise<void> {
    const lost = this.#lost;
    if (!lost) return;
    this.#lost = undefined;
    try {
      await this.#sink.append({
        time: new Date().toISOString(),
        kind: "gap",
        outcome: "lost",
        lost: lost.count,
        since: lost.since,
        summary: lost.reason.slice(0, 200),
      });
    } catch (error) {
      const later = this.#lost as Lost | undefined;
      this.#lost = later ? { ...later, count: later.count + lost.count, since: lost.since } : lost;
      throw error;
    }
    this.#logger.warn(
      { lost: lost.count, since: lost.since },
      `audit log: writing works again; a gap row marks the ${lost.count} entr${lost.count === 1 ? "y" : "ies"} lost since ${lost.since}`,
    );
  }

  #failed(entry: AuditEntry, error: unknown): SwitchyardError | undefined {
    const reason = messageOf(error);
    const lost = this.#lost;
    this.#lost = lost
      ? { count: lost.count + 1, since: lost.since, reason }
      : { count: 1, since: entry.time, reason };
    const what = `the ${entry.kind} row of ${entry.name ?? "a request"}${entry.callId ? ` (${entry.callId})` : ""}`;
    const count = this.#lost.count;
    try {
      this.#onUnwritten?.({
        type: "audit_unwritten",
        time: entry.time,
        kind: entry.kind,
        ...(entry.name !== undefined ? { name: entry.name } : {}),
        ...(entry.callId !== undefined ? { callId: entry.callId } : {}),
        ...(entry.runId !== undefined ? { runId: entry.runId } : {}),
        lost: count,
        error: reason,
        onWriteError: this.#mode,
      });
    } catch {
      // an observer's failure is its own
    }
    if (this.#mode === "continue") {
      this.#logger.error(
        { lost: count, error: reason },
        `AUDIT LOG: ${what} could not be written (${reason}); the request goes on unaudited (audit.onWriteError: "continue"): ${count} entr${count === 1 ? "y" : "ies"} lost so far, to be marked by a gap row once the log can be written again`,
      );
      return undefined;
    }
    this.#logger.error({ error: reason }, `audit log: ${what} could not be written: ${reason}`);
    return new SwitchyardError(
      "STORE_ERROR",
      `${what} could not be written to the audit log (${reason}), so the request fails: nothing goes out without its audit row (audit.onWriteError: "fail"); free the store's disk or fix the store, or set audit.onWriteError: "continue" to let requests through unaudited, marked as a gap`,
      { cause: error },
    );
  }
}
