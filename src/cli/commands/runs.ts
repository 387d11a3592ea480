import {
  type AuditRow,
  DEFAULT_RUN_AUDIT_SCAN_ROWS,
  DEFAULT_RUNS_LISTED,
  didYouMean,
  type RunSummary,
  type StoredCall,
  type StoredRun,
  type StoredStep,
} from "../../internal.js";
import type { CommandContext } from "../context.js";
import { CliError, EXIT_OK, EXIT_USAGE } from "../exit-codes.js";
import { countOf, firstLine, formatTable } from "../table.js";

/** `--limit <n>`: a whole number above 0. */
export function parseLimit(value: string | undefined, fallback: number, flag = "--limit"): number {
  if (value === undefined) return fallback;
  const limit = Number(value);
  if (!(Number.isInteger(limit) && limit > 0))
    throw new CliError(`${flag} must be a whole number above 0 (got "${value}")`, EXIT_USAGE);
  return limit;
}

/** `switchyard runs [--limit n]`: the latest recorded runs, newest first. */
export async function runsCommand(ctx: CommandContext, flags: { limit?: string }): Promise<number> {
  const limit = parseLimit(flags.limit, DEFAULT_RUNS_LISTED);
  const store = await ctx.requireStore();
  const runs = await store.runs({ limit });
  if (ctx.out.json) {
    ctx.out.data(runs);
    return EXIT_OK;
  }
  if (runs.length === 0) {
    ctx.out.note(`no runs recorded yet in ${store.location}`);
    return EXIT_OK;
  }
  ctx.out.result(
    formatTable(
      ["RUN", "KIND", "STARTED", "OUTCOME", "STEPS", "CALLS", "TIME", "INPUT"],
      runs.map((run) => [
        run.id,
        run.kind,
        run.startedAt.replace("T", " ").slice(0, 19),
        run.outcome,
        String(run.stepCount),
        String(run.callCount),
        run.ms === undefined ? "-" : duration(run.ms),
        firstLine(run.input ?? "", 50),
      ]),
    ),
  );
  return EXIT_OK;
}

/** `switchyard runs show <id>`: one run as a timeline (`--json`: the whole record). */
export async function runShowCommand(ctx: CommandContext, id: string): Promise<number> {
  const store = await ctx.requireStore();
  const run = await store.run(id);
  if (!run) {
    const hint = didYouMean(
      id,
      (await store.runs({ limit: 100 })).map((recent) => recent.id),
    );
    throw new CliError(
      `no run ${id} in ${store.location}${hint ? ` (${hint})` : ""}; switchyard runs lists the latest`,
      EXIT_USAGE,
    );
  }
  if (ctx.out.json) ctx.out.data(run);
  else {
    const audit = (await store.audit({ last: DEFAULT_RUN_AUDIT_SCAN_ROWS })).filter(
      (row) => row.runId === run.id,
    );
    ctx.out.result(`${renderRun(run)}${renderAudit(audit)}`);
  }
  return EXIT_OK;
}

/** The run's audit rows (policy decisions, approvals, calls let through), one line each; none: nothing. */
function renderAudit(rows: readonly AuditRow[]): string {
  if (rows.length === 0) return "";
  const lines = rows.map((row) => {
    const where = row.server ? `${row.server}/${row.tool ?? row.name ?? "?"}` : (row.name ?? "-");
    return [
      `    #${row.seq}`,
      row.kind,
      row.identity?.user ?? "-",
      where,
      row.outcome,
      ...(row.rule ? [`rule ${row.rule}`] : []),
      ...(row.callId ? [row.callId] : []),
    ].join("  ");
  });
  return `\n\naudit (${countOf(rows.length, "row")}; switchyard audit verify checks the chain):\n${lines.join("\n")}`;
}

/** `switchyard sessions [--limit n]`: the latest chat sessions, to resume with `chat --session <id>`. */
export async function sessionsCommand(ctx: CommandContext, flags: { limit?: string }): Promise<number> {
  const limit = parseLimit(flags.limit, DEFAULT_RUNS_LISTED);
  const store = await ctx.requireStore();
  const sessions = await store.sessions({ limit });
  if (ctx.out.json) ctx.out.data(sessions);
  else if (sessions.length === 0) ctx.out.note(`no chat sessions recorded yet in ${store.location}`);
  else
    ctx.out.result(
      formatTable(
        ["SESSION", "UPDATED", "TURNS", "FIRST QUESTION"],
        sessions.map((session) => [
          session.id,
          session.updatedAt.replace("T", " ").slice(0, 19),
          String(session.turns),
          firstLine(session.title, 60),
        ]),
      ),
    );
  return EXIT_OK;
}

