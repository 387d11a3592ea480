// The viewer's HTTP server (node:http): the page and its assets, the JSON API and the event stream, each
// behind a random token in the URL and a Host check (no DNS rebinding), GET only. Server-sent events
// tell open pages what changed in the store, which is polled while one listens.
import { randomBytes, timingSafeEqual } from "node:crypto";
import { readFile } from "node:fs/promises";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import {
  DEFAULT_VIEWER_HOST,
  DEFAULT_VIEWER_POLL_INTERVAL_MS,
  DEFAULT_VIEWER_PORT,
} from "../config/defaults.js";
import { packageFile } from "../package-root.js";
import {
  BadQuery,
  listRuns,
  type RunFilter,
  type ViewerSources,
  viewAudit,
  viewRun,
  viewServers,
} from "./api.js";

/** Options of {@link startViewer}. */
export interface ViewerOptions extends ViewerSources {
  /** Default `DEFAULT_VIEWER_HOST` (127.0.0.1). */
  host?: string;
  /** Default `DEFAULT_VIEWER_PORT` (0: any free port). */
  port?: number;
  /** The URL's token; default 32 random bytes, hex. */
  token?: string;
  /** How often the store is looked at while a page listens; default `DEFAULT_VIEWER_POLL_INTERVAL_MS`. */
  pollIntervalMs?: number;
  /** Told of a failure while answering or polling (the server goes on). */
  onError?: (error: unknown) => void;
}

/** A running viewer. */
export interface Viewer {
  /** The page's URL, token included. */
  readonly url: string;
  readonly token: string;
  readonly port: number;
  close(): Promise<void>;
}

/** The page and its assets, shipped in the package beside this file (`assets/`). */
const ASSETS: Record<string, { file: string; type: string }> = {
  "/": { file: "index.html", type: "text/html; charset=utf-8" },
  "/assets/app.js": { file: "app.js", type: "text/javascript; charset=utf-8" },
  "/assets/app.css": { file: "app.css", type: "text/css; charset=utf-8" },
};
const assetFile = (file: string) => packageFile("dist", "viewer", "assets", file);

const SECURITY_HEADERS = {
  "content-security-policy":
    "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
  "x-content-type-options": "nosniff",
  // The token is in the URL: never send it on as a Referer.
  "referrer-policy": "no-referrer",
  "cache-control": "no-store",
};

