// The facade's trust: the gate the catalog asks before it lists a server's tools, with its pins taken
// from the store and kept there, and its findings told to the logger, the observers, the audit log and
// the store (the viewer's Servers page).
import type { Catalog } from "./catalog/catalog.js";
import { TrustGate } from "./catalog/trust-gate.js";
import { DEFAULT_ON_FINDING } from "./config/defaults.js";
import type { SwitchyardConfig } from "./config/schema.js";
import { didYouMean, messageOf, SwitchyardError } from "./errors.js";
import type { Fleet } from "./fleet/fleet.js";
import type { Store } from "./store/store.js";
import type { AuditSink } from "./telemetry/audit.js";
import type { SwitchyardEvent } from "./telemetry/events.js";
import type { Finding } from "./telemetry/findings.js";
import type { Logger } from "./telemetry/logger.js";
import { stripHidden } from "./trust/hidden-text.js";
import type { ToolPin } from "./trust/pins.js";

export interface TrustParts {
  logger: Logger;
  store?: Store | undefined;
  audit?: AuditSink | undefined;
  /** Hand an event to the observers (late-bound: the facade's observers exist after the gate). */
  emit(event: SwitchyardEvent): void;
}

/** The pins kept in the store, or none (no store, or one that cannot be read: said, and went on without). */
export async function storedPins(store: Store | undefined, logger: Logger): Promise<ToolPin[]> {
  if (!store) return [];
  try {
    return await store.loadPins();
  } catch (error) {
    logger.warn(
      { err: error },
      `store: the tool pins could not be read, so every tool is pinned afresh: ${messageOf(error)}`,
    );
    return [];
  }
}

/** A trust gate, and the wait for what it is still writing (pins, findings, audit rows). */
export interface Trust {
  gate: TrustGate;
  /** Resolves once every write begun so far has ended (a failed one was logged). */
  flush(): Promise<void>;
}

/** The trust gate of a config: `security.onFinding`, the pins, and where findings are told. */
export function trustGate(config: SwitchyardConfig, pins: readonly ToolPin[], parts: TrustParts): Trust {
  const { logger, store, audit } = parts;
  const onFinding = config.security?.onFinding ?? DEFAULT_ON_FINDING;
  const pending = new Set<Promise<unknown>>();
  const keep = (what: string, write: () => Promise<unknown> | unknown) => {
    const written = Promise.resolve()
      .then(write)
      .catch((error: unknown) =>
        logger.warn({ err: error }, `store: ${what} could not be kept: ${messageOf(error)}`),
      )
      .finally(() => pending.delete(written));
    pending.add(written);
  };
  const said = new Set<string>();
  const gate = new TrustGate({
    onFinding,
    pins,
    ...(store ? { savePins: (fresh) => keep("tool pins", () => store.savePins(fresh)) } : {}),
    onFindings: (server, findings, quarantined) => {
      const time = new Date().toISOString();
      const held = new Set(quarantined);
      for (const finding of findings) {
        const key = `${server}\0${finding.tool ?? ""}\0${finding.kind}\0${finding.detail}`;
        if (finding.severity !== "high" || said.has(key)) continue;
        said.add(key);
        const what = finding.tool !== undefined ? `tool ${finding.tool}` : "its text";
        const fate = finding.tool !== undefined && held.has(finding.tool) ? "quarantined" : "flagged";
        logger.warn(
          { server, tool: finding.tool, kind: finding.kind },
          `[${server}] ${what} ${fate}: ${finding.kind}: ${finding.detail}${fate === "quarantined" ? ` (switchyard trust ${server}${finding.tool !== undefined ? ` --tool ${finding.tool}` : ""} accepts it)` : ""}`,
        );
        if (audit)
          keep("a finding's audit row", () =>
            audit.append({
              time,
              kind: "finding",
              server,
              ...(finding.tool !== undefined ? { tool: finding.tool } : {}),
              outcome: fate === "quarantined" ? "quarantined" : finding.severity,
              summary: `${finding.kind}: ${finding.detail}`.slice(0, 200),
            }),
          );
      }
      parts.emit({ type: "findings", server, time, findings: [...findings], quarantined: [...quarantined] });
      if (store)
        keep("findings", () =>
          store.saveFindings(
            server,
            findings.map((finding) => ({
              ...finding,
              foundAt: time,
              quarantined: finding.tool !== undefined && held.has(finding.tool),
            })),
          ),
        );
    },
  });
  return {
    gate,
    async flush() {
      while (pending.size) await Promise.all(pending);
    },
  };
}

/**
 * Accept a server's tools (or one, by its own name) as it lists them now: pinned again as trusted, and
 * listed again, so what drift or a scan held is released. Returns the pins.
 * @throws SwitchyardError `INVALID_INPUT` for a server or a tool that is not there.
 */
export function trustTools(
  parts: { fleet: Fleet; gate: TrustGate; catalog: Catalog },
  server: string,
  tool?: string,
): ToolPin[] {
  const connection = typeof server === "string" ? parts.fleet.get(server) : undefined;
  if (!connection) {
    const names = parts.fleet.connections().map((known) => known.name);
    throw new SwitchyardError(
      "INVALID_INPUT",
      [`no server named ${String(server)} in the config`, didYouMean(String(server), names)]
        .filter(Boolean)
        .join("; "),
    );
  }
  const tools = connection.lists.tools;
  if (tool !== undefined && !tools.some((listed) => listed.name === tool)) {
    const names = tools.map((listed) => listed.name);
    throw new SwitchyardError(
      "INVALID_INPUT",
      [`server ${server} lists no tool named ${String(tool)}`, didYouMean(String(tool), names)]
        .filter(Boolean)
        .join("; "),
      { server },
    );
  }
  const pins = parts.gate.trust(server, tool);
  parts.catalog.setServerTools(server, tools);
  return pins;
}

/** A server's `instructions` as the model may be given them: hidden text removed, and its cap. */
export interface ServerInstructions {
  server: string;
  text: string;
  /** The most tokens of it the model is given (`instructions: { maxTokens }`). */
  maxTokens: number;
}

/**
 * The instructions of these servers the model may be given, in config order: none for a server whose
 * config says `instructions: false`, or whose instructions hold a high finding (quarantine mode).
 */
export function instructionsFor(
  parts: { config: SwitchyardConfig; fleet: Fleet; gate: TrustGate },
  servers: ReadonlySet<string>,
): ServerInstructions[] {
  return parts.config.servers.flatMap((server) => {
    if (!servers.has(server.name) || server.instructionsMaxTokens === 0) return [];
    const text = parts.fleet.get(server.name)?.instructions;
    if (!text?.trim() || parts.gate.withholdsInstructions(server.name)) return [];
    return [{ server: server.name, text: stripHidden(text), maxTokens: server.instructionsMaxTokens }];
  });
}

export type { Finding };
