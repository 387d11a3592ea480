import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { runCli } from "../helpers.js";
import { asked, booking } from "./booking.js";

const trip = (amount = 10) => ({
  steps: [
    { id: "hotel", tool: "b_book", args: { item: "hotel" } },
    { id: "pay", tool: "b_charge", args: { amount, ref: "{{steps.hotel.structured.bookingId}}" } },
    {
      id: "note",
      tool: "b_book",
      args: { item: "note for {{steps.hotel.structured.bookingId}}" },
      needs: ["pay"],
    },
  ],
  outputs: { hotel: "{{steps.hotel.structured.bookingId}}", paid: "{{steps.pay.text}}" },
});

/** A fleet of one booking server whose first charge fails, a store in the folder, and the plan. */
function setUp() {
  const dir = mkdtempSync(path.join(tmpdir(), "switchyard-resume-"));
  const log = path.join(dir, "calls.jsonl");
  const failOnce = path.join(dir, "fail-once");
  writeFileSync(failOnce, "");
  const config = path.join(dir, "fleet.json");
  writeFileSync(
    config,
    JSON.stringify({ mcpServers: { b: booking(log, failOnce) }, store: { path: path.join(dir, "runs.db") } }),
  );
  const planFile = path.join(dir, "trip.json");
  writeFileSync(planFile, JSON.stringify(trip()));
  return { dir, log, config, planFile };
}

describe("switchyard run --resume", () => {
  it("continues a failed run after its last completed step, with that step's stored output", async () => {
    const { log, config, planFile } = setUp();
    const first = await runCli(["--config", config, "--json", "run", planFile]);
    expect(first.code).toBe(1);
    const failed = JSON.parse(first.stdout);
    expect(failed.steps.map((s: { id: string; ok: boolean }) => [s.id, s.ok])).toEqual([
      ["hotel", true],
      ["pay", false],
      ["note", false],
    ]);

    const second = await runCli(["--config", config, "--json", "run", planFile, "--resume", failed.runId]);
    // Only the steps left ran (each reported as it finished): hotel was restored, not run.
    expect(second.stderr).toMatch(/ok +pay \(b_charge\)/);
    expect(second.stderr).not.toMatch(/hotel/);
    expect(second.code).toBe(0);
    const resumed = JSON.parse(second.stdout);
    expect(resumed.runId).toBe(failed.runId);
    expect(resumed.ok).toBe(true);
    // hotel was not booked again: the server saw one book of it, and pay and note read its stored id.
    const seen = asked(log);
    expect(seen.map((c) => c.tool)).toEqual(["book", "charge", "charge", "book"]);
    const bookingId = resumed.outputs.hotel as string;
    expect(bookingId).toMatch(/^bk-\d+-1-hotel$/);
    expect(seen[2]!.args).toEqual({ amount: 10, ref: bookingId });
    expect(seen[3]!.args).toEqual({ item: `note for ${bookingId}` });
    expect(
      resumed.steps.map((s: { id: string; ok: boolean; restored?: boolean }) => [
        s.id,
        s.ok,
        s.restored ?? false,
      ]),
    ).toEqual([
      ["hotel", true, true],
      ["pay", true, false],
      ["note", true, false],
    ]);

    // Finished: there is nothing left to resume.
    const third = await runCli(["--config", config, "run", planFile, "--resume", failed.runId]);
    expect(third.code).toBe(2);
    expect(third.stderr).toMatch(new RegExp(`run ${failed.runId} finished ok: there is nothing to resume`));
    expect(asked(log).length).toBe(4);
  });

  it("refuses an unknown run, and a plan that changed since the run", async () => {
    const { log, config, planFile } = setUp();
    const unknown = await runCli(["--config", config, "run", planFile, "--resume", "run_nope"]);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/no plan run run_nope is recorded in .*runs\.db/);
    const first = await runCli(["--config", config, "--json", "run", planFile]);
    const { runId } = JSON.parse(first.stdout);
    writeFileSync(planFile, JSON.stringify(trip(20)));
    const changed = await runCli(["--config", config, "run", planFile, "--resume", runId]);
    expect(changed.code).toBe(2);
    expect(changed.stderr).toMatch(
      new RegExp(`${path.basename(planFile)} is not the plan run ${runId} ran \\(it changed since\\)`),
    );
    expect(asked(log).map((c) => c.tool)).toEqual(["book", "charge"]);
  });
});
