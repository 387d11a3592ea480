// Look-alike names across servers: `maiI_send` (capital I) or `mаil_send` (Cyrillic а) beside another
// server's `mail_send`. Names are grouped by skeleton (confusables.ts), so a catalog costs one pass.
import { caseKey, mixesScripts, skeleton } from "./confusables.js";
import type { Finding, Severity } from "./finding.js";
import { quote } from "./quote.js";

/** A tool as the look-alike check reads it: its server, its own name, and its catalog name if known. */
export interface NamedTool {
  server: string;
  name: string;
  /** The name the catalog gives it; default `<server>_<name>`. */
  catalogName?: string;
}

interface Entry {
  tool: number;
  form: "own" | "catalog";
  raw: string;
  /** {@link caseKey} of `raw`, and how odd it looks: both read for every pair, so worked out once. */
  key: string;
  odd: number;
}

/** Names of one skeleton each name is compared with, at most. */
const MAX_COMPARED = 256;
// biome-ignore lint/suspicious/noControlCharactersInRegex: ASCII letters and separators are not odd
const ODD = /[^\x00-\x7f]|[0-9|]/g;

/** How odd a name looks (characters outside plain ASCII letters, digits standing in for letters). */
function oddness(name: string): number {
  return (
    (name.match(ODD)?.length ?? 0) + (mixesScripts(name) ? 10 : 0) + (/[a-z]I|I[a-z]/.test(name) ? 1 : 0)
  );
}

/**
 * Confusable names across servers: one finding per tool that looks like another server's, on the odd
 * one of the pair (non-ASCII letters, digits for letters, a capital `I` among lower case) or, when
 * neither is odder, the later one in the list (the newer); its detail names the first look-alike and
 * counts the others. `high` when the names differ in how they are drawn; `medium` when they differ only
 * in case or separators (`send_mail`, `sendMail`) or when the own name of one is another's catalog name.
 * Within one server's names only drawn differences count, as `medium`.
 */
export function lookalikes(tools: readonly NamedTool[]): Finding[] {
  const buckets = new Map<string, Entry[]>();
  const add = (tool: number, form: Entry["form"], raw: string) => {
    const entry: Entry = { tool, form, raw, key: caseKey(raw), odd: oddness(raw) };
    const key = skeleton(raw);
    if (!key) return;
    const bucket = buckets.get(key);
    if (bucket) bucket.push(entry);
    else buckets.set(key, [entry]);
  };
  tools.forEach((tool, index) => {
    add(index, "own", tool.name);
    add(index, "catalog", tool.catalogName ?? `${tool.server}_${tool.name}`);
  });
  const found = new Map<
    number,
    { severity: Severity; detail: string; where: string; partners: Set<number> }
  >();
  for (const bucket of buckets.values()) {
    if (bucket.length < 2) continue;
    // Every name of a bucket is compared with its first names (the older ones) only: a flood of names
    // drawn alike costs n × MAX_COMPARED, not n².
    for (let i = 0; i < Math.min(bucket.length, MAX_COMPARED); i += 1) {
      for (let j = i + 1; j < bucket.length; j += 1) {
        const [a, b] = [bucket[i]!, bucket[j]!];
        if (a.tool === b.tool) continue;
        const judged = judgePair(tools[a.tool]!, a, tools[b.tool]!, b);
        if (!judged) continue;
        const [first, second] = a.tool < b.tool ? [a, b] : [b, a];
        const [odd, plain] = first.odd > second.odd ? [first, second] : [second, first];
        const previous = found.get(odd.tool);
        if (previous?.partners.has(plain.tool) && (previous.severity === "high" || judged === "medium"))
          continue;
        const detail = `${quote(odd.raw)} looks like ${quote(plain.raw)} of server ${quote(tools[plain.tool]!.server)}${judged === "medium" && odd.key === plain.key ? " (case or separators only)" : ""}`;
        const where = odd.form === "own" ? "name" : "catalogName";
        if (!previous)
          found.set(odd.tool, { severity: judged, detail, where, partners: new Set([plain.tool]) });
        else {
          previous.partners.add(plain.tool);
          if (judged === "high" && previous.severity !== "high")
            Object.assign(previous, { severity: judged, detail, where });
        }
      }
    }
  }
  return [...found].map(([on, { severity, detail, where, partners }]) => ({
    server: tools[on]!.server,
    tool: tools[on]!.name,
    kind: "lookalike",
    severity,
    detail: partners.size > 1 ? `${detail} (and ${partners.size - 1} more)` : detail,
    where,
  }));
}

/** The severity of two names with one skeleton, or undefined when they are not worth a finding. */
function judgePair(toolA: NamedTool, a: Entry, toolB: NamedTool, b: Entry): Severity | undefined {
  const drawnAlike = a.key !== b.key;
  if (toolA.server === toolB.server)
    return drawnAlike && a.form === "own" && b.form === "own" ? "medium" : undefined;
  if (a.raw === b.raw) return a.form === b.form ? undefined : "medium";
  return drawnAlike ? "high" : "medium";
}
