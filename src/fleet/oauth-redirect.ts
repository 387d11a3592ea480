// The loopback redirect of a login: its URI, and a listener on 127.0.0.1 that takes one redirect.
import { createServer, type Server } from "node:http";
import { DEFAULT_OAUTH_CALLBACK_PATH } from "../config/defaults.js";
import { SwitchyardError } from "../errors.js";

/** The loopback redirect URI for `port`. */
export function redirectUrlFor(port: number): string {
  return `http://127.0.0.1:${port}${DEFAULT_OAUTH_CALLBACK_PATH}`;
}

/**
 * A loopback listener on 127.0.0.1 (`port`, or a free one when 0) that takes one redirect on the
 * callback path. `callback` rejects with `TIMEOUT` when none comes in time, `CANCELLED` on `signal`.
 */
export async function listenForRedirect(port: number) {
  let deliver: ((params: URLSearchParams) => void) | undefined;
  const arrived = new Promise<URLSearchParams>((resolve) => {
    deliver = resolve;
  });
  const server: Server = createServer((request, response) => {
    const url = new URL(request.url ?? "/", "http://127.0.0.1");
    if (url.pathname !== DEFAULT_OAUTH_CALLBACK_PATH) {
      response.writeHead(404).end();
      return;
    }
    const ok = url.searchParams.has("code");
    response.writeHead(ok ? 200 : 400, { "content-type": "text/plain; charset=utf-8" });
    response.end(ok ? "Switchyard: logged in. You may close this window.\n" : "Switchyard: login failed.\n");
    deliver?.(url.searchParams);
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, "127.0.0.1", () => resolve());
  });
  const bound = (server.address() as { port: number }).port;
  return {
    port: bound,
    async callback(timeoutMs: number, signal?: AbortSignal): Promise<URLSearchParams> {
      const limit = AbortSignal.timeout(timeoutMs);
      const stop = signal ? AbortSignal.any([signal, limit]) : limit;
      return await new Promise<URLSearchParams>((resolve, reject) => {
        const onAbort = () =>
          reject(
            signal?.aborted
              ? new SwitchyardError("CANCELLED", "login cancelled")
              : new SwitchyardError("TIMEOUT", `no redirect from the browser within ${timeoutMs} ms`),
          );
        if (stop.aborted) onAbort();
        stop.addEventListener("abort", onAbort, { once: true });
        arrived.then(resolve, reject).finally(() => stop.removeEventListener("abort", onAbort));
      });
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
