// Security (issue 25): what the trust scans catch and what they cost. Switchyard only, no servers.
//
// Static part (here): the attack fixtures of bench/security/attacks.ts, kind by kind — caught as high
// (what a quarantine acts on), flagged lower, missed — and the clean controls; then the false-positive
// rate on clean tool sets (the routing sets beside the repository, the real MCP servers' tools in
// bench/security/clean-mcp.json) with the scan's cost per tool. The live part (drift, hide-and-reappear,
// quarantine through real servers) is bench/security/live.ts: it adds its own lines and rows.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import * as trust from "switchyard/trust";
import { REPO } from "../paths.js";
import type { Row, ScenarioResult } from "../report.js";
import { ATTACK_KINDS, ATTACKS, CONTROLS } from "../security/attacks.js";
import { judgeControl, judgeFixture, type Scans } from "../security/evaluate.js";
import { liveSection } from "../security/live.js";
import { median, percentile } from "../stats.js";
import type { ScenarioContext } from "./context.js";

const SHARED = join(REPO, "..", "shared", "data", "routing");

/** The clean sets: tools that honest servers (or honest API specs) describe. */
export const CLEAN_SETS = [
  { id: "seal-tools", label: "Seal-Tools (English)", file: join(SHARED, "seal-tools", "tools.json") },
  { id: "acebench-zh", label: "ACEBench zh (Chinese)", file: join(SHARED, "acebench-zh", "tools.json") },
  { id: "mcp", label: "real MCP servers", file: join(REPO, "bench", "security", "clean-mcp.json") },
] as const;

/** What each part of the scenario adds: lines of its table and rows for the JSON. */
export interface SecuritySection {
  lines: string[];
  rows: Row[];
}

export interface SecurityBenchOptions {
  id: string;
  title: string;
}

const scans: Scans = trust;
const percent = (part: number, whole: number) => `${((100 * part) / Math.max(whole, 1)).toFixed(2)}%`;

/** The attack fixtures, kind by kind, and the clean controls. */
export function attackSection(): SecuritySection {
  const lines = [
    "  attacks             fixtures  caught high  flagged lower  missed  expected kind reported",
  ];
  const rows: Row[] = [];
  const lower: string[] = [];
  for (const kind of ATTACK_KINDS) {
    const fixtures = ATTACKS.filter((fixture) => fixture.kind === kind);
    const outcomes = fixtures.map((fixture) => ({ fixture, outcome: judgeFixture(scans, fixture) }));
    const count = (outcome: string) => outcomes.filter(({ outcome: o }) => o.outcome === outcome).length;
    const reported = outcomes.filter(({ outcome }) => outcome.expected !== undefined).length;
    for (const { fixture, outcome } of outcomes)
      if (outcome.outcome !== "high")
        lower.push(
          `    ${fixture.id}: ${outcome.outcome} — ${outcome.findings.map((f) => `${f.kind}/${f.severity}`).join(", ") || "nothing"}`,
        );
    lines.push(
      `  ${kind.padEnd(18)}  ${String(fixtures.length).padStart(8)}  ${String(count("high")).padStart(11)}  ${String(count("lower")).padStart(13)}  ${String(count("missed")).padStart(6)}  ${String(reported).padStart(4)} of ${fixtures.length}`,
    );
    rows.push({
      id: `attacks-${kind}`,
      label: `attacks: ${kind}`,
      median: count("high"),
      samples: fixtures.length,
      extra: `high ${count("high")}, lower ${count("lower")}, missed ${count("missed")}, expected kind ${reported}`,
    });
  }
  if (lower.length) lines.push("  not high (by design, see bench/security/README.md):", ...lower);
  const controls = CONTROLS.map((control) => judgeControl(scans, control));
  const worst = (severity: string) => controls.filter((found) => found === severity).length;
  lines.push(
    `  clean controls: ${CONTROLS.length}, high ${worst("high")}, medium ${worst("medium")}, low ${worst("low")}, nothing ${controls.filter((found) => !found).length}`,
  );
  rows.push({
    id: "controls",
    label: "clean controls with a high finding",
    median: worst("high"),
    samples: CONTROLS.length,
  });
  return { lines, rows };
}

