// Which names look alike. A compact skeleton of our own rather than a package: the npm packages are
// either moderation maps that fold far too much into each letter (`confusables`: "❤" → O, "Д" → A,
// "л" → n), which would make honest names collide, or the whole of Unicode's confusables.txt (UTS #39,
// thousands of entries and a native build for `decancer`), which still leaves out what matters most for
// tool names: `rn` read as `m`, `vv` as `w`, `0` as `o`, `1` and `I` as `l`, case and `-`/`_`. NFKC
// already folds fullwidth and mathematical letters (`ｍ`, `𝐦` → `m`) and NFD takes accents off; the table
// below adds the letters of other scripts drawn exactly like Latin ones.

/** Cyrillic, Greek, Armenian and Latin-extension letters drawn like an ASCII letter (or digit). */
const HOMOGLYPHS: Readonly<Record<string, string>> = {
  // Cyrillic
  а: "a",
  в: "b",
  е: "e",
  ё: "e",
  һ: "h",
  і: "i",
  ї: "i",
  ј: "j",
  к: "k",
  ӏ: "l",
  м: "m",
  н: "h",
  о: "o",
  р: "p",
  с: "c",
  т: "t",
  у: "y",
  х: "x",
  ѕ: "s",
  ԁ: "d",
  ԛ: "q",
  ԝ: "w",
  ү: "y",
  А: "A",
  В: "B",
  Е: "E",
  Ё: "E",
  К: "K",
  М: "M",
  Н: "H",
  О: "O",
  Р: "P",
  С: "C",
  Т: "T",
  Х: "X",
  У: "Y",
  І: "I",
  Ї: "I",
  Ј: "J",
  Ѕ: "S",
  Ԛ: "Q",
  Ԝ: "W",
  Ӏ: "I",
  // Greek
  α: "a",
  ε: "e",
  ι: "i",
  κ: "k",
  ν: "v",
  ο: "o",
  ρ: "p",
  τ: "t",
  υ: "u",
  χ: "x",
  ϲ: "c",
  Α: "A",
  Β: "B",
  Ε: "E",
  Ζ: "Z",
  Η: "H",
  Ι: "I",
  Κ: "K",
  Μ: "M",
  Ν: "N",
  Ο: "O",
  Ρ: "P",
  Τ: "T",
  Υ: "Y",
  Χ: "X",
  Ϲ: "C",
  // Armenian
  օ: "o",
  ս: "u",
  հ: "h",
  ո: "n",
  ց: "g",
  // Latin extensions and symbols
  ı: "i",
  ȷ: "j",
  ɑ: "a",
  ɡ: "g",
  ɩ: "i",
  ʟ: "L",
  Ɩ: "l",
  ǀ: "l",
  ℓ: "l",
  "|": "l",
};
const HOMOGLYPH = new RegExp(
  `[${Object.keys(HOMOGLYPHS)
    .join("")
    .replace(/[|\]\\^-]/g, "\\$&")}]`,
  "gu",
);
/** Letters of the scripts the table folds: a name or word with these beside Latin ones is mixed. */
const FOLDED_SCRIPTS = /[\p{Script=Cyrillic}\p{Script=Greek}\p{Script=Armenian}]/u;
const LATIN = /\p{Script=Latin}/u;
const MARKS = /\p{M}/gu;
const SEPARATORS = /[\s_\-.:/]+/g;

/**
 * The skeleton of a name: two names with the same skeleton look alike to a reader. Compatibility forms
 * and accents folded, other scripts' look-alike letters to Latin, lower case, `i`/`I`/`1`/`|` to `l`,
 * `0` to `o`, `rn` to `m`, `vv` to `w`, separators (`_`, `-`, `.`, spaces) dropped. Not for display.
 */
export function skeleton(name: string): string {
  let text = name;
  // biome-ignore lint/suspicious/noControlCharactersInRegex: ASCII-only names skip the Unicode folding
  if (/[^\x00-\x7f]/.test(text)) {
    text = text.normalize("NFKC").normalize("NFD").replace(MARKS, "");
    text = text.replace(HOMOGLYPH, (char) => HOMOGLYPHS[char] ?? char);
  }
  // Lower case first: then `I`, `l`, `1` (and `i`, which `I` becomes) are one class, as `0` and `o` are.
  return text
    .toLowerCase()
    .replace(/[i1|]/g, "l")
    .replace(/0/g, "o")
    .replace(SEPARATORS, "")
    .replace(/rn/g, "m")
    .replace(/vv/g, "w");
}

/** A name folded for case and separators only: names equal here differ in nothing a reader would mind. */
export function caseKey(name: string): string {
  return name.toLowerCase().replace(SEPARATORS, "");
}

/** True when a word mixes Latin letters with Cyrillic, Greek or Armenian ones (`pаypal` with a Cyrillic `а`). */
export function mixesScripts(word: string): boolean {
  return FOLDED_SCRIPTS.test(word) && LATIN.test(word);
}

/**
 * Text with the look-alike letters of words that mix scripts folded to Latin, so a phrase spelled with
 * a Cyrillic `о` still reads as the phrase. Returns the same string when no word mixes scripts.
 */
export function foldMixedScripts(text: string): string {
  if (!FOLDED_SCRIPTS.test(text) || !LATIN.test(text)) return text;
  return text.replace(/[\p{L}\p{M}]+/gu, (word) =>
    mixesScripts(word) ? word.replace(HOMOGLYPH, (char) => HOMOGLYPHS[char] ?? char) : word,
  );
}
