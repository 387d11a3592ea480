import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { globMatcher } from "../catalog/glob.js";
import { DEFAULT_POLICY_EFFECT, DEFAULT_POLICY_MODE } from "../config/defaults.js";
import {
  type PolicyRuleConfig,
  type PolicySection,
  policyRuleSchema,
  type ServerConfig,
} from "../config/schema.js";
import { SwitchyardError } from "../errors.js";
import type { Identity } from "../telemetry/audit.js";

// One engine decides what an identity may call — and so what `tools()` lists for it: a tool is listed
// unless every call of it by that identity would be denied. Rules are compiled once (globs → RegExp,
// lists → Set); each tool's candidate rules are found once and indexed by the roles and users they
// name, so a decision walks only the rules that may apply.

/** What a rule does to the calls it matches: let them through, refuse them, or ask someone first. */
export type PolicyEffect = "allow" | "deny" | "approve";

/** How the effects of the matching rules combine: the first one wins, or any `deny` wins. */
export type PolicyMode = "first-match" | "deny-overrides";

/** One rule of a policy: conditions (all must hold) and an effect. The config's `policy.rules[n]`. */
export type PolicyRule = PolicyRuleConfig;

/** A condition on one argument of a call (see `policy.rules[n].arguments` in the contract). */
export type ArgumentConstraint = NonNullable<PolicyRule["arguments"]>[string];

/** A tool as the policy sees it. */
export interface PolicyTool {
  /** The catalog name. */
  name: string;
  /** The server's config key. */
  server: string;
  /** The tool's own name on its server. */
  tool: string;
  annotations?:
    | {
        readOnlyHint?: boolean | undefined;
        destructiveHint?: boolean | undefined;
        openWorldHint?: boolean | undefined;
      }
    | undefined;
}

/** What a decision is asked about: who, which tool, and (for a call, not a listing) the arguments. */
export interface PolicyRequest {
  identity: Identity;
  tool: PolicyTool;
  /**
   * The tool's tags: the config's (`servers.<name>.tags`) and its annotations' (`read-only`, …), as
   * `tagsOf` gives them (the rules read `tagsOf`; these are for a `decide` hook).
   */
  tags: ReadonlySet<string>;
  /** The call's arguments, validated; absent when the question is whether to list the tool. */
  arguments?: Readonly<Record<string, unknown>>;
}

/** What the policy says of a call. */
export interface Decision {
  effect: PolicyEffect;
  /** The rule that decided: its `id`, else where it is (`policy.rules[3]`); absent for the default. */
  rule?: string;
  /** Why, in words the caller can act on (the rule's `reason`, or what the default means). */
  reason?: string;
}

/** Rules in code, beside (before) the config's: the `policy` option of `Switchyard.connect`. */
export interface PolicyOptions {
  /** Rules checked before the config's `policy.rules`, named `options.policy.rules[n]` unless they have an `id`. */
  rules?: PolicyRule[];
  /** Overrides the config's `policy.mode`. */
  mode?: PolicyMode;
  /** Overrides the config's `policy.default`. */
  default?: PolicyEffect;
  /**
   * Asked before any rule: a decision it returns stands (`rule` names it, default `options.policy.decide`);
   * undefined leaves the call to the rules. For a listing `arguments` is absent: return `deny` only for
   * tools the identity may never call.
   */
  decide?: (request: PolicyRequest) => Decision | undefined;
}

export { DEFAULT_POLICY_EFFECT, DEFAULT_POLICY_MODE };

/** Tags a tool gets from its MCP annotations. */
export const ANNOTATION_TAGS: Readonly<Record<"readOnlyHint" | "destructiveHint" | "openWorldHint", string>> =
  Object.freeze({ readOnlyHint: "read-only", destructiveHint: "destructive", openWorldHint: "open-world" });

type Test = (value: string) => boolean;

/** A tool's candidate rules (indices, in order): for anyone, and by the roles and users they name. */
interface ToolRules {
  anyone: number[];
  anyoneRules: CompiledRule[];
  byRole: Map<string, number[]>;
  byUser: Map<string, number[]>;
}

