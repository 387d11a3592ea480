// Every contender, in the order the tables show them. Loaded lazily, so that a memory child loads only
// the client it measures.
import type { BenchClient } from "./client.js";

export interface ClientEntry {
  id: string;
  load: () => Promise<BenchClient>;
}

export const CLIENT_ENTRIES: readonly ClientEntry[] = [
  { id: "raw", load: async () => (await import("./raw.js")).rawClient },
  { id: "sdk-v2", load: async () => (await import("./sdk-v2.js")).sdkV2Client("legacy") },
  { id: "sdk-v2-auto", load: async () => (await import("./sdk-v2.js")).sdkV2Client("auto") },
  {
    id: "switchyard",
    load: async () =>
      (await import("./switchyard.js")).switchyardClient({
        id: "switchyard",
        label: "Switchyard",
        versionNegotiation: "auto",
      }),
  },
  {
    id: "switchyard-legacy",
    load: async () =>
      (await import("./switchyard.js")).switchyardClient({
        id: "switchyard-legacy",
        label: "Switchyard, legacy",
        versionNegotiation: "legacy",
      }),
  },
  {
    // Diagnostic: Switchyard's bulkhead (8 calls in flight per server by default) against waves of 64.
    id: "switchyard-mc64",
    load: async () =>
      (await import("./switchyard.js")).switchyardClient({
        id: "switchyard-mc64",
        label: "Switchyard, maxConcurrency 64",
        versionNegotiation: "auto",
        maxConcurrency: 64,
        only: ["throughput-stdio-1", "throughput-stdio-4"],
      }),
  },
  { id: "sdk-v1", load: async () => (await import("./sdk-v1.js")).sdkV1Client },
  { id: "langchain", load: async () => (await import("./langchain.js")).langchainClient },
  { id: "ai-sdk", load: async () => (await import("./ai-sdk.js")).aiSdkClient },
];

/** The id of the baseline every ratio is taken against, and of the hand-written limit. */
export const BASELINE_ID = "sdk-v2";
export const LIMIT_ID = "raw";

/** Load the clients with these ids (all when empty), in table order. */
export async function loadClients(ids: readonly string[] = []): Promise<BenchClient[]> {
  const wanted = CLIENT_ENTRIES.filter((entry) => ids.length === 0 || ids.includes(entry.id));
  const unknown = ids.filter((id) => !CLIENT_ENTRIES.some((entry) => entry.id === id));
  if (unknown.length > 0)
    throw new Error(
      `unknown client ${unknown.join(", ")}; known: ${CLIENT_ENTRIES.map((e) => e.id).join(", ")}`,
    );
  return Promise.all(wanted.map((entry) => entry.load()));
}
