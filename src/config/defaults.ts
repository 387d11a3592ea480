// Every default of Switchyard, once: what applies when a config file, an option or a flag leaves a
// value out. Each name carries its unit (`_MS`, `_BYTES`, `_CHARS`) or says what it counts. The other
// layers import their numbers from here; docs/contract.md lists them all ("Defaults").
// Imports nothing but the vocabulary's types.

import type { LogFormat, LogLevel, RoutingMode, StrategyName, VersionNegotiationMode } from "./vocabulary.js";

// --- The config file ---------------------------------------------------------------------------

/** Names tried, in order, in the working directory when no config file is named. */
export const DEFAULT_CONFIG_FILES: readonly string[] = Object.freeze([
  "switchyard.config.json",
  "switchyard.config.yaml",
  "switchyard.config.yml",
]);

// --- Each server (the per-server keys of the config) ------------------------------------------

/** Deadline of one tool call when a server sets no `timeoutMs`. */
export const DEFAULT_CALL_TIMEOUT_MS = 60_000;
/** How long a server may take from spawn/request to a finished handshake (`connectTimeoutMs`). */
export const DEFAULT_CONNECT_TIMEOUT_MS = 30_000;
/** Calls in flight to one server (`maxConcurrency`); more wait in its queue. */
export const DEFAULT_MAX_CONCURRENCY = 8;
/** Calls waiting for a slot on one server (`maxQueue`) before more are refused with `QUEUE_FULL`. */
export const DEFAULT_MAX_QUEUE = 256;
/**
 * Whether connect leaves a server unstarted while its catalog is cached (`lazy`): off, every server
 * starts at connect.
 */
export const DEFAULT_LAZY_START = false;

/**
 * The adaptive limit of calls in flight to one server, which applies unless `maxConcurrency` fixes a
 * number (`concurrency.min` … `concurrency.max`, starting at `concurrency.initial` =
 * {@link DEFAULT_MAX_CONCURRENCY}): it grows while the server's latency stays near its observed minimum
 * and shrinks when it rises (calls/adaptive-limit.ts).
 */
export const DEFAULT_CONCURRENCY_MIN_CALLS = 1;
/** The most calls in flight the adaptive limit may allow one server (`concurrency.max`). */
export const DEFAULT_CONCURRENCY_MAX_CALLS = 64;
/**
 * How far above a tool's lowest latency a call may take and still count as unloaded
 * (`concurrency.tolerance`, × the minimum): the knee of a server that slows down under load.
 */
export const DEFAULT_CONCURRENCY_TOLERANCE_RATIO = 1.25;
/**
 * Latency within this much of a tool's minimum counts as unloaded whatever the ratio
 * (`concurrency.slackMs`): below a few ms, the differences are the client's and the pipe's.
 */
export const DEFAULT_CONCURRENCY_SLACK_MS = 5;
/** The `concurrency` section when a server sets none (and no fixed `maxConcurrency`). */
export const DEFAULT_CONCURRENCY: Readonly<{
  min: number;
  max: number;
  initial: number;
  tolerance: number;
  slackMs: number;
}> = Object.freeze({
  min: DEFAULT_CONCURRENCY_MIN_CALLS,
  max: DEFAULT_CONCURRENCY_MAX_CALLS,
  initial: DEFAULT_MAX_CONCURRENCY,
  tolerance: DEFAULT_CONCURRENCY_TOLERANCE_RATIO,
  slackMs: DEFAULT_CONCURRENCY_SLACK_MS,
});
/**
 * Largest answer accepted from a stdio server (`maxResultBytes`; one stdout line, in bytes): a larger one
 * is dropped and fails its call with `RESULT_TOO_LARGE`.
 */
export const DEFAULT_MAX_RESULT_BYTES = 4 * 1024 * 1024;

