import { DEFAULT_POLICY_EFFECT, DEFAULT_POLICY_MODE } from "../config/defaults.js";
import type { Identity } from "../telemetry/audit.js";
import type { PathContext } from "./path-under.js";
import type { ArgumentVerdict, CompiledRule, PolicyRule, Test } from "./policy-rules.js";

// One engine decides what an identity may do with every kind of request — a tool call, a resource
// read or subscription, a prompt — and so what the listings show it: a thing is listed unless every
// request for it by that identity would be denied. Each target's candidate rules are found once and
// indexed by the roles and users they name, so a decision walks only the rules that may apply.

/** What a rule does to the calls it matches: let them through, refuse them, or ask someone first. */
export type PolicyEffect = "allow" | "deny" | "approve";

/** How the effects of the matching rules combine: the first one wins, or any `deny` wins. */
export type PolicyMode = "first-match" | "deny-overrides";

export type { ArgumentConstraint, PolicyRule } from "./policy-rules.js";

/** What a request can be for, as the policy sees it. */
export type TargetKind = "tool" | "resource" | "prompt";

/** A tool, a resource or a prompt, as the policy sees it (a catalog entry is a tool's target as it is). */
export interface PolicyTarget {
  /** Absent: a tool. */
  kind?: TargetKind;
  /** The catalog name of a tool or a prompt; a resource's URI (or a template's). */
  name: string;
  /** The server's config key. */
  server: string;
  /** The server's own name of it: the tool's or the prompt's, or the resource's URI (or template). */
  tool: string;
  /** A resource template in a listing: which URIs it stands for is not known, so `resources` globs may match. */
  template?: boolean;
  annotations?:
    | {
        readOnlyHint?: boolean | undefined;
        destructiveHint?: boolean | undefined;
        openWorldHint?: boolean | undefined;
      }
    | undefined;
}

/** The name rules had before resources and prompts were decided too. */
export type PolicyTool = PolicyTarget;

/**
 * What a decision is asked about: who, what (`tool`: a tool, a resource or a prompt, as its `kind`
 * says), and, for a request rather than a listing, the arguments.
 */
export interface PolicyRequest {
  identity: Identity;
  tool: PolicyTarget;
  /**
   * The tool's tags: the config's (`servers.<name>.tags`) and its annotations' (`read-only`, …), as
   * `tagsOf` gives them (the rules read `tagsOf`; these are for a `decide` hook).
   */
  tags: ReadonlySet<string>;
  /**
   * The request's arguments, validated (a resource request's are `{ uri }`, a prompt's its string
   * arguments); absent when the question is whether to list it.
   */
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

/** A tool's candidate rules (indices, in order): for anyone, and by the roles and users they name. */
interface ToolRules {
  anyone: number[];
  anyoneRules: CompiledRule[];
  byRole: Map<string, number[]>;
  byUser: Map<string, number[]>;
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
  readonly #pathContext: (server: string) => PathContext;
  readonly #tags = new WeakMap<PolicyTarget, ReadonlySet<string>>();
  /** Per tool, the rules whose tool conditions it meets, by the roles and users they name. */
  readonly #byTool = new WeakMap<PolicyTarget, ToolRules>();

  constructor(parts: {
    rules: CompiledRule[];
    mode: PolicyMode;
    defaultEffect: PolicyEffect;
    decide?: PolicyOptions["decide"];
    serverTags: Map<string, Array<[Test, readonly string[]]>>;
    /** Where a server resolves the paths it is given (its `cwd`, when known), for `under`. */
    pathContext?: (server: string) => PathContext;
  }) {
    this.#rules = parts.rules;
    this.mode = parts.mode;
    this.defaultEffect = parts.defaultEffect;
    this.#decide = parts.decide;
    this.#serverTags = parts.serverTags;
    this.#pathContext = parts.pathContext ?? ((server) => ({ server }));
  }

  /** The number of rules (code and config). */
  get size(): number {
    return this.#rules.length;
  }

  /**
   * A target's tags: the config's for its server (globs on the tool's, prompt's or URI's name), and a
   * tool's annotations'; resources and prompts are `read-only` (reading one changes nothing). Cached
   * per target object.
   */
  tagsOf(tool: PolicyTarget): ReadonlySet<string> {
    let tags = this.#tags.get(tool);
    if (tags) return tags;
    const found = new Set<string>();
    for (const [key, tag] of Object.entries(ANNOTATION_TAGS)) {
      if (tool.annotations?.[key as keyof typeof ANNOTATION_TAGS] === true) found.add(tag);
    }
    if (tool.kind === "resource" || tool.kind === "prompt") found.add(ANNOTATION_TAGS.readOnlyHint);
    for (const [matches, given] of this.#serverTags.get(tool.server) ?? []) {
      if (matches(tool.tool) || matches(tool.name)) for (const tag of given) found.add(tag);
    }
    tags = found;
    this.#tags.set(tool, tags);
    return tags;
  }

