// The finding record is telemetry's (events, the store and the viewer carry it); trust/ makes them, and
// weighs their severities here.
import type { Finding, Severity } from "../telemetry/findings.js";

export {
  FINDING_KINDS,
  type Finding,
  type FindingKind,
  SEVERITIES,
  type Severity,
} from "../telemetry/findings.js";

const RANK: Readonly<Record<Severity, number>> = { high: 0, medium: 1, low: 2 };

/** True when `a` is at least as bad as `b`. */
export function atLeast(a: Severity, b: Severity): boolean {
  return RANK[a] <= RANK[b];
}

/** The worst severity among findings, or undefined when there are none. */
export function worstSeverity(findings: readonly Finding[]): Severity | undefined {
  let worst: Severity | undefined;
  for (const finding of findings)
    if (!worst || RANK[finding.severity] < RANK[worst]) worst = finding.severity;
  return worst;
}

/** The worse of two severities (`a` may be none yet). */
export function worse(a: Severity | undefined, b: Severity): Severity {
  return a === undefined || RANK[b] < RANK[a] ? b : a;
}