/** Retries of one call after a failure that is safe to retry (`retry.maxRetries`). */
export const DEFAULT_MAX_RETRIES = 2;
/** First retry delay (`retry.backoffMs`); it doubles each time, with full jitter. */
export const DEFAULT_RETRY_BACKOFF_MS = 100;
/** The `retry` section when a server sets none. */
export const DEFAULT_RETRY: Readonly<{ maxRetries: number; backoffMs: number }> = Object.freeze({
  maxRetries: DEFAULT_MAX_RETRIES,
  backoffMs: DEFAULT_RETRY_BACKOFF_MS,
});
/** Longest wait between two tries of one call, whatever the backoff. */
export const DEFAULT_MAX_RETRY_DELAY_MS = 2_000;

/** How often a server is pinged (`health.intervalMs`); 0: never. */
export const DEFAULT_HEALTH_INTERVAL_MS = 0;
/** How long a health ping, or the circuit breaker's probe ping, may take (`health.timeoutMs`). */
export const DEFAULT_PING_TIMEOUT_MS = 5_000;
/** The `health` section when a server sets none. */
export const DEFAULT_HEALTH: Readonly<{ intervalMs: number; timeoutMs: number }> = Object.freeze({
  intervalMs: DEFAULT_HEALTH_INTERVAL_MS,
  timeoutMs: DEFAULT_PING_TIMEOUT_MS,
});

/** Restarts in a row of a server that was lost (`restart.maxRestarts`) before it is left `failed`. */
export const DEFAULT_MAX_RESTARTS = 3;
/** Wait before the first restart (`restart.backoffMs`); it doubles with each restart in a row. */
export const DEFAULT_RESTART_BACKOFF_MS = 500;
/** The `restart` section when a server sets none. */
export const DEFAULT_RESTART: Readonly<{ maxRestarts: number; backoffMs: number }> = Object.freeze({
  maxRestarts: DEFAULT_MAX_RESTARTS,
  backoffMs: DEFAULT_RESTART_BACKOFF_MS,
});
/** A server that stayed up this long after a restart starts its count of restarts in a row again. */
export const DEFAULT_RESTART_STABLE_AFTER_MS = 60_000;

/** Failures in a row of a server (`circuitBreaker.failureThreshold`) that open its circuit breaker. */
export const DEFAULT_BREAKER_FAILURE_THRESHOLD = 5;
/** How long an open breaker refuses calls (`circuitBreaker.cooldownMs`) before a probe ping. */
export const DEFAULT_BREAKER_COOLDOWN_MS = 30_000;
/** The `circuitBreaker` section when a server sets none. */
export const DEFAULT_CIRCUIT_BREAKER: Readonly<{ failureThreshold: number; cooldownMs: number }> =
  Object.freeze({
    failureThreshold: DEFAULT_BREAKER_FAILURE_THRESHOLD,
    cooldownMs: DEFAULT_BREAKER_COOLDOWN_MS,
  });

/**
 * `versionNegotiation`: probe for the 2026-07-28 revision with `server/discover`, falling back to
 * `initialize`. Measured on stdio and HTTP servers old and new: no connect-time cost we could see (the
 * probe runs in place, no extra process, for a server that answers it within
 * {@link DEFAULT_STDIO_PROBE_WAIT_MS}), and SDK v2 servers get the stateless revision.
 */
export const DEFAULT_VERSION_NEGOTIATION: VersionNegotiationMode = "auto";
/**
 * How long a stdio server may leave the `server/discover` probe unanswered (never longer than
 * `connectTimeoutMs`) before its process is stopped and a fresh one is started with a plain
 * `initialize`, with a `connectTimeoutMs` of its own: a server slow to start would otherwise read the
 * probe late, as a request before `initialize`, which many servers do not survive. So the number
 * decides time and revision, never whether a server connects:
 * - a server that ignores the probe pays it once, plus its stop and a second start (restarts reuse the
 *   negotiated version and do not probe);
 * - a server slower than it pays it, its stop (up to {@link DEFAULT_SHUTDOWN_GRACE_MS} more while it
 *   does not read its stdin yet) and a second start; a 2026-07-28 server then gets 2025-11-25 (SDK v2
 *   servers speak both) until a reconnect probes it again; one that speaks only 2026-07-28 needs
 *   `{ pin }`.
 *
 * 2 s is enough for SDK v2 servers started together (nine at once on two cores were ready within
 * 1.5–1.9 s) and keeps what an ignoring server costs low. A pinned revision, and any probe over HTTP,
 * has no fallback: there the probe may take the whole `connectTimeoutMs`.
 */
