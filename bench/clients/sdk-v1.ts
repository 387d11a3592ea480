// The v1 MCP SDK Client (@modelcontextprotocol/sdk), used directly: one Client per server. It knows
// revisions up to 2025-11-25 and always opens with `initialize`.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { type BenchClient, openAll, type ServerSpec } from "./client.js";

interface Connection {
  client: Client;
  revision: string;
}

async function open(spec: ServerSpec): Promise<Connection> {
  const transport: Transport =
    spec.transport === "stdio"
      ? new StdioClientTransport({ command: spec.command, args: spec.args, stderr: "ignore" })
      : new StreamableHTTPClientTransport(new URL(spec.url));
  const connection: Connection = { client: new Client({ name: "bench", version: "0" }), revision: "?" };
  // The client tells HTTP transports the agreed revision through this hook; stdio ones have no use
  // for it, so give them one to learn the revision the same way.
  const setProtocolVersion = transport.setProtocolVersion?.bind(transport);
  transport.setProtocolVersion = (version) => {
    connection.revision = version;
    setProtocolVersion?.(version);
  };
  try {
    await connection.client.connect(transport);
    await connection.client.listTools();
  } catch (error) {
    await connection.client.close().catch(() => {});
    throw error;
  }
  return connection;
}

export const sdkV1Client: BenchClient = {
  id: "sdk-v1",
  label: "bare SDK v1 Client",
  server: "sdk",
  async connect(servers) {
    const connections = await openAll(servers, open, ({ client }) => client.close());
    return {
      echo: (index, text) => connections[index]!.client.callTool({ name: "echo", arguments: { text } }),
      revisions: () => connections.map(({ revision }) => revision),
      close: async () => {
        await Promise.all(connections.map(({ client }) => client.close()));
      },
    };
  },
};
