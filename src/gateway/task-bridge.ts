// The task bridge: a host that cannot follow tasks calls a tool whose server runs the call as a task,
// and sees a plain tools/call — kept alive by progress notifications until the task ends.
import { DEFAULT_TASK_BRIDGE_PROGRESS_MS } from "../config/defaults.js";
import type { CallProgress } from "../fleet/requests.js";

/**
 * The progress a host hears of one call. Until the call becomes a task, its progress passes as the
 * server sent it. Once it is one (`started`), every notification is numbered by the bridge (the task's
 * statuses and the server's progress may count differently, and a host's progress must only grow), and
 * one goes at least every `everyMs` with the last thing the task said, until `stop`.
 */
export class TaskBridge {
  readonly #send: (progress: CallProgress) => void;
  readonly #everyMs: number;
  #count = 0;
  #message: string | undefined;
  #timer: NodeJS.Timeout | undefined;
  #stopped = false;

  constructor(send: (progress: CallProgress) => void, everyMs = DEFAULT_TASK_BRIDGE_PROGRESS_MS) {
    this.#send = send;
    this.#everyMs = everyMs;
  }

  /** The server made the call a task: from now on the host hears of it at least every `everyMs`. */
  started(taskId: string): void {
    if (this.#stopped || this.#timer !== undefined) return;
    this.#message = `task ${taskId} working`;
    this.#arm();
  }

  /** Progress of the call (the server's, or its task's status). */
  progress(progress: CallProgress): void {
    if (this.#timer === undefined) {
      this.#send(progress);
      return;
    }
    if (progress.message !== undefined) this.#message = progress.message;
    this.#tell();
  }

  /**
   * The host follows the task itself (passed through): no keep-alive of the bridge's, no message naming
   * the server's task, and the server's progress passes as it came.
   */
  handOver(): void {
    this.stop();
    this.#timer = undefined;
  }

  /** The call ended. */
  stop(): void {
    this.#stopped = true;
    clearTimeout(this.#timer);
  }

  #tell(): void {
    this.#send({
      progress: ++this.#count,
      ...(this.#message !== undefined ? { message: this.#message } : {}),
    });
    this.#arm();
  }

  #arm(): void {
    clearTimeout(this.#timer);
    if (this.#stopped) return;
    this.#timer = setTimeout(() => this.#tell(), this.#everyMs);
    this.#timer.unref();
  }
}
