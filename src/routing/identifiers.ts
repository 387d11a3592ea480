/** A word with nothing to split: lower-case letters, or an initial capital followed by them. */
const PLAIN_WORD = /^\p{Lu}?[\p{Ll}\p{M}]*$/u;

/**
 * Split an identifier into its words: camelCase and PascalCase (`getUserInfo`, `HTTPServer`),
 * snake_case, kebab-case and dotted names, and a number glued before a word (`10kWh` → `10`, `kWh`).
 * Letters followed by digits stay one word (`sha256`, `utf8`, `mp3`). Case is kept.
 */
export function splitIdentifier(identifier: string): string[] {
  if (PLAIN_WORD.test(identifier)) return [identifier];
  return identifier
    .replace(/([\p{Ll}\p{N}])(\p{Lu})/gu, "$1 $2")
    .replace(/(\p{Lu})(\p{Lu}\p{Ll})/gu, "$1 $2")
    .replace(/(\p{N})(\p{L})/gu, "$1 $2")
    .split(/[^\p{L}\p{M}\p{N}]+/u)
    .filter((part) => part.length > 0);
}