export const DEFAULT_STDIO_PROBE_WAIT_MS = 2_000;
/**
 * Streamable HTTP: how long connecting waits for the server-to-client stream (the standalone GET, or
 * `subscriptions/listen`) to be answered before the server is ready, so that what a server sends while
 * the first call runs finds the stream open.
 */
export const DEFAULT_STREAM_OPEN_WAIT_MS = 1_000;

/** How long a stdio server gets to exit after its stdin is closed, then again after SIGTERM. */
export const DEFAULT_SHUTDOWN_GRACE_MS = 1_000;
/**
 * A tool call run as a task (the tasks extension): how often its status is asked for (`tasks/get`) when
 * the server's task names no `pollInterval`; a status notification from the server wakes it sooner.
 */
export const DEFAULT_TASK_POLL_INTERVAL_MS = 1_000;
/** The shortest wait between two `tasks/get` of one task, whatever `pollInterval` the server names. */
export const DEFAULT_TASK_MIN_POLL_INTERVAL_MS = 20;
/** How long the `tasks/cancel` sent for a cancelled or timed-out task call may take. */
export const DEFAULT_TASK_CANCEL_TIMEOUT_MS = 5_000;

/** Names suggested when a tool name is not in the catalog ("did you mean …"). */
export const DEFAULT_MAX_SUGGESTIONS = 3;

// --- The model -------------------------------------------------------------------------------

/** OpenAI's endpoint: the model's `baseURL` when an API key is set without one. */
export const DEFAULT_OPENAI_BASE_URL = "https://api.openai.com/v1";
/** The model asked for on OpenAI's endpoint when none is named. */
export const DEFAULT_OPENAI_MODEL = "gpt-4o-mini";
/** How long one model request may take, retries excluded. */
export const DEFAULT_MODEL_TIMEOUT_MS = 120_000;
/** Retries of a model request after a 429, a 5xx or a dropped connection. */
export const DEFAULT_MODEL_MAX_RETRIES = 3;
/** First model retry delay; it doubles each time, with jitter, up to {@link DEFAULT_MODEL_MAX_RETRY_DELAY_MS}. */
export const DEFAULT_MODEL_RETRY_BASE_MS = 500;
/** Longest wait between two tries of a model request (a `Retry-After` longer than this is cut). */
export const DEFAULT_MODEL_MAX_RETRY_DELAY_MS = 10_000;

// --- Context: tokens and budgets (src/context) ---------------------------------------------

/** A model's context window, in tokens, when `model.contextWindow` is unset and its name is not known. */
export const DEFAULT_CONTEXT_WINDOW_TOKENS = 32_768;
/**
 * Context windows (tokens) of common model families, by the start of the model's name (lowercased,
 * after any `provider/` prefix; the longest matching start wins). Set `model.contextWindow` for others,
 * or where a server runs a model with a smaller window (Ollama's default `num_ctx` is far below these).
 */
