import { setTimeout as delay } from "node:timers/promises";
import { afterEach, describe, expect, it } from "vitest";
import { ResourceCatalog } from "../../src/catalog/resources.js";
import {
  isSwitchyardError,
  type ListChange,
  resolveConfig,
  Switchyard,
  type SwitchyardError,
} from "../../src/index.js";
import { EVERYTHING, NODE, ROOT } from "../helpers.js";

const RESOURCE_SERVER = `${ROOT}test/fixtures/resource-server.mjs`;
const notes = (name: string) => ({ command: NODE, args: [RESOURCE_SERVER, "--name", name] });

const open: Switchyard[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((yard) => yard.close()));
});

async function connect(servers: Record<string, object>): Promise<Switchyard> {
  const yard = await Switchyard.connect({ mcpServers: servers });
  open.push(yard);
  return yard;
}

async function rejection(promise: Promise<unknown>): Promise<SwitchyardError> {
  const error = await promise.then(
    () => undefined,
    (failure: unknown) => failure,
  );
  if (!isSwitchyardError(error)) throw new Error(`expected a SwitchyardError, got ${String(error)}`);
  return error;
}

async function until(check: () => boolean, ms = 5000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error("timed out waiting");
    await delay(20);
  }
}

describe("the resource catalog", () => {
  const config = resolveConfig(
    { mcpServers: { a: { command: "x" }, b: { command: "y", namespace: "bee" } } },
    { env: {} },
  );

  it("names prompts like tools and keeps a (server, uri) per resource", () => {
    const catalog = new ResourceCatalog(config.servers);
    catalog.setServerResources("a", [{ uri: "x://1", name: "one" }], []);
    catalog.setServerResources(
      "b",
      [{ uri: "x://1", name: "one" }],
      [{ uriTemplate: "y://{id}", name: "y" }],
    );
    catalog.setServerPrompts("b", [{ name: "greet" }]);
    expect(catalog.resources()).toEqual([]); // nothing listed until the servers are up
    catalog.setServerListed("a", true);
    catalog.setServerListed("b", true);
    expect(catalog.resources().map((entry) => [entry.server, entry.uri])).toEqual([
      ["a", "x://1"],
      ["b", "x://1"],
    ]);
    expect(catalog.prompts().map((entry) => [entry.name, entry.server, entry.prompt])).toEqual([
      ["bee_greet", "b", "greet"],
    ]);
    const always = () => true;
    expect(catalog.resolve("x://1", undefined, always)).toMatchObject({ found: false, servers: ["a", "b"] });
    expect(catalog.resolve("x://1", "a", always)).toMatchObject({ found: true, server: "a" });
    expect(catalog.resolve("y://7", undefined, (template) => template === "y://{id}")).toMatchObject({
      found: true,
      server: "b",
    });
    expect(catalog.resolve("x://2", undefined, () => false)).toMatchObject({
      found: false,
      servers: [],
      suggestions: ["x://1"],
    });
  });

  it("tells of changes with their kind, and a server going down as all removed", () => {
    const catalog = new ResourceCatalog(config.servers);
    const changes: ListChange[] = [];
    catalog.onChange((change) => changes.push(change));
    catalog.setServerListed("a", true);
    catalog.setServerResources("a", [{ uri: "x://1", name: "one" }], []);
    catalog.setServerPrompts("a", [{ name: "p" }]);
    catalog.setServerListed("a", false);
    expect(changes).toEqual([
      { kind: "resources", version: 1, server: "a", added: ["x://1"], removed: [], changed: [] },
      { kind: "prompts", version: 2, server: "a", added: ["a_p"], removed: [], changed: [] },
      { kind: "resources", version: 3, server: "a", added: [], removed: ["x://1"], changed: [] },
      { kind: "prompts", version: 4, server: "a", added: [], removed: ["a_p"], changed: [] },
    ]);
  });

  it("finds a prompt by name only while its server is listed, as prompts() lists it", () => {
    const catalog = new ResourceCatalog(config.servers);
    catalog.setServerPrompts("a", [{ name: "p" }]);
    catalog.setServerListed("a", true);
    expect(catalog.getPrompt("a_p")).toMatchObject({ server: "a", prompt: "p" });
    catalog.setServerListed("a", false);
    expect(catalog.prompts()).toEqual([]);
    expect(catalog.getPrompt("a_p")).toBeUndefined();
  });
});

