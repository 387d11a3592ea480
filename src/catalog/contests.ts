// Under `namespace: false` (or a namespace two servers share) two servers' tools may want one name.
// Sorting by server name must not settle it — a server named to sort first would take `send` from the
// real one — so a contested name goes only where the config says: to the server that `owns` the tool,
// else to the server the namespace is named after (its own name, the default namespace); else to no
// server, and every contender gets its hashed name.

/** One tool that would have a name, with what the config says of it. */
export interface NameClaim {
  server: string;
  tool: string;
  /** The name it would get with nothing in its way. */
  base: string;
  /** The server's `owns` names the tool. */
  owns: boolean;
  /** The server's namespace is its own name (so `<server>_<tool>` is its by the config). */
  ownNamespace: boolean;
}

/** A name two or more servers' tools want: who they are, and who has it (none: it is withheld). */
export interface Contest {
  name: string;
  /** The contending servers, sorted. */
  servers: string[];
  owner?: string;
  /** How the owner got it, or why no server did, in words for the warning. */
  why: string;
}

/** The names claimed by tools of more than one server, each settled by the config alone. */
export function settleContests(claims: readonly NameClaim[]): Map<string, Contest> {
  const byName = new Map<string, NameClaim[]>();
  for (const claim of claims) {
    const list = byName.get(claim.base);
    if (list) list.push(claim);
    else byName.set(claim.base, [claim]);
  }
  const contests = new Map<string, Contest>();
  for (const [name, list] of byName) {
    const servers = [...new Set(list.map((claim) => claim.server))].sort();
    if (servers.length < 2) continue;
    const owning = [...new Set(list.filter((claim) => claim.owns).map((claim) => claim.server))];
    const named = [...new Set(list.filter((claim) => claim.ownNamespace).map((claim) => claim.server))];
    if (owning.length === 1)
      contests.set(name, {
        name,
        servers,
        owner: owning[0]!,
        why: `its "owns" names ${toolOf(list, owning[0]!)}`,
      });
    else if (owning.length > 1)
      contests.set(name, {
        name,
        servers,
        why: `servers ${listed(owning.sort())} ${owning.length === 2 ? "both" : "all"} claim it with "owns", so none of them has it; keep it in one server's "owns" only`,
      });
    else if (named.length === 1)
      contests.set(name, { name, servers, owner: named[0]!, why: "its namespace is its own name" });
    else
      contests.set(name, {
        name,
        servers,
        why: `servers ${listed(servers)} ${servers.length === 2 ? "both" : "all"} want it, so none of them has it; set "owns": ["${toolOf(list, servers[0]!)}"] on the one that should, or give the others a namespace`,
      });
  }
  return contests;
}

function toolOf(list: readonly NameClaim[], server: string): string {
  return list.find((claim) => claim.server === server)!.tool;
}

/** `a and b`, `a, b and c`. */
function listed(names: readonly string[]): string {
  return names.length < 2 ? names.join("") : `${names.slice(0, -1).join(", ")} and ${names.at(-1)}`;
}
