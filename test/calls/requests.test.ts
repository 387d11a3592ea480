// Every kind of request a server is asked — a tool call, a resource read, a subscription, a prompt, a
// completion — goes through the one pipeline: the same policy decides it and the listings, approvals and
// interceptors see it, it is audited and recorded, and a refused one never reaches the server.
import { afterEach, describe, expect, it } from "vitest";
import {
  type AuditEntry,
  type Identity,
  isSwitchyardError,
  type RequestContext,
  Switchyard,
  type SwitchyardError,
  type SwitchyardEvent,
  type SwitchyardOptions,
  type WireRecord,
} from "../../src/index.js";
import { NODE, ROOT, sdk } from "../helpers.js";

const RESOURCE_SERVER = `${ROOT}test/fixtures/resource-server.mjs`;
const notes = (name: string) => ({ command: NODE, args: [RESOURCE_SERVER, "--name", name] });

const alice: Identity = { user: "alice", roles: [] };
const bob: Identity = { user: "bob", roles: ["staff"] };

const open: Switchyard[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((yard) => yard.close()));
});

interface Watched {
  yard: Switchyard;
  wire: WireRecord[];
  audit: AuditEntry[];
  events: SwitchyardEvent[];
  /**
   * Requests of a method that went to a server, on the wire (`subscriptions/listen`: those that carry
   * resource subscriptions; the client listens for list changes on its own).
   */
  sent(method: string): WireRecord[];
}

async function watched(config: Record<string, unknown>, options: SwitchyardOptions = {}): Promise<Watched> {
  const wire: WireRecord[] = [];
  const audit: AuditEntry[] = [];
  const events: SwitchyardEvent[] = [];
  const yard = await Switchyard.connect(
    { mcpServers: { notes: notes("notes"), tools: sdk() }, ...config },
    {
      wireTrace: (record) => wire.push(record),
      audit: { append: (entry) => void audit.push(entry) },
      observer: { onEvent: (event) => events.push(event) },
      ...options,
    },
  );
  open.push(yard);
  for (const server of yard.servers()) expect(server.status, server.error).toBe("ready");
  const sent = (method: string) =>
    wire.filter((record) => {
      const message = record.message as {
        method?: string;
        params?: { filter?: unknown; resourceSubscriptions?: unknown };
      };
      if (record.direction !== "to-server" || message.method !== method) return false;
      return method !== "subscriptions/listen" || JSON.stringify(message.params).includes("notes://");
    });
  return { yard, wire, audit, events, sent };
}

async function failureOf(promise: Promise<unknown>): Promise<SwitchyardError> {
  const error = await promise.then(
    () => undefined,
    (failure: unknown) => failure,
  );
  if (!isSwitchyardError(error)) throw new Error(`expected a SwitchyardError, got ${String(error)}`);
  return error;
}

/** Alice may use nothing of server notes; everyone may use everything else. */
const noNotesForAlice = {
  policy: {
    default: "allow",
    rules: [{ id: "no-notes", effect: "deny", servers: ["notes"], users: ["alice"] }],
  },
};

