import { rmSync, writeFileSync } from "node:fs";
import { setImmediate as nextTurn } from "node:timers/promises";
import type { Client } from "@modelcontextprotocol/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createGateway, type Gateway, type HttpListener, listenHttp } from "../../src/gateway/index.js";
import { Switchyard } from "../../src/index.js";
import { arrivals, pacedFleet, started } from "../calls/paced.js";
import { type Era, httpClient, textOf } from "./fleet.js";

// A gateway client says how urgent its calls are — the `X-Switchyard-Priority` header, or
// `_meta["switchyard/priority"]` on its request — and a fleet-wide limit serves them in that order, as the
// servers saw them arrive.

let yard: Switchyard;
let gateway: Gateway;
let listener: HttpListener;
let log: string;
/** Labels of the calls the pipeline has handed to their server's guard (where they wait for the fleet). */
const handed: string[] = [];

beforeAll(async () => {
  const fleet = pacedFleet({ limits: { inFlight: 1 } });
  log = fleet.log;
  yard = await Switchyard.connect(fleet.config);
  yard.use({
    before: (request) => {
      handed.push(String(request.args.label));
      return undefined;
    },
  });
  gateway = createGateway(yard);
  listener = await listenHttp(gateway, { port: 0 });
}, 60_000);

afterAll(async () => {
  await listener?.close();
  await gateway?.close();
  await yard?.close();
});

/** Until the pipeline has handed these calls on, and they have had the turn to join the fleet's queue. */
async function queued(...labels: string[]): Promise<void> {
  while (!labels.every((label) => handed.includes(label)))
    await new Promise((resolve) => setTimeout(resolve, 10));
  await nextTurn();
}

describe.each<Era>(["legacy", "modern"])("priority over the gateway's HTTP (%s)", (era) => {
  const clients: Client[] = [];
  afterAll(async () => {
    for (const client of clients) await client.close();
  });
  const client = async (headers?: Record<string, string>) => {
    const made = await httpClient(listener.url, era, headers ? { headers } : {});
    clients.push(made);
    return made;
  };

  it("serves a call marked high before the normal and low ones queued earlier", async () => {
    const low = await client({ "X-Switchyard-Priority": "low" });
    const plain = await client();
    const high = await client({ "x-switchyard-priority": "HIGH" });
    const tag = `${era}-`;
    const before = arrivals(log).length;
    const blocker = yard.callTool("a_work", { label: `${tag}blocker`, gate: true });
    await started(log, `${tag}blocker`);
    const calls = [
      low.callTool({ name: "b_work", arguments: { label: `${tag}low1` } }),
      plain.callTool({
        name: "a_work",
        arguments: { label: `${tag}low2` },
        _meta: { "switchyard/priority": "low" },
      }),
    ];
    await queued(`${tag}low1`, `${tag}low2`);
    calls.push(plain.callTool({ name: "b_work", arguments: { label: `${tag}normal1` } }));
    await queued(`${tag}normal1`);
    calls.push(high.callTool({ name: "a_work", arguments: { label: `${tag}high1` } }));
    await queued(`${tag}high1`);
    writeFileSync(`${log}.go`, "");
    const results = await Promise.all([blocker, ...calls]);
    expect(results.map(textOf).slice(1)).toEqual([
      `done ${tag}low1`,
      `done ${tag}low2`,
      `done ${tag}normal1`,
      `done ${tag}high1`,
    ]);
    expect(arrivals(log).slice(before)).toEqual(
      ["blocker", "high1", "normal1", "low1", "low2"].map((label) => tag + label),
    );
    rmSync(`${log}.go`);
  });

  it("refuses a call whose priority is none of the three, naming it (nothing is sent)", async () => {
    const odd = await client({ "X-Switchyard-Priority": "urgent" });
    const before = arrivals(log).length;
    const refused = await odd
      .callTool({ name: "a_work", arguments: { label: `${era}-odd` } })
      .catch((error: unknown) => error);
    expect(refused).toMatchObject({ code: -32602 });
    expect(String((refused as Error).message)).toContain(
      'priority for a_work must be "high", "normal" or "low"',
    );
    expect(arrivals(log).length).toBe(before);
  });
});
