// LangChain's MultiServerMCPClient (@langchain/mcp-adapters, over the v1 SDK), as the seeds use it:
// one client for every server, tools as LangChain tools, each call through `tool.invoke`.
import type { DynamicStructuredTool } from "@langchain/core/tools";
import { MultiServerMCPClient } from "@langchain/mcp-adapters";
import { LATEST_PROTOCOL_VERSION } from "@modelcontextprotocol/sdk/types.js";
import type { BenchClient, ServerSpec } from "./client.js";

const serverName = (index: number) => `s${index}`;

function connectionFor(spec: ServerSpec) {
  return spec.transport === "stdio"
    ? { transport: "stdio" as const, command: spec.command, args: spec.args, stderr: "ignore" as const }
    : { transport: "http" as const, url: spec.url };
}

export const langchainClient: BenchClient = {
  id: "langchain",
  label: "LangChain MultiServerMCPClient",
  server: "sdk",
  async connect(servers) {
    const mcp = new MultiServerMCPClient({
      mcpServers: Object.fromEntries(servers.map((spec, index) => [serverName(index), connectionFor(spec)])),
    });
    try {
      // Connects every server (one after another, as the adapter does) and lists their tools.
      await mcp.initializeConnections();
      const echoes: DynamicStructuredTool[] = [];
      const revisions: string[] = [];
      for (const [index, spec] of servers.entries()) {
        const tool = (await mcp.getTools(serverName(index))).find((candidate) => candidate.name === "echo");
        if (!tool) throw new Error(`no echo tool on ${serverName(index)}`);
        echoes.push(tool as DynamicStructuredTool);
        // The v1 client offers only its latest revision, and the v2 server accepts it; over HTTP the
        // transport keeps the agreed one.
        const client = await mcp.getClient(serverName(index));
        const transport = client?.transport as { protocolVersion?: string } | undefined;
        revisions.push(
          spec.transport === "http" ? (transport?.protocolVersion ?? "?") : LATEST_PROTOCOL_VERSION,
        );
      }
      return {
        echo: (index, text) => echoes[index]!.invoke({ text }),
        revisions: () => revisions,
        close: () => mcp.close(),
      };
    } catch (error) {
      await mcp.close().catch(() => {});
      throw error;
    }
  },
};
