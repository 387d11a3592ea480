// The bare MCP SDK v2 Client (@modelcontextprotocol/client), used directly: one Client per server.
import { Client, StreamableHTTPClientTransport, type Transport } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { type BenchClient, openAll, type ServerSpec } from "./client.js";

function transportFor(spec: ServerSpec): Transport {
  return spec.transport === "stdio"
    ? new StdioClientTransport({ command: spec.command, args: spec.args, stderr: "ignore" })
    : new StreamableHTTPClientTransport(new URL(spec.url));
}

/**
 * The SDK's default is `legacy` (the 2025-11-25 `initialize` handshake); `auto` probes with
 * `server/discover` and talks 2026-07-28 to servers that answer it. On the SDK's own stdio transport
 * the probe runs on a short-lived sibling process (one extra spawn per connect).
 */
export function sdkV2Client(mode: "legacy" | "auto"): BenchClient {
  return {
    id: mode === "legacy" ? "sdk-v2" : "sdk-v2-auto",
    label: mode === "legacy" ? "bare SDK v2 Client" : "bare SDK v2 Client, auto",
    server: "sdk",
    async connect(servers) {
      const clients = await openAll(
        servers,
        async (spec) => {
          const client = new Client(
            { name: "bench", version: "0" },
            mode === "auto" ? { versionNegotiation: { mode: "auto" } } : {},
          );
          try {
            await client.connect(transportFor(spec));
            await client.listTools();
          } catch (error) {
            await client.close().catch(() => {});
            throw error;
          }
          return client;
        },
        (client) => client.close(),
      );
      return {
        echo: (index, text) => clients[index]!.callTool({ name: "echo", arguments: { text } }),
        revisions: () => clients.map((client) => client.getNegotiatedProtocolVersion() ?? "?"),
        close: async () => {
          await Promise.all(clients.map((client) => client.close()));
        },
      };
    },
  };
}
