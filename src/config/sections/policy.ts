// The `policy` section (who may call what; src/calls/policy.ts) and `identity` (who calls are for when
// nobody says): the policy's defaults and both schemas.

import { z } from "zod";
import { stringArray, stringMap } from "./fields.js";

/**
 * The effect when a policy exists and no rule matches a call (`policy.default`): refuse what no rule
 * allowed. With no policy at all (no `policy` section, no `policy` option) every call is allowed.
 */
export const DEFAULT_POLICY_EFFECT: "allow" | "deny" | "approve" = "deny";
/** How the matching rules combine (`policy.mode`): the first one in order decides. */
export const DEFAULT_POLICY_MODE: "first-match" | "deny-overrides" = "first-match";

/** Who the CLI and a Switchyard's calls are for when nobody says (`identity`; see calls/policy.ts). */
export const identitySchema = z.strictObject(
  {
    user: z.string({ error: "expected the user's id (a string)" }).min(1, "expected a non-empty user id"),
    roles: stringArray.optional(),
    attributes: stringMap.optional(),
  },
  { error: 'expected { "user": id, "roles"?: [names], "attributes"?: { key: value } }' },
);

const scalar = z.union([z.string(), z.number(), z.boolean()]);
/** A condition on one argument of a call: all the keys given must hold (`not: true` turns it round). */
const argumentConstraintSchema = z.strictObject(
  {
    under: z.union([z.string().min(1), z.array(z.string().min(1))]).optional(),
    in: z.array(scalar, { error: "expected a list of strings, numbers or booleans" }).optional(),
    min: z.number().optional(),
    max: z.number().optional(),
    pattern: z.string().refine(isUnicodeRegExp, { error: "expected a regular expression" }).optional(),
    not: z.boolean().optional(),
  },
  {
    error:
      'expected { "under"?: folder(s), "in"?: [values], "min"?, "max"?: numbers, "pattern"?: regex, "not"?: true }',
  },
);
const EFFECTS = ["allow", "deny", "approve"] as const;
/** One policy rule: conditions (all given must hold) and what to do with the calls that meet them. */
export const policyRuleSchema = z.strictObject(
  {
    id: z.string().min(1).optional(),
    effect: z.enum(EFFECTS, { error: 'expected "allow", "deny" or "approve"' }),
    servers: stringArray.optional(),
    tools: stringArray.optional(),
    resources: stringArray.optional(),
    prompts: stringArray.optional(),
    tags: stringArray.optional(),
    users: stringArray.optional(),
    roles: stringArray.optional(),
    attributes: z.record(z.string(), z.union([z.string(), stringArray])).optional(),
    arguments: z.record(z.string(), argumentConstraintSchema).optional(),
    reason: z.string().optional(),
  },
  {
    error:
      'expected { "effect": "allow" | "deny" | "approve", "id"?, "servers"?, "tools"?, "resources"?, "prompts"?, "tags"?, "users"?, "roles"?, "attributes"?, "arguments"?, "reason"? }',
  },
);
export const policySchema = z.strictObject(
  {
    mode: z
      .enum(["first-match", "deny-overrides"], { error: 'expected "first-match" or "deny-overrides"' })
      .optional(),
    default: z.enum(EFFECTS, { error: 'expected "allow", "deny" or "approve"' }).optional(),
    rules: z.array(policyRuleSchema, { error: "expected a list of rules" }).optional(),
  },
  { error: 'expected { "mode"?, "default"?, "rules": [ … ] }' },
);
export type PolicySection = z.infer<typeof policySchema>;
export type PolicyRuleConfig = z.infer<typeof policyRuleSchema>;
export type IdentitySection = z.infer<typeof identitySchema>;

function isUnicodeRegExp(pattern: string): boolean {
  try {
    new RegExp(pattern, "u");
    return true;
  } catch {
    return false;
  }
}
