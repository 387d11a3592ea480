import { DEFAULT_REDACT_KEYS, DEFAULT_REDACT_MIN_SECRET_CHARS } from "../config/defaults.js";
import type { SwitchyardConfig } from "../config/schema.js";
import { escapeRegExp } from "../escape-regexp.js";
import type { AuditSink } from "./audit.js";
import type { Observer, SwitchyardEvent } from "./events.js";
import { type Logger, silentLogger } from "./logger.js";
import type { WireSink } from "./wire-trace.js";

/** What replaces a secret value or a token found in a text. */
export const REDACTED = "[REDACTED]";

/**
 * Common credentials, found wherever they are in a text (JavaScript regular expressions, matched as
 * written): bearer and basic tokens, OpenAI/Anthropic `sk-…` keys, GitHub tokens (`ghp_…`, `gho_…`,
 * `ghs_…`, `github_pat_…`), AWS access key ids (`AKIA…`, `ASIA…`), JWTs (`eyJ….eyJ….…`), Slack tokens
 * (`xox[abposr]-…`), Stripe keys (`sk_live_…`), Google API keys (`AIza…`) and PEM private key blocks.
 */
export const TOKEN_PATTERNS: readonly string[] = Object.freeze([
  String.raw`\b[Bb]earer\s+[A-Za-z0-9\-._~+/]{8,}=*`,
  String.raw`\b[Bb]asic\s+[A-Za-z0-9+/]{12,}=*`,
  String.raw`\bsk-(?:proj-|ant-|svcacct-)?[A-Za-z0-9_\-]{20,}`,
  String.raw`\bgh[pousr]_[A-Za-z0-9]{30,}`,
  String.raw`\bgithub_pat_[A-Za-z0-9_]{22,}`,
  String.raw`\b(?:AKIA|ASIA)[0-9A-Z]{16}\b`,
  String.raw`\beyJ[A-Za-z0-9_\-]{8,}\.eyJ[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]*`,
  String.raw`\bxox[abposr]-[A-Za-z0-9\-]{10,}`,
  String.raw`\b[rs]k_(?:live|test)_[A-Za-z0-9]{16,}`,
  String.raw`\bAIza[0-9A-Za-z_\-]{35}`,
  // Not across a JSON string's end: a key block serialized into a log line is matched there too.
  '-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY-----[^"]*?-----END (?:[A-Z0-9]+ )*PRIVATE KEY-----',
]);

/**
 * Each token pattern compiled, with the literal texts one of which every match contains: a pattern runs
 * only on a text that has one (a few `includes` scans cost less than one pass of eleven patterns).
 */
const TOKENS: ReadonlyArray<{ needles: readonly string[]; search: RegExp }> = [
  ["Bearer", "bearer"],
  ["Basic", "basic"],
  ["sk-"],
  ["ghp_", "gho_", "ghu_", "ghs_", "ghr_"],
  ["github_pat_"],
  ["AKIA", "ASIA"],
  ["eyJ"],
  ["xox"],
  ["k_live_", "k_test_"],
  ["AIza"],
  ["PRIVATE KEY-----"],
].map((needles, index) => ({ needles, search: new RegExp(TOKEN_PATTERNS[index]!, "g") }));
/** Whether a text has any token's literal at all: one scan for the common text that has none. */
const ANY_NEEDLE = new RegExp(TOKENS.flatMap((token) => token.needles.map(escapeRegExp)).join("|"));

/** HTTP authentication schemes, as a credential in a text may start with one. */
const SCHEMES = "(?:bearer|basic|token|bot|digest|negotiate|dpop)";
/**
 * Credentials inside ordinarily named values, where only their secret part is replaced: the password of
 * a URL's user info (`postgres://app:pass@db` → `postgres://app:[REDACTED]@db`; a user alone is left),
 * and what follows `Authorization:` or `Proxy-Authorization:` in a text (any scheme, a token of any
 * length: `Authorization: Bearer xyz` → `Authorization: [REDACTED]`; as a JSON member too).
 */
