// Values whose form names the thing they are, with no word for it: a path is a file ("save it to
// ~/notes/rust.md") and its extension may say what the file holds, a URL is a link ("grab
// https://…/pricing"), "#name" a chat channel ("post it in #oncall"). Each asks for its object family's words
// (object-families.ts), whatever the catalog holds: a value has no word whose use in the catalog could
// say it is evidence enough. Not an email address: one is as often a parameter (a customer's, an
// invitee's) as a message to send, and it cost recall on both 58-server sets it was measured on. An
// airline's code and a number name a flight ("is CA981 on time?", "MU5137 几点起飞"), read narrowly: two
// capitals and three or four digits that are no year, so that FY24, IE11, ES2020 and VS2022 are none.
// A path says plainly that a file is wanted, and its words are the user's names for their files, not
// what a tool does: "Read my notes at ~/notes/standup.md" wants a file read, not a notes app.
// A ticker right beside a word of the market is a stock ("NVDA price rn?", "what are VOO and QQQ
// worth?", "closing prices for NVDA").
import { type ObjectMention, valueMention } from "./object-families.js";
import type { Tokenize } from "./tokenizer.js";

/**
 * Extensions that name what a file holds, by the family of that thing: `q3.xlsx` is a spreadsheet (the
 * Excel server's tools say "Excel", never "xlsx"), `deck.pptx` slides, `cat.png` an image.
 */
const EXTENSION_FAMILIES: Readonly<Record<string, readonly string[]>> = {
  spreadsheet: ["xls", "xlsx", "xlsm", "ods"],
  slides: ["ppt", "pptx", "odp"],
  document: ["doc", "docx", "odt", "rtf"],
  image: ["png", "jpg", "jpeg", "gif", "webp", "heic", "bmp", "tif", "tiff"],
  video: ["mp4", "mov", "mkv", "avi", "webm"],
  music: ["mp3", "wav", "flac", "m4a", "ogg"],
};
/** Extensions that make a name a file's: those above, and documents, data, code and archives. */
const FILE_EXTENSIONS = [
  ...Object.values(EXTENSION_FAMILIES).flat(),
  ...`md txt json yml yaml csv tsv pdf svg htm html css log sql zip gz tar toml ini xml ts tsx py go rs java
  rb sh`.split(/\s+/),
];
/** What a value starts after: not inside a word, a number, a path, a URL or its query (`:3000/`, `?f=`). */
const VALUE_START = String.raw`(?<![\p{L}\p{N}_.\/\\:=#?&@%-])`;
/** After a file's extension: no more of its name. */
const NAME_END = String.raw`(?![\p{L}\p{N}_\/])`;
/**
 * A path or a file's name: `~/notes`, `./src`, `/usr/local/bin` (two parts at least: "/help" is a command),
 * `D:\reports`, `src/http.ts`, `Q3_SALES.XLSX`; a `.js` name only with a folder (Node.js, Next.js are
 * libraries). Not inside a URL.
 */
const FILE_FORM = new RegExp(
  `${VALUE_START}(?:` +
    String.raw`(?:~|\.{1,2})[\/\\][^\s\/\\]|[\/\\][^\s\/\\]+[\/\\][^\s\/\\]|[A-Za-z]:\\|` +
    String.raw`[\p{L}\p{N}_.-]+(?:[\/\\][\p{L}\p{N}_.-]+)*\.(?:${FILE_EXTENSIONS.join("|")})${NAME_END}|` +
    String.raw`[\p{L}\p{N}_.-]+(?:[\/\\][\p{L}\p{N}_.-]+)+\.[mc]?js${NAME_END})`,
  "iu",
);
/**
 * How much the file family's words count for a path: more than a word's 1, since a path leaves no doubt
 * (measured at 1, 1.5 and 2 on every set; 2 cost seal-tools R@5 0.1 and the real fifteen-server set a
 * request, for a request each on the multi-part and blind ones).
 */
const PATH_FILE_WEIGHT = 1.5;
/** A ticker as written: two to five capitals standing alone, maybe after "$" ("NVDA", "$AAPL", "VOO's"). */
const TICKER_WORD = String.raw`\$?[A-Z]{2,5}(?:['’]s)?(?![\p{L}\p{N}_\/-])`;
/** Tickers in a list: "NVDA", "NVDA and AMD", "VOO, QQQ and SCHD". */
const TICKER_LIST = String.raw`${TICKER_WORD}(?:(?:,\s*(?:and\s+)?|\s+and\s+)${TICKER_WORD})*`;
/** Words of the market, lower-case or capitalized (never all capitals: "WHAT IS THE PRICE" shouts). */
const MARKET = `(?:${"prices? priced trading traded closing closes shares worth stocks? quotes?"
  .split(" ")
  .map((word) => `[${word[0]}${word[0]!.toUpperCase()}]${word.slice(1)}`)
  .join("|")})`;
/** A word of the market, wherever it stands. */
const MARKET_WORD = new RegExp(String.raw`\b${MARKET}\b`, "gu");
/** Tickers right before a word of the market ("NVDA price rn?", "what are VOO, QQQ and SCHD worth"). */
const TICKERS_BEFORE = new RegExp(String.raw`(?<![\p{L}\p{N}_.\/#@-])${TICKER_LIST}\s+$`, "u");
/** Tickers right after one, and "of", "for" or "on" ("closing prices for NVDA and AMD"). */
const TICKERS_AFTER = new RegExp(String.raw`^\s+(?:of|for|on)\s+${TICKER_LIST}`, "u");
/**
 * How far from a word of the market its tickers are looked for, in characters: a list of a dozen; a
 * bound, so that a long request of capitals and commas is no quadratic search.
 */
