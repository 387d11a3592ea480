// How rows become records: what the databases return, read back as the `Store` interface's records.
import type { AuditRow } from "../telemetry/audit.js";
import type { RecordedError, TokenUsage } from "../telemetry/events.js";
import type { FindingKind, Severity } from "../telemetry/findings.js";
import type { PinnedDefinition, ToolPin } from "../trust/pins.js";
import { HOST } from "./event-writes.js";
import type { Write } from "./sql.js";
import type {
  GatewaySessionRecord,
  GatewaySessionUse,
  RunSummary,
  SessionHandle,
  SessionSummary,
  StoredAuditRecord,
  StoredCall,
  StoredFinding,
  StoredPlanCheckpoint,
  StoredRun,
  StoredSession,
  StoredStep,
} from "./store.js";

/** A row as a driver returns it. */
export type Row = Record<string, unknown>;

const text = (value: unknown): string | undefined =>
  value === null || value === undefined ? undefined : String(value);
const num = (value: unknown): number | undefined =>
  value === null || value === undefined ? undefined : Number(value);

function tokensOf(row: Row): TokenUsage | undefined {
  const input = num(row.tokens_in);
  const output = num(row.tokens_out);
  return input === undefined && output === undefined ? undefined : { input: input ?? 0, output: output ?? 0 };
}

function errorOf(row: Row): RecordedError | undefined {
  const code = text(row.error_code);
  return code === undefined ? undefined : { code, message: text(row.error_message) ?? "" };
}

/** Whether a process of this machine is alive (`kill -0`). */
function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** A run that has not finished: `running` while its process lives, `interrupted` once it is gone. */
function unfinishedStatus(row: Row): string {
  const pid = num(row.pid);
  if (text(row.host) !== HOST || pid === undefined) return "unfinished";
  return processAlive(pid) ? "running" : "interrupted";
}

/** A run's row (with `step_count` and `call_count`) as a summary; an unfinished one, running or not. */
export function runSummaryOf(row: Row): RunSummary {
  const finishedAt = text(row.finished_at);
  const summary: RunSummary = {
    id: String(row.id),
    kind: String(row.kind),
    startedAt: String(row.started_at),
    outcome: finishedAt === undefined ? unfinishedStatus(row) : (text(row.outcome) ?? "unknown"),
    finished: finishedAt !== undefined,
    stepCount: Number(row.step_count ?? 0),
    callCount: Number(row.call_count ?? 0),
  };
  if (finishedAt !== undefined) summary.finishedAt = finishedAt;
  const ms = num(row.ms);
  if (ms !== undefined) summary.ms = ms;
  const input = text(row.input);
  if (input !== undefined) summary.input = input;
  const tokens = tokensOf(row);
  if (tokens) summary.tokens = tokens;
  const error = errorOf(row);
  if (error) summary.error = error;
  const sessionId = text(row.session_id);
  if (sessionId !== undefined) summary.sessionId = sessionId;
  return summary;
}

/** A step's row as its record. */
export function stepOf(row: Row): StoredStep {
  const step: StoredStep = {
    step: Number(row.step),
    startedAt: String(row.started_at),
    tools: Number(row.tools),
  };
  const offered = text(row.offered);
  if (offered !== undefined) step.offered = JSON.parse(offered);
  const modelMs = num(row.model_ms);
  if (modelMs !== undefined) step.modelMs = modelMs;
  const toolCalls = num(row.tool_calls);
  if (toolCalls !== undefined) step.toolCalls = toolCalls;
  const tokens = tokensOf(row);
  if (tokens) step.tokens = tokens;
  const said = text(row.text);
  if (said !== undefined) step.text = said;
  return step;
}

/** A call's row as its record. */
export function callOf(row: Row): StoredCall {
  const call: StoredCall = { id: String(row.id), name: String(row.name) };
  const step = num(row.step);
  if (step !== undefined) call.step = step;
  for (const key of ["method", "server", "tool", "arguments", "result", "shaped"] as const) {
    const value = text(row[key]);
    if (value !== undefined) call[key] = value;
  }
  const startedAt = text(row.started_at);
  if (startedAt !== undefined) call.startedAt = startedAt;
  const servedBy = text(row.served_by);
  if (servedBy !== undefined) call.servedBy = servedBy;
  const taskId = text(row.task_id);
  if (taskId !== undefined) call.taskId = taskId;
  const ok = num(row.ok);
  if (ok !== undefined) call.ok = ok === 1;
  const ms = num(row.ms);
  if (ms !== undefined) call.ms = ms;
  const error = errorOf(row);
  if (error) call.error = error;
  return call;
}