export const CREDENTIAL_PATTERNS: readonly string[] = Object.freeze([
  // From the `://` on (a literal first: searched fast), whatever the scheme before it.
  String.raw`(://[^\s:/?#@"'<>\\]*:)[^\s/?#@"'<>\\]+(?=@)`,
  // Not a placeholder (`Bearer \${TOKEN}`, `<token>`) nor what was redacted already.
  String.raw`(\b(?:proxy-)?authorization\\?["']?\s*[:=]\s*\\?["']?)(?:${SCHEMES}\s+)?(?![$<{[]|${SCHEMES}\s)[^\s"'\\,;]+`,
]);
/**
 * Each credential pattern compiled (its first group kept), with the literals one of which every match
 * holds, and one more it always holds as well.
 */
const CREDENTIALS: ReadonlyArray<{ needles: readonly string[]; also?: string; search: RegExp }> = [
  { needles: ["://"], also: "@", search: new RegExp(CREDENTIAL_PATTERNS[0]!, "g") },
  { needles: ["uthorization", "UTHORIZATION"], search: new RegExp(CREDENTIAL_PATTERNS[1]!, "gi") },
];

/** The shortest text a built-in token pattern can match: shorter texts are not searched. */
const SHORTEST_TOKEN = 8;

/** Request headers that carry no credentials: their values are not taken for secrets. */
const PLAIN_HEADERS = new Set([
  "accept",
  "accept-encoding",
  "accept-language",
  "cache-control",
  "content-type",
  "user-agent",
  "mcp-protocol-version",
]);

/** How a {@link Redactor} is built. */
export interface RedactorOptions {
  /**
   * Argument and field names whose values are replaced wherever they appear in a record
   * (`[REDACTED:<key>]`), besides {@link DEFAULT_REDACT_KEYS}. Matched case-insensitively and across
   * `-`, `_` and camelCase: `apiKey` matches `api_key`, `X-API-Key` and `OPENAI_API_KEY`.
   */
  keys?: readonly string[];
  /** More regular expressions (case-insensitive) whose matches are replaced, besides {@link TOKEN_PATTERNS}. */
  patterns?: readonly string[];
  /** Secret values replaced wherever they appear in a text (those shorter than `minLength` are not). */
  values?: Iterable<string>;
  /**
   * The environment whose variables with secret-looking names (`GITHUB_TOKEN`, `DB_PASSWORD`) give
   * secret values; default `process.env`; `false`: none.
   */
  env?: Readonly<Record<string, string | undefined>> | false;
  /** Secret values shorter than this are not searched for; default {@link DEFAULT_REDACT_MIN_SECRET_CHARS}. */
  minLength?: number;
}

/**
 * Replaces secrets before anything is written: values of secret-looking keys (`password`, `apiKey`,
 * `authorization`, …), secret values from the config and the environment, and common token patterns.
 * Built once (one regular expression for every value and pattern; key names cached), used for every
 * log line, wire record, event, run record and audit entry. `text` and `value` are bound functions.
 */
export class Redactor {
  /** Joined lower-case word runs of the secret key names (`apikey`, `password`). */
  readonly #keys: ReadonlySet<string>;
  readonly #keyCache = new Map<string, boolean>();
  /** Every secret value, longest first, in one expression; none when there are none. */
  readonly #values: RegExp | undefined;
  readonly #userSearch: RegExp | undefined;
  readonly #shortest: number;
  readonly #minLength: number;
  /** Values seen under secret keys (an argument `password`), searched for in texts from then on. */
  readonly #learned = new Set<string>();
  #learnedSearch: RegExp | undefined;
  #learnedStale = false;
  /** How many secret values it searches for (for reports; the values themselves are not kept apart). */
  readonly secretValues: number;

