/** Sentence ends in English and Chinese, semicolons and line breaks; a period only before a space. */
const CLAUSE_END = /[。！？!?；;\n]+|\.(?=\s|$)/u;

/**
 * Split a request into its sentences, for requests that ask for several things at once ("Detect the
 * language of this text. Then get the gene expression of BRCA1."). Blank pieces are dropped.
 */
export function splitClauses(text: string): string[] {
  return text
    .split(CLAUSE_END)
    .map((clause) => clause.trim())
    .filter((clause) => clause.length > 0);
}