  /**
   * Whether a listing shows a target to an identity (`tools()`, `resources()`, `resourceTemplates()`,
   * `prompts()`): unless every request for it would be denied.
   */
  lists(identity: Identity, tool: PolicyTarget): boolean {
    const request: PolicyRequest = { identity, tool, tags: this.tagsOf(tool) };
    const coded = this.#decide?.(request);
    if (coded) return coded.effect !== "deny";
    if (this.mode === "first-match") {
      for (const rule of this.#candidates(request)) {
        if (!matchesIdentity(rule, request.identity)) continue;
        if (!dependsOnRequest(rule, tool)) return rule.effect !== "deny";
        if (rule.effect !== "deny") return true; // some requests may be let through by it
      }
      return this.defaultEffect !== "deny";
    }
    let matched = false;
    for (const rule of this.#candidates(request)) {
      if (!matchesIdentity(rule, request.identity)) continue;
      if (rule.effect === "deny" && !dependsOnRequest(rule, tool)) return false;
      if (rule.effect !== "deny") matched = true;
    }
    return matched || this.defaultEffect !== "deny";
  }

  /**
   * The decision on one request. A target not listed for the identity is always denied (so that the
   * listing and the requests never disagree, whatever `decide` says).
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
        reason: `the ${request.tool.kind ?? "tool"} is not listed for this identity`,
      };
    return decision;
  }

  #byRules(request: PolicyRequest): Decision {
    const args = request.arguments ?? {};
    let where: PathContext | undefined;
    // A rule whose arguments cannot be told apart (an `under` path the server resolves out of sight)
    // refuses the request, whatever its effect: it is never taken as a match or a miss.
    const argumentsOf = (rule: CompiledRule) =>
      matchesArguments(rule, args, () => (where ??= this.#pathContext(request.tool.server)));
    if (this.mode === "first-match") {
      for (const rule of this.#candidates(request)) {
        if (!matchesIdentity(rule, request.identity)) continue;
        const verdict = argumentsOf(rule);
        if (verdict === true) return decisionOf(rule);
        if (verdict !== false) return undecided(rule, verdict.unknown);
      }
      return this.#default();
    }
    let approve: CompiledRule | undefined;
    let allow: CompiledRule | undefined;
    for (const rule of this.#candidates(request)) {
      if (!matchesIdentity(rule, request.identity)) continue;
      const verdict = argumentsOf(rule);
      if (verdict === false) continue;
      if (verdict !== true) return undecided(rule, verdict.unknown);
      if (rule.effect === "deny") return decisionOf(rule);
      if (rule.effect === "approve") approve ??= rule;
      else allow ??= rule;
    }
    const winner = approve ?? allow;
    return winner ? decisionOf(winner) : this.#default();
  }

  /**
   * The rules that may apply to a request, in order: those whose conditions on the target it meets
   * (found once per target), and of them only those for one of the identity's roles, its user, or anyone.
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
        if (!matchesTarget(rule, tool, tags)) continue;
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

/**
 * The conditions of a rule on the target: the kinds it names (`tools`, `resources`, `prompts`; none:
 * every kind), its server, its name (a tool's or a prompt's own or catalog name, a resource's URI), its
 * tags. A template in a listing may stand for URIs a `resources` glob matches: it is left to the request.
 */
function matchesTarget(rule: CompiledRule, target: PolicyTarget, tags: ReadonlySet<string>): boolean {
  const kind = target.kind ?? "tool";
  if (rule.kinds && !rule.kinds.has(kind)) return false;
  if (rule.server && !rule.server(target.server)) return false;
  if (kind === "tool" && rule.tool && !rule.tool(target.tool) && !rule.tool(target.name)) return false;
  if (kind === "prompt" && rule.prompt && !rule.prompt(target.tool) && !rule.prompt(target.name))
    return false;
  if (kind === "resource" && rule.resource && !target.template && !rule.resource(target.tool)) return false;
  if (rule.tags && !rule.tags.some((tag) => tags.has(tag))) return false;
  return true;
}

/** Whether a rule's match depends on the request rather than on the target alone (a listing's "maybe"). */
function dependsOnRequest(rule: CompiledRule, target: PolicyTarget): boolean {
  return rule.arguments !== undefined || (target.template === true && rule.resource !== undefined);
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

/** A rule's conditions on the arguments: all hold, one fails, or one cannot be told (and none fails). */
function matchesArguments(
  rule: CompiledRule,
  args: Readonly<Record<string, unknown>>,
  where: () => PathContext,
): ArgumentVerdict {
  if (!rule.arguments) return true;
  const constraints = rule.arguments;
  let verdict: ArgumentVerdict = true;
  for (let i = 0; i < constraints.length; i += 1) {
    const [key, holds] = constraints[i]!;
    const one = holds(args[key], where());
    if (one === false) return false;
    if (one !== true && verdict === true) verdict = { unknown: `argument ${key} ${one.unknown}` };
  }
  return verdict;
}

/** A rule that cannot tell whether a request's arguments meet it: the request is refused, and why. */
function undecided(rule: CompiledRule, why: string): Decision {
  return {
    effect: "deny",
    rule: rule.name,
    reason: why,
  };
}