/** A run as a readable timeline: its header, then each step (model turn, offered tools, calls). */
export function renderRun(run: StoredRun): string {
  const lines = [`run ${run.id} (${run.kind}): ${run.outcome}`, `  ${facts(run)}`];
  if (run.input !== undefined)
    lines.push(`  ${run.kind === "agent" ? "question" : "input"}: ${firstLine(run.input, 200)}`);
  if (run.sessionId !== undefined) lines.push(`  session: ${run.sessionId}`);
  if (run.error) lines.push(`  error: ${run.error.code}: ${firstLine(run.error.message, 200)}`);
  const byStep = new Map<number | undefined, StoredCall[]>();
  for (const call of run.calls) {
    const step = run.steps.some((s) => s.step === call.step) ? call.step : undefined;
    byStep.set(step, [...(byStep.get(step) ?? []), call]);
  }
  for (const step of run.steps) {
    lines.push("", ...renderStep(step, run.finished));
    for (const call of byStep.get(step.step) ?? []) lines.push(`    ${renderCall(call, run.finished)}`);
  }
  const loose = byStep.get(undefined) ?? [];
  if (loose.length) {
    lines.push("", "calls:");
    // A plan's calls are its steps: say which.
    for (const call of loose)
      lines.push(`    ${run.kind === "plan" ? `${call.id}: ` : ""}${renderCall(call, run.finished)}`);
  }
  if (run.answer !== undefined) lines.push("", `answer: ${run.answer}`);
  if (!run.finished)
    lines.push(
      "",
      run.outcome === "running"
        ? "the run has not finished: it is still running"
        : `the run did not finish (${run.outcome}): what is above is what it did before it stopped`,
    );
  return lines.join("\n");
}

function facts(run: RunSummary): string {
  const parts = [`started ${run.startedAt}`];
  if (run.ms !== undefined) parts.push(`took ${duration(run.ms)}`);
  parts.push(countOf(run.stepCount, "step"), countOf(run.callCount, "call"));
  if (run.tokens) parts.push(`${run.tokens.input} tokens in, ${run.tokens.output} out`);
  return parts.join(", ");
}

function renderStep(step: StoredStep, finished: boolean): string[] {
  const offered = offeredNames(step.offered);
  const head = `step ${step.step}: ${countOf(step.tools, "tool")} offered${offered ? `: ${offered}` : ""}`;
  if (step.modelMs === undefined)
    return [head, `  model: no answer${finished ? "" : " (the run stopped while it was asked)"}`];
  const tokens = step.tokens ? `, ${step.tokens.input} tokens in, ${step.tokens.output} out` : "";
  const asked = step.toolCalls ? `asked for ${countOf(step.toolCalls, "tool call")}` : "answered";
  const said = step.text ? `: ${firstLine(step.text, 160)}` : "";
  return [head, `  model (${duration(step.modelMs)}${tokens}) ${asked}${said}`];
}

/** The offered tools as the event carried them (names, or `{ name, score }`), for one line. */
function offeredNames(offered: unknown): string {
  if (!Array.isArray(offered)) return "";
  const names = offered.map((tool) => {
    if (typeof tool === "string") return tool;
    const { name, id, score } = (tool ?? {}) as { name?: unknown; id?: unknown; score?: unknown };
    const label = String(name ?? id ?? "?");
    return typeof score === "number" ? `${label} (${score.toFixed(2)})` : label;
  });
  return firstLine(names.join(", "), 160);
}

function renderCall(call: StoredCall, finished: boolean): string {
  const where = call.server ? `${call.server}/${call.tool ?? call.name}` : "-";
  const args = call.arguments !== undefined ? `  ${firstLine(call.arguments, 80)}` : "";
  if (call.ok === undefined)
    return `…     ${call.name}  ${where}  no result${finished ? "" : " (the run stopped during the call)"}${args}`;
  const outcome = call.ok ? "ok   " : "fail ";
  const error = call.error ? `  ${call.error.code}: ${firstLine(call.error.message, 120)}` : "";
  const task = call.taskId !== undefined ? `  task ${call.taskId}` : "";
  return `${outcome} ${call.name}  ${where}  ${duration(call.ms ?? 0)}${task}${args}${error}`;
}

/** `850 ms`, `12.3 s`. */
function duration(ms: number): string {
  return ms < 1000 ? `${Math.round(ms)} ms` : `${(ms / 1000).toFixed(1)} s`;
}