  constructor(options: RedactorOptions = {}) {
    this.#keys = new Set([...DEFAULT_REDACT_KEYS, ...(options.keys ?? [])].map((key) => words(key).join("")));
    const minLength = options.minLength ?? DEFAULT_REDACT_MIN_SECRET_CHARS;
    this.#minLength = minLength;
    const values = new Set<string>();
    const add = (value: string) => {
      for (const form of secretForms(value)) if (form.length >= minLength) values.add(form);
    };
    for (const value of options.values ?? []) add(value);
    const env = options.env === false ? {} : (options.env ?? process.env);
    for (const [name, value] of Object.entries(env)) {
      if (value && this.isSecretKey(name)) add(value);
    }
    this.secretValues = values.size;
    // Longest first: a value that contains another is replaced whole.
    const literal = [...values].sort((a, b) => b.length - a.length).map(escapeRegExp);
    this.#values = literal.length ? new RegExp(literal.join("|"), "g") : undefined;
    const user = options.patterns ?? [];
    this.#userSearch = user.length ? new RegExp(user.map((p) => `(?:${p})`).join("|"), "giu") : undefined;
    this.#shortest = user.length ? 1 : Math.min(SHORTEST_TOKEN, values.size ? minLength : SHORTEST_TOKEN);
  }

  /**
   * The redactor for a resolved config: its `redact` section, every secret it holds (header values,
   * `env` values under secret-looking names, passwords of URLs in a server's `env`, `args` or `url`, OAuth secrets and keys, `model.apiKey`, the embeddings'
   * `apiKey`, secret query parameters of server URLs, and what `${VAR}` / `${input:id}` placeholders
   * with secret-looking names or `password: true` were filled with), and the environment's.
   */
  static fromConfig(
    config: SwitchyardConfig,
    env: Readonly<Record<string, string | undefined>> | false = process.env,
  ): Redactor {
    const probe = new Redactor({ keys: config.redact?.keys ?? [], env: false });
    const values: string[] = [];
    const secret = (value: string | undefined) => {
      if (value) values.push(value);
    };
    for (const server of config.servers) {
      for (const [name, value] of Object.entries(server.headers)) {
        if (!PLAIN_HEADERS.has(name.toLowerCase())) secret(value);
      }
      for (const [name, value] of Object.entries(server.env)) if (probe.isSecretKey(name)) secret(value);
      // A password in a URL the server is given (`DATABASE_URL`, an argument), as the server may print it alone.
      for (const text of [...Object.values(server.env), ...server.args, server.url ?? ""])
        for (const password of userInfoPasswords(text)) secret(password);
      if (server.url && URL.canParse(server.url)) {
        for (const [name, value] of new URL(server.url).searchParams)
          if (probe.isSecretKey(name)) secret(value);
      }
      const oauth = server.oauth;
      secret(oauth?.clientSecret);
      secret(oauth?.privateKey);
      secret(oauth?.idp?.clientSecret);
      secret(oauth?.idp?.idToken);
    }
    secret(config.model?.apiKey);
    secret(config.routing?.embeddings?.apiKey);
    for (const filled of config.substitutions ?? []) {
      if (filled.secret || probe.isSecretKey(filled.variable)) secret(filled.value);
    }
    return new Redactor({
      keys: config.redact?.keys ?? [],
      patterns: config.redact?.patterns ?? [],
      values,
      env,
    });
  }