const TICKER_REACH = 80;
/**
 * Words in capitals that are no ticker: currencies, file kinds, places, titles, hardware and other
 * common acronyms ("GPU prices", "is the MBA worth it", "the NFS shares").
 */
const NOT_TICKERS = new Set(
  `USD EUR GBP JPY CNY RMB CAD AUD CHF HKD INR KRW SGD PDF CSV API URL ID US USA UK EU UN NYC LA SF AM PM
  ETA FAQ CEO CTO CFO HR IT PR QA OK TV AI ML UI UX VAT GST SKU ASAP FYI TODO GPU CPU RAM SSD HDD AWS GCP
  JSON HTML CSS SQL XML HTTP VPN NFS DNS SSH MBA PHD UTC GMT EST PST CET THE ALL AND FOR`.split(/\s+/),
);
/** What tells a value's form in a request's text: a pattern, or a test of its own ({@link TICKER}). */
interface Form {
  test(text: string): boolean;
}
/** A ticker: a word in capitals right beside a word of the market, no common acronym. */
const TICKER: Form = { test: namesTicker };

function namesTicker(text: string): boolean {
  for (const market of text.matchAll(MARKET_WORD)) {
    const from = market.index - TICKER_REACH;
    // A reach cut inside a word starts after it.
    const before =
      from <= 0 ? text.slice(0, market.index) : text.slice(from, market.index).replace(/^\S*/u, "");
    const end = market.index + market[0].length;
    const found =
      TICKERS_BEFORE.exec(before)?.[0] ?? TICKERS_AFTER.exec(text.slice(end, end + TICKER_REACH))?.[0];
    if (found && (found.match(/[A-Z]{2,5}/g) ?? []).some((word) => !NOT_TICKERS.has(word))) return true;
  }
  return false;
}
/** A value's form, the family of the thing it names, and how much that family's words count. */
const VALUE_FORMS: ReadonlyArray<{ form: Form; family: string; weight?: number }> = [
  { form: FILE_FORM, family: "file", weight: PATH_FILE_WEIGHT },
  ...Object.entries(EXTENSION_FAMILIES).map(([family, extensions]) => ({
    form: new RegExp(String.raw`[\p{L}\p{N}_-]\.(?:${extensions.join("|")})${NAME_END}`, "iu"),
    family,
  })),
  { form: new RegExp(String.raw`\bhttps?:\/\/|${VALUE_START}www\.[\w-]+\.`, "iu"), family: "link" },
  // After a space or at the start, a letter first, not a colour (#ffcc00, #fff): "post it in #oncall".
  { form: /(?<!\S)#(?![\da-f]{3}(?:[\da-f]{3})?\b)\p{L}[\p{L}\p{N}_-]*/iu, family: "channel" },
  // Beside Chinese too ("查一下MU5137的状态"): only Latin letters and digits may not touch it.
  {
    form: /(?<![A-Za-z\d_-])[A-Z]{2}(?!(?:19|20)\d\d(?!\d))[1-9]\d{2,3}(?![A-Za-z\d_-])/u,
    family: "flight",
  },
  { form: TICKER, family: "stock" },
];

/** Each form's mention, made once: a request's pieces share them, and its words hold each once. */
const MENTIONS: ReadonlyArray<{ form: Form; mention: ObjectMention }> = VALUE_FORMS.map(
  ({ form, family, weight }) => ({ form, mention: valueMention(family, weight) }),
);

/** The things a request's values name ({@link VALUE_FORMS}), each once. */
export function valuesIn(text: string): ObjectMention[] {
  return MENTIONS.filter(({ form }) => form.test(text)).map(({ mention }) => mention);
}

/**
 * A path or file name as written, to its end: its folders, then a last part that is a file's name with
 * its extension, or Latin letters and digits — so that Chinese after a path (把 ~/blog/drafts下面的都挪走)
 * and the punctuation around it are no part of it.
 */
const WHOLE_PATH = new RegExp(
  FILE_FORM.source +
    String.raw`(?:[\p{L}\p{N}_.~@%+=-]*[\/\\])*` +
    String.raw`(?:[\p{L}\p{N}_~@%+=-]*\.[A-Za-z\d]{1,5}(?![\p{L}\p{N}_])|[\p{Script=Latin}\p{N}_.~@%+=-]*)`,
  "giu",
);
/** A file name's extension: what kind of file it is, which does say what a tool must read or write. */
const EXTENSION = /\.([\p{L}\p{N}]{1,5})$/u;

/**
 * The terms of a text that only its paths hold, its files' extensions left out: `notes` and `standup`
 * in "Read ~/notes/standup.md" (the user's names for their things), but not `md`, and not a word the
 * text also says outside a path ("my notes at ~/notes/x.md").
 */
export function pathWords(text: string, tokenize: Tokenize): ReadonlySet<string> {
  const paths: string[] = [];
  const outside: string[] = [];
  let from = 0;
  for (const match of text.matchAll(WHOLE_PATH)) {
    const path = match[0].replace(/\p{P}+$/u, "");
    paths.push(path);
    outside.push(text.slice(from, match.index));
    from = match.index + path.length;
  }
  if (paths.length === 0) return NO_WORDS;
  outside.push(text.slice(from));
  const said = new Set(tokenize(outside.join(" ")));
  for (const path of paths) {
    const extension = EXTENSION.exec(path)?.[1];
    if (extension !== undefined) for (const term of tokenize(extension)) said.add(term);
  }
  const only = new Set(paths.flatMap((path) => tokenize(path)).filter((term) => !said.has(term)));
  return only.size === 0 ? NO_WORDS : only;
}
const NO_WORDS: ReadonlySet<string> = new Set();
