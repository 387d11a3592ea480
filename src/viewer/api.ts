// What the viewer's JSON API answers, read from the store (and a wire trace file when given): runs with
// filters, one run with what its calls' wire messages tell (attempts, queue and retry time, the full
// result), servers and tools from the recorded calls, the audit log with its verification.
import { DEFAULT_VIEWER_AUDIT_ROWS, DEFAULT_VIEWER_RUNS_SCANNED } from "../config/defaults.js";
import { verifyAudit } from "../store/audit-chain.js";
import type { RunSummary, Store, StoredCall, StoredFinding, StoredRun } from "../store/store.js";
import type { WireRecord } from "../telemetry/wire-trace.js";
import type { WireTraceFile } from "./wire.js";

/** Where the viewer reads from. */
export interface ViewerSources {
  store: Store;
  /** The `--trace-wire` file to read calls' wire messages from, when given. */
  wire?: WireTraceFile;
  /** The model's context window (tokens), to show each step's tokens against. */
  contextWindow?: number;
  /** The live fleet's servers (`switchyard servers --json`'s rows), when the viewer connected it. */
  fleet?: () => readonly Record<string, unknown>[];
  /** Runs read for the list, its filters and the servers view; default `DEFAULT_VIEWER_RUNS_SCANNED`. */
  runsScanned?: number;
  /** Audit rows shown, and read to tell whose each run was; default `DEFAULT_VIEWER_AUDIT_ROWS`. */
  auditRows?: number;
}

/** A bad query parameter: answered 400 with the message. */
export class BadQuery extends Error {}

/** The filters of `/api/runs`. */
export interface RunFilter {
  /** ISO 8601 (or anything `Date` reads): runs started at or after. */
  since?: string;
  until?: string;
  /** The run's outcome (`answer`, `error`, `running`, `interrupted`, `ok`, an error code, …). */
  status?: string;
  user?: string;
  /** A catalog name or a tool's own name that one of the run's calls called. */
  tool?: string;
  server?: string;
  /** Text in the question, the answer, a call's name, arguments or error (case-insensitive). */
  q?: string;
}

/** A run as the list shows it: its summary, whose it was, and (when a filter read its calls) its servers. */
export interface ListedRun extends RunSummary {
  user?: string;
}

function timeOf(value: string | undefined, name: string): number | undefined {
  if (value === undefined || value === "") return undefined;
  const time = Date.parse(value);
  if (Number.isNaN(time))
    throw new BadQuery(`${name}=${value} is not a time; give an ISO 8601 time such as 2026-12-01T09:30:00Z`);
  return time;
}

/** Whose each run was, as the audit log says (the identity of its calls' rows). */
async function usersByRun(sources: ViewerSources): Promise<Map<string, string>> {
  const users = new Map<string, string>();
  const rows = await sources.store.audit({ last: sources.auditRows ?? DEFAULT_VIEWER_AUDIT_ROWS });
  for (const row of rows) {
    if (row.runId && row.identity?.user && !users.has(row.runId)) users.set(row.runId, row.identity.user);
  }
  return users;
}

/** `/api/runs`: the newest runs that pass the filter, newest first. */
export async function listRuns(
  sources: ViewerSources,
  filter: RunFilter,
): Promise<{ runs: ListedRun[]; scanned: number; statuses: string[] }> {
  const since = timeOf(filter.since, "since");
  const until = timeOf(filter.until, "until");
  const scanned = await sources.store.runs({ limit: sources.runsScanned ?? DEFAULT_VIEWER_RUNS_SCANNED });
  const users = await usersByRun(sources);
  const statuses = [...new Set(scanned.map((run) => run.outcome))].sort();
  const needle = filter.q?.trim().toLowerCase() || undefined;
  const listed: ListedRun[] = [];
  for (const run of scanned) {
    const started = Date.parse(run.startedAt);
    if (since !== undefined && started < since) continue;
    if (until !== undefined && started > until) continue;
    if (filter.status && run.outcome !== filter.status) continue;
    const user = users.get(run.id);
    if (filter.user && user !== filter.user) continue;
    if (filter.tool || filter.server || needle) {
      // Filters on calls and texts read the run whole.
      const full = await sources.store.run(run.id);
      if (!full || !matches(full, filter.tool, filter.server, needle)) continue;
    }
    listed.push(user === undefined ? run : { ...run, user });
  }
  return { runs: listed, scanned: scanned.length, statuses };
}