/** High, medium and low rates on the clean sets, and µs per tool of `scanTool` with the catalog's names. */
export function falsePositiveSection(context: ScenarioContext): SecuritySection {
  const lines = [
    "",
    "  clean set               tools   high %  medium %   low %  µs/tool p50    p99  scanCatalog ms",
  ];
  const rows: Row[] = [];
  const passes = context.quick ? 1 : 5;
  for (const set of CLEAN_SETS) {
    let tools: trust.ToolDefinition[];
    try {
      tools = JSON.parse(readFileSync(set.file, "utf8")) as trust.ToolDefinition[];
    } catch (error) {
      lines.push(`  ${set.label.padEnd(22)}  skipped: ${(error as Error).message}`);
      continue;
    }
    const names = trust.catalogNames(tools);
    const worst = new Map<string, trust.Severity>();
    const note = (finding: trust.Finding) => {
      const key = `${finding.server}\u0000${finding.tool ?? ""}`;
      worst.set(key, trust.worse(worst.get(key), finding.severity));
    };
    for (const tool of tools) trust.scanTool(tool, names); // warm-up
    const samples: number[] = [];
    for (let pass = 0; pass < passes; pass += 1) {
      for (const tool of tools) {
        const started = process.hrtime.bigint();
        const findings = trust.scanTool(tool, names);
        samples.push(Number(process.hrtime.bigint() - started) / 1_000);
        if (pass === 0) for (const finding of findings) note(finding);
      }
    }
    const catalogStarted = performance.now();
    const catalog = trust.scanCatalog(tools);
    const catalogMs = performance.now() - catalogStarted;
    for (const finding of catalog) if (finding.tool !== undefined) note(finding);
    const counts = { high: 0, medium: 0, low: 0 };
    for (const severity of worst.values()) counts[severity] += 1;
    const p50 = median(samples);
    const p99 = percentile(samples, 0.99);
    lines.push(
      `  ${set.label.padEnd(22)}  ${String(tools.length).padStart(5)}  ${percent(counts.high, tools.length).padStart(7)}  ${percent(counts.medium, tools.length).padStart(8)}  ${percent(counts.low, tools.length).padStart(6)}  ${p50.toFixed(1).padStart(11)}  ${p99.toFixed(1).padStart(5)}  ${catalogMs.toFixed(0).padStart(14)}`,
    );
    rows.push({
      id: `clean-${set.id}`,
      label: `clean ${set.label}: µs per tool`,
      median: p50,
      p99,
      samples: samples.length,
      extra: `tools ${tools.length}; high ${counts.high}, medium ${counts.medium}, low ${counts.low}; scanCatalog ${catalogMs.toFixed(0)} ms`,
    });
  }
  const texts = JSON.parse(readFileSync(join(REPO, "bench", "security", "clean-mcp-texts.json"), "utf8")) as {
    server: string;
    where: string;
    text: string;
  }[];
  const textFindings = texts.flatMap((text) => trust.scanText(text.server, text.text, text.where));
  lines.push(
    `  real MCP servers' instructions and prompts: ${texts.length} texts, ${textFindings.filter((f) => f.severity === "high").length} high, ${textFindings.filter((f) => f.severity === "medium").length} medium`,
  );
  return { lines, rows };
}

/** The live part of the security benchmark, through real stdio servers (bench/security/live.ts). */
export async function liveSecurity(context: ScenarioContext): Promise<SecuritySection | undefined> {
  context.log("security: the live attacks, through real stdio servers");
  return liveSection();
}

/** The security scenario: the static part's two tables, then the live part's when there is one. */
export async function securityBench(
  context: ScenarioContext,
  options: SecurityBenchOptions,
): Promise<ScenarioResult> {
  const attacks = attackSection();
  const clean = falsePositiveSection(context);
  const live = await liveSecurity(context);
  const sections = [attacks, clean, ...(live ? [live] : [])];
  context.log(
    `${options.id}: ${ATTACKS.length} attack fixtures, ${CONTROLS.length} controls, ${CLEAN_SETS.length} clean sets`,
  );
  return {
    id: options.id,
    title: options.title,
    unit: "µs",
    method: `switchyard/trust on ${ATTACKS.length} attack fixtures and ${CONTROLS.length} clean controls (bench/security/attacks.ts); clean sets scanned tool by tool with the set's own catalog for shadowing (scanTool, timed alone with process.hrtime, ${context.quick ? 1 : 5} passes after a warm-up) and whole (scanCatalog: look-alikes, floods); a tool's rate counts its worst finding`,
    rows: sections.flatMap((section) => section.rows),
    table: sections.flatMap((section) => section.lines).join("\n"),
  };
}
