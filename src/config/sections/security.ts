// The `security` section: what Switchyard does with what a scan finds in a server's definitions
// (trust/): quarantine the tool (the default), only warn, or not scan at all.

import { z } from "zod";
import { ON_FINDING_MODES, type OnFinding, quotedList } from "../vocabulary.js";

/** Servers are strangers' code: a tool with a high finding is quarantined unless the config says otherwise. */
export const DEFAULT_ON_FINDING: OnFinding = "quarantine";

export const securitySchema = z.strictObject(
  {
    onFinding: z.enum(ON_FINDING_MODES, { error: `expected ${quotedList(ON_FINDING_MODES)}` }).optional(),
  },
  { error: `expected { "onFinding"?: ${quotedList(ON_FINDING_MODES)} }` },
);

export type SecuritySection = z.infer<typeof securitySchema>;