interface CompiledRule {
  name: string;
  effect: PolicyEffect;
  reason?: string;
  server?: Test;
  tool?: Test;
  tags?: readonly string[];
  users?: ReadonlySet<string>;
  roles?: ReadonlySet<string>;
  attributes?: ReadonlyArray<[string, ReadonlySet<string>]>;
  /** Conditions on arguments: the rule's match depends on the call, so a listing counts it as "maybe". */
  arguments?: ReadonlyArray<[string, (value: unknown) => boolean]>;
}

/**
 * A compiled policy: decides calls and listings for identities. Build it with {@link compilePolicy}.
 *
 * ```ts
 * const policy = compilePolicy({ rules: [{ effect: "allow", roles: ["support"], tags: ["read-only"] }] });
 * policy.decide({ identity, tool, tags: policy.tagsOf(tool) }).effect; // "allow" | "deny" | "approve"
 * ```
 */
export class PolicyEngine {
  readonly mode: PolicyMode;
  readonly defaultEffect: PolicyEffect;
  readonly #rules: CompiledRule[];
  readonly #decide: PolicyOptions["decide"];
  readonly #serverTags: Map<string, Array<[Test, readonly string[]]>>;
  readonly #tags = new WeakMap<PolicyTool, ReadonlySet<string>>();
  /** Per tool, the rules whose tool conditions it meets, by the roles and users they name. */
  readonly #byTool = new WeakMap<PolicyTool, ToolRules>();

  constructor(parts: {
    rules: CompiledRule[];
    mode: PolicyMode;
    defaultEffect: PolicyEffect;
    decide?: PolicyOptions["decide"];
    serverTags: Map<string, Array<[Test, readonly string[]]>>;
  }) {
    this.#rules = parts.rules;
    this.mode = parts.mode;
    this.defaultEffect = parts.defaultEffect;
    this.#decide = parts.decide;
    this.#serverTags = parts.serverTags;
  }

  /** The number of rules (code and config). */
  get size(): number {
    return this.#rules.length;
  }

  /** A tool's tags: the config's for its server and tool, and its annotations'. Cached per tool object. */
  tagsOf(tool: PolicyTool): ReadonlySet<string> {
    let tags = this.#tags.get(tool);
    if (tags) return tags;
    const found = new Set<string>();
    for (const [key, tag] of Object.entries(ANNOTATION_TAGS)) {
      if (tool.annotations?.[key as keyof typeof ANNOTATION_TAGS] === true) found.add(tag);
    }
    for (const [matches, given] of this.#serverTags.get(tool.server) ?? []) {
      if (matches(tool.tool) || matches(tool.name)) for (const tag of given) found.add(tag);
    }
    tags = found;
    this.#tags.set(tool, tags);
    return tags;
  }

  /** Whether `tools()` lists a tool for an identity: unless every call of it would be denied. */
  lists(identity: Identity, tool: PolicyTool): boolean {
    const request: PolicyRequest = { identity, tool, tags: this.tagsOf(tool) };
    const coded = this.#decide?.(request);
    if (coded) return coded.effect !== "deny";
    if (this.mode === "first-match") {
      for (const rule of this.#candidates(request)) {
        if (!matchesIdentity(rule, request.identity)) continue;
        if (!rule.arguments) return rule.effect !== "deny";
        if (rule.effect !== "deny") return true; // some arguments may be let through by it
      }
      return this.defaultEffect !== "deny";
    }
    let matched = false;
    for (const rule of this.#candidates(request)) {
      if (!matchesIdentity(rule, request.identity)) continue;
      if (rule.effect === "deny" && !rule.arguments) return false;
      if (rule.effect !== "deny") matched = true;
    }
    return matched || this.defaultEffect !== "deny";
  }

