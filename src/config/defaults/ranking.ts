// How the routing strategies score tools (BM25F's fields, fusion, the conversation's weights) and how
// `evaluateRouter` measures them: tuned on the routing dev sets, set by no config key.

/** Servers kept by the first stage of the `two-stage` strategy. */
export const DEFAULT_TWO_STAGE_SERVERS = 3;
/** How deep each strategy of `hybrid` ranks before fusion, at least: fusion needs more than the top k. */
export const DEFAULT_FUSION_DEPTH = 50;
/** Reciprocal-rank fusion's damping constant `k` (Cormack et al., 2009): ranks past ~60 barely count. */
export const DEFAULT_RRF_K = 60;
/** How deep `evaluateRouter` ranks each query for MRR: a first relevant tool further down is not found. */
export const DEFAULT_EVAL_DEPTH = 100;

/**
 * Field weights of a tool's text, tuned on the dev sets (routing data README) but kept round: the name
 * counts double, parameters and enum values half (many, often generic), the server's name and
 * description half (shared by all its tools).
 */
export const DEFAULT_FIELD_WEIGHTS: Readonly<{
  name: number;
  server: number;
  serverDescription: number;
  description: number;
  params: number;
  enums: number;
}> = Object.freeze({
  name: 2,
  server: 0.5,
  serverDescription: 0.5,
  description: 1,
  params: 0.5,
  enums: 0.5,
});
/** BM25's term-frequency saturation `k1`: how quickly repeats of a term stop adding to a score. */
export const DEFAULT_BM25_K1 = 1.2;
/** BM25's length normalization `b` of each field: 0 ignores field length, 1 divides fully by it. */
export const DEFAULT_BM25_B = 0.75;
/**
 * How much a tool that matches one sentence of a several-sentence request can score, relative to the
 * best match of the whole request: below 1, so the whole request's best stays first, and high enough
 * that each sentence's best tools come next.
 */
export const DEFAULT_CLAUSE_WEIGHT = 0.8;
/** What the tokenizer does unless told otherwise: stems, drops stop words, splits CJK and compounds. */
export const DEFAULT_TOKENIZER: Readonly<{
  stem: boolean;
  stopWords: boolean;
  cjkBigrams: boolean;
  compounds: boolean;
}> = Object.freeze({ stem: true, stopWords: true, cjkBigrams: true, compounds: true });

/**
 * How synonyms are mined from a catalog (catalog-synonyms.ts): a word of tools' descriptions and
 * parameters links to a term of their names when at least 2 tools share both and at least 70% of the
 * word's tools have the term in their names; words in over 5% of the tools are not expanded; at most 2
 * terms per word, each at 0.5 × that share.
 */
export const DEFAULT_CATALOG_SYNONYMS: Readonly<{
  minShared: number;
  minShare: number;
  maxWordShare: number;
  perWord: number;
  weight: number;
}> = Object.freeze({ minShared: 2, minShare: 0.7, maxWordShare: 0.05, perWord: 2, weight: 0.5 });
/**
 * How much a tool gains from its server's evidence (server text and best tool, 0..1), times the best
 * tool's score: a nudge that orders near-ties by server, not a filter.
 */
export const DEFAULT_SERVER_WEIGHT = 0.1;
/** Share of its score a tool loses when the request fills none of its required parameters: off (0). */
export const DEFAULT_REQUIRED_PARAM_PENALTY = 0;
/**
 * Weight in a request of an English verb of a family ("save", "find", "list"), beside its family's term
 * (weight 1): the action counts through the family, and the verb's own word, which tools wear in their
 * names (`save_as_pdf`, `mongodb_find`), no longer outweighs what the request acts on.
 */
export const DEFAULT_VERB_WORD_WEIGHT = 0.25;
/**
 * Weight in a request of a word only its paths hold (`~/notes/standup.md`'s "notes", "standup"): the
 * user's names for their files, not what a tool does; the file's extension keeps its weight.
 */
export const DEFAULT_PATH_WORD_WEIGHT = 0.25;
/**
 * Weight in a request of a word only the details it goes on to name hold ("…about the database,
 * including its size and the number of tables": "size", "tables"): what is asked of the thing, not the
 * thing a tool is for.
 */
export const DEFAULT_DETAIL_WORD_WEIGHT = 0.25;

/** Weight of an earlier user message beside the latest one (1): it sets the topic. */
export const DEFAULT_EARLIER_USER_MESSAGE_WEIGHT = 0.5;
/** Weight of an assistant or tool message: context, often long, rarely naming the next need. */
export const DEFAULT_OTHER_MESSAGE_WEIGHT = 0.2;
/** Weight of a used tool's name: its siblings are likely next ("step 1 of 3", "…_B" after "…_A"). */
export const DEFAULT_USED_TOOL_WEIGHT = 0.2;
