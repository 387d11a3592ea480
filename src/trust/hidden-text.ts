// biome-ignore-all lint/suspicious/noControlCharactersInRegex: control characters are what this file finds
// biome-ignore-all lint/suspicious/noMisleadingCharacterClass: the classes list invisible characters one by one, joiners among them
// Characters a person reading a tool's description cannot see but a model reads (or a terminal obeys):
// Unicode tag characters (they spell ASCII, invisibly), zero-width and bidi controls, variation selectors
// used to smuggle bytes, ANSI/VT escape sequences and other control characters. One regular expression
// finds them all; text without any is returned as it is, the same string.

/** Every hidden or control character or sequence, one alternative per class (the groups say which). */
const HIDDEN =
  /(\u{1F3F4}[\u{E0020}-\u{E007E}]{1,8}\u{E007F})|([\u{E0000}-\u{E007F}]+)|(\x1B\[[0-?]*[ -/]*[@-~]|\x9B[0-?]*[ -/]*[@-~])|(\x1B\][^\x07\x1B]*(?:\x07|\x1B\\)?|\x1B[PX^_][^\x1B]*(?:\x1B\\)?|\x1B[ -/]*[0-~]?)|([\u200B-\u200D\u2060-\u2064\uFEFF\u180E\u00AD\u034F\u115F\u1160\u17B4\u17B5\u3164\uFFA0\u206A-\u206F])|([\u{E0100}-\u{E01EF}\uFE00-\uFE0F]{2,}|[\u{E0100}-\u{E01EF}])|([\u202A-\u202E\u2066-\u2069\u200E\u200F\u061C])|([\x00-\x08\x0B\x0C\x0E-\x1A\x1C-\x1F\x7F\x80-\x9A\x9C-\x9F])/gu;
/** The same classes, for the fast path: does the text hold any candidate at all? */
const ANY_HIDDEN =
  /[\u{E0000}-\u{E007F}\x00-\x08\x0B\x0C\x0E-\x1F\x7F-\x9F\u200B-\u200F\u2060-\u2064\uFEFF\u180E\u00AD\u034F\u115F\u1160\u17B4\u17B5\u3164\uFFA0\u206A-\u206F\u202A-\u202E\u2066-\u2069\u061C\u{E0100}-\u{E01EF}\uFE00-\uFE0F]/u;
