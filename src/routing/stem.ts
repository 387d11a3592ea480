/** Shortest word the stemmer touches: shorter words are too often whole roots ("bus", "gas", "news"). */
const MIN_STEM_INPUT_LENGTH = 4;
/** Shortest stem a suffix may leave behind. */
const MIN_STEM_LENGTH = 3;

const VOWEL = /[aeiouy]/;

/**
 * A light English stemmer: folds plurals, `-ing`, `-ed`, `-ly`, `-ence` into `-ent`, `-ation`/`-ization`
 * and `-ion` after t/s, and a final `-e`, so that "analyze", "analyzed" and "analyzing" meet, as do
 * "translate" and "translation", "optimize" and "optimization", "different" and "differences". Far
 * milder than Porter's: words that merely look alike stay apart. Expects a lower-case word; returns it
 * unchanged when it is short, not alphabetic, or nothing applies.
 */
export function stem(word: string): string {
  if (word.length < MIN_STEM_INPUT_LENGTH || !/^[a-z]+$/.test(word)) return word;
  let w = plural(word);
  w = verbForm(w);
  if (w.endsWith("ly") && w.length - 2 >= MIN_STEM_LENGTH + 1) w = w.slice(0, -2);
  // "difference" → "different", "dependence" → "dependent", and "referenced" (now "referenc") →
  // "referent" as "reference" is (not -ance: "instance" is no "instant").
  if (/ence?$/.test(w) && w.replace(/e$/, "").length - 3 >= MIN_STEM_LENGTH + 1)
    w = `${w.replace(/e$/, "").slice(0, -1)}t`;
  if (/ization$/.test(w) && w.length - 7 >= MIN_STEM_LENGTH) w = `${w.slice(0, -7)}ize`;
  else if (/ation$/.test(w) && w.length - 5 >= MIN_STEM_LENGTH) w = `${w.slice(0, -5)}ate`;
  else if (/[ts]ion$/.test(w) && w.length - 3 >= MIN_STEM_LENGTH + 1) w = w.slice(0, -3);
  if (w.endsWith("e") && w.length - 1 >= MIN_STEM_LENGTH) w = w.slice(0, -1);
  return w;
}

function plural(w: string): string {
  if (w.endsWith("ies") && w.length > 4) return `${w.slice(0, -3)}y`;
  if (w.endsWith("sses")) return w.slice(0, -2);
  if (/(?:x|z|ch|sh)es$/.test(w)) return w.slice(0, -2);
  if (w.endsWith("s") && !/(?:ss|us|is)$/.test(w)) return w.slice(0, -1);
  return w;
}

function verbForm(w: string): string {
  for (const suffix of ["ing", "ed"]) {
    if (!w.endsWith(suffix)) continue;
    const base = w.slice(0, -suffix.length);
    if (base.length < MIN_STEM_LENGTH || !VOWEL.test(base)) return w;
    // "running" → "run", "stopped" → "stop"; but "fall", "miss", "buzz" keep their double letter.
    if (/([bdfgmnprt])\1$/.test(base)) return base.slice(0, -1);
    // "studied" → "study"
    if (suffix === "ed" && base.endsWith("i")) return `${base.slice(0, -1)}y`;
    return base;
  }
  return w;
}
