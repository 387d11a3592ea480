// Sizes against thresholds: the one rule every `oversized` finding follows.
import type { SizeThresholds } from "../config/defaults/trust.js";
import type { Severity } from "./finding.js";

/** The severity of a size, or undefined below `low`. */
export function sizeSeverity(size: number, thresholds: Readonly<SizeThresholds>): Severity | undefined {
  if (size >= thresholds.high) return "high";
  if (size >= thresholds.medium) return "medium";
  if (size >= thresholds.low) return "low";
  return undefined;
}
