// The recorder: an observer that writes every event of runs and calls to a store as it happens.
import type { Observer, SwitchyardEvent } from "../telemetry/events.js";
import type { Store } from "./store.js";

/** Options of {@link StoreRecorder}. */
export interface RecorderOptions {
  /** Told of a write that failed (the run goes on; what failed is not recorded). */
  onError?: (error: unknown) => void;
}

/**
 * Writes events to a store as they come: those of one turn of the event loop go in one transaction,
 * written before the loop goes on (SQLite commits before anything else runs). While a write is under
 * way (PostgreSQL's are asynchronous), the events that come meanwhile wait and then go together, in
 * order, in the next one. A run killed mid-way keeps every step and call that finished before.
 */
export class StoreRecorder implements Observer {
  readonly #store: Store;
  readonly #onError: (error: unknown) => void;
  #batch: SwitchyardEvent[] = [];
  /** The write under way; the next starts when it ends. */
  #writing: Promise<void> | undefined;
  /** Events reported, and events whose write has ended (written, or failed and told to `onError`). */
  #reported = 0;
  #ended = 0;

  constructor(store: Store, options: RecorderOptions = {}) {
    this.#store = store;
    this.#onError = options.onError ?? (() => {});
  }

  onEvent(event: SwitchyardEvent): void {
    if (event.type === "call_progress") return;
    this.#batch.push(event);
    this.#reported += 1;
    if (this.#batch.length === 1 && !this.#writing) queueMicrotask(() => this.#write());
  }

  #write(): void {
    if (this.#writing || this.#batch.length === 0) return;
    const batch = this.#batch;
    this.#batch = [];
    this.#writing = this.#store
      .record(batch)
      .catch(this.#onError)
      .finally(() => {
        this.#ended += batch.length;
        this.#writing = undefined;
        this.#write();
      });
  }

  /**
   * Resolves when every event reported before the call is written (or its write failed). Events that
   * come meanwhile are not waited for: under steady traffic the recorder is never idle.
   */
  async flush(): Promise<void> {
    const reported = this.#reported;
    while (this.#ended < reported) {
      this.#write();
      await this.#writing;
    }
  }
}
