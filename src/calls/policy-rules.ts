import path from "node:path";
import { globMatcher } from "../catalog/glob.js";
import { DEFAULT_POLICY_EFFECT, DEFAULT_POLICY_MODE } from "../config/defaults.js";
import {
  type PolicyRuleConfig,
  type PolicySection,
  policyRuleSchema,
  type ServerConfig,
} from "../config/schema.js";
import { SwitchyardError } from "../errors.js";
import { type PathContext, type PathVerdict, pathUnder } from "./path-under.js";
import { type PolicyEffect, PolicyEngine, type PolicyOptions, type TargetKind } from "./policy.js";

// Rules are compiled once: globs → one RegExp, lists → Set, argument constraints → predicates.

/** One rule of a policy: conditions (all must hold) and an effect. The config's `policy.rules[n]`. */
export type PolicyRule = PolicyRuleConfig;

/** A condition on one argument of a request (see `policy.rules[n].arguments` in the contract). */
export type ArgumentConstraint = NonNullable<PolicyRule["arguments"]>[string];

export type Test = (value: string) => boolean;

/**
 * Whether an argument meets a constraint: yes, no, or why that cannot be told (an `under` path a
 * server would resolve where Switchyard cannot follow), which refuses the request.
 */
export type ArgumentVerdict = PathVerdict;

/** A constraint on one argument, compiled: the value, and where the request's server resolves paths. */
export type ArgumentCheck = (value: unknown, where: PathContext) => ArgumentVerdict;

/** What a policy needs to know of a server: its tags, and where it resolves relative paths. */
export type PolicyServer = Pick<ServerConfig, "name" | "tags"> &
  Partial<Pick<ServerConfig, "command" | "cwd" | "cwdGiven">>;

/** A rule ready to be matched. */
export interface CompiledRule {
  name: string;
  effect: PolicyEffect;
  reason?: string;
  /** The kinds of target the rule names (`tools`, `resources`, `prompts`); none named: every kind. */
  kinds?: ReadonlySet<TargetKind>;
  server?: Test;
  tool?: Test;
  resource?: Test;
  prompt?: Test;
  tags?: readonly string[];
  users?: ReadonlySet<string>;
  roles?: ReadonlySet<string>;
  attributes?: ReadonlyArray<[string, ReadonlySet<string>]>;
  /** Conditions on arguments: the rule's match depends on the request, so a listing counts it as "maybe". */
  arguments?: ReadonlyArray<[string, ArgumentCheck]>;
}

/**
 * Compile a policy: the config's `policy` section and rules in code. Without either, there is no
 * policy (undefined): everything is listed and every request allowed.
 * @throws SwitchyardError `CONFIG_INVALID` naming the rule and the key that cannot be used.
 */
export function compilePolicy(
  section: PolicySection | undefined,
  options: { code?: PolicyOptions; servers?: readonly PolicyServer[] } = {},
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
  const pathContexts = new Map<string, PathContext>();
  for (const server of options.servers ?? []) {
    // Only a stdio server runs here, and only a cwd the entry gives is one a policy may rely on.
    if (server.command !== undefined && server.cwdGiven === true && server.cwd !== undefined)
      pathContexts.set(server.name, { server: server.name, cwd: server.cwd });
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
    pathContext: (server) => pathContexts.get(server) ?? { server },
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
  if (rule.resources) compiled.resource = nameTest(rule.resources);
  if (rule.prompts) compiled.prompt = nameTest(rule.prompts);
  const kinds = new Set<TargetKind>([
    ...(rule.tools ? (["tool"] as const) : []),
    ...(rule.resources ? (["resource"] as const) : []),
    ...(rule.prompts ? (["prompt"] as const) : []),
  ]);
  if (kinds.size) compiled.kinds = kinds;
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

function compileConstraint(constraint: ArgumentConstraint, at: string): ArgumentCheck {
  const checks: ArgumentCheck[] = [];
  if (constraint.under !== undefined) {
    const roots = (Array.isArray(constraint.under) ? constraint.under : [constraint.under]).map((root) => {
      if (!path.isAbsolute(root))
        throw invalidRule(`${at}.under`, `expected an absolute folder (got "${root}")`);
      return path.resolve(root);
    });
    checks.push((value, where) => pathUnder(value, roots, where));
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
  const all: ArgumentCheck =
    checks.length === 1
      ? checks[0]!
      : (value, where) => {
          let verdict: ArgumentVerdict = true;
          for (const check of checks) {
            const one = check(value, where);
            if (one === false) return false;
            if (one !== true) verdict = one;
          }
          return verdict;
        };
  // What cannot be told stays so when turned round: `not` never lets an unknown path through.
  return constraint.not === true
    ? (value, where) => {
        const verdict = all(value, where);
        return typeof verdict === "boolean" ? !verdict : verdict;
      }
    : all;
}

function invalidRule(where: string, expected: string): SwitchyardError {
  return new SwitchyardError("CONFIG_INVALID", `${where}: ${expected}`, { path: where });
}
