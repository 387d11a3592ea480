// One text judged: what is hidden in it, what it orders, what it would have sent where, how big it is.
// The phrases are in phrases.ts; here is how they combine into a severity. The text is read as the model
// would get it: hidden characters stripped, compatibility forms folded (NFKC), words that mix scripts
// spelled in Latin, and what the tag characters spelled added, so none of these hides an order.

import { DEFAULT_TRUST_RESULT_CHARS, DEFAULT_TRUST_TEXT_CHARS } from "../config/defaults/trust.js";
import { foldMixedScripts } from "./confusables.js";
import { type FindingKind, type Severity, worse } from "./finding.js";
import { type HiddenText, hiddenIn, stripHidden } from "./hidden-text.js";
import {
  ADDRESSED_TO_MODEL,
  CREDENTIALS,
  EMAIL,
  EXAMPLE_HOST,
  findPhrase,
  HAN,
  HARVEST,
  ORDER,
  OTHER_TOOLS,
  OVERRIDE,
  PARAMETER_CHANNEL,
  type Phrase,
  PROHIBITION,
  READ_ORDER,
  SECRECY,
  SECRET_PATH,
  SENT_DATA,
  SINK,
  TAG_BLOCK,
  URL,
} from "./phrases.js";
import { quote } from "./quote.js";
import { sentenceOf } from "./sentence.js";
import { sizeSeverity } from "./size.js";

/** What one text is judged to hold: a kind, a severity and the words that say why. */
export interface Judgement {
  kind: FindingKind;
  severity: Severity;
  detail: string;
}

/**
 * Where a text comes from: a definition (descriptions, titles, instructions, prompts: what a server says
 * about itself, where a URL is already worth a look) or a result (what a tool returned: URLs, paths and
 * addresses are its business, only orders count, and a result is never high for its size).
 */
export type TextSource = "definition" | "result";

// biome-ignore lint/suspicious/noControlCharactersInRegex: the fast path is for plain ASCII text
const NON_ASCII = /[^\x00-\x7f]/;

/** Where one clause of a sentence ends and the next begins. */
const CLAUSE_BREAK =
  /[;,\uff1b\uff0c]|\b(?:but|however|instead|then|and\s+then)\b|\u4f46|\u7136\u540e|\u800c\u662f/i;

/** The text as the model reads it, with what tag characters spelled appended. */
export function matchableText(text: string, hidden: HiddenText | undefined): string {
  let clean = hidden ? stripHidden(text) : text;
  if (NON_ASCII.test(clean)) clean = foldMixedScripts(clean.normalize("NFKC"));
  return hidden?.decoded ? `${clean}\n${hidden.decoded}` : clean;
}

/** Hidden characters: tags or selectors that spell something are high; the rest medium, colours low. */
function hiddenJudgement(hidden: HiddenText): Judgement {
  const parts: string[] = [];
  let severity: Severity = "low";
  const raise = (to: Severity) => {
    severity = worse(severity, to);
  };
  if (hidden.tags) parts.push(`${hidden.tags} Unicode tag character(s)`);
  if (hidden.selectors) parts.push(`${hidden.selectors} variation selector(s) carrying bytes`);
  if (hidden.zeroWidth) parts.push(`${hidden.zeroWidth} zero-width character(s)`);
  if (hidden.bidi) parts.push(`${hidden.bidi} bidi control(s)`);
  if (hidden.ansi)
    parts.push(
      `${hidden.ansi} ANSI escape(s)${hidden.ansiBeyondColour ? `, ${hidden.ansiBeyondColour} beyond colour` : " (colour only)"}`,
    );
  if (hidden.controls) parts.push(`${hidden.controls} control character(s)`);
  if (hidden.decoded && /[\p{L}\p{N}]{2}/u.test(hidden.decoded)) raise("high");
  if (hidden.tags || hidden.selectors || hidden.zeroWidth || hidden.bidi || hidden.controls) raise("medium");
  if (hidden.ansiBeyondColour) raise("medium");
  const spelled = hidden.decoded ? `; they spell ${quote(hidden.decoded)}` : "";
  return { kind: "hidden-text", severity, detail: `${parts.join(", ")}${spelled} (stripped)` };
}

/** Non-example URLs and addresses in a text. */
function places(text: string): { urls: string[]; emails: string[] } {
  const keep = (found: string) => !EXAMPLE_HOST.test(found);
  return {
    // Most texts have neither: a substring test is cheaper than either expression.
    urls: text.includes("://") ? [...text.matchAll(URL)].map((match) => match[0]).filter(keep) : [],
    emails: text.includes("@") ? [...text.matchAll(EMAIL)].map((match) => match[0]).filter(keep) : [],
  };
}

/**
 * Judge one text: hidden characters, injection, exfiltration, size, and generic orders about other
 * tools (`shadowing`: the catalog-aware check is in shadowing.ts). At most one judgement per kind, the
 * worst, its detail naming every reason.
 */
