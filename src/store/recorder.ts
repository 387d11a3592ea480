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
 * written before the loop goes on (SQLite commits before anything else runs; PostgreSQL's writes go in
 * order, one batch at a time). A run killed mid-way keeps every step and call that finished before.
 */
export class StoreRecorder implements Observer {
  readonly #store: Store;
  readonly #onError: (error: unknown) => void;
  #batch: SwitchyardEvent[] = [];
  #writing: Promise<void> = Promise.resolve();

  constructor(store: Store, options: RecorderOptions = {}) {
    this.#store = store;
    this.#onError = options.onError ?? (() => {});
  }

  onEvent(event: SwitchyardEvent): void {
    if (event.type === "call_progress") return;
    this.#batch.push(event);
    if (this.#batch.length === 1) queueMicrotask(() => this.#write());
  }

  #write(): void {
    const batch = this.#batch;
    if (batch.length === 0) return;
    this.#batch = [];
    const previous = this.#writing;
    // SQLite writes at once (nothing is pending when a batch goes); PostgreSQL waits for the batch before.
    this.#writing = previous.then(() => this.#store.record(batch)).catch(this.#onError);
  }

  /** Resolves when every event reported so far is written. */
  async flush(): Promise<void> {
    this.#write();
    await this.#writing;
  }
}
