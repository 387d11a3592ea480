import type { QueryTerm } from "./bm25-index.js";
import type { Tokenize } from "./tokenizer.js";

/** A piece of text the router weighs: an earlier message, a tool already used. */
export interface QueryPart {
  text: string;
  /** How much its terms count, relative to the request itself (weight 1). */
  weight: number;
}

/** What the router ranks tools for: the request, and optionally weighted context around it. */
export interface RoutingQuery {
  /** The request itself (the latest user message); its terms weigh 1. */
  text: string;
  /** Earlier messages, tools already used…, each with a weight below 1. */
  context?: readonly QueryPart[];
  /**
   * The request rewritten into tool needs ("commit staged changes", "read file contents"), e.g. by a model
   * (`routing.rewrite`): each is ranked as a part of the request beside its own sentences, which stay
   * evidence too (see {@link withNeeds}).
   */
  needs?: readonly string[];
}

/** A query given as plain text is a request with no context. */
export function toRoutingQuery(query: string | RoutingQuery): RoutingQuery {
  return typeof query === "string" ? { text: query } : query;
}

/**
 * The query a strategy ranks: the request with its tool needs as more sentences of it, one a line. Each
 * part of a request is ranked on its own and gets its share of the offer (clauses.ts, the lexical
 * strategy's parts), so each need does, and the request's own words still count: a need that misses
 * loses nothing the request finds.
 */
export function withNeeds(query: RoutingQuery): RoutingQuery {
  const { needs, ...rest } = query;
  const lines = (needs ?? []).map((need) => need.replace(/\s+/g, " ").trim()).filter(Boolean);
  return lines.length === 0 ? rest : { ...rest, text: [query.text, ...lines].join("\n") };
}

/**
 * The weighted terms of some texts. A term counts once, at the highest weight of the texts holding it:
 * a word repeated in a long request is not more relevant for it, and long context must not outvote
 * the request.
 */
export function queryTerms(parts: readonly QueryPart[], tokenize: Tokenize): QueryTerm[] {
  const weights = new Map<string, number>();
  for (const { text, weight } of parts) {
    if (weight <= 0) continue;
    for (const term of tokenize(text)) weights.set(term, Math.max(weights.get(term) ?? 0, weight));
  }
  return [...weights].map(([term, weight]) => ({ term, weight }));
}

/** Whether a query holds tool needs that add to its text. */
export function hasNeeds(query: RoutingQuery): boolean {
  return (query.needs ?? []).some((need) => need.trim() !== "");
}

/** The query without its tool needs: the request as its user wrote it. */
export function withoutNeeds(query: RoutingQuery): RoutingQuery {
  const { needs: _, ...request } = query;
  return request;
}
