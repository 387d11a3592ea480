// Scenario results: the table on stdout and the JSON file, with ratios to the bare SDK v2 and to the
// hand-written limit.
import { writeFileSync } from "node:fs";
import { BASELINE_ID, LIMIT_ID } from "./clients/index.js";
import { median } from "./stats.js";

/** One row of a scenario: a client (or a variant, for Switchyard-only scenarios). */
export interface Row {
  id: string;
  label: string;
  /** Protocol revisions negotiated during the scenario, with counts when they differ. */
  revisions?: string;
  /** The headline number: a median. */
  median: number;
  p99?: number;
  /** Sequential calls per second, or calls per second with many in flight. */
  callsPerSecond?: number;
  /** Anything else worth a column (memory over an empty process, …). */
  extra?: string;
  /** Samples behind the median. */
  samples: number;
  error?: string;
}

/** A row from one client's samples: the median, the count, an error if any, and the scenario's own columns. */
export function sampledRow(
  client: { id: string; label: string },
  values: number[],
  columns: Omit<Partial<Row>, "error"> & { error?: string | undefined } = {},
): Row {
  const { error, ...rest } = columns;
  return {
    id: client.id,
    label: client.label,
    median: median(values),
    samples: values.length,
    ...rest,
    ...(error ? { error } : {}),
  };
}

export interface ScenarioResult {
  id: string;
  title: string;
  unit: "ms" | "µs" | "MB" | "tokens";
  /** How the numbers were taken (rounds, calls, …). */
  method: string;
  rows: Row[];
  skipped?: string;
  /** The scenario's own table, printed instead of the rows' (the JSON keeps the rows). */
  table?: string;
}

export interface RowWithRatios extends Row {
  /** median / the bare SDK v2's median (> 1: slower, or more memory). */
  vsSdkV2?: number;
  /** median / the hand-written limit's median. */
  vsLimit?: number;
}

export function withRatios(scenario: ScenarioResult): RowWithRatios[] {
  const baseline = scenario.rows.find((row) => row.id === BASELINE_ID && !row.error);
  const limit = scenario.rows.find((row) => row.id === LIMIT_ID && !row.error);
  return scenario.rows.map((row) => {
    const withRatio: RowWithRatios = { ...row };
    if (!row.error && baseline) withRatio.vsSdkV2 = row.median / baseline.median;
    if (!row.error && limit) withRatio.vsLimit = row.median / limit.median;
    return withRatio;
  });
}

const digits = (value: number) => (value >= 100 ? 0 : value >= 10 ? 1 : value >= 1 ? 2 : 3);
const number = (value: number | undefined) => (value === undefined ? "" : value.toFixed(digits(value)));
const ratio = (value: number | undefined) => (value === undefined ? "" : `${value.toFixed(2)}×`);

/** The scenario as a fixed-width table. */
export function formatScenario(scenario: ScenarioResult): string {
  const lines = [`${scenario.title} — ${scenario.method}`];
  if (scenario.skipped) return [...lines, `  skipped: ${scenario.skipped}`].join("\n");
  if (scenario.table) return [...lines, scenario.table].join("\n");
  const header = [
    "client",
    "revision",
    `median ${scenario.unit}`,
    `p99 ${scenario.unit}`,
    "calls/s",
    "×SDK v2",
    "×limit",
    "",
  ];
  const body = withRatios(scenario).map((row) =>
    row.error
      ? [row.label, "", "", "", "", "", "", `failed: ${row.error}`]
      : [
          row.label,
          row.revisions ?? "",
          number(row.median),
          number(row.p99),
          row.callsPerSecond === undefined ? "" : row.callsPerSecond.toFixed(0),
          ratio(row.vsSdkV2),
          ratio(row.vsLimit),
          row.extra ?? "",
        ],
  );
  const used = header.map((_, column) => column === 0 || body.some((cells) => cells[column] !== ""));
  const widths = header.map((title, column) =>
    Math.max(title.length, ...body.map((cells) => cells[column]!.length)),
  );
  const render = (cells: string[]) =>
    `  ${cells
      .map((cell, column) =>
        column <= 1 || column === cells.length - 1
          ? cell.padEnd(widths[column]!)
          : cell.padStart(widths[column]!),
      )
      .filter((_, column) => used[column])
      .join("  ")
      .trimEnd()}`;
  return [...lines, render(header), ...body.map(render)].join("\n");
}

/** Write every scenario, with ratios, and the run's environment, as JSON. */
export function writeJson(
  file: string,
  meta: Record<string, unknown>,
  scenarios: readonly ScenarioResult[],
): void {
  const data = {
    meta,
    scenarios: scenarios.map((scenario) => ({ ...scenario, rows: withRatios(scenario) })),
  };
  writeFileSync(file, `${JSON.stringify(data, null, 2)}\n`);
}

/** "2026-07-28" when every connection agreed; "2026-07-28 ×7, 2025-11-25 ×1" otherwise. */
export function describeRevisions(revisions: readonly string[]): string {
  const counts = new Map<string, number>();
  for (const revision of revisions) counts.set(revision, (counts.get(revision) ?? 0) + 1);
  if (counts.size <= 1) return [...counts.keys()][0] ?? "";
  return [...counts]
    .sort((a, b) => b[1] - a[1])
    .map(([revision, count]) => `${revision} ×${count}`)
    .join(", ");
}