export const DEFAULT_CONTEXT_WINDOWS: Readonly<Record<string, number>> = Object.freeze({
  "gpt-5": 400_000,
  "gpt-4.1": 1_047_576,
  "gpt-4o": 128_000,
  "chatgpt-4o": 128_000,
  "gpt-4-turbo": 128_000,
  "gpt-4": 8_192,
  "gpt-3.5": 16_385,
  "gpt-oss": 131_072,
  o1: 200_000,
  o3: 200_000,
  o4: 200_000,
  claude: 200_000,
  gemini: 1_048_576,
  qwen: 32_768,
  deepseek: 65_536,
  glm: 128_000,
  llama: 131_072,
  mistral: 32_768,
  mixtral: 32_768,
  kimi: 131_072,
  moonshot: 131_072,
});
/** Characters per token of the estimate for models without a known tokenizer (CJK characters count one token each). */
export const DEFAULT_CHARS_PER_TOKEN = 4;
/** Weight of each new `usage` report in the estimate's correction factor (the rest: the factor so far). */
export const DEFAULT_TOKEN_CALIBRATION_WEIGHT = 0.5;
/** Lowest and highest correction factor the reported `usage` may set on the estimate. */
export const DEFAULT_TOKEN_CALIBRATION_BOUNDS: Readonly<{ min: number; max: number }> = Object.freeze({
  min: 0.5,
  max: 3,
});
/** Tokens kept free in the window for the model's answer, at most {@link DEFAULT_ANSWER_RESERVE_MAX_SHARE} of it. */
export const DEFAULT_ANSWER_RESERVE_TOKENS = 4_096;
/** The most of a small window the answer's reserve takes (an 8k window keeps 2,048 tokens for it). */
export const DEFAULT_ANSWER_RESERVE_MAX_SHARE = 0.25;
/** Share of a request's tokens (the window less the answer's reserve) for the system prompt. */
export const DEFAULT_SYSTEM_PROMPT_SHARE = 0.05;
/** Share of a request's tokens for the offered tools (their names, descriptions and schemas). */
export const DEFAULT_TOOLS_SHARE = 0.15;
/** Share of a request's tokens that one tool result may take, up to {@link DEFAULT_RESULT_BUDGET_TOKENS}. */
export const DEFAULT_RESULT_SHARE = 0.1;
/**
 * Tokens of one tool result the model sees, at most, whatever the window; a larger result is shaped to
 * fit (JSON kept valid, text cut head and tail) with a note of what was left out.
 */
export const DEFAULT_RESULT_BUDGET_TOKENS = 4_000;

// --- What the client offers servers ---------------------------------------------------------

/**
 * The folders servers are told they may work in (`roots`, answered on `roots/list`), relative to the
 * config's folder (a config object: the working directory, or `baseDir`).
 */
export const DEFAULT_ROOTS: readonly string[] = Object.freeze(["."]);

// --- The agent and plans ---------------------------------------------------------------------

/** Model turns an agent run may take (`agent.maxSteps`, `--max-steps`). */
export const DEFAULT_MAX_STEPS = 8;
/** Times the same tool may be called with the same arguments in one run (`agent.maxIdenticalCalls`). */
export const DEFAULT_MAX_IDENTICAL_CALLS = 3;
/**
 * Whether the agent refuses (without running it) a call to a tool it did not offer the model at that
 * step (`offeredToolsOnly`): the model has not seen that tool's description or schema.
 */
export const DEFAULT_OFFERED_TOOLS_ONLY = true;
/** Whether the model may ask for several tool calls in one turn (`agent.parallelToolCalls`). */
export const DEFAULT_PARALLEL_TOOL_CALLS = true;
/** Characters of a tool's error text kept in a call's record (the model sees the whole, within budget). */
export const DEFAULT_RECORDED_ERROR_CHARS = 500;
/**
 * Characters of one tool result the model sees before it is cut, when a character budget is asked for
 * (`shapeResult` without a token budget); the agent's results are budgeted in tokens.
 */
