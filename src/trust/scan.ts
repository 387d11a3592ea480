// The scans: a tool's definition, a server's text, a tool's result, a whole catalog. Pure functions
// from what a server said to findings; what to do about them (quarantine, flag, strip) is the caller's.
import {
  DEFAULT_TRUST_ENUM_VALUES,
  DEFAULT_TRUST_SCHEMA_NODES,
  DEFAULT_TRUST_SERVER_TOOLS,
  DEFAULT_TRUST_TEXT_CHARS,
} from "../config/defaults/trust.js";
import { mixesScripts } from "./confusables.js";
import { type Finding, type FindingKind, type Severity, worse } from "./finding.js";
import { hiddenIn } from "./hidden-text.js";
import { lookalikes } from "./lookalikes.js";
import { quote } from "./quote.js";
import { collectSchemaTexts, type PlacedText, type SchemaMeasure } from "./schema-texts.js";
import { type CatalogNames, shadowingIn } from "./shadowing.js";
import { sizeSeverity } from "./size.js";
import { judgeText } from "./text-signals.js";

export type { CatalogNames } from "./shadowing.js";

/** A tool as a server lists it (`tools/list`), with the server it came from. */
export interface ToolDefinition {
  server: string;
  /** The server's own tool name. */
  name: string;
  title?: string;
  description?: string;
  inputSchema?: unknown;
  outputSchema?: unknown;
  annotations?: Record<string, unknown>;
}

/** Findings of one tool, at most one per kind: the worst, with how many other places had the same kind. */
class ToolFindings {
  readonly #found = new Map<FindingKind, Finding & { more: number }>();

  constructor(
    private readonly server: string,
    private readonly tool?: string,
  ) {}

  add(kind: FindingKind, severity: Severity, detail: string, where: string): void {
    const previous = this.#found.get(kind);
    if (!previous) {
      const finding: Finding & { more: number } = {
        server: this.server,
        kind,
        severity,
        detail,
        where,
        more: 0,
      };
      if (this.tool !== undefined) finding.tool = this.tool;
      this.#found.set(kind, finding);
      return;
    }
    previous.more += 1;
    if (worse(previous.severity, severity) !== previous.severity) {
      Object.assign(previous, { severity, detail, where });
    }
  }

  list(): Finding[] {
    return [...this.#found.values()].map(({ more, ...finding }) =>
      more > 0
        ? { ...finding, detail: `${finding.detail} (and ${more} more place${more > 1 ? "s" : ""})` }
        : finding,
    );
  }
}

/** Scan one placed text into `found`. */
function scanPlaced(
  found: ToolFindings,
  server: string,
  placed: PlacedText,
  others: CatalogNames | undefined,
) {
  for (const judgement of judgeText(placed.text, "definition")) {
    // A tool's size is judged once for all its texts (below), not text by text.
    if (judgement.kind !== "oversized")
      found.add(judgement.kind, judgement.severity, judgement.detail, placed.where);
  }
  if (others) {
    const shadowing = shadowingIn(placed.text, server, others);
    if (shadowing) found.add("shadowing", shadowing.severity, shadowing.detail, placed.where);
  }
}

/**
 * Every finding in one tool's texts — description, title, and every description, title, enum value,
 * default, example and property name in its schemas, at any depth: `hidden-text`, `injection`,
 * `exfiltration`, `oversized` (the texts together, the largest enum, the schema's size); `shadowing`
 * when `others` lists other servers' tools that its text names or gives orders about; and, for its name,
 * hidden characters and letters of mixed scripts (`lookalike`). At most one finding per kind: the worst.
 */
