// Shadowing: a server's text that names another server's tools, or gives orders about them ("when
// mail_send is used, always bcc …"). Names are looked up word by word in an index of the catalog, built
// once per catalog, so a text costs one pass however many tools the catalog has.

import type { Severity } from "./finding.js";
import { findPhrase, HAN, ORDER, type Phrase, phrase, SINK, TAG_BLOCK } from "./phrases.js";
import { quote } from "./quote.js";
import { sentenceAround } from "./sentence.js";

/** The tools of a catalog by server: each server's own tool names and their catalog names (`mail_send`). */
export interface CatalogNames {
  /** Server → its tool names (the server's own and catalog names like `mail_send`). */
  tools: ReadonlyMap<string, readonly string[]>;
}

/** A catalog's names by lower-cased name, each with the servers that have it. */
interface NameIndex {
  names: Map<string, Set<string>>;
  servers: Map<string, string>;
}

const indexes = new WeakMap<CatalogNames, NameIndex>();
/** Identifier-like words (Han and kana excluded, so `调用mail_send时` still yields `mail_send`). */
const WORD =
  /(?:(?![\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}])[\p{L}\p{M}\p{N}_.-])+/gu;
/** A name that cannot be an ordinary word: it has `_`, `-`, `.`, a digit or a camelCase hump. */
const IDENTIFIER = /[_\-.\d]|\p{Ll}\p{Lu}/u;
const QUOTES = new Set(["`", "'", '"', "“", "”", "‘", "’", "「", "」"]);
/** A server named as such: "the github server", "mail tools", mail 服务器. */
const SERVER_NOUN = /^\s*(?:mcp\s+)?(?:server|tools?|mcp|服务器?|工具)/iu;
/** A condition or a duty about a tool's use: "when … is used", "must include", 当…时, 调用…之前. */
const CONDITION: Phrase = phrase(
  [
    /\b(?:when|whenever|if|every\s+time|each\s+time|after|before|once|instead|rather\s+than|must|should|shall|needs?\s+to|has\s+to|have\s+to|required)\b/,
  ],
  [/当|每当|如果|之前|之后|时[，,]?|代替|而不是|应该|需要|只能/u],
);

function indexOf(names: CatalogNames): NameIndex {
  let index = indexes.get(names);
  if (index) return index;
  index = { names: new Map(), servers: new Map() };
  for (const [server, tools] of names.tools) {
    index.servers.set(server.toLowerCase(), server);
    for (const tool of tools) {
      const key = tool.toLowerCase();
      const owners = index.names.get(key);
      if (owners) owners.add(server);
      else index.names.set(key, new Set([server]));
    }
  }
  indexes.set(names, index);
  return index;
}

/** Mentions read for an order before a text is judged on what was found: a flood of names costs no more. */
const MAX_MENTIONS = 32;

/**
 * Whether `text` of `server` names other servers' tools or servers, and whether it orders about them:
 * `high` with an order, a condition on their use or a place to send to in the same sentence, `medium`
 * for a bare mention. Plain words (`search`) count only when quoted; a name the server has itself never.
 */
export function shadowingIn(
  text: string,
  server: string,
  names: CatalogNames,
): { severity: Severity; detail: string } | undefined {
  const index = indexOf(names);
  let found: { severity: Severity; detail: string } | undefined;
  let tag: string | undefined | null = null;
  let mentions = 0;
  for (const match of text.matchAll(WORD)) {
    const word = match[0].replace(/^[.-]+|[.-]+$/g, "");
    if (word.length < 3) continue;
    const key = word.toLowerCase();
    const start = match.index + match[0].indexOf(word);
    const end = start + word.length;
    let named: string | undefined;
    const owners = index.names.get(key);
    if (owners && !owners.has(server)) {
      const quoted = QUOTES.has(text[start - 1] ?? "") || QUOTES.has(text[end] ?? "");
      if (IDENTIFIER.test(word) || quoted) named = `${[...owners][0]}'s tool ${quote(word)}`;
    }
    const other = index.servers.get(key);
    if (!named && other !== undefined && other !== server && SERVER_NOUN.test(text.slice(end, end + 12)))
      named = `the server ${quote(other)}`;
    if (!named) continue;
    if (++mentions > MAX_MENTIONS) break;
    const sentence = sentenceAround(text, start, end);
    const han = HAN.test(sentence);
    const order =
      findPhrase(ORDER, sentence, han) ??
      findPhrase(CONDITION, sentence, han) ??
      findPhrase(SINK, sentence, han);
    if (tag === null) tag = findPhrase(TAG_BLOCK, text, HAN.test(text));
    if (order || tag) return { severity: "high", detail: `orders about ${named}: ${quote(sentence)}` };
    found ??= { severity: "medium", detail: `names ${named}` };
  }
  return found;
}