export const DEFAULT_RESULT_BUDGET_CHARS = 8_000;
/** Characters one `read_result` page returns at most (a stored result is read in pages of this size). */
export const DEFAULT_READ_RESULT_CHARS = 8_000;
/** Share of the window past which the agent compacts the conversation (`agent.context.compactAt`). */
export const DEFAULT_COMPACT_AT_SHARE = 0.8;
/** Share of the window compaction brings a request down to, so it does not compact again at once (`agent.context.compactTo`). */
export const DEFAULT_COMPACT_TO_SHARE = 0.5;
/** Rounds (model turns with their tool results) compaction keeps whole (`agent.context.keepRounds`). */
export const DEFAULT_KEEP_ROUNDS = 4;
/** Whether a result too large for its share is stored behind a handle the model reads with `read_result` (`agent.context.handles`). */
export const DEFAULT_RESULT_HANDLES = true;
/** Whether an earlier result of the same call (tool and arguments) becomes a stub pointing at the latest (`agent.context.collapseRepeats`). */
export const DEFAULT_COLLAPSE_REPEATS = true;
/** Who summarizes compacted rounds (`agent.context.summarizer`): `extractive` (deterministic lines) or `model` (the agent's model). */
export const DEFAULT_SUMMARIZER = "extractive";
/** Share of a request (the window less the answer's reserve) a summary of compacted rounds may take, up to `DEFAULT_SUMMARY_MAX_TOKENS`. */
export const DEFAULT_SUMMARY_SHARE = 0.1;
/** The most tokens a summary of compacted rounds takes, whatever the window. */
export const DEFAULT_SUMMARY_MAX_TOKENS = 2_000;
/** The agent's system prompt when none is given. */
export const DEFAULT_SYSTEM_PROMPT =
  "You are a helpful assistant with tools. Call tools when they help answer the question; you may call " +
  "several at once when they do not depend on each other, and use one tool's result as the next tool's " +
  "input. When the question needs live or specific data (orders, accounts, prices, weather, status, anything " +
  "that changes or that you cannot know), call the tool that has it instead of answering from memory, and " +
  "never make such data up. Each tool result starts with a line naming the tool and its outcome. If a tool " +
  "fails, read why and fix the call, or answer with what you have. Answer in the user's language.";
/**
 * Whether the agent that `createAgent` builds sends the fallback nudge (`agent.nudge`): when the model
 * answers without having called a tool although the question matches one strongly, it is reminded once
 * per run to call it (seed 003 §6.3).
 */
export const DEFAULT_NUDGE = true;
/**
 * The router score of the question's best tool from which the nudge is sent (`agent.nudge.minScore`), in
 * the lexical strategy's BM25F scale: a tool sharing two or more distinctive words with the question
 * scores above it ("北京朝阳区今天空气质量怎么样" → the environment tool, 8.6), a chance match on one common
 * word below it ("tell me a joke about cats" → an orders tool, 2.1). Other strategies score on other
 * scales: set it for them.
 */
export const DEFAULT_NUDGE_MIN_SCORE = 4;
/** The reminder the nudge sends (`agent.nudge.message`); `{tools}` becomes the best matching tools' names. */
export const DEFAULT_NUDGE_MESSAGE =
  "You answered without calling a tool, but this question looks like it needs data a tool has ({tools}). " +
  "Call the tool instead of answering from memory; if no tool can help, give your answer again.";
/** How long a whole plan may run when it sets no `timeoutMs`. */
export const DEFAULT_PLAN_TIMEOUT_MS = 120_000;
/**
 * Steps of one plan that may run at once when it sets no `concurrency` (ready steps beyond it wait their
 * turn): as many as a server's bulkhead admits (`DEFAULT_MAX_CONCURRENCY`), so a plan alone never
 * queues there.
 */
export const DEFAULT_PLAN_CONCURRENCY = 8;

// --- Routing ---------------------------------------------------------------------------------

/** Tools ranked and offered per query or step (`routing.topK`). */
export const DEFAULT_TOP_K = 12;
/** A catalog of at most this many tools is offered whole (`routing.offerAllUpTo`): routing could only hide one. */
export const DEFAULT_OFFER_ALL_UP_TO = 20;
/** Tools already used in a conversation that stay offered, the most recent first. */
export const DEFAULT_MAX_USED_KEPT = 8;
/** Characters of each assistant or tool message the agent's router reads (they weigh little anyway). */
export const DEFAULT_ROUTING_CONTEXT_CHARS = 300;
/** Assistant and tool messages the agent's router reads, the most recent ones. */
export const DEFAULT_ROUTING_CONTEXT_MESSAGES = 4;
/**
 * When fewer tools than this (or than `topK`, if smaller) match a request, the router fills the offer
 * up to `topK` with its fallback: the matching and used tools' servers first, then every server's
 * tools that need the fewest arguments. A model offered nothing cannot even look around.
 */
