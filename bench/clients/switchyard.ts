// Switchyard: one Switchyard for every server, calls by catalog name (`s0_echo`) through `callTool`,
// which checks the arguments against the tool's schema and normalizes the result.
import { Switchyard } from "switchyard";
import type { BenchClient, ServerSpec } from "./client.js";

export interface SwitchyardVariant {
  id: string;
  label: string;
  /**
   * `auto` is Switchyard's default (2026-07-28 with servers that answer `server/discover`, the probe
   * in place); `legacy` is the plain `initialize` handshake, the bare SDK v2 Client's default.
   */
  versionNegotiation: "auto" | "legacy";
  /** Calls in flight per server; default: Switchyard's (DEFAULT_MAX_CONCURRENCY, 8). */
  maxConcurrency?: number;
  only?: readonly string[];
}

export function switchyardClient(variant: SwitchyardVariant): BenchClient {
  const { versionNegotiation, maxConcurrency } = variant;
  const options = { versionNegotiation, ...(maxConcurrency === undefined ? {} : { maxConcurrency }) };
  const serverConfig = (spec: ServerSpec) =>
    spec.transport === "stdio"
      ? { command: spec.command, args: spec.args, ...options }
      : { url: spec.url, ...options };
  return {
    id: variant.id,
    label: variant.label,
    server: "sdk",
    ...(variant.only ? { only: variant.only } : {}),
    async connect(servers) {
      const yard = await Switchyard.connect({
        mcpServers: Object.fromEntries(servers.map((spec, index) => [`s${index}`, serverConfig(spec)])),
      });
      const failed = yard.servers().filter((server) => server.status !== "ready");
      if (failed.length > 0) {
        await yard.close();
        throw new Error(
          `Switchyard could not connect: ${failed.map((s) => `${s.name}: ${s.error}`).join("; ")}`,
        );
      }
      const names = servers.map((_, index) => `s${index}_echo`);
      return {
        echo: (index, text) => yard.callTool(names[index]!, { text }),
        revisions: () => yard.servers().map((server) => server.protocolVersion ?? "?"),
        close: () => yard.close(),
      };
    },
  };
}
