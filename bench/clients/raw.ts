// The hand-written limit: newline-delimited JSON-RPC over a child's pipes (or plain JSON POSTs over a
// keep-alive HTTP agent), no SDK on either side, no validation. It does what an MCP client must do —
// initialize, initialized, tools/list, tools/call — and nothing else.
import { type ChildProcess, spawn } from "node:child_process";
import { Agent, request } from "node:http";
import { type BenchClient, openAll, type ServerSpec, type Session } from "./client.js";

/** The revision the hand-written client asks for; the hand-written server accepts any. */
const REVISION = "2025-11-25";

interface Rpc {
  call(method: string, params: unknown): Promise<unknown>;
  notify(method: string): Promise<void>;
  close(): Promise<void>;
}

type Reply = { id: number; result?: unknown; error?: { message: string } };

class PipeRpc implements Rpc {
  readonly #child: ChildProcess;
  readonly #pending = new Map<
    number,
    { resolve: (value: unknown) => void; reject: (error: Error) => void }
  >();
  #nextId = 1;
  #buffer = "";

  constructor(spec: Extract<ServerSpec, { transport: "stdio" }>) {
    this.#child = spawn(spec.command, spec.args, { stdio: ["pipe", "pipe", "ignore"] });
    this.#child.stdout!.setEncoding("utf8");
    this.#child.stdout!.on("data", (chunk: string) => this.#read(chunk));
    this.#child.once("exit", () => {
      for (const { reject } of this.#pending.values()) reject(new Error("the server exited"));
      this.#pending.clear();
    });
  }

  call(method: string, params: unknown): Promise<unknown> {
    const id = this.#nextId++;
    return new Promise((resolve, reject) => {
      this.#pending.set(id, { resolve, reject });
      this.#child.stdin!.write(`${JSON.stringify({ jsonrpc: "2.0", id, method, params })}\n`);
    });
  }

  async notify(method: string): Promise<void> {
    this.#child.stdin!.write(`${JSON.stringify({ jsonrpc: "2.0", method })}\n`);
  }

  close(): Promise<void> {
    const child = this.#child;
    if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
    return new Promise((resolve) => {
      child.once("exit", () => resolve());
      child.stdin!.end(); // the server exits at end of input
    });
  }

  #read(chunk: string): void {
    this.#buffer += chunk;
    for (let nl = this.#buffer.indexOf("\n"); nl !== -1; nl = this.#buffer.indexOf("\n")) {
      const reply = JSON.parse(this.#buffer.slice(0, nl)) as Reply;
      this.#buffer = this.#buffer.slice(nl + 1);
      const waiting = this.#pending.get(reply.id);
      if (!waiting) continue;
      this.#pending.delete(reply.id);
      if (reply.error) waiting.reject(new Error(reply.error.message));
      else waiting.resolve(reply.result);
    }
  }
}

class HttpRpc implements Rpc {
  readonly #url: URL;
  readonly #agent = new Agent({ keepAlive: true });
  #nextId = 1;

  constructor(spec: Extract<ServerSpec, { transport: "http" }>) {
    this.#url = new URL(spec.url);
  }

  async call(method: string, params: unknown): Promise<unknown> {
    const reply = (await this.#post({ jsonrpc: "2.0", id: this.#nextId++, method, params })) as Reply;
    if (reply.error) throw new Error(reply.error.message);
    return reply.result;
  }

  async notify(method: string): Promise<void> {
    await this.#post({ jsonrpc: "2.0", method });
  }

  async close(): Promise<void> {
    this.#agent.destroy();
  }

  #post(message: unknown): Promise<unknown> {
    const body = JSON.stringify(message);
    return new Promise((resolve, reject) => {
      const req = request(
        this.#url,
        {
          method: "POST",
          agent: this.#agent,
          headers: { "content-type": "application/json", "content-length": Buffer.byteLength(body) },
        },
        (res) => {
          let text = "";
          res.setEncoding("utf8");
          res.on("data", (chunk: string) => {
            text += chunk;
          });
          res.on("end", () => resolve(text ? JSON.parse(text) : undefined));
          res.on("error", reject);
        },
      );
      req.on("error", reject);
      req.end(body);
    });
  }
}

async function open(spec: ServerSpec): Promise<Rpc> {
  const rpc = spec.transport === "stdio" ? new PipeRpc(spec) : new HttpRpc(spec);
  try {
    await handshake(rpc);
  } catch (error) {
    await rpc.close();
    throw error;
  }
  return rpc;
}

async function handshake(rpc: Rpc): Promise<void> {
  await rpc.call("initialize", {
    protocolVersion: REVISION,
    capabilities: {},
    clientInfo: { name: "bench", version: "0" },
  });
  await rpc.notify("notifications/initialized");
  await rpc.call("tools/list", {});
}

export const rawClient: BenchClient = {
  id: "raw",
  label: "hand-written JSON-RPC (limit)",
  server: "raw",
  async connect(servers) {
    const rpcs = await openAll(servers, open, (rpc) => rpc.close());
    const session: Session = {
      echo: (index, text) => rpcs[index]!.call("tools/call", { name: "echo", arguments: { text } }),
      revisions: () => rpcs.map(() => REVISION),
      close: async () => {
        await Promise.all(rpcs.map((rpc) => rpc.close()));
      },
    };
    return session;
  },
};
