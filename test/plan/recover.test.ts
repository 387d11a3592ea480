import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Switchyard } from "../../src/index.js";
import { checkPlan, runPlan } from "../../src/plan/index.js";
import { runCli } from "../helpers.js";
import { asked, booking } from "./booking.js";

const trip = (amount: number, onFailure?: "compensate" | "stop") => ({
  ...(onFailure ? { onFailure } : {}),
  steps: [
    {
      id: "hotel",
      tool: "b_book",
      args: { item: "hotel" },
      compensate: { tool: "b_cancel", args: { bookingId: "{{steps.hotel.structured.bookingId}}" } },
    },
    {
      id: "flight",
      tool: "b_book",
      args: { item: "flight" },
      needs: ["hotel"],
      compensate: { tool: "b_cancel", args: { bookingId: "{{steps.flight.structured.bookingId}}" } },
    },
    { id: "pay", tool: "b_charge", args: { amount }, needs: ["flight"] },
  ],
});

describe("a plan that compensates", () => {
  const dir = mkdtempSync(path.join(tmpdir(), "switchyard-recover-"));
  const log = path.join(dir, "calls.jsonl");
  let yard: Switchyard;
  beforeAll(async () => {
    yard = await Switchyard.connect({ mcpServers: { b: booking(log) } });
  });
  afterAll(async () => {
    await yard.close();
  });

  it("undoes completed steps in reverse order when a later step fails, through the pipeline", async () => {
    const before = asked(log).length;
    const calls: string[] = [];
    const result = await runPlan(checkPlan(trip(5000, "compensate")), {
      host: yard,
      onEvent: (event) => {
        if (event.type === "call_finished") calls.push(event.id);
      },
    });
    expect(result.ok).toBe(false);
    const seen = asked(log).slice(before);
    expect(seen.map((c) => c.tool)).toEqual(["book", "book", "charge", "cancel", "cancel"]);
    expect(seen[3]!.args.bookingId).toMatch(/-flight$/);
    expect(seen[4]!.args.bookingId).toMatch(/-hotel$/);
    expect(result.compensations).toEqual([
      { id: "flight", name: "b_cancel", ok: true, ms: expect.any(Number) },
      { id: "hotel", name: "b_cancel", ok: true, ms: expect.any(Number) },
    ]);
    // Each compensation went through the pipeline as a call of the run, and is in its record.
    expect(calls).toEqual(["hotel", "flight", "pay", "flight.compensate", "hotel.compensate"]);
    expect(result.record.calls.map((c) => [c.id, c.ok])).toEqual([
      ["hotel", true],
      ["flight", true],
      ["pay", false],
      ["flight.compensate", true],
      ["hotel.compensate", true],
    ]);
    expect(result.record.error?.message).toMatch(/^step pay: .*compensated: flight, hotel/);
  });

  it("reports a failed compensation and still runs the rest", async () => {
    const plan = trip(5000, "compensate");
    plan.steps[1]!.compensate = { tool: "b_cancel", args: { bookingId: "bk-stuck" } };
    const before = asked(log).length;
    const result = await runPlan(checkPlan(plan), { host: yard });
    expect(
      asked(log)
        .slice(before)
        .map((c) => [c.tool, c.args.bookingId ?? c.args.item ?? c.args.amount]),
    ).toEqual([
      ["book", "hotel"],
      ["book", "flight"],
      ["charge", 5000],
      ["cancel", "bk-stuck"],
      ["cancel", expect.stringMatching(/-hotel$/)],
    ]);
    expect(result.compensations).toEqual([
      {
        id: "flight",
        name: "b_cancel",
        ok: false,
        ms: expect.any(Number),
        error: { code: "TOOL_ERROR", message: "cannot cancel bk-stuck" },
      },
      { id: "hotel", name: "b_cancel", ok: true, ms: expect.any(Number) },
    ]);
  });

  it("compensates nothing without onFailure: compensate, or when every step succeeds", async () => {
    const before = asked(log).length;
    const stopped = await runPlan(checkPlan(trip(5000)), { host: yard });
    expect(stopped.ok).toBe(false);
    expect(stopped.compensations).toBeUndefined();
    const fine = await runPlan(checkPlan(trip(10, "compensate")), { host: yard });
    expect(fine.ok).toBe(true);
    expect(fine.compensations).toBeUndefined();
    expect(
      asked(log)
        .slice(before)
        .map((c) => c.tool),
    ).toEqual(["book", "book", "charge", "book", "book", "charge"]);
  });

  it("refuses a compensation that names an unknown tool or step before anything runs", async () => {
    const plan = trip(5000, "compensate");
    plan.steps[0]!.compensate = { tool: "b_uncancel", args: { bookingId: "x" } };
    const before = asked(log).length;
    await expect(runPlan(checkPlan(plan), { host: yard })).rejects.toThrow(
      /step hotel compensates with tool b_uncancel, which is not in the catalog/,
    );
    expect(asked(log).length).toBe(before);
    const ghost = trip(5000, "compensate");
    ghost.steps[0]!.compensate = { tool: "b_cancel", args: { bookingId: "{{steps.ghost.text}}" } };
    expect(() => checkPlan(ghost)).toThrow(/step hotel's compensate uses \{\{steps\.ghost\.text\}\}/);
  });
});

describe("switchyard run with onFailure: compensate", () => {
  it("prints what was compensated (--json: compensations) and exits 1", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "switchyard-recover-cli-"));
    const log = path.join(dir, "calls.jsonl");
    const config = path.join(dir, "fleet.json");
    const planFile = path.join(dir, "trip.json");
    writeFileSync(config, JSON.stringify({ mcpServers: { b: booking(log) }, store: false }));
    writeFileSync(planFile, JSON.stringify(trip(5000, "compensate")));
    const json = await runCli(["--config", config, "--json", "run", planFile]);
    expect(json.code).toBe(1);
    expect(JSON.parse(json.stdout).compensations).toEqual([
      { id: "flight", name: "b_cancel", ok: true, ms: expect.any(Number) },
      { id: "hotel", name: "b_cancel", ok: true, ms: expect.any(Number) },
    ]);
    const text = await runCli(["--config", config, "run", planFile]);
    expect(text.stdout).toMatch(
      /compensated:\n {2}flight \(b_cancel\) undone\n {2}hotel \(b_cancel\) undone/,
    );
    expect(asked(log).map((c) => c.tool)).toEqual([
      ...["book", "book", "charge", "cancel", "cancel"],
      ...["book", "book", "charge", "cancel", "cancel"],
    ]);
  });
});
