import type { Readable, Writable } from "node:stream";
import type { Server } from "@modelcontextprotocol/server";
import { type StdioServerHandle, StdioServerTransport, serveStdio } from "@modelcontextprotocol/server/stdio";

/** The gateway's stdio clients: each served by a server instance of its own, over its streams. */
export class StdioConnections {
  readonly #serve: () => Server;
  readonly #handles = new Set<StdioServerHandle>();

  /** `serve`: a new server instance for a client. */
  constructor(serve: () => Server) {
    this.#serve = serve;
  }

  /**
   * Serve one client over stdio (the process's stdin/stdout unless given). `closed` resolves when the
   * client goes (stdin ends).
   */
  connect(streams: { stdin?: Readable; stdout?: Writable } = {}): { closed: Promise<void> } {
    const stdin = streams.stdin ?? process.stdin;
    const handle = serveStdio(this.#serve, {
      transport: new StdioServerTransport(stdin, streams.stdout ?? process.stdout),
    });
    this.#handles.add(handle);
    // The client is gone when our stdin ends (or breaks): the connection is over.
    const ended = new Promise<void>((resolve) => {
      const done = () => {
        this.#handles.delete(handle);
        void handle.close().finally(resolve);
      };
      stdin.once("end", done);
      stdin.once("close", done);
      stdin.once("error", done);
    });
    return { closed: ended };
  }

  /** End every stdio connection. */
  async close(): Promise<void> {
    await Promise.allSettled([...this.#handles].map((handle) => handle.close()));
  }
}
