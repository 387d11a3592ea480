// Gateway replicas behind a real nginx, for the replica tests: `serve --http` processes, and nginx in the
// foreground (one process, no daemon) with a config and folders of its own under the test's directory.
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { join } from "node:path";

/** nginx's path, or "" when it is not installed. */
export const NGINX = spawnSync("sh", ["-c", "command -v nginx"], { encoding: "utf8" }).stdout.trim();

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once("error", reject);
    probe.listen(0, "127.0.0.1", () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
}

/** Start a process and resolve once `ready` matches its stderr or stdout. */
export function start(
  command: string,
  args: string[],
  ready: RegExp,
  dir: string,
  env: Record<string, string> = {},
): Promise<ChildProcess> {
  const child = spawn(command, args, {
    cwd: dir,
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...process.env, ...env },
  });
  let seen = "";
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${command} did not start: ${seen}`)), 60_000);
    const onData = (chunk: Buffer) => {
      seen += chunk.toString();
      if (ready.test(seen)) {
        clearTimeout(timer);
        resolve(child);
      }
    };
    child.stdout!.on("data", onData);
    child.stderr!.on("data", onData);
    child.once("exit", (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`${command} exited (${signal ?? code}) before it was ready: ${seen}`));
    });
  });
}

export function stop(child: ChildProcess | undefined): Promise<void> {
  if (!child || child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => child.kill("SIGKILL"), 3_000);
    child.once("exit", () => {
      clearTimeout(timer);
      resolve();
    });
    child.kill("SIGTERM");
  });
}

/** How nginx passes requests on when a replica fails. */
export interface NginxUpstreamOptions {
  /** `proxy_next_upstream`: which failures send a request to the next replica. */
  nextUpstream: string;
  /** How long a replica that failed once is left out (`fail_timeout`). */
  failTimeout: string;
}

/** nginx in the foreground, one process, everything it writes under `dir`; round-robin over `upstreams`. */
function nginxConfig(dir: string, port: number, upstreams: number[], options: NginxUpstreamOptions): string {
  const temp = ["client_body", "proxy", "fastcgi", "uwsgi", "scgi"]
    .map((kind) => `  ${kind}_temp_path ${join(dir, `${kind}-temp`)};`)
    .join("\n");
  return `daemon off;
master_process off;
pid ${join(dir, "nginx.pid")};
error_log ${join(dir, "error.log")} warn;
events { worker_connections 512; }
http {
  log_format upstream '$upstream_addr $status $request_method';
  access_log ${join(dir, "access.log")} upstream;
${temp}
  upstream switchyard {
${upstreams.map((p) => `    server 127.0.0.1:${p} max_fails=1 fail_timeout=${options.failTimeout};`).join("\n")}
    keepalive 16;
  }
  server {
    listen 127.0.0.1:${port};
    location / {
      proxy_pass http://switchyard;
      proxy_http_version 1.1;
      proxy_set_header Connection "";
      # The client's Host goes through: the replicas check it (DNS-rebinding protection; nginx's own
      # default, the upstream's name, is refused unless listed in gateway.allowedHosts).
      proxy_set_header Host $http_host;
      proxy_buffering off;
      proxy_connect_timeout 2s;
      proxy_read_timeout 60s;
      proxy_next_upstream ${options.nextUpstream};
    }
  }
}
`;
}

/** nginx round-robin over `upstreams` on a free port, once it answers; `url` is its `/mcp`. */
export async function startNginx(
  dir: string,
  upstreams: number[],
  options: NginxUpstreamOptions,
): Promise<{ nginx: ChildProcess; url: string }> {
  const front = await freePort();
  writeFileSync(join(dir, "nginx.conf"), nginxConfig(dir, front, upstreams, options));
  const nginx = spawn(NGINX, ["-p", dir, "-c", join(dir, "nginx.conf"), "-e", join(dir, "error.log")], {
    stdio: ["ignore", "ignore", "pipe"],
  });
  const url = `http://127.0.0.1:${front}/mcp`;
  for (let tries = 0; ; tries += 1) {
    try {
      await fetch(url, { method: "GET" });
      return { nginx, url };
    } catch (error) {
      if (tries > 100 || nginx.exitCode !== null)
        throw new Error(`nginx did not start: ${readFileSync(join(dir, "error.log"), "utf8")}`, {
          cause: error,
        });
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}

/** The replicas each request so far was given to, in order, from nginx's access log (`a, b`: passed on). */
function upstreamsOf(dir: string): string[][] {
  return readFileSync(join(dir, "access.log"), "utf8")
    .trim()
    .split("\n")
    .filter(Boolean)
    .map((line) => line.split(" ").slice(0, -2).join(" ").split(", "));
}

/** Which replica answered each request so far (the last nginx gave it to). */
export function servedBy(dir: string): string[] {
  return upstreamsOf(dir).map((tried) => tried.at(-1)!);
}

/** How many requests nginx passed on to another replica after the first failed (`proxy_next_upstream`). */
export function passedOn(dir: string): number {
  return upstreamsOf(dir).filter((tried) => tried.length > 1).length;
}
