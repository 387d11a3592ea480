import os from "node:os";
import { SwitchyardError } from "../errors.js";
import type { Identity } from "../telemetry/audit.js";

/**
 * Check an identity given to a request, a listing or a run: `{ user: string, roles: string[],
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

/** `user alice (roles support, billing)`, as refusals name who was refused. */
export function describeIdentity(identity: Identity): string {
  return `user ${identity.user}${identity.roles.length ? ` (roles ${identity.roles.join(", ")})` : " (no roles)"}`;
}