/** Start the viewer; resolves once it listens. */
export async function startViewer(options: ViewerOptions): Promise<Viewer> {
  const host = options.host ?? DEFAULT_VIEWER_HOST;
  const token = options.token ?? randomBytes(32).toString("hex");
  const tokenBytes = Buffer.from(token);
  const onError = options.onError ?? (() => {});
  const pollMs = options.pollIntervalMs ?? DEFAULT_VIEWER_POLL_INTERVAL_MS;
  const streams = new Set<ServerResponse>();
  let port = 0;

  const allowedHosts = () => {
    const names = new Set(["127.0.0.1", "localhost", "[::1]", host.includes(":") ? `[${host}]` : host]);
    return new Set([...names].map((name) => `${name}:${port}`));
  };
  const tokenOk = (given: string | null | undefined) => {
    if (!given) return false;
    const bytes = Buffer.from(given);
    return bytes.length === tokenBytes.length && timingSafeEqual(bytes, tokenBytes);
  };

  const answer = async (request: IncomingMessage, response: ServerResponse) => {
    // DNS rebinding: a page of another site that resolves its name to this address still says its Host.
    if (!allowedHosts().has((request.headers.host ?? "").toLowerCase())) {
      return send(response, 403, { error: `Host ${request.headers.host ?? "(none)"} is not this viewer's` });
    }
    const url = new URL(request.url ?? "/", `http://${request.headers.host}`);
    const bearer = /^Bearer (.+)$/.exec(request.headers.authorization ?? "")?.[1];
    if (!tokenOk(url.searchParams.get("token") ?? bearer)) {
      return send(response, 403, {
        error: "a token is needed: open the URL switchyard ui printed (…?token=…)",
      });
    }
    if (request.method !== "GET" && request.method !== "HEAD") {
      response.setHeader("allow", "GET, HEAD");
      return send(response, 405, { error: `${request.method} is not allowed: the viewer only reads` });
    }
    const asset = ASSETS[url.pathname];
    if (asset) {
      let body: Buffer | string = await readFile(assetFile(asset.file));
      // The page names its assets with the token (a hex string), so that they load past the check too.
      if (asset.file === "index.html") body = body.toString("utf8").replaceAll("__TOKEN__", token);
      response.writeHead(200, { ...SECURITY_HEADERS, "content-type": asset.type });
      return response.end(request.method === "HEAD" ? undefined : body);
    }
    if (url.pathname === "/events") return openStream(response);
    const params = url.searchParams;
    try {
      if (url.pathname === "/api/runs") {
        const filter: RunFilter = {};
        for (const key of ["since", "until", "status", "user", "tool", "server", "q"] as const) {
          const value = params.get(key);
          if (value) filter[key] = value;
        }
        return send(response, 200, await listRuns(options, filter));
      }
      const runMatch = /^\/api\/runs\/([^/]+)$/.exec(url.pathname);
      if (runMatch) {
        const id = decodeURIComponent(runMatch[1]!);
        const run = await viewRun(options, id);
        return run ? send(response, 200, run) : send(response, 404, { error: `no run ${id} in the store` });
      }
      if (url.pathname === "/api/servers") return send(response, 200, await viewServers(options));
      if (url.pathname === "/api/audit") {
        const last = params.get("last");
        const rows = last === null ? undefined : Number(last);
        if (rows !== undefined && !(Number.isInteger(rows) && rows > 0))
          throw new BadQuery(`last=${last} must be a whole number above 0`);
        return send(response, 200, await viewAudit(options, rows));
      }
    } catch (error) {
      if (error instanceof BadQuery) return send(response, 400, { error: error.message });
      throw error;
    }
    return send(response, 404, {
      error: `no ${url.pathname} here: the API is /api/runs, /api/servers, /api/audit`,
    });
  };

  const openStream = (response: ServerResponse) => {
    response.writeHead(200, {
      ...SECURITY_HEADERS,
      "content-type": "text/event-stream; charset=utf-8",
      connection: "keep-alive",
    });
    response.write(`retry: ${Math.max(1000, pollMs * 2)}\n\n`);
    streams.add(response);
    response.on("close", () => {
      streams.delete(response);
      if (streams.size === 0) poller.stop();
    });
    poller.start();
  };

  const poller = storePoller(
    options,
    pollMs,
    (event, data) => {
      const text = `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
      for (const stream of streams) stream.write(text);
    },
    onError,
  );

  const server = createServer((request, response) => {
    answer(request, response).catch((error) => {
      onError(error);
      if (!response.headersSent) send(response, 500, { error: (error as Error).message });
      else response.destroy();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? DEFAULT_VIEWER_PORT, host, () => {
      server.off("error", reject);
      resolve();
    });
  });
  port = (server.address() as AddressInfo).port;
  const shownHost = host.includes(":") ? `[${host}]` : host;
  let closed: Promise<void> | undefined;
  return {
    url: `http://${shownHost}:${port}/?token=${token}`,
    token,
    port,
    close() {
      closed ??= new Promise<void>((resolve) => {
        poller.stop();
        for (const stream of streams) stream.end();
        streams.clear();
        server.close(() => resolve());
        server.closeAllConnections();
      });
      return closed;
    },
  };
}

function send(response: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  response.writeHead(status, {
    ...SECURITY_HEADERS,
    "content-type": "application/json; charset=utf-8",
    "content-length": Buffer.byteLength(text),
  });
  response.end(text);
}

/** Runs looked at each poll for changes (the newest). */
const RUNS_WATCHED = 25;

/**
 * Looks at the store every `pollMs` while started: the newest runs (and the steps and calls of those
 * not finished) and the audit log's head; tells `emit` what changed (`runs`: the ids; `audit`: the head).
 */
function storePoller(
  sources: ViewerSources,
  pollMs: number,
  emit: (event: "runs" | "audit", data: unknown) => void,
  onError: (error: unknown) => void,
) {
  let timer: NodeJS.Timeout | undefined;
  let busy = false;
  let seen: Map<string, string> | undefined;
  let auditSeq: number | undefined;

  const look = async () => {
    const runs = await sources.store.runs({ limit: RUNS_WATCHED });
    const now = new Map<string, string>();
    for (const run of runs) {
      let mark = `${run.outcome}/${run.finished}/${run.stepCount}/${run.callCount}`;
      if (!run.finished) {
        const full = await sources.store.run(run.id);
        mark += `/${full?.steps.map((step) => step.modelMs ?? "-").join(",")}/${full?.calls.map((call) => call.ok ?? "-").join(",")}`;
      }
      now.set(run.id, mark);
    }
    if (seen) {
      const changed = [...now].filter(([id, mark]) => seen!.get(id) !== mark).map(([id]) => id);
      if (changed.length) emit("runs", { changed });
    }
    seen = now;
    const head = await sources.store.auditHead();
    if (auditSeq !== undefined && head.seq !== auditSeq) emit("audit", { seq: head.seq });
    auditSeq = head.seq;
  };
  const tick = () => {
    if (busy) return;
    busy = true;
    look()
      .catch(onError)
      .finally(() => {
        busy = false;
      });
  };
  return {
    start() {
      if (timer) return;
      tick();
      timer = setInterval(tick, pollMs);
    },
    stop() {
      if (timer) clearInterval(timer);
      timer = undefined;
      seen = undefined;
      auditSeq = undefined;
    },
  };
}