function matches(
  run: StoredRun,
  tool: string | undefined,
  server: string | undefined,
  needle: string | undefined,
): boolean {
  if (tool && !run.calls.some((call) => call.name === tool || call.tool === tool)) return false;
  if (server && !run.calls.some((call) => call.server === server || call.servedBy === server)) return false;
  if (!needle) return true;
  const texts = [
    run.input,
    run.answer,
    run.error?.message,
    run.error?.code,
    ...run.steps.map((step) => step.text),
    ...run.calls.flatMap((call) => [call.name, call.arguments, call.error?.code, call.error?.message]),
  ];
  return texts.some((text) => text?.toLowerCase().includes(needle));
}

/** What a call's wire messages tell: each attempt sent, the answer, and the time before and between them. */
export interface CallWire {
  /** Requests sent for the call (`tools/call`), one per attempt. */
  attempts: number;
  /** Milliseconds from the call's start to its first request on the wire: validation, breaker, queue. */
  queueMs?: number;
  /** Milliseconds from the first attempt to the last: earlier attempts and the backoff between them. */
  retryMs?: number;
  /** The server's last answer to the call (the full result, before shaping), or its JSON-RPC error. */
  result?: unknown;
  /** Every message of the call, in order. */
  messages: WireRecord[];
}

/** A call as the run view shows it. */
export interface ViewedCall extends StoredCall {
  /** The result the model was given (shaped): from the run's records, else a chat session's history. */
  shaped?: string;
  wire?: CallWire;
}

/** `/api/runs/:id`: the run whole, with whose it was and what the wire trace and its session add. */
export interface ViewedRun extends Omit<StoredRun, "calls"> {
  user?: string;
  calls: ViewedCall[];
  contextWindow?: number;
  /** Where the wire messages come from: the trace file, or why there are none. */
  wireSource: string;
  /** Where the shaped results come from. */
  shapedSource: string;
}

export async function viewRun(sources: ViewerSources, id: string): Promise<ViewedRun | undefined> {
  const run = await sources.store.run(id);
  if (!run) return undefined;
  const users = await usersByRun(sources);
  const shaped = await shapedResults(sources.store, run.sessionId);
  const wire = sources.wire ? callWire(sources.wire.forRun(id), run.calls) : undefined;
  const calls = run.calls.map((call) => {
    const viewed: ViewedCall = { ...call };
    const text = call.shaped ?? shaped.get(call.id);
    if (text !== undefined) viewed.shaped = text;
    const messages = wire?.get(call.id);
    if (messages) viewed.wire = messages;
    return viewed;
  });
  const user = users.get(run.id);
  return {
    ...run,
    calls,
    ...(user !== undefined ? { user } : {}),
    ...(sources.contextWindow !== undefined ? { contextWindow: sources.contextWindow } : {}),
    wireSource: sources.wire
      ? `the wire trace ${sources.wire.path}`
      : "none: the store does not keep wire messages; start switchyard ui with --trace <file> (the file a run's --trace-wire wrote)",
    shapedSource: run.calls.some((call) => call.shaped !== undefined)
      ? "the run's records (redacted, cut to the recorder's text limit)"
      : run.sessionId
        ? `chat session ${run.sessionId}`
        : "none recorded (runs recorded before results were, and plain calls and plans, which shape nothing)",
  };
}

/** The results the model was given, by call id, from the chat session's messages (tool messages). */
async function shapedResults(store: Store, sessionId: string | undefined): Promise<Map<string, string>> {
  const shaped = new Map<string, string>();
  if (!sessionId) return shaped;
  const session = await store.session(sessionId);
  for (const message of session?.messages ?? []) {
    const { role, tool_call_id, toolCallId, content } = (message ?? {}) as Record<string, unknown>;
    const callId = tool_call_id ?? toolCallId;
    if (role === "tool" && typeof callId === "string" && typeof content === "string")
      shaped.set(callId, content);
  }
  return shaped;
}

