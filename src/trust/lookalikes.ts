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
}

// biome-ignore lint/suspicious/noControlCharactersInRegex: ASCII letters and separators are not odd
const ODD = /[^\x00-\x7f]|[0-9|]/g;

/** How odd a name looks (characters outside plain ASCII letters, digits standing in for letters). */
function oddness(name: string): number {
  return (
    (name.match(ODD)?.length ?? 0) + (mixesScripts(name) ? 10 : 0) + (/[a-z]I|I[a-z]/.test(name) ? 1 : 0)
  );
}

/**
 * Confusable names across servers: one finding per pair of tools, on the odd one (non-ASCII letters,
 * digits for letters, a capital `I` among lower case) or, when neither is odder, the later one in the
 * list (the newer). `high` when the names differ in how they are drawn; `medium` when they differ only
 * in case or separators (`send_mail`, `sendMail`) or when the own name of one is another's catalog name.
 * Within one server's names only drawn differences count, as `medium`.
 */
export function lookalikes(tools: readonly NamedTool[]): Finding[] {
  const buckets = new Map<string, Entry[]>();
  const add = (entry: Entry) => {
    const key = skeleton(entry.raw);
    if (!key) return;
    const bucket = buckets.get(key);
    if (bucket) bucket.push(entry);
    else buckets.set(key, [entry]);
  };
  tools.forEach((tool, index) => {
    add({ tool: index, form: "own", raw: tool.name });
    add({ tool: index, form: "catalog", raw: tool.catalogName ?? `${tool.server}_${tool.name}` });
  });
  const pairs = new Map<string, { severity: Severity; detail: string; on: number; where: string }>();
  for (const bucket of buckets.values()) {
    if (bucket.length < 2) continue;
    for (let i = 0; i < bucket.length; i += 1) {
      for (let j = i + 1; j < bucket.length; j += 1) {
        const [a, b] = [bucket[i]!, bucket[j]!];
        if (a.tool === b.tool) continue;
        const judged = judgePair(tools[a.tool]!, a, tools[b.tool]!, b);
        if (!judged) continue;
        const [first, second] = a.tool < b.tool ? [a, b] : [b, a];
        const key = `${first.tool}:${second.tool}`;
        const previous = pairs.get(key);
        if (previous && (previous.severity === "high" || judged === "medium")) continue;
        const oddA = oddness(first.raw);
        const oddB = oddness(second.raw);
        const [odd, plain] = oddA > oddB ? [first, second] : [second, first];
        const plainTool = tools[plain.tool]!;
        pairs.set(key, {
          severity: judged,
          on: odd.tool,
          where: odd.form === "own" ? "name" : "catalogName",
          detail: `${quote(odd.raw)} looks like ${quote(plain.raw)} of server ${quote(plainTool.server)}${judged === "medium" && caseKey(odd.raw) === caseKey(plain.raw) ? " (case or separators only)" : ""}`,
        });
      }
    }
  }
  return [...pairs.values()].map(({ severity, detail, on, where }) => ({
    server: tools[on]!.server,
    tool: tools[on]!.name,
    kind: "lookalike",
    severity,
    detail,
    where,
  }));
}

/** The severity of two names with one skeleton, or undefined when they are not worth a finding. */
function judgePair(toolA: NamedTool, a: Entry, toolB: NamedTool, b: Entry): Severity | undefined {
  const drawnAlike = caseKey(a.raw) !== caseKey(b.raw);
  if (toolA.server === toolB.server)
    return drawnAlike && a.form === "own" && b.form === "own" ? "medium" : undefined;
  if (a.raw === b.raw) return a.form === b.form ? undefined : "medium";
  return drawnAlike ? "high" : "medium";
}
