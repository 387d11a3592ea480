import type { Client } from "@modelcontextprotocol/client";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import {
  configFile,
  type Era,
  gatewayServers,
  httpClient,
  startHttpGateway,
  stdioClient,
  textOf,
} from "./fleet.js";

// These tests run the CLI from dist/: `npm run build` first.

/** What a client saw arrive from the gateway. */
interface Seen {
  tools: string[];
  /** How many times the client was told the tools changed. */
  toolChanges: number;
  resources: string[];
  prompts: string[];
  logs: Array<{ level: string; logger?: string | undefined; data: unknown }>;
  elicitations: string[];
  samplings: string[];
}

/** A client of the gateway that answers what it is asked and remembers what it was told. */
function answering(seen: Seen) {
  return {
    client: {
      listChanged: {
        tools: {
          onChanged: (_error: Error | null, items: Array<{ name: string }> | null) => {
            seen.tools = (items ?? []).map((item) => item.name);
            seen.toolChanges += 1;
          },
        },
        resources: {
          onChanged: (_error: Error | null, items: Array<{ uri: string }> | null) => {
            seen.resources = (items ?? []).map((item) => item.uri);
          },
        },
        prompts: {
          onChanged: (_error: Error | null, items: Array<{ name: string }> | null) => {
            seen.prompts = (items ?? []).map((item) => item.name);
          },
        },
      },
    },
    setup: (client: Client) => {
      client.setRequestHandler("elicitation/create", async (request) => {
        seen.elicitations.push(request.params.message);
        return request.params.mode === "url"
          ? { action: "accept" }
          : { action: "accept", content: { name: "Ada", ok: true } };
      });
      client.setRequestHandler("sampling/createMessage", async (request) => {
        const first = request.params.messages[0]?.content;
        seen.samplings.push(first && !Array.isArray(first) && first.type === "text" ? first.text : "");
        return {
          role: "assistant",
          content: { type: "text", text: "a short summary" },
          model: "downstream-model",
          stopReason: "endTurn",
        };
      });
      client.setNotificationHandler("notifications/message", (notification) => {
        seen.logs.push(notification.params);
      });
    },
  } as const;
}

const VARIANTS: Array<{ name: string; transport: "stdio" | "http"; era: Era }> = [
  { name: "stdio, 2025-11-25", transport: "stdio", era: "legacy" },
  { name: "stdio, 2026-07-28", transport: "stdio", era: "modern" },
  { name: "Streamable HTTP, 2025-11-25 (sessions)", transport: "http", era: "legacy" },
  { name: "Streamable HTTP, 2026-07-28 (stateless)", transport: "http", era: "modern" },
];

const file = configFile({ mcpServers: gatewayServers() });
let http: Awaited<ReturnType<typeof startHttpGateway>> | undefined;

beforeAll(async () => {
  http = await startHttpGateway(file);
}, 60_000);

afterAll(async () => {
  expect(await http?.close()).toBe(143); // SIGTERM: it closed and exited as a signal says
});

