// The Vercel AI SDK MCP client (@ai-sdk/mcp): one client per server; tools built with `tools()` as an
// AI SDK app does at start, calls through `callTool` (what each tool's `execute` runs).
import { createMCPClient, type MCPClient } from "@ai-sdk/mcp";
import { StdioMCPTransport } from "@ai-sdk/mcp/mcp-stdio";
import { type BenchClient, openAll, type ServerSpec } from "./client.js";

async function open(spec: ServerSpec): Promise<MCPClient> {
  // Default options: protocolVersionDiscovery is on, so servers that answer `server/discover` get
  // 2026-07-28 (the probe runs on the connection itself).
  const client = await createMCPClient({
    transport:
      spec.transport === "stdio"
        ? new StdioMCPTransport({ command: spec.command, args: spec.args, stderr: "ignore" })
        : { type: "http", url: spec.url },
  });
  try {
    await client.tools();
  } catch (error) {
    await client.close().catch(() => {});
    throw error;
  }
  return client;
}

export const aiSdkClient: BenchClient = {
  id: "ai-sdk",
  label: "AI SDK createMCPClient",
  server: "sdk",
  async connect(servers) {
    const clients = await openAll(servers, open, (client) => client.close());
    return {
      echo: (index, text) => clients[index]!.callTool({ name: "echo", arguments: { text } }),
      revisions: () => clients.map((client) => client.initializeResult?.protocolVersion ?? "?"),
      close: async () => {
        await Promise.all(clients.map((client) => client.close()));
      },
    };
  },
};