export const DEFAULT_MIN_RANKED_TOOLS = 3;
/**
 * How the agent offers tools (`routing.mode`): `auto` routes each step (the router's `topK`) up to
 * {@link DEFAULT_TOOL_SEARCH_ABOVE} tools and offers tool search above.
 */
export const DEFAULT_ROUTING_MODE: RoutingMode = "auto";
/**
 * Catalog size above which `routing.mode: "auto"` offers tool search (`routing.searchAbove`). Below it,
 * per-step routing already offers few tools (at most `topK` plus used ones) and finds the right one
 * (R@10 ≥ 97% on the 1,455- and 4,076-tool dev sets) without the search's extra model turn; above ~100
 * tools (~10k tokens of definitions) the offer changes every step, which defeats prompt caching, and a
 * search costs a few hundred tokens per step.
 */
export const DEFAULT_TOOL_SEARCH_ABOVE = 100;
/**
 * Tools one `search_tools` call answers with, at most (`routing.searchResults`). Each one found joins the
 * offer for the rest of the run: with tools of ~165 tokens, two searches of 3 keep the offer near 1,100
 * tokens (5 would take it past 1,800: `npm run bench -- --only context`); a model that finds nothing
 * useful searches again with other words.
 */
export const DEFAULT_TOOL_SEARCH_RESULTS = 3;
/** The routing strategy (`routing.strategy`, `--strategy`). */
export const DEFAULT_ROUTING_STRATEGY: StrategyName = "lexical";
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

/** Weight of an earlier user message beside the latest one (1): it sets the topic. */
export const DEFAULT_EARLIER_USER_MESSAGE_WEIGHT = 0.5;
/** Weight of an assistant or tool message: context, often long, rarely naming the next need. */
export const DEFAULT_OTHER_MESSAGE_WEIGHT = 0.2;
/** Weight of a used tool's name: its siblings are likely next ("step 1 of 3", "…_B" after "…_A"). */
export const DEFAULT_USED_TOOL_WEIGHT = 0.2;

/** Texts sent per `/embeddings` request. */
export const DEFAULT_EMBEDDING_BATCH_SIZE = 64;
/** Deadline of one `/embeddings` request. */
export const DEFAULT_EMBEDDING_TIMEOUT_MS = 30_000;
/** Vectors an embeddings client keeps (least recently used dropped first): ~60 MB at 1,536 dimensions. */
export const DEFAULT_MAX_CACHED_VECTORS = 10_000;

// --- Policy (the `policy` section; src/calls/policy.ts) ------------------------------------------

/**
 * The effect when a policy exists and no rule matches a call (`policy.default`): refuse what no rule
 * allowed. With no policy at all (no `policy` section, no `policy` option) every call is allowed.
 */
export const DEFAULT_POLICY_EFFECT: "allow" | "deny" | "approve" = "deny";
/** How the matching rules combine (`policy.mode`): the first one in order decides. */
export const DEFAULT_POLICY_MODE: "first-match" | "deny-overrides" = "first-match";

// --- Logs and the command line ---------------------------------------------------------------

/** Log level of `createLogger` and of the CLI (`--log-level`). */
export const DEFAULT_LOG_LEVEL: LogLevel = "warn";
/** Log format of `createLogger` and of the CLI (`--log-format`). */
export const DEFAULT_LOG_FORMAT: LogFormat = "pretty";

// --- Redaction (telemetry/redact.ts) -----------------------------------------------------------

/**
 * Names whose values are secrets wherever they appear in arguments, records and log fields (besides
 * `redact.keys`), matched case-insensitively and across `-`, `_` and camelCase (`apiKey` is also
 * `api_key`, `X-API-Key`, `OPENAI_API_KEY`); also how environment variables with secret values are known.
 */
