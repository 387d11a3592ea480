// The `audit` section: what a request does when its audit entry cannot be written, and the key that
// signs the audit log's rows and checkpoints (kept outside the database, so whoever can write the
// database cannot rewrite the chain unseen).

import { z } from "zod";
import { AUDIT_WRITE_ERROR_MODES, type AuditWriteErrorMode, quotedList } from "../vocabulary.js";

/** A request whose audit entry cannot be written fails (the caller never gets a result without its row). */
export const DEFAULT_AUDIT_ON_WRITE_ERROR: AuditWriteErrorMode = "fail";
/** Characters an `audit.key` has at least (a key shorter than this is too easy to guess). */
export const DEFAULT_AUDIT_KEY_MIN_CHARS = 16;

export const auditSchema = z.strictObject(
  {
    onWriteError: z
      .enum(AUDIT_WRITE_ERROR_MODES, { error: `expected ${quotedList(AUDIT_WRITE_ERROR_MODES)}` })
      .optional(),
    key: z
      .string({ error: `expected the key, such as "\${SWITCHYARD_AUDIT_KEY}" (from the environment)` })
      .min(
        DEFAULT_AUDIT_KEY_MIN_CHARS,
        `expected a key of at least ${DEFAULT_AUDIT_KEY_MIN_CHARS} characters (such as the output of \`openssl rand -hex 32\`), given as "\${SWITCHYARD_AUDIT_KEY}"`,
      )
      .optional(),
  },
  { error: `expected { "onWriteError"?: ${quotedList(AUDIT_WRITE_ERROR_MODES)}, "key"?: "\${VAR}" }` },
);

export type AuditSection = z.infer<typeof auditSchema>;