/** A run with its steps and calls, from their rows. */
export function storedRunOf(run: Row, steps: Row[], calls: Row[]): StoredRun {
  const stored: StoredRun = { ...runSummaryOf(run), steps: steps.map(stepOf), calls: calls.map(callOf) };
  const answer = text(run.answer);
  if (answer !== undefined) stored.answer = answer;
  return stored;
}

/** A chat session's row as a summary (its saved state left out). */
export function sessionSummaryOf(row: Row): SessionSummary {
  return {
    id: String(row.id),
    createdAt: String(row.created_at),
    updatedAt: String(row.updated_at),
    title: String(row.title),
    turns: Number(row.turns),
  };
}

/** A chat session's row with its saved messages and handles. */
export function storedSessionOf(row: Row): StoredSession {
  const state = JSON.parse(String(row.state)) as { messages?: unknown[]; handles?: SessionHandle[] };
  return { ...sessionSummaryOf(row), messages: state.messages ?? [], handles: state.handles ?? [] };
}

/** An audit row as stored: the entry's text, as hashed, with its place in the chain. */
export function auditRecordOf(row: Row): StoredAuditRecord {
  return {
    seq: Number(row.seq),
    time: String(row.time),
    kind: String(row.kind),
    runId: text(row.run_id) ?? null,
    entry: String(row.entry),
    prevHash: String(row.prev_hash),
    hash: String(row.hash),
    ...(typeof row.mac === "string" ? { mac: row.mac } : {}),
  };
}

/** An audit row as read back: the hashed entry, with its place in the chain. */
export function auditRowOf(record: StoredAuditRecord): AuditRow {
  return {
    ...(JSON.parse(record.entry) as AuditRow),
    prevHash: record.prevHash,
    hash: record.hash,
    ...(record.mac !== undefined ? { mac: record.mac } : {}),
  };
}

/** A gateway session row as the gateway reads it back. */
/** A `tool_pins` row as a pin. */
export function pinOfRow(row: Row): ToolPin {
  return {
    server: String(row.server),
    tool: String(row.tool),
    fingerprint: String(row.fingerprint),
    definition: JSON.parse(String(row.definition)) as PinnedDefinition,
    pinnedAt: String(row.pinned_at),
    ...(Number(row.trusted) === 1 ? { trusted: true } : {}),
  };
}

/** A pin as the values of `pinSave`. */
export function pinValues(pin: ToolPin): unknown[] {
  return [
    pin.server,
    pin.tool,
    pin.fingerprint,
    JSON.stringify(pin.definition),
    pin.pinnedAt,
    pin.trusted ? 1 : 0,
  ];
}

/** A `findings` row as a stored finding. */
export function findingOfRow(row: Row): StoredFinding {
  return {
    server: String(row.server),
    ...(row.tool !== null && row.tool !== undefined ? { tool: String(row.tool) } : {}),
    kind: String(row.kind) as FindingKind,
    severity: String(row.severity) as Severity,
    detail: String(row.detail),
    ...(row.location !== null && row.location !== undefined ? { where: String(row.location) } : {}),
    ...(Number(row.accepted) === 1 ? { accepted: true } : {}),
    foundAt: String(row.found_at),
    quarantined: Number(row.quarantined) === 1,
  };
}

/** The writes that replace a server's findings with these. */
export function findingWrites(server: string, findings: readonly StoredFinding[]): Write[] {
  return [
    ["findingsClear", [server]],
    ...findings.map(
      (finding, seq): Write => [
        "findingInsert",
        [
          server,
          seq,
          finding.foundAt,
          finding.tool ?? null,
          finding.kind,
          finding.severity,
          finding.detail,
          finding.where ?? null,
          finding.accepted ? 1 : 0,
          finding.quarantined ? 1 : 0,
        ],
      ],
    ),
  ];
}

export function gatewaySessionUseOf(row: Row): GatewaySessionUse {
  return { id: String(row.id), usedAt: String(row.used_at) };
}

export function gatewaySessionOf(row: Row): GatewaySessionRecord {
  return {
    id: String(row.id),
    user: String(row.user_id),
    createdAt: String(row.created_at),
    usedAt: String(row.used_at),
    initialize: JSON.parse(String(row.initialize)) as unknown,
  };
}

/** A `plan_runs` row and its `plan_steps` rows as a plan run's checkpoint. */
export function planCheckpointOf(row: Row, steps: Row[]): StoredPlanCheckpoint {
  return {
    runId: String(row.run_id),
    planHash: String(row.plan_hash),
    input: String(row.input),
    steps: steps.map((step) => ({ id: String(step.step_id), output: String(step.output) })),
  };
}