export const DEFAULT_REDACT_KEYS: readonly string[] = Object.freeze([
  "password",
  "passwd",
  "passphrase",
  "secret",
  "token",
  "apiKey",
  "accessKey",
  "privateKey",
  "authorization",
  "cookie",
  "credential",
  "credentials",
  "jwt",
]);
/**
 * Secret values (from the config or the environment) shorter than this are not searched for: that
 * short a value would match ordinary words, and is no credential worth the name.
 */
export const DEFAULT_REDACT_MIN_SECRET_CHARS = 8;
/** After a signal, how long the CLI's closing may take before it exits anyway (servers die with it). */
export const DEFAULT_CLI_SHUTDOWN_LIMIT_MS = 3_000;
/**
 * After a signal, how long the CLI waits for the command's run to stop (its model request aborted, its
 * calls cancelled) before it closes the servers anyway; within {@link DEFAULT_CLI_SHUTDOWN_LIMIT_MS}.
 */
export const DEFAULT_CLI_CANCEL_WAIT_MS = 1_000;
/** Lines a terminal `chat` keeps in its history (the arrow keys' lines, and its history file). */
export const DEFAULT_CHAT_HISTORY_LINES = 1_000;
/** Tool ids per query written by `route eval --rankings`. */
export const DEFAULT_RANKINGS_LENGTH = 10;
/**
 * How long the CLI's cached catalog (`tools`, `describe`, and which server `call` starts) is trusted
 * when nothing it can check has changed (the server's config, its script file): a server's tools can
 * change without either, so the cache is listed again after this.
 */
export const DEFAULT_CATALOG_CACHE_MAX_AGE_MS = 86_400_000;

// --- OAuth (a server's `oauth` section) ---------------------------------------------------------

/** How long `switchyard login` waits for the browser's redirect with the authorization code. */
export const DEFAULT_LOGIN_TIMEOUT_MS = 300_000;
/** The path of the loopback redirect URI `switchyard login` listens on. */
export const DEFAULT_OAUTH_CALLBACK_PATH = "/callback";
/** How long a login's first question to the server (which scope its challenge asks for) may take. */
export const DEFAULT_OAUTH_PROBE_TIMEOUT_MS = 10_000;
/** The JWS algorithm of `oauth.privateKey` when `oauth.signingAlgorithm` names none. */
export const DEFAULT_OAUTH_SIGNING_ALGORITHM = "RS256";

// --- The store (run records, sessions, the audit log) ------------------------------------------

/** Whether the CLI records its runs, calls, sessions and audit log when the config has no `store` section. */
export const DEFAULT_RECORDING = true;
/** The embedded store's file name, in `$XDG_DATA_HOME/switchyard/` (else `~/.local/share/switchyard/`). */
export const DEFAULT_STORE_FILE = "switchyard.db";
/** How long a SQLite write waits for another process's write to finish before it fails. */
export const DEFAULT_STORE_BUSY_TIMEOUT_MS = 5_000;
/** Connections the PostgreSQL store keeps open at most. */
export const DEFAULT_POSTGRES_CONNECTIONS = 4;
/** Audit entries the PostgreSQL store appends in one transaction at most (the ones that waited). */
export const DEFAULT_AUDIT_BATCH_ROWS = 256;
/** Characters kept of each recorded text (a question, arguments, what the model said, an error). */
export const DEFAULT_RECORD_TEXT_CHARS = 2_000;
/** Runs (and sessions) `switchyard runs` lists. */
export const DEFAULT_RUNS_LISTED = 20;
/** Audit rows `switchyard audit tail` prints before it follows. */
export const DEFAULT_AUDIT_TAIL_ROWS = 20;
/**
 * The latest audit rows `switchyard runs show` reads for the run's own (decisions, approvals, calls):
 * enough for a run among many recent ones without reading a long log whole.
 */
export const DEFAULT_RUN_AUDIT_SCAN_ROWS = 10_000;
/** How often `switchyard audit tail --follow` looks for new rows. */
export const DEFAULT_AUDIT_FOLLOW_INTERVAL_MS = 500;

// --- The trace viewer (`switchyard ui`, src/viewer) ----------------------------------------------

