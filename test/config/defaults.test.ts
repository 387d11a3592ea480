import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import * as defaults from "../../src/config/defaults.js";
import { resolveConfig } from "../../src/config/index.js";
import {
  LOG_LEVELS,
  quotedList,
  STRATEGY_NAMES,
  TRANSPORT_KINDS,
  TRANSPORT_TYPES,
} from "../../src/config/vocabulary.js";
import { STRATEGY_NAMES as ROUTING_STRATEGY_NAMES } from "../../src/routing/create-strategy.js";
import { LOG_LEVELS as LOGGER_LOG_LEVELS } from "../../src/telemetry/logger.js";

const root = path.resolve(import.meta.dirname, "../..");

function rejection(raw: unknown): string {
  try {
    resolveConfig(raw, { baseDir: "/cfg", env: {} });
  } catch (error) {
    return (error as Error).message;
  }
  throw new Error("expected the config to be rejected");
}

/** The rows of docs/contract.md's "Defaults" table, by name: the cells after the name. */
function contractRows(): Map<string, string[]> {
  const text = readFileSync(path.join(root, "docs/contract.md"), "utf8");
  const section = text.split(/^## Defaults$/m)[1]?.split(/^## /m)[0] ?? "";
  const rows = new Map<string, string[]>();
  for (const line of section.split("\n")) {
    const cells = line.split("|").map((cell) => cell.trim());
    const name = /^`(DEFAULT_\w+)`$/.exec(cells[1] ?? "")?.[1];
    if (name) rows.set(name, cells.slice(2, -1));
  }
  return rows;
}

describe("defaults", () => {
  it("are all documented in docs/contract.md, each with its value", () => {
    const rows = contractRows();
    const entries = Object.entries(defaults).filter(([name]) => name.startsWith("DEFAULT_"));
    expect(entries.length).toBeGreaterThan(40);
    expect([...rows.keys()].sort()).toEqual(entries.map(([name]) => name).sort());
    for (const [name, value] of entries) {
      const cell = rows.get(name)![0]!;
      if (typeof value === "number" || typeof value === "boolean") expect(cell, name).toBe(`\`${value}\``);
      else if (typeof value === "string" && value.length <= 40) expect(cell, name).toBe(`\`"${value}"\``);
      else if (typeof value === "string") expect(cell, name).toContain(value.slice(0, 30));
      else if (Array.isArray(value))
        for (const item of value)
          expect(cell, name).toContain(typeof item === "number" ? `${item}` : `"${item}"`);
      else {
        for (const [key, field] of Object.entries(value as object))
          expect(cell, name).toContain(`${key}: ${field}`);
      }
    }
  });

  it("are all exported by src/config/defaults.ts, whichever file of src/config defines them", async () => {
    const folder = path.join(root, "src/config");
    const files = readdirSync(folder, { recursive: true, encoding: "utf8" }).filter((file) =>
      file.endsWith(".ts"),
    );
    const barrel: Record<string, unknown> = defaults;
    const defined = new Set<string>();
    for (const file of files) {
      const module = (await import(path.join(folder, file))) as Record<string, unknown>;
      for (const [name, value] of Object.entries(module)) {
        if (!name.startsWith("DEFAULT_")) continue;
        expect(barrel[name], `${name} of src/config/${file}`).toBe(value);
        defined.add(name);
      }
    }
    expect([...defined].sort()).toEqual(Object.keys(barrel).sort());
  });

  it("carry their unit in the name when they have one", () => {
    for (const [name, value] of Object.entries(defaults)) {
      if (
        /TIMEOUT|DELAY|BACKOFF|GRACE|INTERVAL|WAIT|COOLDOWN|LIMIT/.test(name) &&
        typeof value === "number"
      ) {
        expect(name, name).toMatch(/_MS$/);
      }
    }
  });

  it("are frozen where they are objects, so no caller changes them for everyone", () => {
    for (const [name, value] of Object.entries(defaults)) {
      if (typeof value === "object" && value !== null) expect(Object.isFrozen(value), name).toBe(true);
    }
  });

  it("fill every per-server key a config leaves out", () => {
    const [server] = resolveConfig(
      { mcpServers: { a: { command: "node" } } },
      { baseDir: "/cfg", env: {} },
    ).servers;
    expect(server).toMatchObject({
      timeoutMs: defaults.DEFAULT_CALL_TIMEOUT_MS,
      connectTimeoutMs: defaults.DEFAULT_CONNECT_TIMEOUT_MS,
      maxConcurrency: defaults.DEFAULT_CONCURRENCY.max,
      concurrency: { mode: "adaptive", ...defaults.DEFAULT_CONCURRENCY },
      maxQueue: defaults.DEFAULT_MAX_QUEUE,
      maxResultBytes: defaults.DEFAULT_MAX_RESULT_BYTES,
      retry: defaults.DEFAULT_RETRY,
      health: defaults.DEFAULT_HEALTH,
      restart: defaults.DEFAULT_RESTART,
      circuitBreaker: defaults.DEFAULT_CIRCUIT_BREAKER,
      versionNegotiation: defaults.DEFAULT_VERSION_NEGOTIATION,
    });
    expect(server!.maxTotalTimeoutMs).toBeUndefined();
  });

  it("are filled key by key when a section is given in part", () => {
    const [server] = resolveConfig(
      {
        mcpServers: { a: { command: "node", retry: { maxRetries: 0 }, circuitBreaker: { cooldownMs: 10 } } },
      },
      { baseDir: "/cfg", env: {} },
    ).servers;
    expect(server!.retry).toEqual({ maxRetries: 0, backoffMs: defaults.DEFAULT_RETRY_BACKOFF_MS });
    expect(server!.circuitBreaker).toEqual({
      failureThreshold: defaults.DEFAULT_BREAKER_FAILURE_THRESHOLD,
      cooldownMs: 10,
    });
    expect(server!.retry).not.toBe(defaults.DEFAULT_RETRY);
  });
});

describe("vocabulary", () => {
  it("builds the schema's enums and their messages from one list each", () => {
    expect(rejection({ mcpServers: { a: { command: "node", transport: "ftp" } } })).toBe(
      `mcpServers.a.transport: expected ${quotedList(TRANSPORT_KINDS)}`,
    );
    expect(rejection({ mcpServers: {}, routing: { strategy: "magic" } })).toBe(
      `routing.strategy: expected ${quotedList(STRATEGY_NAMES)}`,
    );
    expect(quotedList(STRATEGY_NAMES)).toBe('"lexical", "two-stage", "embedding", "hybrid" or "plain-bm25"');
    for (const type of TRANSPORT_TYPES) {
      const config = resolveConfig(
        { mcpServers: { a: { type, command: "node", url: "http://127.0.0.1:1/mcp" } } },
        { baseDir: "/cfg", env: {} },
      );
      expect(TRANSPORT_KINDS).toContain(config.servers[0]!.transport);
    }
  });

  it("is the one the other layers use", () => {
    expect(LOGGER_LOG_LEVELS).toBe(LOG_LEVELS);
    expect(ROUTING_STRATEGY_NAMES).toBe(STRATEGY_NAMES);
  });
});
