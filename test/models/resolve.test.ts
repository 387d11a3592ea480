import { createServer, type IncomingHttpHeaders } from "node:http";
import { afterEach, describe, expect, it } from "vitest";
import { type ModelSection, resolveModel } from "../../src/index.js";

/** What a model server was sent: the model asked for, the bearer token, and the request's body. */
interface Heard {
  model: string;
  authorization: string | undefined;
  body: Record<string, unknown>;
}

interface ModelServer {
  baseURL: string;
  heard: Heard[];
  close(): Promise<void>;
}

const opened: ModelServer[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((server) => server.close()));
});

/** A real chat-completions server that answers "ok" and keeps what each request carried. */
async function modelServer(): Promise<ModelServer> {
  const heard: Heard[] = [];
  const http = createServer((req, res) => {
    let text = "";
    req.setEncoding("utf8").on("data", (chunk: string) => (text += chunk));
    req.on("end", () => {
      const body = JSON.parse(text) as Record<string, unknown>;
      const headers: IncomingHttpHeaders = req.headers;
      heard.push({ model: String(body.model), authorization: headers.authorization, body });
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify({ choices: [{ message: { role: "assistant", content: "ok" } }] }));
    });
  });
  await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
  const port = (http.address() as { port: number }).port;
  const server = {
    baseURL: `http://127.0.0.1:${port}/v1`,
    heard,
    close: () => new Promise<void>((resolve) => http.close(() => resolve())),
  };
  opened.push(server);
  return server;
}

/** A base URL nothing listens on: a request sent there fails. */
const NOWHERE = "http://127.0.0.1:1/v1";

const ask = { messages: [{ role: "user" as const, content: "hi" }], tools: [] };

describe("resolveModel", () => {
  it("says exactly how to configure a model when there is none, offering the CLI flag only where there is one", () => {
    expect(() => resolveModel({ env: {}, nameFlag: "--model" })).toThrow(
      /no model is configured: add a "model" section .*OPENAI_API_KEY.*together with SWITCHYARD_MODEL \(or --model\)$/,
    );
    expect(() => resolveModel({ env: {} })).toThrow(/SWITCHYARD_MODEL$/);
  });

  it("reads the environment, with OpenAI's endpoint and default model for a bare key", () => {
    expect(resolveModel({ env: { OPENAI_API_KEY: "k" } }).name).toBe("gpt-4o-mini");
    expect(
      resolveModel({ env: { OPENAI_BASE_URL: "http://127.0.0.1:1/v1", SWITCHYARD_MODEL: "llama" } }).name,
    ).toBe("llama");
    expect(() => resolveModel({ env: { OPENAI_BASE_URL: "http://127.0.0.1:1/v1" } })).toThrow(
      /set SWITCHYARD_MODEL/,
    );
    expect(resolveModel({ section: { baseURL: "http://x/v1", name: "a" }, name: "b", env: {} }).name).toBe(
      "b",
    );
  });
});

describe("resolveModel, a model section that leaves keys out", () => {
  it.each<[string, ModelSection]>([
    ["contextWindow", { contextWindow: 32_000 }],
    ["temperature", { temperature: 0.2 }],
    ["timeoutMs", { timeoutMs: 5_000 }],
    ["maxRetries", { maxRetries: 0 }],
  ])(
    "takes the server, key and name from the environment when the section has only %s",
    async (_key, section) => {
      const server = await modelServer();
      const model = resolveModel({
        section,
        env: { OPENAI_BASE_URL: server.baseURL, OPENAI_API_KEY: "env-key", SWITCHYARD_MODEL: "env-model" },
      });
      expect((await model.complete(ask)).content).toBe("ok");
      expect(server.heard).toEqual([
        expect.objectContaining({ model: "env-model", authorization: "Bearer env-key" }),
      ]);
      if (section.temperature !== undefined) expect(server.heard[0]!.body.temperature).toBe(0.2);
    },
  );

  it("takes the server from OPENAI_BASE_URL when the section has only a name, which wins over SWITCHYARD_MODEL", async () => {
    const server = await modelServer();
    const model = resolveModel({
      section: { name: "config-model" },
      env: { OPENAI_BASE_URL: server.baseURL, SWITCHYARD_MODEL: "env-model" },
    });
    await model.complete(ask);
    expect(server.heard).toEqual([
      expect.objectContaining({ model: "config-model", authorization: undefined }),
    ]);
  });

  it("sends OPENAI_API_KEY to the section's own baseURL, as OpenAI's client does", async () => {
    const server = await modelServer();
    const model = resolveModel({
      section: { baseURL: server.baseURL, name: "config-model" },
      env: { OPENAI_BASE_URL: NOWHERE, OPENAI_API_KEY: "env-key" },
    });
    await model.complete(ask);
    expect(server.heard).toEqual([
      expect.objectContaining({ model: "config-model", authorization: "Bearer env-key" }),
    ]);
  });

  it("lets each key the section sets win over the environment, an empty apiKey sending no key", async () => {
    const server = await modelServer();
    const env = { OPENAI_BASE_URL: NOWHERE, OPENAI_API_KEY: "env-key", SWITCHYARD_MODEL: "env-model" };
    await resolveModel({ section: { baseURL: server.baseURL, apiKey: "config-key" }, env }).complete(ask);
    await resolveModel({ section: { baseURL: server.baseURL, apiKey: "" }, env }).complete(ask);
    expect(server.heard).toEqual([
      expect.objectContaining({ model: "env-model", authorization: "Bearer config-key" }),
      expect.objectContaining({ model: "env-model", authorization: undefined }),
    ]);
  });

  it("lets --model override the name over a section without one and SWITCHYARD_MODEL", async () => {
    const server = await modelServer();
    const model = resolveModel({
      section: { contextWindow: 32_000 },
      name: "flag-model",
      env: { OPENAI_BASE_URL: server.baseURL, SWITCHYARD_MODEL: "env-model" },
    });
    expect(model.name).toBe("flag-model");
    await model.complete(ask);
    expect(server.heard).toEqual([expect.objectContaining({ model: "flag-model" })]);
  });

  it("says no model is configured only when neither the section nor the environment gives a base URL or key", () => {
    const section = { name: "config-model", contextWindow: 32_000 };
    expect(() => resolveModel({ section, env: { SWITCHYARD_MODEL: "env-model" } })).toThrow(
      expect.objectContaining({
        code: "MODEL_NOT_CONFIGURED",
        message:
          'no model is configured: the config\'s "model" section has no "baseURL" or "apiKey", and neither ' +
          'OPENAI_BASE_URL nor OPENAI_API_KEY is set: add "baseURL" (any OpenAI-compatible server, with "name") ' +
          'or "apiKey" (OpenAI) to the section, or set OPENAI_BASE_URL (with SWITCHYARD_MODEL) or OPENAI_API_KEY',
      }),
    );
    expect(() =>
      resolveModel({ section: { contextWindow: 32_000 }, env: { OPENAI_BASE_URL: "http://127.0.0.1:1/v1" } }),
    ).toThrow(
      expect.objectContaining({
        code: "MODEL_NOT_CONFIGURED",
        message:
          'no model name for http://127.0.0.1:1/v1: set SWITCHYARD_MODEL or "model.name" in the config',
      }),
    );
    expect(resolveModel({ section: { contextWindow: 32_000 }, env: { OPENAI_API_KEY: "k" } }).name).toBe(
      "gpt-4o-mini",
    );
  });
});