/** The address `switchyard ui` listens on (loopback only, unless `--host` says otherwise). */
export const DEFAULT_VIEWER_HOST = "127.0.0.1";
/** The port `switchyard ui` listens on: 0, any free port (`--port`). */
export const DEFAULT_VIEWER_PORT = 0;
/** How often the viewer's server looks at the store for new runs, steps, calls and audit rows, while a page listens. */
export const DEFAULT_VIEWER_POLL_INTERVAL_MS = 500;
/** Runs the viewer reads for its list, its filters and its servers view (the newest). */
export const DEFAULT_VIEWER_RUNS_SCANNED = 200;
/** Audit rows the viewer's audit view shows (the newest), and reads to tell whose each run was. */
export const DEFAULT_VIEWER_AUDIT_ROWS = 2_000;

// --- The gateway (`switchyard serve`, the config's `gateway` section) ---------------------------

/** What the gateway offers: `all` (every tool the client may call) or `search` (`search_tools` + `call_tool`). */
export const DEFAULT_GATEWAY_MODE: "all" | "search" = "all";
/** The address `switchyard serve --http` listens on: loopback, so nothing off the machine reaches it. */
export const DEFAULT_GATEWAY_HOST = "127.0.0.1";
/** The path the gateway's Streamable HTTP endpoint answers on. */
export const DEFAULT_GATEWAY_PATH = "/mcp";
/** Largest HTTP request body the gateway reads; a larger one is answered 413. */
export const DEFAULT_GATEWAY_MAX_BODY_BYTES = 4 * 1024 * 1024;
/**
 * How long a 2026-07-28 call that asked its client for input (elicitation, sampling) is kept after it
 * ended unanswered, for the client's retry to collect its result (the call itself is bounded by its
 * deadline).
 */
export const DEFAULT_GATEWAY_PENDING_KEEP_MS = 60_000;
/**
 * 2025-11-25 HTTP sessions one gateway keeps at most: a client that never ends its session (no DELETE)
 * must not grow the process without bound; past it the session unused longest is ended (its client gets
 * 404 and starts another). A session costs a server instance and its transport.
 */
export const DEFAULT_GATEWAY_MAX_SESSIONS = 1_000;
/**
 * A 2025-11-25 HTTP session kept in the store (`createGateway(…, { sessionStore })`, which `switchyard
 * serve` passes) is taken up by any replica until it has gone unused this long; then it is forgotten.
 */
export const DEFAULT_GATEWAY_SESSION_IDLE_MS = 24 * 60 * 60_000;
/** How often, at most, a session's last use is written to the store (a write per request would cost each call). */
export const DEFAULT_GATEWAY_SESSION_TOUCH_MS = 60_000;

// --- The gateway's authentication (`gateway.auth`) ----------------------------------------------

/** The claim of an OAuth access token that names its user (`gateway.auth.oauth.userClaim`). */
export const DEFAULT_GATEWAY_USER_CLAIM = "sub";
/**
 * The claim of an OAuth access token that lists its user's roles (`gateway.auth.oauth.rolesClaim`; a
 * dotted path reaches into an object, as Keycloak's `realm_access.roles`).
 */
export const DEFAULT_GATEWAY_ROLES_CLAIM = "roles";
/**
 * How far the gateway's clock and the issuer's may disagree when a token's `exp` and `nbf` are checked:
 * enough for machines kept by NTP, small beside the minutes an access token lives.
 */
export const DEFAULT_GATEWAY_CLOCK_SKEW_MS = 30_000;
/** How long reading the issuer's metadata or its JWKS may take before a token is answered 503 (fixed). */
export const DEFAULT_GATEWAY_JWKS_TIMEOUT_MS = 5_000;
/**
 * The shortest bearer token `gateway.auth.tokens` accepts: a token is a password every client holds, and
 * a short one can be guessed; `openssl rand -hex 32` makes a good one (fixed).
 */
export const DEFAULT_GATEWAY_TOKEN_MIN_CHARS = 16;