describe("resources and prompts across servers (the SDK v2 fixture)", () => {
  it("lists both servers' resources, templates and prompts, and reads text and blobs", async () => {
    const yard = await connect({ one: notes("one"), two: notes("two") });
    expect(yard.resources().map((entry) => `${entry.server} ${entry.uri}`)).toEqual([
      "one notes://one/broken",
      "one notes://one/logo",
      "one notes://one/readme",
      "one notes://one/slow",
      "two notes://two/broken",
      "two notes://two/logo",
      "two notes://two/readme",
      "two notes://two/slow",
      "one shared://readme",
      "two shared://readme",
    ]);
    expect(yard.resourceTemplates().map((entry) => entry.uriTemplate)).toEqual([
      "notes://one/page/{id}",
      "notes://two/page/{id}",
    ]);
    expect(yard.prompts().map((entry) => entry.name)).toEqual(["one_greet", "two_greet"]);

    const readme = await yard.readResource("notes://two/readme");
    expect(readme.server).toBe("two");
    expect(readme.contents).toEqual([
      { uri: "notes://two/readme", mimeType: "text/plain", text: "readme of two" },
    ]);
    const logo = await yard.readResource("notes://one/logo");
    expect(logo.contents[0]).toMatchObject({
      mimeType: "image/png",
      blob: Buffer.from("PNG-bytes").toString("base64"),
    });
    const page = await yard.readResource("notes://one/page/42");
    expect(page).toMatchObject({ server: "one", contents: [{ text: "page 42 of one" }] });
  });

  it("an ambiguous URI names the servers; a server settles it; an unknown one suggests", async () => {
    const yard = await connect({ one: notes("one"), two: notes("two") });
    const ambiguous = await rejection(yard.readResource("shared://readme"));
    expect(ambiguous.code).toBe("RESOURCE_AMBIGUOUS");
    expect(ambiguous.message).toContain("one, two");
    const chosen = await yard.readResource("shared://readme", { server: "two" });
    expect(chosen.contents[0]).toMatchObject({ text: "shared readme from two" });

    const missing = await rejection(yard.readResource("notes://one/readmee"));
    expect(missing.code).toBe("RESOURCE_NOT_FOUND");
    expect(missing.message).toContain("did you mean notes://one/readme");
    const unknownToServer = await rejection(yard.readResource("notes://one/page", { server: "one" }));
    expect(unknownToServer).toMatchObject({ code: "RESOURCE_NOT_FOUND", server: "one", rpcCode: -32602 });
    const broken = await rejection(yard.readResource("notes://two/broken"));
    expect(broken).toMatchObject({ code: "SERVER_ERROR", server: "two" });
    expect(broken.tool).toBeUndefined();
    expect(broken.message).toContain("the disk is on fire");
    expect((await rejection(yard.readResource("shared://readme", { server: "twoo" }))).message).toContain(
      "did you mean two",
    );
  });

  it("gets a prompt's messages; checks its arguments first; suggests a near name", async () => {
    const yard = await connect({ one: notes("one") });
    const prompt = await yard.getPrompt("one_greet", { who: "Ada", mood: "warmly" });
    expect(prompt).toMatchObject({ name: "one_greet", server: "one", prompt: "greet" });
    expect(prompt.messages).toEqual([
      { role: "user", content: { type: "text", text: "Say hello to Ada, warmly" } },
    ]);
    const missing = await rejection(yard.getPrompt("one_greet", {}));
    expect(missing.code).toBe("INVALID_ARGUMENTS");
    expect(missing.message).toContain("needs who");
    const unknown = await rejection(yard.getPrompt("one_gret"));
    expect(unknown.code).toBe("PROMPT_NOT_FOUND");
    expect(unknown.message).toContain("did you mean one_greet");
  });

  it("follows resources/list_changed and prompts/list_changed, with change events", async () => {
    const yard = await connect({ one: notes("one") });
    const changes: ListChange[] = [];
    const toolChanges: unknown[] = [];
    yard.onListChange((change) => changes.push(change));
    yard.onCatalogChange((change) => toolChanges.push(change));

    await yard.callTool("one_add_note", { id: "n1", text: "first note" });
    await until(() => yard.resources().some((entry) => entry.uri === "notes://one/note/n1"));
    expect(changes.at(-1)).toMatchObject({
      kind: "resources",
      server: "one",
      added: ["notes://one/note/n1"],
    });
    expect((await yard.readResource("notes://one/note/n1")).contents[0]).toMatchObject({
      text: "first note",
    });

    await yard.callTool("one_remove_note", { id: "n1" });
    await until(() => !yard.resources().some((entry) => entry.uri === "notes://one/note/n1"));
    expect(changes.at(-1)).toMatchObject({ kind: "resources", removed: ["notes://one/note/n1"] });

    await yard.callTool("one_add_prompt", { prompt: "later" });
    await until(() => yard.prompts().some((entry) => entry.name === "one_later"));
    expect(changes.at(-1)).toMatchObject({ kind: "prompts", server: "one", added: ["one_later"] });
    expect((await yard.getPrompt("one_later")).messages[0]).toMatchObject({
      content: { text: "this is later" },
    });
    expect(toolChanges).toEqual([]); // the tools' events are the tools' alone
  });

  it.each([
    ["2026-07-28 (subscriptions/listen)", {}],
    ["a 2025 revision (resources/subscribe)", { versionNegotiation: "legacy" }],
  ])("subscribes to a resource on %s, hears its updates, and stops", async (_era, negotiation) => {
    const yard = await connect({ one: { ...notes("one"), ...negotiation } });
    const updates: unknown[] = [];
    const stop = await yard.subscribeResource("notes://one/readme", (update) => updates.push(update));
    await yard.callTool("one_touch", { uri: "notes://one/readme" });
    await yard.callTool("one_touch", { uri: "notes://one/logo" }); // not subscribed to
    await until(() => updates.length === 1);
    expect(updates).toEqual([{ server: "one", uri: "notes://one/readme" }]);
    await stop();
    await yard.callTool("one_touch", { uri: "notes://one/readme" });
    await delay(300);
    expect(updates).toHaveLength(1);
  });

  it("reads within the server's deadline, through its guard; tools.allow filters tools only", async () => {
    const yard = await connect({ one: { ...notes("one"), timeoutMs: 300, tools: { allow: ["touch"] } } });
    expect(yard.tools().map((tool) => tool.name)).toEqual(["one_touch"]);
    expect(yard.prompts().map((entry) => entry.name)).toEqual(["one_greet"]);
    expect(yard.resources().length).toBeGreaterThan(0);
    const started = Date.now();
    const late = await rejection(yard.readResource("notes://one/slow"));
    expect(late).toMatchObject({ code: "TIMEOUT", server: "one" });
    expect(late.message).toContain("within 300 ms");
    expect(Date.now() - started).toBeLessThan(1500);
    const cut = await rejection(
      yard.readResource("notes://one/slow", { timeoutMs: 5000, signal: AbortSignal.timeout(100) }),
    );
    expect(cut.code).toBe("CANCELLED");
    expect((await yard.readResource("notes://one/slow", { timeoutMs: 5000 })).contents[0]).toMatchObject({
      text: "slow at last",
    });
    expect(yard.servers()[0]).toMatchObject({ inFlight: 0, queued: 0 });
  });

  it("lists them again after a restart", async () => {
    const yard = await connect({ one: notes("one") });
    await yard.callTool("one_add_note", { id: "gone", text: "lost on restart" });
    await until(() => yard.resources().some((entry) => entry.uri === "notes://one/note/gone"));
    process.kill(yard.servers()[0]!.pid!, "SIGKILL");
    await until(() => yard.servers()[0]!.restarts === 1 && yard.servers()[0]!.status === "ready", 10_000);
    await until(() => !yard.resources().some((entry) => entry.uri === "notes://one/note/gone"));
    expect(yard.resources().map((entry) => entry.uri)).toContain("notes://one/readme");
    expect(yard.prompts().map((entry) => entry.name)).toEqual(["one_greet"]);
  });
});

describe("server-everything's resources, templates and prompts", () => {
  it("lists them, reads a static and a templated resource, gets a prompt, subscribes", async () => {
    const yard = await connect({ everything: { command: NODE, args: [EVERYTHING, "stdio"] } });
    expect(yard.resources().length).toBeGreaterThan(0);
    expect(yard.resources().every((entry) => entry.server === "everything")).toBe(true);
    expect(yard.resourceTemplates().map((entry) => entry.uriTemplate)).toContain(
      "demo://resource/dynamic/text/{resourceId}",
    );
    expect(yard.prompts().map((entry) => entry.name)).toContain("everything_simple-prompt");

    const doc = await yard.readResource("demo://resource/static/document/architecture.md");
    expect(doc.contents[0]).toMatchObject({ mimeType: "text/markdown" });
    const dynamic = await yard.readResource("demo://resource/dynamic/text/1");
    expect(dynamic.server).toBe("everything");
    expect(dynamic.contents[0]).toHaveProperty("text");

    const args = await yard.getPrompt("everything_args-prompt", { city: "Paris" });
    expect(JSON.stringify(args.messages)).toContain("Paris");
    const stop = await yard.subscribeResource("demo://resource/dynamic/text/1", () => {});
    await stop();
  });
});