describe("one policy for every kind of request", () => {
  it("a rule that denies a server refuses its reads, subscriptions, prompts and completions as its calls, audited, and nothing reaches it", async () => {
    const { yard, audit, events, sent } = await watched(noNotesForAlice);
    const asAlice = { identity: alice };
    const refusals = await Promise.all([
      failureOf(yard.callTool("notes_add_note", { id: "n1", text: "hi" }, asAlice)),
      failureOf(yard.readResource("notes://notes/readme", asAlice)),
      failureOf(yard.readResource("notes://notes/page/7", asAlice)), // through the template
      failureOf(yard.subscribeResource("notes://notes/readme", () => {}, asAlice)),
      failureOf(yard.getPrompt("notes_greet", { who: "Ada" }, asAlice)),
      failureOf(
        yard.complete({ type: "ref/prompt", name: "notes_greet" }, { name: "who", value: "A" }, asAlice),
      ),
      failureOf(
        yard.complete(
          { type: "ref/resource", uri: "notes://notes/page/{id}" },
          { name: "id", value: "1" },
          asAlice,
        ),
      ),
    ]);
    for (const refusal of refusals) {
      expect(refusal).toMatchObject({ code: "POLICY_DENIED", server: "notes", delivery: "final" });
      expect(refusal.message).toContain("is denied to user alice (no roles) by rule no-notes");
    }
    expect(refusals[1]!.message).toMatch(
      /^resources\/read notes:\/\/notes\/readme on server notes is denied/,
    );
    expect(refusals[4]!.message).toMatch(/^notes_greet \(prompt greet on server notes\) is denied/);
    // Nothing of it went to the server.
    for (const method of [
      "tools/call",
      "resources/read",
      "resources/subscribe",
      "subscriptions/listen",
      "prompts/get",
      "completion/complete",
    ])
      expect(sent(method), method).toEqual([]);
    // Each refusal is a decision row in the audit log, with what was asked and how.
    const denied = audit.filter((entry) => entry.kind === "decision" && entry.outcome === "deny");
    expect(denied.map((entry) => entry.method ?? "tools/call").sort()).toEqual([
      "completion/complete",
      "completion/complete",
      "prompts/get",
      "resources/read",
      "resources/read",
      "resources/subscribe",
      "tools/call",
    ]);
    expect(
      denied.find((entry) => entry.method === "resources/read" && entry.name === "notes://notes/page/7"),
    ).toMatchObject({
      identity: alice,
      server: "notes",
      tool: "notes://notes/page/7",
      arguments: { uri: "notes://notes/page/7" },
      rule: "no-notes",
    });
    expect(audit.filter((entry) => entry.kind === "call")).toEqual([]);
    // And each is recorded, once, with its method.
    const finished = events.filter((event) => event.type === "call_finished");
    expect(finished).toHaveLength(7);
    expect(
      finished.find((event) => event.type === "call_finished" && event.method === "prompts/get"),
    ).toMatchObject({
      name: "notes_greet",
      server: "notes",
      tool: "greet",
      ok: false,
      error: { code: "POLICY_DENIED" },
    });
  });

  it("another identity may do all of it: each request reaches the server once, and is audited as let through", async () => {
    const { yard, audit, sent } = await watched(noNotesForAlice);
    const asBob = { identity: bob };
    expect((await yard.readResource("notes://notes/readme", asBob)).contents).toEqual([
      { uri: "notes://notes/readme", mimeType: "text/plain", text: "readme of notes" },
    ]);
    expect((await yard.getPrompt("notes_greet", { who: "Ada" }, asBob)).messages[0]!.content).toMatchObject({
      text: "Say hello to Ada",
    });
    expect(
      await yard.complete({ type: "ref/prompt", name: "notes_greet" }, { name: "who", value: "A" }, asBob),
    ).toMatchObject({ server: "notes", values: ["Ada", "Alan"] });
    expect(
      (
        await yard.complete(
          { type: "ref/resource", uri: "notes://notes/page/{id}" },
          { name: "id", value: "1" },
          asBob,
        )
      ).values,
    ).toEqual(["1", "10"]);
    const end = await yard.subscribeResource("notes://notes/readme", () => {}, asBob);
    await end();
    expect(sent("resources/read")).toHaveLength(1);
    expect(sent("prompts/get")).toHaveLength(1);
    expect(sent("completion/complete")).toHaveLength(2);
    const rows = audit.filter((entry) => entry.kind === "call");
    expect(rows.map((entry) => [entry.method, entry.outcome])).toEqual(
      expect.arrayContaining([
        ["resources/read", "ok"],
        ["prompts/get", "ok"],
        ["completion/complete", "ok"],
        ["resources/subscribe", "ok"],
        ["resources/unsubscribe", "ok"],
      ]),
    );
    expect(rows.every((entry) => entry.identity?.user === "bob")).toBe(true);
  });

  it("listings show an identity what it may use, of resources, templates and prompts as of tools", async () => {
    const { yard } = await watched(noNotesForAlice);
    const servers = (entries: Array<{ server: string }>) => [
      ...new Set(entries.map((entry) => entry.server)),
    ];
    expect(servers(yard.resources({ identity: alice }))).toEqual(["tools"].filter((s) => s !== "tools"));
    expect(yard.resourceTemplates({ identity: alice })).toEqual([]);
    expect(yard.prompts({ identity: alice })).toEqual([]);
    expect(servers(yard.tools({ identity: alice }))).toEqual(["tools"]);
    expect(servers(yard.resources({ identity: bob }))).toEqual(["notes"]);
    expect(yard.resourceTemplates({ identity: bob }).map((entry) => entry.uriTemplate)).toEqual([
      "notes://notes/page/{id}",
    ]);
    expect(yard.prompts({ identity: bob }).map((entry) => entry.name)).toEqual(["notes_greet"]);
    // `policy: false`: everything, for caches and administration.
    expect(servers(yard.resources({ identity: alice, policy: false }))).toEqual(["notes"]);
  });

  it("rules name resources by URI glob and prompts by name, apart from tools; resources and prompts are read-only", async () => {
    const { yard } = await watched({
      policy: {
        rules: [
          { id: "readme-only", effect: "allow", resources: ["notes://*/readme"] },
          { id: "greet", effect: "allow", prompts: ["greet"] },
          { id: "readers", effect: "allow", roles: ["reader"], tags: ["read-only"] },
        ],
      },
    });
    // Default deny: the readme and the prompt are allowed to anyone, nothing else of notes.
    expect((await yard.readResource("notes://notes/readme", { identity: alice })).server).toBe("notes");
    await expect(yard.readResource("notes://notes/logo", { identity: alice })).rejects.toMatchObject({
      code: "POLICY_DENIED",
      message: expect.stringContaining("the policy's default"),
    });
    expect((await yard.getPrompt("notes_greet", { who: "Ada" }, { identity: alice })).server).toBe("notes");
    await expect(
      yard.callTool("notes_add_note", { id: "x", text: "y" }, { identity: alice }),
    ).rejects.toMatchObject({
      code: "POLICY_DENIED",
    });
    expect(yard.resources({ identity: alice }).map((entry) => entry.uri)).toEqual(["notes://notes/readme"]);
    // A template may stand for the readme: a `resources` glob leaves it to the read.
    expect(yard.resourceTemplates({ identity: alice })).toHaveLength(1);
    // Reading is read-only: a reader reads everything, and calls none of the tools that change things.
    const reader = { user: "rita", roles: ["reader"] };
    expect((await yard.readResource("notes://notes/logo", { identity: reader })).server).toBe("notes");
    await expect(
      yard.callTool("notes_add_note", { id: "x", text: "y" }, { identity: reader }),
    ).rejects.toMatchObject({
      code: "POLICY_DENIED",
    });
  });

  it("a rule may look at a read's URI as an argument", async () => {
    const { yard } = await watched({
      policy: {
        default: "allow",
        rules: [
          { id: "no-pages", effect: "deny", servers: ["notes"], arguments: { uri: { pattern: "/page/" } } },
        ],
      },
    });
    expect((await yard.readResource("notes://notes/readme")).server).toBe("notes");
    await expect(yard.readResource("notes://notes/page/3")).rejects.toMatchObject({
      code: "POLICY_DENIED",
      message: expect.stringContaining("rule no-pages"),
    });
  });

  it("a read that needs approval asks the handler, with what it is; refused, it is not sent", async () => {
    const asked: Array<{ kind: string; name: string; tool: string; arguments: unknown }> = [];
    const { yard, audit, sent } = await watched(
      {
        policy: {
          default: "allow",
          rules: [{ id: "ask", effect: "approve", resources: ["notes://*/logo"] }],
        },
      },
      {
        onApproval: (request) => {
          asked.push({
            kind: request.kind,
            name: request.name,
            tool: request.tool,
            arguments: request.arguments,
          });
          return { approved: false, reason: "not today" };
        },
      },
    );
    await expect(yard.readResource("notes://notes/logo")).rejects.toMatchObject({
      code: "POLICY_DENIED",
      message: expect.stringContaining("needs approval (rule ask) and it was refused: not today"),
    });
    expect(asked).toEqual([
      {
        kind: "resource",
        name: "notes://notes/logo",
        tool: "notes://notes/logo",
        arguments: { uri: "notes://notes/logo" },
      },
    ]);
    expect(audit.find((entry) => entry.kind === "approval")).toMatchObject({
      method: "resources/read",
      outcome: "refused",
      summary: "not today",
    });
    expect(sent("resources/read")).toEqual([]);
  });

  it("interceptors see every kind of request, and may refuse any", async () => {
    const seen: Array<Pick<RequestContext, "kind" | "method" | "name" | "server" | "tool">> = [];
    const { yard, sent } = await watched({});
    yard.use({
      before(request) {
        seen.push({
          kind: request.kind,
          method: request.method,
          name: request.name,
          server: request.server,
          tool: request.tool,
        });
        if (request.kind === "prompt") throw new Error("no prompts today");
        return undefined;
      },
    });
    await yard.readResource("notes://notes/readme");
    await yard.callTool("tools_echo", { text: "x" });
    await expect(yard.getPrompt("notes_greet", { who: "A" })).rejects.toMatchObject({
      code: "POLICY_DENIED",
      message: "notes_greet (prompt greet on server notes) was refused: no prompts today",
    });
    expect(seen).toEqual([
      {
        kind: "resource",
        method: "resources/read",
        name: "notes://notes/readme",
        server: "notes",
        tool: "notes://notes/readme",
      },
      { kind: "tool", method: "tools/call", name: "tools_echo", server: "tools", tool: "echo" },
      { kind: "prompt", method: "prompts/get", name: "notes_greet", server: "notes", tool: "greet" },
    ]);
    expect(sent("prompts/get")).toEqual([]);
  });
});