  /**
   * The decision on one call. A tool not listed for the identity is always denied (so that the listing
   * and the calls never disagree, whatever `decide` says).
   */
  decide(request: PolicyRequest): Decision {
    const coded = this.#decide?.(request);
    const decision = coded ? { rule: "options.policy.decide", ...coded } : this.#byRules(request);
    // The rules' listing admits at least what their calls admit; a decide hook that hides a tool (for a
    // listing) but would let a call of it through is held to what it lists.
    if (this.#decide && decision.effect !== "deny" && !this.lists(request.identity, request.tool))
      return {
        effect: "deny",
        rule: "options.policy.decide",
        reason: "the tool is not listed for this identity",
      };
    return decision;
  }

  #byRules(request: PolicyRequest): Decision {
    const args = request.arguments ?? {};
    if (this.mode === "first-match") {
      for (const rule of this.#candidates(request)) {
        if (matchesIdentity(rule, request.identity) && matchesArguments(rule, args)) return decisionOf(rule);
      }
      return this.#default();
    }
    let approve: CompiledRule | undefined;
    let allow: CompiledRule | undefined;
    for (const rule of this.#candidates(request)) {
      if (!matchesIdentity(rule, request.identity) || !matchesArguments(rule, args)) continue;
      if (rule.effect === "deny") return decisionOf(rule);
      if (rule.effect === "approve") approve ??= rule;
      else allow ??= rule;
    }
    const winner = approve ?? allow;
    return winner ? decisionOf(winner) : this.#default();
  }

  /**
   * The rules that may apply to a request, in order: those whose tool conditions the tool meets (found
   * once per tool), and of them only those for one of the identity's roles, its user, or anyone.
   */
  #candidates(request: PolicyRequest): readonly CompiledRule[] {
    const { tool, identity } = request;
    let index = this.#byTool.get(tool);
    if (!index) {
      index = { anyone: [], anyoneRules: [], byRole: new Map(), byUser: new Map() };
      const tags = this.tagsOf(tool);
      const add = (map: Map<string, number[]>, key: string, at: number) => {
        const list = map.get(key);
        if (list) list.push(at);
        else map.set(key, [at]);
      };
      for (let at = 0; at < this.#rules.length; at += 1) {
        const rule = this.#rules[at]!;
        if (!matchesTool(rule, tool, tags)) continue;
        if (rule.roles) for (const role of rule.roles) add(index.byRole, role, at);
        else if (rule.users) for (const user of rule.users) add(index.byUser, user, at);
        else {
          index.anyone.push(at);
          index.anyoneRules.push(rule);
        }
      }
      this.#byTool.set(tool, index);
    }
    const lists: number[][] = [index.anyone];
    const user = index.byUser.get(identity.user);
    if (user) lists.push(user);
    for (const role of identity.roles) {
      const list = index.byRole.get(role);
      if (list) lists.push(list);
    }
    const rules = this.#rules;
    if (lists.length === 1) return index.anyoneRules;
    const merged = lists.flat().sort((a, b) => a - b);
    const found: CompiledRule[] = [];
    for (let i = 0; i < merged.length; i += 1)
      if (merged[i] !== merged[i - 1]) found.push(rules[merged[i]!]!);
    return found;
  }

  #default(): Decision {
    return {
      effect: this.defaultEffect,
      reason:
        this.defaultEffect === "deny"
          ? "no policy rule allows it (policy.default is deny)"
          : `no policy rule matched (policy.default is ${this.defaultEffect})`,
    };
  }
}

function decisionOf(rule: CompiledRule): Decision {
  return {
    effect: rule.effect,
    rule: rule.name,
    ...(rule.reason !== undefined ? { reason: rule.reason } : {}),
  };
}

/** The conditions of a rule on the tool: its server, its name, its tags. */
function matchesTool(rule: CompiledRule, tool: PolicyTool, tags: ReadonlySet<string>): boolean {
  if (rule.server && !rule.server(tool.server)) return false;
  if (rule.tool && !rule.tool(tool.tool) && !rule.tool(tool.name)) return false;
  if (rule.tags && !rule.tags.some((tag) => tags.has(tag))) return false;
  return true;
}