function callWire(records: readonly WireRecord[], calls: readonly StoredCall[]): Map<string, CallWire> {
  const byCall = new Map<string, WireRecord[]>();
  for (const record of records) {
    if (!record.callId) continue;
    const list = byCall.get(record.callId) ?? [];
    list.push(record);
    byCall.set(record.callId, list);
  }
  const out = new Map<string, CallWire>();
  for (const call of calls) {
    const messages = byCall.get(call.id);
    if (!messages) continue;
    const sent = messages.filter(
      (record) =>
        record.direction === "to-server" && (record.message as { method?: unknown })?.method === "tools/call",
    );
    const answers = messages.filter((record) => {
      const message = record.message as { result?: unknown; error?: unknown; method?: unknown };
      return (
        record.direction === "from-server" &&
        message?.method === undefined &&
        ("result" in message || "error" in message)
      );
    });
    const wire: CallWire = { attempts: sent.length, messages };
    const first = sent[0];
    const last = sent.at(-1);
    if (first && call.startedAt)
      wire.queueMs = Math.max(0, Date.parse(first.time) - Date.parse(call.startedAt));
    if (first && last && sent.length > 1) wire.retryMs = Date.parse(last.time) - Date.parse(first.time);
    const answer = answers.at(-1)?.message as { result?: unknown; error?: unknown } | undefined;
    if (answer) wire.result = answer.result ?? { error: answer.error };
    out.set(call.id, wire);
  }
  return out;
}

/** Latency and outcomes of a set of calls. */
export interface CallStats {
  calls: number;
  ok: number;
  failed: number;
  /** Failures by code. */
  errors: Record<string, number>;
  p50?: number;
  p95?: number;
  p99?: number;
  maxMs?: number;
  /** ISO 8601: the latest call's start. */
  lastAt?: string;
}

function percentile(sorted: readonly number[], p: number): number | undefined {
  if (sorted.length === 0) return undefined;
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[rank];
}

function statsOf(calls: readonly StoredCall[]): CallStats {
  const ms = calls
    .map((call) => call.ms)
    .filter((value): value is number => value !== undefined)
    .sort((a, b) => a - b);
  const errors: Record<string, number> = {};
  let ok = 0;
  let failed = 0;
  let lastAt: string | undefined;
  for (const call of calls) {
    if (call.ok === true) ok += 1;
    if (call.ok === false) {
      failed += 1;
      const code = call.error?.code ?? "ERROR";
      errors[code] = (errors[code] ?? 0) + 1;
    }
    if (call.startedAt && (!lastAt || call.startedAt > lastAt)) lastAt = call.startedAt;
  }
  const stats: CallStats = { calls: calls.length, ok, failed, errors };
  const p50 = percentile(ms, 50);
  const p95 = percentile(ms, 95);
  const p99 = percentile(ms, 99);
  if (p50 !== undefined) stats.p50 = p50;
  if (p95 !== undefined) stats.p95 = p95;
  if (p99 !== undefined) stats.p99 = p99;
  if (ms.length) stats.maxMs = ms.at(-1)!;
  if (lastAt) stats.lastAt = lastAt;
  return stats;
}

/**
 * `/api/servers`: each server's and tool's calls in the newest runs, what the latest scan of each server
 * found (quarantined tools among them), and the live fleet when connected.
 */
export async function viewServers(sources: ViewerSources): Promise<{
  runsScanned: number;
  servers: Array<CallStats & { name: string; tools: Array<CallStats & { name: string }> }>;
  findings: StoredFinding[];
  live?: readonly Record<string, unknown>[];
}> {
  const runs = await sources.store.runs({ limit: sources.runsScanned ?? DEFAULT_VIEWER_RUNS_SCANNED });
  const byServer = new Map<string, StoredCall[]>();
  for (const summary of runs) {
    if (summary.callCount === 0) continue;
    const run = await sources.store.run(summary.id);
    for (const call of run?.calls ?? []) {
      const server = call.server ?? "(local)";
      const list = byServer.get(server) ?? [];
      list.push(call);
      byServer.set(server, list);
    }
  }
  const servers = [...byServer.entries()]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([name, calls]) => {
      const byTool = new Map<string, StoredCall[]>();
      for (const call of calls) {
        const tool = call.tool ?? call.name;
        byTool.set(tool, [...(byTool.get(tool) ?? []), call]);
      }
      return {
        name,
        ...statsOf(calls),
        tools: [...byTool.entries()]
          .sort(([a], [b]) => a.localeCompare(b))
          .map(([tool, toolCalls]) => ({ name: tool, ...statsOf(toolCalls) })),
      };
    });
  const live = sources.fleet?.();
  const findings = await sources.store.findings();
  return { runsScanned: runs.length, servers, findings, ...(live ? { live } : {}) };
}

/** `/api/audit`: the newest rows (oldest first) and the whole chain's verification. */
export async function viewAudit(sources: ViewerSources, last?: number) {
  const rows = await sources.store.audit({ last: last ?? sources.auditRows ?? DEFAULT_VIEWER_AUDIT_ROWS });
  const verification = await verifyAudit(sources.store);
  return { store: sources.store.location, rows, verification };
}
