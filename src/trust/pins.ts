// Pins: what a tool looked like when Switchyard first saw it, per configured server — its name, title,
// description, schemas and annotations — kept as a fingerprint and the definition itself, so that a
// later difference (drift) can be said precisely. Pure: the pins persist through a PinStore.
import { createHash } from "node:crypto";
import { canonicalJson } from "../telemetry/audit.js";
import type { ToolDefinition } from "./scan.js";

/** The parts of a tool definition a pin keeps (everything the model reads or the client acts on). */
export type PinnedDefinition = Omit<ToolDefinition, "server">;

/** One pinned tool of one configured server. */
export interface ToolPin {
  server: string;
  /** The tool's own name on its server. */
  tool: string;
  /** SHA-256 (hex) of the definition's canonical JSON. */
  fingerprint: string;
  definition: PinnedDefinition;
  /** ISO 8601: when it was pinned (first seen, or accepted with `trust`). */
  pinnedAt: string;
  /** Accepted by a person (`trust`): what a scan finds in this very definition no longer quarantines it. */
  trusted?: boolean;
}

/** Where pins are kept across runs (the store implements it; without a store they last the process). */
export interface PinStore {
  /** Every pin, of every server. */
  loadPins(): Promise<ToolPin[]>;
  /** Insert or replace these pins (by server and tool). */
  savePins(pins: readonly ToolPin[]): Promise<void>;
}

/** The pinned parts of a tool as a server lists it (anything else it carries is left out). */
export function pinnedDefinition(tool: {
  name: string;
  title?: string | undefined;
  description?: string | undefined;
  inputSchema?: unknown;
  outputSchema?: unknown;
  annotations?: object | undefined;
}): PinnedDefinition {
  return {
    name: tool.name,
    ...(tool.title !== undefined ? { title: tool.title } : {}),
    ...(tool.description !== undefined ? { description: tool.description } : {}),
    ...(tool.inputSchema !== undefined ? { inputSchema: tool.inputSchema } : {}),
    ...(tool.outputSchema !== undefined ? { outputSchema: tool.outputSchema } : {}),
    ...(tool.annotations !== undefined ? { annotations: { ...tool.annotations } } : {}),
  };
}

/** The fingerprint of a definition: SHA-256 (hex) of its canonical JSON (keys sorted). */
export function fingerprintOf(definition: PinnedDefinition): string {
  return createHash("sha256").update(canonicalJson(definition)).digest("hex");
}

/** A pin of this definition, now. */
export function pinOf(
  server: string,
  definition: PinnedDefinition,
  now = new Date(),
  trusted = false,
): ToolPin {
  return {
    server,
    tool: definition.name,
    fingerprint: fingerprintOf(definition),
    definition,
    pinnedAt: now.toISOString(),
    ...(trusted ? { trusted: true } : {}),
  };
}
