import { existsSync } from "node:fs";
import path from "node:path";
import { contextWindowFor, openStore, type Store } from "../../internal.js";
import { DEFAULT_VIEWER_HOST, startViewer, WireTraceFile } from "../../viewer/index.js";
import type { CommandContext } from "../context.js";
import { CliError, EXIT_OK, EXIT_USAGE } from "../exit-codes.js";
import { serverJson } from "./servers.js";

/** Flags of `switchyard ui`. */
export interface UiFlags {
  port?: string;
  host?: string;
  /** A SQLite file or a `postgres://` URL: read this store instead of the config's. */
  store?: string;
  /** A `--trace-wire` file: the calls' wire messages (the store does not keep them). */
  trace?: string;
  /** Connect the config's fleet too, for the servers' live status, health, breaker and restarts. */
  fleet?: boolean;
}

/**
 * `switchyard ui [--port n] [--host a] [--store file|url] [--trace file] [--fleet]`: the trace viewer, a
 * local web page over the run store, until interrupted. Prints its URL (with its token) on stdout.
 */
export async function uiCommand(ctx: CommandContext, flags: UiFlags): Promise<number> {
  const port = parsePort(flags.port);
  const store = flags.store !== undefined ? await openGiven(flags.store) : await ctx.requireStore();
  let trace: WireTraceFile | undefined;
  if (flags.trace !== undefined) {
    if (flags.trace === "" || flags.trace === "-")
      throw new CliError("--trace needs the file a run's --trace-wire wrote (not stdout)", EXIT_USAGE);
    if (!existsSync(flags.trace))
      ctx.out.note(`note: ${flags.trace} does not exist yet; the viewer reads it once a run writes it`);
    trace = new WireTraceFile(path.resolve(flags.trace));
  }
  const contextWindow = modelWindow(ctx);
  const yard = flags.fleet ? await ctx.connect() : undefined;
  const viewer = await startViewer({
    store,
    ...(trace ? { wire: trace } : {}),
    ...(contextWindow !== undefined ? { contextWindow } : {}),
    ...(yard ? { fleet: () => yard.servers().map(serverJson) } : {}),
    host: flags.host ?? DEFAULT_VIEWER_HOST,
    port,
    onError: (error) => ctx.out.note(`warning: ${(error as Error).message}`),
  }).catch((error: NodeJS.ErrnoException) => {
    if (error.code === "EADDRINUSE")
      throw new CliError(
        `--port ${port}: the port is in use; give another, or 0 for any free one`,
        EXIT_USAGE,
      );
    if (error.code === "EADDRNOTAVAIL")
      throw new CliError(`--host ${flags.host}: no such address on this machine`, EXIT_USAGE);
    throw error;
  });
  try {
    if (ctx.out.json) ctx.out.data({ url: viewer.url, store: store.location });
    else ctx.out.result(viewer.url);
    ctx.out.note(`switchyard ui: reading ${store.location}; open the URL above (Ctrl-C to stop)`);
    const { signal } = ctx;
    if (!signal.aborted)
      await new Promise((resolve) => signal.addEventListener("abort", resolve, { once: true }));
  } finally {
    await viewer.close();
    if (flags.store !== undefined) await store.close();
  }
  return EXIT_OK;
}

function parsePort(value: string | undefined): number {
  if (value === undefined) return 0;
  const port = Number(value);
  if (!/^\d+$/.test(value) || port > 65_535)
    throw new CliError(
      `--port needs a TCP port from 0 to 65535 (got "${value}"; 0: any free one)`,
      EXIT_USAGE,
    );
  return port;
}

/** `--store`: a `postgres://` URL or a SQLite file (which must exist: the viewer only reads). */
async function openGiven(given: string): Promise<Store> {
  if (/^postgres(ql)?:\/\//.test(given)) return openStore({ url: given });
  if (!existsSync(given))
    throw new CliError(
      `--store ${given}: no such file; give the SQLite file runs are recorded in, or a postgres:// URL`,
      EXIT_USAGE,
    );
  return openStore({ path: given });
}

/** The configured model's context window, when there is a config to say which model. */
function modelWindow(ctx: CommandContext): number | undefined {
  try {
    const model = ctx.loadConfig().model;
    return contextWindowFor(model?.name, model?.contextWindow);
  } catch {
    return undefined;
  }
}
