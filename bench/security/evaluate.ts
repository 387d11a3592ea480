// How a fixture is scanned and judged, shared by the benchmark (with `switchyard/trust`) and the tests
// (with src/trust): the scan functions come in, so this file imports neither.
import { BASE_CATALOG, type Control, type Fixture, type FixtureTool } from "./attacks.js";

/** A finding as the scanner reports it (the fields this file reads). */
export interface ScannedFinding {
  server: string;
  tool?: string;
  kind: string;
  severity: "high" | "medium" | "low";
  detail: string;
  where?: string;
}

type Names = { tools: ReadonlyMap<string, readonly string[]> };

/** The scanner's functions, as `switchyard/trust` exports them. */
export interface Scans {
  scanTool: (tool: FixtureTool, others?: Names) => ScannedFinding[];
  scanText: (server: string, text: string, where: string, others?: Names) => ScannedFinding[];
  scanResult: (server: string, tool: string, text: string) => ScannedFinding[];
  scanCatalog: (tools: readonly FixtureTool[]) => ScannedFinding[];
  catalogNames: (tools: readonly { server: string; name: string }[]) => Names;
}

/** What happened to one fixture: `high` (would be quarantined), `lower` (flagged only), `missed`. */
export interface Outcome {
  id: string;
  outcome: "high" | "lower" | "missed";
  /** The fixture's expected kind was reported, and at which severity. */
  expected?: "high" | "medium" | "low";
  findings: ScannedFinding[];
}

const RANK = { high: 0, medium: 1, low: 2 } as const;

/** The findings a fixture or control gives, on its (attacker's) server. */
export function scanFixture(scans: Scans, item: Pick<Fixture, "server" | "target">): ScannedFinding[] {
  const { target } = item;
  let findings: ScannedFinding[];
  if ("tool" in target)
    findings = scans.scanTool(target.tool, scans.catalogNames([...BASE_CATALOG, target.tool]));
  else if ("text" in target)
    findings = scans.scanText(
      target.text.server,
      target.text.text,
      target.text.where,
      scans.catalogNames(BASE_CATALOG),
    );
  else if ("result" in target)
    findings = scans.scanResult(target.result.server, target.result.tool, target.result.text);
  else findings = scans.scanCatalog([...BASE_CATALOG, ...target.catalog]);
  return findings.filter((finding) => finding.server === item.server);
}

/** Judge one attack fixture. */
export function judgeFixture(scans: Scans, fixture: Fixture): Outcome {
  const findings = scanFixture(scans, fixture);
  const outcome = findings.some((finding) => finding.severity === "high")
    ? "high"
    : findings.length > 0
      ? "lower"
      : "missed";
  const expected = findings
    .filter((finding) => finding.kind === fixture.expect)
    .sort((a, b) => RANK[a.severity] - RANK[b.severity])[0]?.severity;
  return { id: fixture.id, outcome, ...(expected ? { expected } : {}), findings };
}

/** The worst severity a clean control gives (undefined: nothing). */
export function judgeControl(scans: Scans, control: Control): ScannedFinding["severity"] | undefined {
  const findings = scanFixture(scans, control);
  return findings.sort((a, b) => RANK[a.severity] - RANK[b.severity])[0]?.severity;
}
