/**
 * Which tool ids each server contributed to an index, so that one server's tools can be replaced
 * without touching the others' (`setServerTools`).
 */
export class ServerGroups {
  readonly #ids = new Map<string, readonly string[]>();

  /** Record a server's new tool ids; returns the ids it had before, to be removed from the index. */
  replace(server: string, ids: readonly string[]): readonly string[] {
    const previous = this.#ids.get(server) ?? [];
    if (ids.length) this.#ids.set(server, ids);
    else this.#ids.delete(server);
    return previous;
  }
}