/** The conditions of a rule on who calls: users, roles, attributes. */
function matchesIdentity(rule: CompiledRule, identity: Identity): boolean {
  if (rule.users && !rule.users.has(identity.user)) return false;
  if (rule.roles && !identity.roles.some((role) => rule.roles!.has(role))) return false;
  if (rule.attributes) {
    for (const [key, values] of rule.attributes) {
      const value = identity.attributes?.[key];
      if (value === undefined || !values.has(value)) return false;
    }
  }
  return true;
}

function matchesArguments(rule: CompiledRule, args: Readonly<Record<string, unknown>>): boolean {
  if (!rule.arguments) return true;
  const constraints = rule.arguments;
  for (let i = 0; i < constraints.length; i += 1) {
    const [key, holds] = constraints[i]!;
    if (!holds(args[key])) return false;
  }
  return true;
}

/**
 * Compile a policy: the config's `policy` section and rules in code. Without either, there is no
 * policy (undefined): every tool is listed and every call allowed.
 * @throws SwitchyardError `CONFIG_INVALID` naming the rule and the key that cannot be used.
 */
export function compilePolicy(
  section: PolicySection | undefined,
  options: { code?: PolicyOptions; servers?: readonly Pick<ServerConfig, "name" | "tags">[] } = {},
): PolicyEngine | undefined {
  const code = options.code;
  if (!section && !code) return undefined;
  const rules = [
    ...(code?.rules ?? []).map((rule, index) =>
      compileRule(checkedRule(rule, `options.policy.rules[${index}]`), `options.policy.rules[${index}]`),
    ),
    ...(section?.rules ?? []).map((rule, index) => compileRule(rule, `policy.rules[${index}]`)),
  ];
  const serverTags = new Map<string, Array<[Test, readonly string[]]>>();
  for (const server of options.servers ?? []) {
    const entries = Object.entries(server.tags ?? {});
    if (entries.length)
      serverTags.set(
        server.name,
        entries.map(([glob, tags]) => [globMatcher([glob]), tags]),
      );
  }
  return new PolicyEngine({
    rules,
    mode: code?.mode ?? section?.mode ?? DEFAULT_POLICY_MODE,
    defaultEffect: code?.default ?? section?.default ?? DEFAULT_POLICY_EFFECT,
    ...(code?.decide ? { decide: code.decide } : {}),
    serverTags,
  });
}

const EFFECTS = new Set<PolicyEffect>(["allow", "deny", "approve"]);

/** A rule given in code, checked as the config's are. */
function checkedRule(rule: unknown, at: string): PolicyRule {
  const parsed = policyRuleSchema.safeParse(rule);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0]!;
  throw invalidRule([at, ...issue.path.map(String)].join("."), issue.message);
}

function compileRule(rule: PolicyRule, at: string): CompiledRule {
  if (typeof rule !== "object" || rule === null || !EFFECTS.has(rule.effect))
    throw invalidRule(at, 'expected { "effect": "allow" | "deny" | "approve", … }');
  const compiled: CompiledRule = { name: rule.id ?? at, effect: rule.effect };
  if (rule.reason !== undefined) compiled.reason = rule.reason;
  if (rule.servers) compiled.server = nameTest(rule.servers);
  if (rule.tools) compiled.tool = nameTest(rule.tools);
  if (rule.tags) compiled.tags = [...rule.tags];
  if (rule.users) compiled.users = new Set(rule.users);
  if (rule.roles) compiled.roles = new Set(rule.roles);
  if (rule.attributes) {
    compiled.attributes = Object.entries(rule.attributes).map(([key, value]) => [
      key,
      new Set(Array.isArray(value) ? value : [value]),
    ]);
  }
  if (rule.arguments && Object.keys(rule.arguments).length) {
    compiled.arguments = Object.entries(rule.arguments).map(([key, constraint]) => [
      key,
      compileConstraint(constraint, `${at}.arguments.${key}`),
    ]);
  }
  return compiled;
}

/** Exact names through a Set, globs through one RegExp. */
function nameTest(names: readonly string[]): Test {
  const exact = new Set(names.filter((name) => !/[*?]/.test(name)));
  const globs = names.filter((name) => /[*?]/.test(name));
  const glob = globs.length ? globMatcher(globs) : undefined;
  if (!glob) return (value) => exact.has(value);
  return (value) => exact.has(value) || glob(value);
}

