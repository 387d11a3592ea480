// Words used as verbs though no verb family holds them, known by where they stand: a word followed by
// what it acts on ("…and attach it to the card"), and nouns of sending that are verbs there ("email it
// to Dana"). They start a request's part (clauses.ts), and a noun of sending asks for "send". A language
// named as what a text should become asks to translate ("give it to me in Italian").
import { beforeVerb } from "./verb-families.js";

/** Words that only point at a thing: "the", "my", "these"… */
export const DETERMINERS: ReadonlySet<string> = new Set(
  "a an the my our your his her its their this that these those some any all each every".split(" "),
);
/** What follows a verb as the thing it acts on: a determiner or an object pronoun. */
const ITS_OBJECT = "(?:the|a|an|it|them|this|that|these|those|my|our|your|me|him|her|us|its|their)\\b";
/**
 * Words that may stand before "the", "it" and the like without being an action: determiners, quantifiers,
 * adverbs of time, conjunctions, prepositions and auxiliaries ("and then the", "and if it", "with the",
 * "has an average").
 */
const NOT_VERBS = [
  ...DETERMINERS,
  ...`both either neither no not only just also even so too then now here there today tomorrow yesterday
  later soon again once maybe perhaps especially including if when whether because since while where how
  why who which what as than unless until although though after before during about above below over
  under into onto upon across between among against around via per like near behind beyond toward towards
  through throughout till with without within for of in on at to from by or and but nor is are was were be
  been has have had do does did will would can could should may might must shall`.split(/\s+/),
];
/**
 * Nouns of sending used as verbs: "email it to Dana", "message the team", "DM them"; "text" only with a
 * person ("text me"). Not "ping": "ping her on Slack" names its channel, and "ping the server" is a
 * network's ping.
 */
const SENT_AS = new RegExp(
  `^(?:(?:e-?mail|mail|message|dm|slack)\\s+${ITS_OBJECT}|text\\s+(?:me|him|her|them|us)\\b)`,
  "iu",
);
/**
 * A lower-case English word used as a verb though no family holds it: it is followed by what it acts on
 * — "…and attach it to the card", "…and ping her on Slack" — and is none of {@link NOT_VERBS}, nor a
 * participle ("using the unit", "indicating it as"; "ping" is none) or an adverb in -ly ("particularly
 * its growth rate"; apply, reply, supply and multiply are verbs). Capitalized words are names ("London
 * and Paris the day after").
 */
const VERB_BY_ITS_OBJECT = new RegExp(
  `^(?!(?:${NOT_VERBS.join("|")})\\b|[a-z]{2,}(?:ing|ed)\\b|(?!(?:ap|re|sup|multi)ply\\b)[a-z]+ly\\b)[a-z]+\\s+${ITS_OBJECT}`,
  "u",
);

/** A word used as a verb opens the text: by its object, or of sending. */
const wordAsVerb = (text: string): boolean => VERB_BY_ITS_OBJECT.test(text) || SENT_AS.test(text);
/** A noun of sending used as a verb opens the text. */
const sentAs = (text: string): boolean => SENT_AS.test(text);

/** True when the text opens with a word used as a verb, after a "please" or a "can you" ({@link beforeVerb}). */
export function opensWithWordAsVerb(text: string): boolean {
  return wordAsVerb(text.slice(beforeVerb(text, { verbFollows: wordAsVerb, asks: "of-you" })));
}

/**
 * Languages a request names as what a text should become. Not English: "reply in English" is how an
 * answer is asked for as often as a translation; nor Polish, for "I want to polish my essay".
 */
const LANGUAGES =
  `spanish french german italian portuguese dutch swedish norwegian danish finnish czech russian
  ukrainian greek turkish arabic hebrew hindi japanese korean chinese mandarin cantonese vietnamese thai
  indonesian malay romanian hungarian`
    .split(/\s+/)
    .join("|");
/** What a language's adjective may name instead of a language: money ("Japanese yen"), food, a culture's things. */
const NOT_A_TEXT = `yen yuan renminbi won baht kronor krona kroner krone liras? rupiah forint koruna rubles?
  roubles? francs? pesos? reais real rupees? dong ringgit shekels? dirhams? riyals? euros? dollars? cuisine
  food dishes restaurants? literature history culture art music films? movies? new\\s+year markets? stocks?
  politics law`
  .split(/\s+/)
  .join("|");
/**
 * A language as a text's target: "in Spanish", "into French", "a German version", "Dutch subtitles" —
 * not after a verb of answering ("reply in Spanish" asks for the answer, not a tool), nor before what
 * the adjective names instead ({@link NOT_A_TEXT}), nor "the Chinese text", which may stay as it is.
 */
const LANGUAGE_TARGET = new RegExp(
  `(?<!\\b(?:reply|answer|respond|speak|talk)\\s+)\\b(?:in|into|to)\\s+(?:${LANGUAGES})\\b(?!\\s+(?:${NOT_A_TEXT})\\b)|` +
    `\\b(?:${LANGUAGES})\\s+(?:version|copy|subtitles)\\b`,
  "iu",
);
/** A part that asks to translate in so many words needs no more. */
const SAYS_TRANSLATE = /translat|翻译|译成/iu;

/**
 * A part as the ranking reads it: one that opens with a noun of sending used as a verb says "send" first,
 * so that "email the links to Maya" asks for a tool that sends an email, not one that searches them; one
 * that names a language as what a text should become ("give it to me in Italian", "a German version")
 * asks to translate.
 */
export function withImpliedAction(part: string): string {
  const sent = sentAs(part.slice(beforeVerb(part, { verbFollows: sentAs, asks: "of-you" })))
    ? `send ${part}`
    : part;
  return LANGUAGE_TARGET.test(sent) && !SAYS_TRANSLATE.test(sent) ? `${sent} translate` : sent;
}
