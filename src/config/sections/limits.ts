// The `limits` section: caps over the whole fleet, on top of each server's own (`maxConcurrency`,
// `maxQueue`). Absent: no fleet-wide cap, and nothing is counted for one.

import { z } from "zod";
import { positiveInt } from "./fields.js";

/**
 * The `limits` section. `inFlight`: requests in flight at once over every server together; more wait,
 * `high` priority first, then `normal`, then `low` (calls/fleet-limit.ts), within their deadline.
 */
export const limitsSchema = z.strictObject({
  inFlight: positiveInt.optional(),
});

export type LimitsSection = z.infer<typeof limitsSchema>;