export function judgeText(text: string, source: TextSource): Judgement[] {
  const judgements: Judgement[] = [];
  const hidden = hiddenIn(text);
  if (hidden) judgements.push(hiddenJudgement(hidden));
  const readable = matchableText(text, hidden);

  const han = HAN.test(readable);
  const find = (phrase: Phrase) => findPhrase(phrase, readable, han);
  const override = find(OVERRIDE);
  const secrecy = find(SECRECY);
  const tagBlock = find(TAG_BLOCK);
  const addressed = find(ADDRESSED_TO_MODEL);
  const order = find(ORDER);
  const secretPath = find(SECRET_PATH);
  const sink = find(SINK);
  const sinkElsewhere = sink !== undefined && !EXAMPLE_HOST.test(sink);
  const sentData = sinkElsewhere ? find(SENT_DATA) : undefined;
  const harvest = find(HARVEST);
  const channel = find(PARAMETER_CHANNEL);
  const otherTools = find(OTHER_TOOLS);

  // Injection: text aimed at the model.
  const injection: string[] = [];
  let injectionSeverity: Severity | undefined;
  if (override) injection.push(`override ${quote(override)}`);
  if (secrecy) injection.push(`secrecy ${quote(secrecy)}`);
  if (override || secrecy) injectionSeverity = "high";
  if (tagBlock) {
    injection.push(`block ${quote(tagBlock)}`);
    const ordered = order ?? addressed ?? harvest ?? secretPath ?? (sinkElsewhere ? sink : undefined);
    if (ordered) injection.push(`with the order ${quote(ordered)}`);
    injectionSeverity = ordered || injectionSeverity === "high" ? "high" : "medium";
  }
  if (addressed) {
    injection.push(`addressed to the model ${quote(addressed)}`);
    injectionSeverity ??= "medium";
  }
  if (injectionSeverity)
    judgements.push({ kind: "injection", severity: injectionSeverity, detail: injection.join("; ") });

  // Exfiltration: secrets to read, data to send out.
  const exfiltration: string[] = [];
  let exfiltrationSeverity: Severity | undefined;
  const raise = (to: Severity) => {
    exfiltrationSeverity = worse(exfiltrationSeverity, to);
  };
  // A secret path or private data with only an order beside it is a rule when the sentence forbids
  // ("never read ~/.ssh", "do not include the conversation history"): worth a look, not a quarantine.
  // The clause is what counts: "never ask; always read ~/.aws/credentials", "never tell anyone, but read
  // ~/.ssh/id_rsa" still order.
  const forbids = (phrase: string) => {
    const clause = sentenceOf(readable, phrase)
      .split(CLAUSE_BREAK)
      .find((part) => part.includes(phrase.slice(0, 12)));
    return clause !== undefined && findPhrase(PROHIBITION, clause, han && HAN.test(clause)) !== undefined;
  };
  const strongly = (sinkElsewhere ? sink : undefined) ?? secrecy ?? tagBlock;
  if (secretPath) {
    const ordered = find(READ_ORDER) ?? order ?? channel;
    const because = strongly ?? (ordered && !forbids(secretPath) ? ordered : undefined);
    exfiltration.push(`secret path ${quote(secretPath)}${because ? ` with ${quote(because)}` : ""}`);
    if (because) raise("high");
    else if (source === "definition" || ordered) raise("medium");
  }
  if (sinkElsewhere) {
    exfiltration.push(`sends out ${quote(sink)}`);
    raise(sentData || secrecy || tagBlock || find(CREDENTIALS) ? "high" : "medium");
  }
  if (harvest) {
    const ordered = order ?? channel;
    const because = strongly ?? (ordered && !forbids(harvest) ? ordered : undefined);
    exfiltration.push(`hands over ${quote(harvest)}${because ? ` with ${quote(because)}` : ""}`);
    raise(because ? "high" : "medium");
  }
  if (source === "definition" && !sinkElsewhere) {
    const { urls, emails } = places(readable);
    if (urls.length) {
      exfiltration.push(`URL ${quote(urls[0]!)}${urls.length > 1 ? ` and ${urls.length - 1} more` : ""}`);
      raise("medium");
    }
    if (emails.length) {
      exfiltration.push(`address ${quote(emails[0]!)}`);
      raise("low");
    }
  }
  if (exfiltrationSeverity)
    judgements.push({
      kind: "exfiltration",
      severity: exfiltrationSeverity,
      detail: exfiltration.join("; "),
    });

  if (otherTools && (order || tagBlock || secrecy)) {
    judgements.push({
      kind: "shadowing",
      severity: "high",
      detail: `orders about other tools ${quote(otherTools)} with ${quote((order ?? tagBlock ?? secrecy)!)}`,
    });
  }

  // Hidden characters around an attack are there to slip it past a reader or a filter.
  const hiddenJudged = judgements[0]?.kind === "hidden-text" ? judgements[0] : undefined;
  if (
    hiddenJudged &&
    hiddenJudged.severity !== "high" &&
    judgements.some((judged) => judged.severity === "high")
  ) {
    hiddenJudged.severity = "high";
    hiddenJudged.detail += ", around an attack";
  }

  const size = sizeSeverity(
    readable.length,
    source === "result" ? DEFAULT_TRUST_RESULT_CHARS : DEFAULT_TRUST_TEXT_CHARS,
  );
  if (size) judgements.push({ kind: "oversized", severity: size, detail: `${readable.length} characters` });
  return judgements;
}
