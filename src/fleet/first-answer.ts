/** Settles once the first of some requests has been answered (or failed); waits are bounded. */
export class FirstAnswer {
  #done = false;
  #wake: (() => void) | undefined;
  readonly #settled = new Promise<void>((resolve) => {
    this.#wake = resolve;
  });

  settle(answer: Promise<unknown>): void {
    if (this.#done) return;
    this.#done = true;
    answer.then(this.#wake, this.#wake);
  }

  /** Until the first answer, at most `ms`. */
  async wait(ms: number): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([this.#settled, new Promise<void>((resolve) => (timer = setTimeout(resolve, ms)))]);
    clearTimeout(timer);
  }
}