  /** Whether values under this key (an argument, a field, a header, a variable name) are secrets. */
  isSecretKey(key: string): boolean {
    let known = this.#keyCache.get(key);
    if (known === undefined) {
      known = matchesWords(words(key), this.#keys);
      // Keys are few (argument and field names); a flood of distinct ones only costs the cache.
      if (this.#keyCache.size >= 10_000) this.#keyCache.clear();
      this.#keyCache.set(key, known);
    }
    return known;
  }

  /** A text with every secret value and token replaced by `[REDACTED]`. */
  readonly text = (text: string): string => {
    if (text.length < this.#shortest) return text;
    let clean = this.#values ? text.replace(this.#values, REDACTED) : text;
    for (const credential of CREDENTIALS) {
      if (
        credential.needles.some((needle) => clean.includes(needle)) &&
        (credential.also === undefined || clean.includes(credential.also))
      )
        clean = clean.replace(credential.search, `$1${REDACTED}`);
    }
    if (ANY_NEEDLE.test(clean)) {
      for (const token of TOKENS) {
        if (token.needles.some((needle) => clean.includes(needle)))
          clean = clean.replace(token.search, REDACTED);
      }
    }
    if (this.#userSearch) clean = clean.replace(this.#userSearch, REDACTED);
    if (this.#learnedStale) this.#compileLearned();
    if (this.#learnedSearch) clean = clean.replace(this.#learnedSearch, REDACTED);
    return clean;
  };

  /**
   * A value with every string redacted and every member under a secret key replaced by
   * `[REDACTED:<key>]` (numbers, booleans and null stay: they are counts and flags, not credentials).
   * The value is copied only where something changed; the input is never modified.
   */
  readonly value = <T>(value: T): T => this.#walk(value, 0) as T;

  /**
   * An event as observers and stores get it: redacted like any value, and its JSON texts (a call's
   * `arguments`, a plan's `input`) parsed, redacted by key, and serialized again.
   */
  readonly event = (event: SwitchyardEvent): SwitchyardEvent => {
    if (event.type === "call_started") {
      const args = this.json(event.arguments);
      const rest = this.value({ ...event, arguments: "" });
      return { ...rest, arguments: args };
    }
    if (event.type === "run_started" && event.input !== undefined) {
      return { ...this.value(event), input: this.json(event.input) };
    }
    return this.value(event);
  };

  /** A JSON text redacted as a value (by key too), or as a text when it does not parse. */
  readonly json = (text: string): string => {
    const start = text.trimStart()[0];
    if (start !== "{" && start !== "[") return this.text(text);
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      return this.text(text);
    }
    const clean = this.#walk(parsed, 0);
    return clean === parsed ? this.text(text) : JSON.stringify(clean);
  };

  /**
   * Remember a secret seen under a secret key, so that a tool echoing it back (in its result, an error,
   * a log line) is redacted too. At most {@link MAX_LEARNED} are kept; past that, the oldest go.
   */
  #learn(value: string): void {
    if (value.length < this.#minLength || this.#learned.has(value)) return;
    if (this.#learned.size >= MAX_LEARNED) this.#learned.delete(this.#learned.values().next().value!);
    this.#learned.add(value);
    this.#learnedStale = true;
  }

  #compileLearned(): void {
    this.#learnedStale = false;
    const forms = [...this.#learned].flatMap(secretForms).filter((form) => form.length >= this.#minLength);
    const literal = [...new Set(forms)].sort((a, b) => b.length - a.length).map(escapeRegExp);
    this.#learnedSearch = literal.length ? new RegExp(literal.join("|"), "g") : undefined;
  }

  #walk(value: unknown, depth: number): unknown {
    if (typeof value === "string") return this.text(value);
    if (typeof value !== "object" || value === null) return value;
    // Cut, never skipped: what is deeper than anyone reads could hold anything.
    if (depth > MAX_DEPTH) return TOO_DEEP;
    if (Array.isArray(value)) {
      let copy: unknown[] | undefined;
      for (let index = 0; index < value.length; index++) {
        const item: unknown = value[index];
        const clean = this.#walk(item, depth + 1);
        if (clean !== item) {
          copy ??= value.slice();
          copy[index] = clean;
        }
      }
      return copy ?? value;
    }
    if (value instanceof Error) {
      const message = this.text(value.message);
      return message === value.message ? value : { name: value.name, message };
    }
    const prototype = Object.getPrototypeOf(value);
    if (prototype !== Object.prototype && prototype !== null) return value;
    let copy: Record<string, unknown> | undefined;
    for (const [key, member] of Object.entries(value)) {
      const secret =
        member !== null &&
        member !== undefined &&
        typeof member !== "number" &&
        typeof member !== "boolean" &&
        this.isSecretKey(key);
      if (secret && typeof member === "string") this.#learn(member);
      const clean = secret ? `[REDACTED:${key}]` : this.#walk(member, depth + 1);
      if (clean !== member) {
        copy ??= { ...value };
        copy[key] = clean;
      }
    }
    return copy ?? value;
  }
}

/**
 * Objects and arrays nested deeper than this are replaced by {@link TOO_DEEP} (records are shallow; this
 * bounds the work a pathological value makes, without letting what it hides through).
 */
export const MAX_REDACT_DEPTH = 32;
const MAX_DEPTH = MAX_REDACT_DEPTH;
/** What replaces an object or array nested deeper than {@link MAX_REDACT_DEPTH} levels. */
export const TOO_DEEP = "[REDACTED:too deep]";
/** Secrets learned from secret keys kept at once (each one a literal in one regular expression). */
const MAX_LEARNED = 256;

/** A Redactor with nothing of its own to look for but the default keys and the token patterns. */
export function defaultRedactor(): Redactor {
  return new Redactor({ env: false });
}

/** `X-API-Key` → `["x", "api", "key"]`; `OPENAI_API_KEY` → `["openai", "api", "key"]`; `apiKey` → `["api", "key"]`. */
function words(key: string): string[] {
  return key
    .replace(/([a-z0-9])([A-Z])/g, "$1 $2")
    .replace(/([A-Z])([A-Z][a-z])/g, "$1 $2")
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter(Boolean);
}

/** Whether some run of consecutive words, joined, is a secret key: `x-api-key` has `api`+`key`. */
function matchesWords(parts: readonly string[], keys: ReadonlySet<string>): boolean {
  for (let start = 0; start < parts.length; start++) {
    let joined = "";
    for (let end = start; end < parts.length; end++) {
      joined += parts[end];
      if (keys.has(joined)) return true;
    }
  }
  return false;
}

/**
 * The forms a secret value may be written in: itself, its credential without an auth scheme
 * (`Bearer abc` → `abc`), and as it appears inside a JSON string (quotes and backslashes escaped).
 */
function secretForms(value: string): string[] {
  const forms = [value];
  const scheme = /^(?:bearer|basic|token|bot)\s+(\S+)$/i.exec(value.trim());
  if (scheme) forms.push(scheme[1]!);
  for (const form of [...forms]) {
    const escaped = JSON.stringify(form).slice(1, -1);
    if (escaped !== form) forms.push(escaped);
  }
  return forms;
}

/** The passwords of the URLs in a text (`postgres://app:pass@db` → `pass`, and decoded when encoded). */
function userInfoPasswords(text: string): string[] {
  if (!text.includes("://")) return [];
  const passwords: string[] = [];
  for (const match of text.matchAll(/\b[A-Za-z][A-Za-z0-9+.-]*:\/\/[^\s:/?#@]*:([^\s/?#@]+)@/g)) {
    const password = match[1]!;
    passwords.push(password);
    try {
      const decoded = decodeURIComponent(password);
      if (decoded !== password) passwords.push(decoded);
    } catch {
      // not percent-encoded after all
    }
  }
  return passwords;
}

/**
 * A logger that redacts every entry (its fields by key and value, its message by value) before the
 * logger given writes it. Entries at levels the logger does not write cost nothing more.
 */
export function redactingLogger(logger: Logger, redactor: Redactor): Logger {
  if (logger === silentLogger) return logger;
  const level =
    (name: "trace" | "debug" | "info" | "warn" | "error") =>
    (fields: Record<string, unknown>, message: string) => {
      if (logger.isLevelEnabled?.(name) === false) return;
      logger[name](redactor.value(fields), redactor.text(message));
    };
  return {
    trace: level("trace"),
    debug: level("debug"),
    info: level("info"),
    warn: level("warn"),
    error: level("error"),
    child: (bindings) => redactingLogger(logger.child(redactor.value(bindings)), redactor),
    ...(logger.isLevelEnabled ? { isLevelEnabled: (name: string) => logger.isLevelEnabled!(name) } : {}),
  };
}

/** A wire sink that gets every record with its message redacted (arguments by key, texts by value). */
export function redactingWireSink(sink: WireSink, redactor: Redactor): WireSink {
  return (record) => {
    const message = redactor.value(record.message);
    sink(message === record.message ? record : { ...record, message });
  };
}

/** An observer (with a `size`, as the call pipeline reads it) whose events are redacted first. */
export function redactingObserver<O extends Observer & { readonly size: number }>(
  observer: O,
  redactor: Redactor,
): Observer & { readonly size: number } {
  return {
    get size() {
      return observer.size;
    },
    onEvent(event) {
      if (observer.size > 0) observer.onEvent(redactor.event(event));
    },
  };
}

/** An audit sink that gets every entry redacted (its arguments by key, its summary and texts by value). */
export function redactingAuditSink(sink: AuditSink, redactor: Redactor): AuditSink {
  return { append: (entry) => sink.append(redactor.value(entry)) };
}
