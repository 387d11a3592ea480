// switchyard/trust: what a server says is data, not orders. Scans of tool definitions, server texts and
// tool results (hidden text, injection, exfiltration, shadowing, look-alike names, floods), as pure
// functions from text to findings; the catalog and the pipeline decide what to do with them.
// The thresholds are read from config/defaults/trust.ts itself rather than through config/defaults.ts,
// which re-exports the config sections and their zod schemas: this entry loads one small chunk.
export {
  DEFAULT_TRUST_ENUM_VALUES,
  DEFAULT_TRUST_RESULT_CHARS,
  DEFAULT_TRUST_SCHEMA_DEPTH,
  DEFAULT_TRUST_SCHEMA_NODES,
  DEFAULT_TRUST_SERVER_TOOLS,
  DEFAULT_TRUST_TEXT_CHARS,
  type SizeThresholds,
} from "../config/defaults/trust.js";
export { caseKey, foldMixedScripts, mixesScripts, skeleton } from "./confusables.js";
export {
  atLeast,
  FINDING_KINDS,
  type Finding,
  type FindingKind,
  SEVERITIES,
  type Severity,
  worse,
  worstSeverity,
} from "./finding.js";
export { type HiddenText, hiddenIn, stripHidden } from "./hidden-text.js";
export { lookalikes, type NamedTool } from "./lookalikes.js";
export {
  type CatalogNames,
  catalogNames,
  scanCatalog,
  scanResult,
  scanText,
  scanTool,
  type ToolDefinition,
} from "./scan.js";
