import type { Client } from "@modelcontextprotocol/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createGateway, type Gateway, type HttpListener, listenHttp } from "../../src/gateway/index.js";
import { type AuditEntry, type Identity, Switchyard } from "../../src/index.js";
import { NODE, ROOT } from "../helpers.js";
import { type Era, httpClient } from "./fleet.js";

// Resources, prompts, subscriptions and completions through the gateway are each its caller's, as the
// policy says — listed, read and refused alike — and a URI two servers share is served once per server,
// so that every one of them can be read.

const RESOURCE_SERVER = `${ROOT}test/fixtures/resource-server.mjs`;
const notes = (name: string) => ({ command: NODE, args: [RESOURCE_SERVER, "--name", name] });
const IDENTITIES: Record<string, Identity> = {
  alice: { user: "alice", roles: [] },
  bob: { user: "bob", roles: [] },
};

let yard: Switchyard;
let gateway: Gateway;
let listener: HttpListener;
const audit: AuditEntry[] = [];

beforeAll(async () => {
  yard = await Switchyard.connect(
    {
      mcpServers: { a: notes("a"), b: notes("b") },
      policy: { default: "allow", rules: [{ id: "no-b", effect: "deny", servers: ["b"], users: ["alice"] }] },
    },
    { audit: { append: (entry) => void audit.push(entry) } },
  );
  gateway = createGateway(yard, {
    authenticate: (request) => IDENTITIES[request.headers.get("x-test-user") ?? ""],
  });
  listener = await listenHttp(gateway, { port: 0 });
}, 60_000);

afterAll(async () => {
  await listener?.close();
  await gateway?.close();
  await yard?.close();
});

describe.each<Era>(["legacy", "modern"])("resources and prompts over the gateway (%s)", (era) => {
  const clients: Client[] = [];
  const as = async (user: string) => {
    const client = await httpClient(listener.url, era, { headers: { "x-test-user": user } });
    clients.push(client);
    return client;
  };
  afterAll(async () => {
    for (const client of clients) await client.close();
  });

  it("lists each caller the resources, templates and prompts it may use", async () => {
    const alice = await as("alice");
    const bob = await as("bob");
    const servers = (entries: Array<{ _meta?: Record<string, unknown> | undefined }>) =>
      [...new Set(entries.map((entry) => entry._meta?.["switchyard/server"]))].sort();
    expect(servers((await alice.listResources()).resources)).toEqual(["a"]);
    expect(servers((await bob.listResources()).resources)).toEqual(["a", "b"]);
    expect((await alice.listResourceTemplates()).resourceTemplates.map((t) => t.uriTemplate)).toEqual([
      "notes://a/page/{id}",
    ]);
    expect((await alice.listPrompts()).prompts.map((prompt) => prompt.name)).toEqual(["a_greet"]);
    expect((await bob.listPrompts()).prompts.map((prompt) => prompt.name)).toEqual(["a_greet", "b_greet"]);
  });

  it("refuses what the caller may not use, reads, prompts and completions alike, and audits each refusal", async () => {
    const alice = await as("alice");
    const before = audit.length;
    await expect(alice.readResource({ uri: "notes://b/readme" })).rejects.toThrow(/denied to user alice/);
    await expect(alice.getPrompt({ name: "b_greet", arguments: { who: "Ada" } })).rejects.toThrow(
      /denied to user alice/,
    );
    await expect(
      alice.complete({ ref: { type: "ref/prompt", name: "b_greet" }, argument: { name: "who", value: "A" } }),
    ).rejects.toThrow(/denied to user alice/);
    const refusals = audit
      .slice(before)
      .filter((entry) => entry.kind === "decision" && entry.outcome === "deny");
    expect(refusals.map((entry) => [entry.identity?.user, entry.server, entry.method])).toEqual([
      ["alice", "b", "resources/read"],
      ["alice", "b", "prompts/get"],
      ["alice", "b", "completion/complete"],
    ]);
    // What alice may use works.
    expect((await alice.readResource({ uri: "notes://a/readme" })).contents[0]).toMatchObject({
      text: "readme of a",
    });
    const completed = await alice.complete({
      ref: { type: "ref/resource", uri: "notes://a/page/{id}" },
      argument: { name: "id", value: "2" },
    });
    expect(completed.completion.values).toEqual(["2", "20"]);
  });

  it("serves a URI two servers share once per server, qualified, and reads each from its own", async () => {
    const bob = await as("bob");
    const shared = (await bob.listResources()).resources.filter((resource) => resource.name === "shared");
    expect(shared.map((resource) => resource.uri).sort()).toEqual([
      "switchyard://a/shared://readme",
      "switchyard://b/shared://readme",
    ]);
    for (const resource of shared) {
      const read = await bob.readResource({ uri: resource.uri });
      const server = resource._meta?.["switchyard/server"];
      expect(read.contents).toEqual([{ uri: resource.uri, text: `shared readme from ${server}` }]);
    }
    // A URI only one server lists is served as it is.
    expect((await bob.listResources()).resources.map((resource) => resource.uri)).toContain(
      "notes://b/readme",
    );
  });
});

describe("completions over the gateway", () => {
  it("offers no values for a prompt whose server serves no completions, and still refuses an unknown prompt", async () => {
    const plain = await Switchyard.connect({
      mcpServers: { t: { command: NODE, args: [`${ROOT}test/fixtures/telemetry-server.mjs`] } },
    });
    const quiet = createGateway(plain);
    const http = await listenHttp(quiet, { port: 0 });
    const client = await httpClient(http.url, "modern");
    try {
      // The library says why: the server does not declare completions, and nothing was sent.
      await expect(
        plain.complete({ type: "ref/prompt", name: "t_greet" }, { name: "who", value: "A" }),
      ).rejects.toMatchObject({ code: "CAPABILITY_MISSING" });
      // A host typing an argument is told there is nothing to complete, not that its request failed.
      const completed = await client.complete({
        ref: { type: "ref/prompt", name: "t_greet" },
        argument: { name: "who", value: "A" },
      });
      expect(completed.completion.values).toEqual([]);
      await expect(
        client.complete({
          ref: { type: "ref/prompt", name: "t_gret" },
          argument: { name: "who", value: "A" },
        }),
      ).rejects.toThrow(/t_gret/);
    } finally {
      await client.close();
      await http.close();
      await quiet.close();
      await plain.close();
    }
  }, 60_000);
});