export function scanTool(tool: ToolDefinition, others?: CatalogNames): Finding[] {
  const found = new ToolFindings(tool.server, tool.name);
  const hiddenName = hiddenIn(tool.name);
  if (hiddenName) {
    const spells = hiddenName.decoded !== undefined && /[\p{L}\p{N}]{2}/u.test(hiddenName.decoded);
    found.add("hidden-text", spells ? "high" : "medium", "hidden characters in the tool's name", "name");
  }
  if (mixesScripts(tool.name))
    found.add(
      "lookalike",
      "medium",
      `the name ${quote(tool.name)} mixes Latin with look-alike letters`,
      "name",
    );

  const texts: PlacedText[] = [];
  if (tool.title) texts.push({ where: "title", text: tool.title });
  if (typeof tool.annotations?.title === "string" && tool.annotations.title)
    texts.push({ where: "annotations.title", text: tool.annotations.title });
  if (tool.description) texts.push({ where: "description", text: tool.description });
  const measure: SchemaMeasure = { nodes: 0, largestEnum: 0, tooDeep: false };
  collectSchemaTexts(tool.inputSchema, "inputSchema", texts, measure);
  collectSchemaTexts(tool.outputSchema, "outputSchema", texts, measure);
  let chars = 0;
  for (const placed of texts) chars += placed.text.length;
  // Most tools have nothing to find: one pass over their texts together says so, and only a tool that
  // has something is read text by text, to say where. (No phrase spans two texts: they are joined by
  // line breaks, which every phrase stops at or merely allows.)
  const joined = texts.length > 1 ? texts.map((placed) => placed.text).join("\n") : (texts[0]?.text ?? "");
  const worthReading =
    judgeText(joined, "definition").some((judgement) => judgement.kind !== "oversized") ||
    (others !== undefined && shadowingIn(joined, tool.server, others) !== undefined);
  if (worthReading) for (const placed of texts) scanPlaced(found, tool.server, placed, others);

  const bySize = sizeSeverity(chars, DEFAULT_TRUST_TEXT_CHARS);
  if (bySize)
    found.add(
      "oversized",
      bySize,
      `${chars} characters of text`,
      texts.length === 1 ? texts[0]!.where : "tool",
    );
  const byEnum = sizeSeverity(measure.largestEnum, DEFAULT_TRUST_ENUM_VALUES);
  if (byEnum)
    found.add("oversized", byEnum, `an enum of ${measure.largestEnum} values`, measure.largestEnumWhere!);
  const byNodes = sizeSeverity(measure.nodes, DEFAULT_TRUST_SCHEMA_NODES);
  if (byNodes) found.add("oversized", byNodes, `${measure.nodes} schema nodes`, "inputSchema");
  if (measure.tooDeep)
    found.add("oversized", "medium", "schemas nested past the depth the scan reads", "inputSchema");
  return found.list();
}

/**
 * A server's `instructions`, a prompt's text, a resource's description …: `hidden-text`, `injection`,
 * `exfiltration`, `shadowing` (with `others`) and `oversized`, each at most once, at `where`.
 */
export function scanText(server: string, text: string, where: string, others?: CatalogNames): Finding[] {
  const found = new ToolFindings(server);
  for (const judgement of judgeText(text, "definition"))
    found.add(judgement.kind, judgement.severity, judgement.detail, where);
  if (others) {
    const shadowing = shadowingIn(text, server, others);
    if (shadowing) found.add("shadowing", shadowing.severity, shadowing.detail, where);
  }
  return found.list();
}

/**
 * A tool result's text: findings only (results are never blocked). URLs, paths and addresses are a
 * result's business and count only with an order; `oversized` is at most `medium`.
 */
export function scanResult(server: string, tool: string, text: string): Finding[] {
  const found = new ToolFindings(server, tool);
  for (const judgement of judgeText(text, "result")) {
    const severity =
      judgement.kind === "oversized" && judgement.severity === "high" ? "medium" : judgement.severity;
    found.add(judgement.kind, severity, judgement.detail, "result");
  }
  return found.list();
}

/** The names of a catalog's tools by server: each tool's own name and `<server>_<name>`. */
export function catalogNames(
  tools: readonly { server: string; name: string; catalogName?: string }[],
): CatalogNames {
  const byServer = new Map<string, string[]>();
  for (const tool of tools) {
    const names = byServer.get(tool.server) ?? [];
    if (names.length === 0) byServer.set(tool.server, names);
    names.push(tool.name, tool.catalogName ?? `${tool.server}_${tool.name}`);
  }
  return { tools: byServer };
}

/**
 * Scan a whole catalog, as `switchyard scan --tools <file>` does: every tool (with the others as the
 * catalog for shadowing), look-alike names across servers, and servers that list a flood of tools.
 */
export function scanCatalog(tools: readonly ToolDefinition[]): Finding[] {
  const names = catalogNames(tools);
  const findings = tools.flatMap((tool) => scanTool(tool, names));
  findings.push(...lookalikes(tools));
  for (const [server, serverNames] of names.tools) {
    const count = serverNames.length / 2;
    const severity = sizeSeverity(count, DEFAULT_TRUST_SERVER_TOOLS);
    if (severity)
      findings.push({ server, kind: "oversized", severity, detail: `${count} tools`, where: "tools/list" });
  }
  return findings;
}
