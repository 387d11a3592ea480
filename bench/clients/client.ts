// What every benchmarked client is driven through: connect to N servers (connected, initialized and
// tools listed), call `echo` on one of them, report the revision it negotiated, close.

/** A server to connect to: a stdio command, or the URL of a running Streamable HTTP server. */
export type ServerSpec =
  | { transport: "stdio"; command: string; args: string[] }
  | { transport: "http"; url: string };

/** Which echo server a client talks to: the SDK v2 fixture, or the hand-written one (the limit). */
export type ServerKind = "sdk" | "raw";

/** A client connected to some servers. */
export interface Session {
  /** Call `echo` with `text` on the server at `index`; resolves with the result once it is in. */
  echo(index: number, text: string): Promise<unknown>;
  /** The protocol revision negotiated with each server, in order ("?" where the client cannot tell). */
  revisions(): string[];
  /** Close every connection and stop every stdio server this session started. */
  close(): Promise<void>;
}

/** One contender. */
export interface BenchClient {
  /** Short stable id, used in the JSON output (`sdk-v2`, `switchyard`, …). */
  id: string;
  /** What the table shows. */
  label: string;
  server: ServerKind;
  /** The scenarios this client runs in (a diagnostic variant); default: all. */
  only?: readonly string[];
  /** Connect to every server at once; resolves when all are initialized and their tools listed. */
  connect(servers: readonly ServerSpec[]): Promise<Session>;
}

/**
 * Open one connection per server, all at once. If any fails, the others are closed before this
 * rejects, so no server process outlives a failed connect.
 */
export async function openAll<T>(
  servers: readonly ServerSpec[],
  open: (spec: ServerSpec, index: number) => Promise<T>,
  close: (connection: T) => Promise<unknown>,
): Promise<T[]> {
  const settled = await Promise.allSettled(servers.map(open));
  const failed = settled.find((result) => result.status === "rejected");
  if (!failed) return settled.map((result) => (result as PromiseFulfilledResult<T>).value);
  await Promise.allSettled(
    settled.flatMap((result) => (result.status === "fulfilled" ? [close(result.value)] : [])),
  );
  throw failed.reason;
}