/** An SGR sequence (`ESC[…m`): colours and styles, which hide nothing from a reader. */
const SGR = /^(?:\x1B\[|\x9B)[0-9;:]*m$/;
/** Conceal (`8`) inside an SGR: text a terminal does not show. */
const SGR_CONCEAL = /[[;:]8(?:[;:m])/;
const PICTOGRAPH = /[\p{Extended_Pictographic}\uFE0F\u{1F3FB}-\u{1F3FF}]/u;
/** Scripts that write a zero-width non-joiner as part of their spelling (Persian, Indic, …). */
const JOINING_SCRIPT = /[\p{L}\p{M}]/u;
const NON_JOINING_SCRIPT =
  /[\p{Script=Latin}\p{Script=Han}\p{Script=Cyrillic}\p{Script=Greek}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/u;

/** The groups of {@link HIDDEN}: which class a match is. */
const Class = {
  Flag: 1,
  Tags: 2,
  AnsiCsi: 3,
  AnsiOther: 4,
  ZeroWidth: 5,
  Selectors: 6,
  Bidi: 7,
  Controls: 8,
} as const;
type Class = (typeof Class)[keyof typeof Class];

/** What {@link hiddenIn} found: counts by class (characters, or sequences for ANSI) and what the tags spell. */
export interface HiddenText {
  /** Unicode tag characters (U+E0000–E007F), outside an emoji flag. */
  tags: number;
  /** Zero-width and other invisible formatting characters (U+200B–U+200D, U+2060, U+FEFF, U+180E, …). */
  zeroWidth: number;
  /** Bidirectional controls (U+202A–202E, U+2066–2069, U+200E/F, U+061C). */
  bidi: number;
  /** ANSI/VT escape sequences (CSI, OSC, DCS …, or a lone ESC). */
  ansi: number;
  /** Of those, sequences that do more than colour text (cursor moves, erasing, concealing, titles, links). */
  ansiBeyondColour: number;
  /** Other C0/C1 control characters (all but `\n`, `\r`, `\t`). */
  controls: number;
  /** Variation selectors in runs that can carry bytes (two or more, or any of U+E0100–E01EF). */
  selectors: number;
  /** The text the tag characters spell, and the bytes the selectors carry (as UTF-8), when any. */
  decoded?: string;
}

/** The match's class, or 0 for a character kept in place (an emoji's flag, joiner or non-joiner). */
function classOf(match: RegExpExecArray | string[], index: number, text: string): Class | 0 {
  for (let group = 1; group <= Class.Controls; group += 1) {
    if (match[group] === undefined) continue;
    if (group === Class.Flag) return 0;
    if (group === Class.ZeroWidth) {
      const char = match[0]!;
      const previous = charBefore(text, index);
      // An emoji's zero-width joiner (👨‍👩‍👧) and a Persian or Indic non-joiner are spelling, not hiding.
      if (char === "\u200D" && PICTOGRAPH.test(previous) && PICTOGRAPH.test(text.slice(index + 1, index + 3)))
        return 0;
      if (char === "\u200C" && JOINING_SCRIPT.test(previous) && !NON_JOINING_SCRIPT.test(previous)) return 0;
    }
    return group as Class;
  }
  return 0;
}

/** The character (code point) just before `index`, or "". */
function charBefore(text: string, index: number): string {
  if (index <= 0) return "";
  const low = text.charCodeAt(index - 1);
  return low >= 0xdc00 && low <= 0xdfff && index >= 2
    ? text.slice(index - 2, index)
    : text.slice(index - 1, index);
}

/**
 * Remove every hidden or control character: Unicode tag characters (U+E0000–E007F), zero-width
 * (U+200B–U+200D, U+2060–U+2064, U+FEFF, U+180E, soft hyphen, Hangul fillers …), bidi controls
 * (U+202A–202E, U+2066–2069, U+200E/F, U+061C), variation selectors that carry bytes, ANSI/VT escape
 * sequences (CSI, OSC, DCS …, and a lone ESC) and other C0/C1 controls except `\n`, `\r` and `\t`.
 * Kept: emoji flags spelled with tags, an emoji's zero-width joiner, a non-joiner inside a script that
 * spells with it. Returns the same string when there is nothing to remove.
 */
export function stripHidden(text: string): string {
  if (!ANY_HIDDEN.test(text)) return text;
  let removed = false;
  const stripped = text.replace(HIDDEN, (...args: unknown[]) => {
    const match = args.slice(0, Class.Controls + 1) as string[];
    const index = args[Class.Controls + 1] as number;
    if (classOf(match, index, text) === 0) return match[0]!;
    removed = true;
    return "";
  });
  return removed ? stripped : text;
}

/**
 * What is hidden in a text: counts by class, and the decoded payload of tag characters (they spell
 * ASCII) and of byte-carrying variation selectors, for a finding's detail. Undefined when nothing is.
 */
export function hiddenIn(text: string): HiddenText | undefined {
  if (!ANY_HIDDEN.test(text)) return undefined;
  const found: HiddenText = {
    tags: 0,
    zeroWidth: 0,
    bidi: 0,
    ansi: 0,
    ansiBeyondColour: 0,
    controls: 0,
    selectors: 0,
  };
  let spelled = "";
  const bytes: number[] = [];
  let any = false;
  for (const match of text.matchAll(HIDDEN)) {
    const kind = classOf(match, match.index, text);
    if (kind === 0) continue;
    any = true;
    const chars = [...match[0]];
    switch (kind) {
      case Class.Tags:
        found.tags += chars.length;
        for (const char of chars) {
          const code = char.codePointAt(0)! - 0xe0000;
          if (code >= 0x20 && code <= 0x7e) spelled += String.fromCharCode(code);
        }
        spelled += " ";
        break;
      case Class.AnsiCsi:
      case Class.AnsiOther:
        found.ansi += 1;
        if (kind === Class.AnsiOther || !SGR.test(match[0]) || SGR_CONCEAL.test(match[0]))
          found.ansiBeyondColour += 1;
        break;
      case Class.ZeroWidth:
        found.zeroWidth += 1;
        break;
      case Class.Selectors:
        found.selectors += chars.length;
        for (const char of chars) {
          const code = char.codePointAt(0)!;
          bytes.push(code >= 0xe0100 ? code - 0xe0100 + 16 : code - 0xfe00);
        }
        break;
      case Class.Bidi:
        found.bidi += 1;
        break;
      case Class.Controls:
        found.controls += 1;
        break;
    }
  }
  if (!any) return undefined;
  const carried =
    bytes.length > 0 ? new TextDecoder().decode(new Uint8Array(bytes)).replace(/[\x00-\x1F\x7F]/g, "") : "";
  const decoded = `${spelled} ${carried}`.replace(/\s+/g, " ").trim();
  if (decoded) found.decoded = decoded;
  return found;
}
