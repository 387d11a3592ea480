import { describe, expect, it } from "vitest";
import { ATTACK_KINDS, ATTACKS, CONTROLS } from "../../bench/security/attacks.js";
import { judgeControl, judgeFixture, type Scans } from "../../bench/security/evaluate.js";
import * as trust from "../../src/trust/index.js";

// The benchmark's attack fixtures (bench/security/attacks.ts), scanned by the source: each must be
// reported with its kind, high unless the fixture says it is medium by design; no clean control is high.

const scans: Scans = trust;

describe("the attack fixtures", () => {
  it("cover every kind of attack with at least eight fixtures, English and Chinese", () => {
    for (const kind of ATTACK_KINDS) {
      const fixtures = ATTACKS.filter((fixture) => fixture.kind === kind);
      expect(fixtures.length, kind).toBeGreaterThanOrEqual(8);
      expect(new Set(fixtures.map((fixture) => fixture.lang)), kind).toEqual(new Set(["en", "zh"]));
    }
  });

  it.each(ATTACKS.map((fixture) => [fixture.kind, fixture.id, fixture] as const))(
    "%s: %s is reported with its kind and severity",
    (_, __, fixture) => {
      const outcome = judgeFixture(scans, fixture);
      expect(outcome.expected, JSON.stringify(outcome.findings, null, 1)).toBe(fixture.severity ?? "high");
    },
  );

  it.each(CONTROLS.map((control) => [control.id, control] as const))(
    "clean control %s gives no high finding",
    (_, control) => {
      expect(judgeControl(scans, control)).not.toBe("high");
    },
  );
});