function compileConstraint(constraint: ArgumentConstraint, at: string): (value: unknown) => boolean {
  const checks: Array<(value: unknown) => boolean> = [];
  if (constraint.under !== undefined) {
    const roots = (Array.isArray(constraint.under) ? constraint.under : [constraint.under]).map((root) => {
      if (!path.isAbsolute(root))
        throw invalidRule(`${at}.under`, `expected an absolute folder (got "${root}")`);
      return path.resolve(root);
    });
    checks.push((value) => typeof value === "string" && roots.some((root) => isUnder(value, root)));
  }
  if (constraint.in !== undefined) {
    const allowed = new Set<unknown>(constraint.in);
    checks.push((value) => allowed.has(value));
  }
  if (constraint.min !== undefined || constraint.max !== undefined) {
    const { min = Number.NEGATIVE_INFINITY, max = Number.POSITIVE_INFINITY } = constraint;
    checks.push((value) => typeof value === "number" && value >= min && value <= max);
  }
  if (constraint.pattern !== undefined) {
    let pattern: RegExp;
    try {
      pattern = new RegExp(constraint.pattern, "u");
    } catch (error) {
      throw invalidRule(`${at}.pattern`, `not a regular expression: ${(error as Error).message}`);
    }
    checks.push((value) => typeof value === "string" && pattern.test(value));
  }
  if (!checks.length) throw invalidRule(at, 'expected "under", "in", "min"/"max" or "pattern"');
  const all =
    checks.length === 1
      ? checks[0]!
      : (value: unknown) => {
          for (const check of checks) if (!check(value)) return false;
          return true;
        };
  return constraint.not === true ? (value) => !all(value) : all;
}

/**
 * Whether a path given to a tool stays under a root: `file://` URLs read as paths, relative paths
 * taken from the root, `.` and `..` resolved first (so `/data/../etc` is `/etc`). The check is on the
 * text (a symbolic link under the root that points out of it is the server's to refuse).
 */
export function isUnder(value: string, root: string): boolean {
  if (value.includes("\0")) return false;
  let given = value;
  if (/^file:/i.test(given)) {
    try {
      given = fileURLToPath(given);
    } catch {
      return false;
    }
  }
  const resolved = path.resolve(root, given);
  const relative = path.relative(root, resolved);
  return (
    relative === "" ||
    (relative !== ".." && !relative.startsWith(`..${path.sep}`) && !path.isAbsolute(relative))
  );
}

function invalidRule(where: string, expected: string): SwitchyardError {
  return new SwitchyardError("CONFIG_INVALID", `${where}: ${expected}`, { path: where });
}

/**
 * Check an identity given to a call, a listing or a run: `{ user: string, roles: string[],
 * attributes?: { [key]: string } }`.
 * @throws SwitchyardError `INVALID_INPUT` saying what is wrong, for `where` (e.g. "callTool").
 */
export function checkIdentity(identity: unknown, where: string): asserts identity is Identity {
  const given = identity as Partial<Identity> | null;
  const ok =
    typeof given === "object" &&
    given !== null &&
    typeof given.user === "string" &&
    given.user !== "" &&
    Array.isArray(given.roles) &&
    given.roles.every((role) => typeof role === "string") &&
    (given.attributes === undefined ||
      (typeof given.attributes === "object" &&
        given.attributes !== null &&
        Object.values(given.attributes).every((value) => typeof value === "string")));
  if (!ok)
    throw new SwitchyardError(
      "INVALID_INPUT",
      `${where}: identity must be { user: a non-empty string, roles: [strings], attributes?: { key: string } } (got ${JSON.stringify(identity) ?? String(identity)})`,
    );
}

/** The identity of a process with no other: the OS user, with no roles. */
export function osIdentity(): Identity {
  let user: string | undefined;
  try {
    user = os.userInfo().username;
  } catch {
    user = undefined; // no passwd entry (some containers)
  }
  return { user: user || process.env.USER || process.env.USERNAME || "unknown", roles: [] };
}
