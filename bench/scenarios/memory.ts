// Memory: the client's RSS with N stdio servers connected, each measurement in its own fresh process
// so that the numbers compare (see memory-child.ts). An empty process started the same way is the
// floor; the table shows each client's RSS and how far above that floor it is.
import { spawn } from "node:child_process";
import { extname } from "node:path";
import { fileURLToPath } from "node:url";
import { REPO } from "../paths.js";
import type { Row, ScenarioResult } from "../report.js";
import { median, type RoundPolicy, rotate, runRounds } from "../stats.js";
import { rounds, type ScenarioContext } from "./context.js";

// The child runs as this file does: compiled JavaScript (npm run bench), or TypeScript through tsx,
// whose loader adds tens of MB that depend on how many modules a client loads.
const EXTENSION = extname(fileURLToPath(import.meta.url));
const CHILD = fileURLToPath(new URL(`./memory-child${EXTENSION}`, import.meta.url));
const LOADER = EXTENSION === ".ts" ? ["--import", "tsx"] : [];
const CHILD_TIMEOUT_MS = 60_000;

interface Usage {
  rssMB: number;
  heapUsedMB: number;
  externalMB: number;
}

function measure(id: string, servers: number): Promise<Usage> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["--expose-gc", ...LOADER, CHILD, id, String(servers)], {
      cwd: REPO,
      stdio: ["ignore", "pipe", "pipe"],
    });
    let out = "";
    let err = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
      out += chunk;
    });
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
      err += chunk;
    });
    const timer = setTimeout(() => child.kill("SIGKILL"), CHILD_TIMEOUT_MS);
    child.once("exit", (code, signal) => {
      clearTimeout(timer);
      const line = out.trim().split("\n").pop() ?? "";
      if (code === 0 && line.startsWith("{")) resolve(JSON.parse(line) as Usage);
      else
        reject(
          new Error(
            `memory child for ${id} ended with ${signal ?? `code ${code}`}: ${err.trim().split("\n").slice(-3).join(" | ")}`,
          ),
        );
    });
  });
}

export async function memory(
  context: ScenarioContext,
  options: { id: string; title: string; servers: number; policy: RoundPolicy },
): Promise<ScenarioResult> {
  const ids = ["none", ...context.clients.map((client) => client.id)];
  const usages = new Map<string, Usage[]>(ids.map((id) => [id, []]));
  const errors = new Map<string, string>();
  const count = await runRounds(rounds(context, options.policy), async (round) => {
    for (const id of rotate(ids, round)) {
      if (errors.has(id)) continue;
      try {
        usages.get(id)!.push(await measure(id, options.servers));
      } catch (error) {
        errors.set(id, (error as Error).message);
      }
    }
    context.log(`${options.id}: round ${round + 1} done`);
  });
  const rss = (id: string) => median(usages.get(id)!.map((usage) => usage.rssMB));
  const floor = rss("none");
  const row = (id: string, label: string): Row => {
    const values = usages.get(id)!;
    const error = errors.get(id);
    const heap = median(values.map((usage) => usage.heapUsedMB));
    return {
      id,
      label,
      median: rss(id),
      extra:
        id === "none"
          ? `heap ${heap.toFixed(1)} MB`
          : `+${(rss(id) - floor).toFixed(1)} MB over empty; heap ${heap.toFixed(1)} MB`,
      samples: values.length,
      ...(error ? { error } : {}),
    };
  };
  return {
    id: options.id,
    title: options.title,
    unit: "MB",
    method: `RSS after ${options.servers} stdio servers connected and 100 calls each, then GC; each sample a fresh process${LOADER.length ? " (under tsx: inflated)" : ""}; median of ${count}`,
    rows: [
      row("none", "empty process (floor)"),
      ...context.clients.map((client) => row(client.id, client.label)),
    ],
  };
}