describe("completions", () => {
  it("complete a prompt's argument and a template's variable; a wrong ref is named", async () => {
    const { yard } = await watched({});
    expect(
      await yard.complete({ type: "ref/prompt", name: "notes_greet" }, { name: "who", value: "Gr" }),
    ).toEqual({
      server: "notes",
      values: ["Grace"],
      total: 1,
      hasMore: false,
    });
    await expect(
      yard.complete({ type: "ref/prompt", name: "notes_greeet" }, { name: "who", value: "" }),
    ).rejects.toMatchObject({
      code: "PROMPT_NOT_FOUND",
      message: expect.stringContaining("did you mean notes_greet?"),
    });
    await expect(
      yard.complete({ type: "ref/resource", uri: "notes://notes/pages/{id}" }, { name: "id", value: "" }),
    ).rejects.toMatchObject({
      code: "RESOURCE_NOT_FOUND",
      message: expect.stringContaining("notes://notes/page/{id}"),
    });
    await expect(
      yard.complete({ type: "ref/prompt", name: "notes_greet" }, { name: "who" } as never),
    ).rejects.toMatchObject({
      code: "INVALID_INPUT",
    });
  });

  it("a server that offers no completions says so: CAPABILITY_MISSING, never counted against it", async () => {
    // Its prompt has no completable argument, so it declares no completions capability.
    const yard = await Switchyard.connect({
      mcpServers: { t: { command: NODE, args: [`${ROOT}test/fixtures/telemetry-server.mjs`] } },
    });
    open.push(yard);
    for (let i = 0; i < 8; i++) {
      const error = await failureOf(
        yard.complete({ type: "ref/prompt", name: "t_greet" }, { name: "x", value: "" }),
      );
      expect(error).toMatchObject({ code: "CAPABILITY_MISSING", server: "t", serverFault: false });
      expect(error.message).toContain(
        'server t does not offer completions (its capabilities lack "completions")',
      );
    }
    expect(yard.servers()[0]).toMatchObject({ breaker: "closed" });
    expect((await yard.getPrompt("t_greet")).server).toBe("t");
  });
});