describe.each(VARIANTS)("switchyard serve over $name", ({ transport, era }) => {
  const seen: Seen = {
    tools: [],
    toolChanges: 0,
    resources: [],
    prompts: [],
    logs: [],
    elicitations: [],
    samplings: [],
  };
  const tag = `${transport}_${era}`;
  let client: Client;

  beforeAll(async () => {
    const options = answering(seen);
    client =
      transport === "stdio"
        ? (await stdioClient(file, era, options)).client
        : await httpClient(http!.url, era, options);
  }, 60_000);

  afterAll(async () => {
    await client?.close();
  });

  it("speaks the protocol revision the client asked for", () => {
    expect(client.getNegotiatedProtocolVersion()).toBe(era === "modern" ? "2026-07-28" : "2025-11-25");
  });

  it("lists every server's tools under their catalog names, with their schemas and their server", async () => {
    const { tools } = await client.listTools();
    const names = tools.map((tool) => tool.name);
    expect(names).toEqual(
      expect.arrayContaining([
        "orders_query_recent_orders",
        "everything_echo",
        "everything_get-sum",
        "asking_profile",
        "fault_work",
        "raw_echo",
      ]),
    );
    const sum = tools.find((tool) => tool.name === "everything_get-sum")!;
    expect(sum.inputSchema).toMatchObject({ type: "object", properties: { a: { type: "number" } } });
    expect(sum._meta).toMatchObject({ "switchyard/server": "everything" });
  });

  it("calls through the pipeline: arguments coerced against the tool's schema, the server's answer back", async () => {
    const echo = await client.callTool({ name: "everything_echo", arguments: { message: "hi" } });
    expect(textOf(echo)).toBe("Echo: hi");
    const sum = await client.callTool({ name: "everything_get-sum", arguments: { a: "2", b: 3 } });
    expect(textOf(sum)).toContain("5");
    const orders = await client.callTool({
      name: "orders_query_recent_orders",
      arguments: { customer_id: "C10001" },
    });
    expect(orders.isError).not.toBe(true);
    expect(textOf(orders)).toContain("C10001");
  });

  it("serves resources under their URIs and prompts under their catalog names, read through the fleet", async () => {
    const { resources } = await client.listResources();
    const readme = resources.find((resource) => resource.uri === "notes://notes/readme");
    expect(readme?._meta).toMatchObject({ "switchyard/server": "notes" });
    const read = await client.readResource({ uri: "notes://notes/readme" });
    expect(read.contents[0]).toMatchObject({ uri: "notes://notes/readme" });
    const { resourceTemplates } = await client.listResourceTemplates();
    expect(resourceTemplates.map((template) => template.uriTemplate)).toContain("notes://notes/page/{id}");
    const { prompts } = await client.listPrompts();
    expect(prompts.map((prompt) => prompt.name)).toEqual(
      expect.arrayContaining(["notes_greet", "everything_simple-prompt"]),
    );
    const greet = await client.getPrompt({ name: "notes_greet", arguments: { who: "Ada" } });
    expect(JSON.stringify(greet.messages)).toContain("Ada");
  });

  it("tells the client when the catalog changes: a server's tools, resources and prompts", async () => {
    await client.callTool({ name: "raw_add_tool", arguments: { name: `fresh_${tag}` } });
    await vi.waitFor(() => expect(seen.tools).toContain(`raw_fresh_${tag}`), { timeout: 10_000 });
    await client.callTool({ name: "notes_add_note", arguments: { id: tag, text: "new" } });
    await vi.waitFor(() => expect(seen.resources).toContain(`notes://notes/note/${tag}`), {
      timeout: 10_000,
    });
    await client.callTool({ name: "notes_add_prompt", arguments: { prompt: `p_${tag}` } });
    await vi.waitFor(() => expect(seen.prompts).toContain(`notes_p_${tag}`), { timeout: 10_000 });
  });

  it.runIf(era === "legacy")(
    "subscribes to resources on their server and passes updates on; a URI no server lists yet waits for one",
    async () => {
      const updated: string[] = [];
      client.setNotificationHandler("notifications/resources/updated", (notification) => {
        updated.push(notification.params.uri);
      });
      await client.subscribeResource({ uri: "notes://notes/readme" });
      await client.callTool({ name: "notes_touch", arguments: { uri: "notes://notes/readme" } });
      await vi.waitFor(() => expect(updated).toContain("notes://notes/readme"), { timeout: 10_000 });
      const later = `notes://notes/note/later_${tag}`;
      await client.subscribeResource({ uri: later });
      await client.callTool({ name: "notes_add_note", arguments: { id: `later_${tag}`, text: "now" } });
      // Once the server lists it, the gateway subscribes there: a touch comes through.
      await vi.waitFor(
        async () => {
          await client.callTool({ name: "notes_touch", arguments: { uri: later } });
          expect(updated).toContain(later);
        },
        { timeout: 10_000 },
      );
      await client.unsubscribeResource({ uri: "notes://notes/readme" });
    },
  );

  it("tells the client when a server goes down for good: its tools leave the list", async () => {
    const tool = `down_${tag}_work`;
    expect((await client.listTools()).tools.map((listed) => listed.name)).toContain(tool);
    const before = seen.toolChanges;
    const crashed = await client.callTool({ name: tool, arguments: { id: tag, fault: "crash" } });
    expect(crashed.isError).toBe(true);
    expect(textOf(crashed)).toMatch(/^SERVER_UNAVAILABLE: /);
    // No restarts for it (restart.maxRestarts 0): it is failed, and the client is told its tools went.
    await vi.waitFor(
      () => {
        expect(seen.toolChanges).toBeGreaterThan(before);
        expect(seen.tools).not.toContain(tool);
      },
      { timeout: 15_000 },
    );
    expect((await client.listTools()).tools.map((listed) => listed.name)).not.toContain(tool);
  });

  it("forwards the server's progress to the client", async () => {
    const progress: number[] = [];
    const result = await client.callTool(
      { name: "fault_progress", arguments: { ms: 300, every: 50 } },
      { onprogress: (update) => progress.push(update.progress) },
    );
    expect(textOf(result)).toContain("progressed");
    expect(progress.length).toBeGreaterThan(0);
  });

  it("a call the client cancels is cancelled on the server", async () => {
    const id = `cancel_${tag}`;
    const before = await stats(client);
    const abort = new AbortController();
    const call = client.callTool(
      { name: "fault_work", arguments: { id, fault: "hang" } },
      { signal: abort.signal },
    );
    // Once the server has the call (the stats call before it, and this one), the client gives up on it.
    await vi.waitFor(async () => expect((await stats(client)).calls).toBeGreaterThan(before.calls + 1), {
      timeout: 10_000,
    });
    abort.abort();
    await expect(call).rejects.toThrow();
    // The server was sent notifications/cancelled for it (it counts the request ids it was told of).
    await vi.waitFor(
      async () => expect((await stats(client)).cancelled.length).toBeGreaterThan(before.cancelled.length),
      { timeout: 10_000 },
    );
  });

  it("forwards a server's elicitation (form and URL mode) to the client and its answer back (2026-07-28 and 2025 servers)", async () => {
    const profile = await client.callTool({ name: "asking_profile", arguments: {} });
    expect(JSON.parse(textOf(profile))).toMatchObject({
      action: "accept",
      content: { name: "Ada", age: 30 },
    });
    const confirm = await client.callTool({ name: "needy_confirm", arguments: {} });
    expect(textOf(confirm)).toBe("answered accept");
    const visit = await client.callTool({ name: "asking_visit", arguments: {} });
    expect(JSON.parse(textOf(visit))).toMatchObject({ action: "accept" });
    expect(seen.elicitations).toEqual(
      expect.arrayContaining(["Who are you?", "Go ahead?", "Connect your account"]),
    );
  });

  it("forwards a server's sampling request to the client's model (2026-07-28 and 2025 servers)", async () => {
    const summary = await client.callTool({ name: "asking_summarize", arguments: { text: "a long text" } });
    expect(JSON.parse(textOf(summary))).toMatchObject({ model: "downstream-model", text: "a short summary" });
    const pushed = await client.callTool({
      name: "everything_trigger-sampling-request",
      arguments: { prompt: "hello" },
    });
    expect(textOf(pushed)).toContain("a short summary");
    expect(seen.samplings).toEqual(expect.arrayContaining(["Summarize: a long text"]));
  });

  it.runIf(era === "legacy")("forwards a server's log messages, named by their server", async () => {
    await client.callTool({ name: "needy_log", arguments: { level: "warning", text: `careful ${tag}` } });
    await vi.waitFor(() =>
      expect(seen.logs).toContainEqual({ level: "warning", logger: "needy", data: `careful ${tag}` }),
    );
  });

  it("maps failures: an unknown tool is -32602; bad arguments, tool errors and timeouts are tool errors", async () => {
    await expect(client.callTool({ name: "no_such_tool", arguments: {} })).rejects.toMatchObject({
      code: -32602,
      message: expect.stringContaining("no_such_tool"),
    });
    // Input validation is a tool execution error (2025-11-25, SEP-1303): the model reads what to fix.
    const bad = await client.callTool({ name: "everything_get-sum", arguments: { a: "many", b: 1 } });
    expect(bad.isError).toBe(true);
    expect(textOf(bad)).toMatch(/^INVALID_ARGUMENTS: .*get-sum.*\ba\b/);
    const failed = await client.callTool({
      name: "fault_work",
      arguments: { id: `e_${tag}`, fault: "error" },
    });
    expect(failed).toMatchObject({ isError: true });
    expect(textOf(failed)).toBe(`failed e_${tag}`);
    const late = await client.callTool({ name: "slow_work", arguments: { id: `t_${tag}`, fault: "hang" } });
    expect(late.isError).toBe(true);
    expect(textOf(late)).toMatch(/^TIMEOUT: .*slow/);
  });
});

/** The fault server's counters, read through the gateway. */
async function stats(client: Client): Promise<{ calls: number; cancelled: unknown[] }> {
  const result = await client.callTool({ name: "fault_stats", arguments: {} });
  return result.structuredContent as { calls: number; cancelled: unknown[] };
}
