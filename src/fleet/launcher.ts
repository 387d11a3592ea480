import { connect, createServer } from "node:net";
import type { ServerConfig } from "../config/schema.js";
import { ServerProcess } from "./server-process.js";

/** The placeholder replaced by a free loopback port in a launched server's url, args and env. */
export const PORT_PLACEHOLDER = "{{port}}";
/** How often to try the launched server's port while waiting for it to listen. */
const POLL_MS = 50;

/** A local HTTP server started by the fleet, and the URL it answers on. */
export interface LaunchedServer {
  url: string;
  process: ServerProcess;
}

/**
 * Start the process of a `url` server that carries `command` (a local HTTP server with no second
 * terminal): pick a free loopback port for `{{port}}`, spawn, and wait until the URL's port accepts
 * connections. A fixed port (no `{{port}}` in the url) must be free before the spawn: whatever listens
 * there is not the server about to start. On failure the process is stopped before this rejects.
 * @throws Error when a fixed port is taken, the process cannot start, exits first, or the signal aborts.
 */
export async function launchHttpServer(
  config: ServerConfig,
  options: { signal: AbortSignal; onOutputLine: (line: string) => void; onExit: () => void },
): Promise<LaunchedServer> {
  const needsPort = [config.url ?? "", ...config.args, ...Object.values(config.env)].some((text) =>
    text.includes(PORT_PLACEHOLDER),
  );
  const port = needsPort ? String(await freePort()) : "";
  const fill = (text: string) => text.replaceAll(PORT_PLACEHOLDER, port);
  const url = new URL(fill(config.url!));
  if (!config.url!.includes(PORT_PLACEHOLDER) && (await accepts(...hostAndPort(url)))) {
    throw new Error(
      `port ${hostAndPort(url)[1]} of ${url} is already in use by another process; stop it or use ${PORT_PLACEHOLDER}`,
    );
  }
  const process = new ServerProcess({
    command: config.command!,
    args: config.args.map(fill),
    env: Object.fromEntries(Object.entries(config.env).map(([key, value]) => [key, fill(value)])),
    cwd: config.cwd,
    // Calls to it hold the event loop with their own sockets; the idle process and its pipes do not.
    holdsEventLoop: false,
    onOutputLine: options.onOutputLine,
    onClose: options.onExit,
  });
  try {
    await process.start();
    await waitForPort(url, process, options.signal);
    return { url: url.toString(), process };
  } catch (error) {
    await process.stop();
    throw error;
  }
}

/** A port on 127.0.0.1 that nothing listens on right now. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() =>
        typeof address === "object" && address ? resolve(address.port) : reject(new Error("no port")),
      );
    });
  });
}

/** The host (without IPv6 brackets) and port a URL points at. */
function hostAndPort(url: URL): [string, number] {
  return [url.hostname.replace(/^\[|\]$/g, ""), Number(url.port || (url.protocol === "https:" ? 443 : 80))];
}

async function waitForPort(url: URL, process: ServerProcess, signal: AbortSignal): Promise<void> {
  for (;;) {
    const listening = await accepts(...hostAndPort(url));
    // Gone is gone, even if something answers on the port: that is not the server.
    if (process.exitInfo) {
      await process.stop(); // let its pipes drain, so that its last words are in the tail
      const tail = process.outputTail.slice(-5);
      const output = tail.length ? `; output: ${tail.join(" | ")}` : "";
      const what = listening
        ? `while starting; what accepts connections at ${url} is another process`
        : `before ${url} accepted connections`;
      throw new Error(`the server process exited (${process.describeExit()}) ${what}${output}`);
    }
    if (listening) return;
    signal.throwIfAborted();
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}

function accepts(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host, port });
    socket.once("connect", () => {
      socket.destroy();
      resolve(true);
    });
    socket.once("error", () => resolve(false));
  });
}
