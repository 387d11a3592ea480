// The trace viewer (issue 16): how long `switchyard ui`'s page takes to show a run of 500 calls, in
// Debian's Chromium (playwright-core, no browser download) — from navigation start to the timeline's
// DOM built (`performance.mark("switchyard:run")`) and to the frame after it (`…:painted`). The store
// (a SQLite file) is filled through `store.record()` with a synthetic run as an agent makes it: 50
// steps of 10 calls over 5 servers, each step offered 20 tools with scores, a few calls failing.
// Skipped, with the reason, when no Chromium is found.
import { cpSync, existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { openStore, type Store, type SwitchyardEvent } from "../../src/index.js";
import { startViewer } from "../../src/viewer/index.js";
import { REPO } from "../paths.js";
import type { Row, ScenarioResult } from "../report.js";
import { median, percentile } from "../stats.js";
import type { ScenarioContext } from "./context.js";

export interface ViewerBenchOptions {
  id: string;
  title: string;
  steps: number;
  callsPerStep: number;
  /** Page loads measured (after one warm-up load). */
  loads: number;
}

/** What the page's code reads of the browser's document (the bench compiles without the DOM's types). */
interface BrowserDocument {
  document: {
    querySelectorAll(selector: string): { length: number };
    getElementsByTagName(name: string): { length: number };
  };
}

const SERVERS = ["orders", "policies", "environment", "geo", "inventory"];
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** One agent run, recorded as the recorder writes it: a batch per turn, the calls overlapping. */
async function recordRun(store: Store, steps: number, callsPerStep: number): Promise<string> {
  const runId = `run_bench_viewer_${Date.now().toString(36)}`;
  const started = Date.now();
  await store.record([
    {
      type: "run_started",
      runId,
      kind: "agent",
      time: new Date().toISOString(),
      input: "为客户 C10001 汇总订单、政策和库存 (bench)",
    },
  ]);
  const calls = [];
  for (let step = 1; step <= steps; step++) {
    const offered = Array.from({ length: 20 }, (_, i) => ({
      name: `${SERVERS[i % SERVERS.length]}_tool_${i}`,
      score: Math.round((20 - i) * 137) / 100,
      reason: "ranked",
    }));
    await store.record([{ type: "step_started", runId, step, tools: offered.length, offered }]);
    await sleep(2);
    await store.record([
      {
        type: "model_answered",
        runId,
        step,
        ms: 2,
        toolCalls: callsPerStep,
        text: `step ${step}: asking for ${callsPerStep} calls`,
        tokens: { input: 1_000 + step * 300, output: 120 },
      },
    ]);
    const stepCalls = Array.from({ length: callsPerStep }, (_, i) => {
      const server = SERVERS[i % SERVERS.length]!;
      return { id: `call_${step}_${i}`, server, tool: `tool_${i}`, name: `${server}_tool_${i}` };
    });
    await store.record(
      stepCalls.map(
        (call): SwitchyardEvent => ({
          type: "call_started",
          runId,
          step,
          ...call,
          arguments: JSON.stringify({ customer_id: "C10001", page: step, note: "客户资料" }),
        }),
      ),
    );
    await sleep(3);
    await store.record(
      stepCalls.map((call, i): SwitchyardEvent => {
        const failed = (step * callsPerStep + i) % 37 === 0;
        return {
          type: "call_finished",
          runId,
          step,
          ...call,
          ok: !failed,
          ms: 1 + ((step * 7 + i * 13) % 40) / 10,
          ...(failed ? { error: { code: "SERVER_TIMEOUT", message: "did not answer in time" } } : {}),
        };
      }),
    );
    calls.push(...stepCalls);
  }
  const ms = Date.now() - started;
  await store.record([
    { type: "answer", runId, step: steps, text: "汇总完成。" },
    {
      type: "run_finished",
      runId,
      record: {
        id: runId,
        kind: "agent",
        startedAt: new Date(started).toISOString(),
        ms,
        outcome: "answer",
        steps: [],
        calls: [],
      },
    },
  ]);
  return runId;
}

export async function viewerLoad(
  context: ScenarioContext,
  options: ViewerBenchOptions,
): Promise<ScenarioResult> {
  const base = { id: options.id, title: options.title, unit: "ms" as const, rows: [] };
  const executablePath = [process.env.CHROMIUM_PATH, "/usr/bin/chromium", "/usr/bin/chromium-browser"].find(
    (file): file is string => file !== undefined && existsSync(file),
  );
  if (!executablePath)
    return {
      ...base,
      method: "",
      skipped: "no Chromium found (apt-get install chromium, or set CHROMIUM_PATH)",
    };
  // Compiled into the bench's cache, the viewer reads its page beside itself: put it there.
  const assets = fileURLToPath(new URL("../../src/viewer/assets/", import.meta.url));
  if (!existsSync(join(assets, "index.html")))
    cpSync(join(REPO, "src/viewer/assets"), assets, { recursive: true });

  const { chromium } = await import("playwright-core");
  const dir = mkdtempSync(join(tmpdir(), "switchyard-bench-viewer-"));
  const store = await openStore({ path: join(dir, "runs.db") });
  const browser = await chromium.launch({ executablePath });
  const viewer = await startViewer({ store });
  try {
    context.log(`viewer: recording a run of ${options.steps * options.callsPerStep} calls`);
    const runId = await recordRun(store, options.steps, options.callsPerStep);
    const bars = options.steps * (options.callsPerStep + 1);
    const rendered: number[] = [];
    const painted: number[] = [];
    const apiMs: number[] = [];
    let nodes = 0;
    for (let load = 0; load <= options.loads; load++) {
      const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
      await page.goto(`${viewer.url}#/run/${encodeURIComponent(runId)}`);
      await page.waitForFunction(() => performance.getEntriesByName("switchyard:run:painted").length > 0);
      const times = await page.evaluate(() => ({
        rendered: performance.getEntriesByName("switchyard:run")[0]!.startTime,
        painted: performance.getEntriesByName("switchyard:run:painted")[0]!.startTime,
        api:
          performance.getEntriesByType("resource").find((entry) => entry.name.includes("/api/runs/"))
            ?.duration ?? Number.NaN,
        bars: (globalThis as unknown as BrowserDocument).document.querySelectorAll(".bar").length,
        nodes: (globalThis as unknown as BrowserDocument).document.getElementsByTagName("*").length,
      }));
      if (times.bars !== bars) throw new Error(`the timeline shows ${times.bars} bars, not ${bars}`);
      nodes = times.nodes;
      await page.close();
      if (load === 0) continue; // warm-up: the browser's first page
      rendered.push(times.rendered);
      painted.push(times.painted);
      apiMs.push(times.api);
    }
    const row = (id: string, label: string, values: number[], extra?: string): Row => ({
      id,
      label,
      median: median(values),
      p99: percentile(values, 99),
      samples: values.length,
      ...(extra ? { extra } : {}),
    });
    return {
      ...base,
      method: `a run of ${options.steps} steps × ${options.callsPerStep} calls over ${SERVERS.length} servers in a SQLite store; ${options.loads} page loads (a new page each, after one warm-up) of #/run/<id>, times from navigation start (performance marks in the page); ${nodes} DOM elements`,
      rows: [
        row("timeline-dom", "timeline built (DOM)", rendered, `API ${median(apiMs).toFixed(0)} ms`),
        row("timeline-painted", "timeline on screen (next frame)", painted),
      ],
    };
  } finally {
    await viewer.close();
    await browser.close();
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
