// The `store` section: where run records, sessions and the audit log are kept, with the store's defaults
// (its file, its databases' limits, how much of each text a record keeps).

import { z } from "zod";

/** Whether the CLI records its runs, calls, sessions and audit log when the config has no `store` section. */
export const DEFAULT_RECORDING = true;
/** The embedded store's file name, in `$XDG_DATA_HOME/switchyard/` (else `~/.local/share/switchyard/`). */
export const DEFAULT_STORE_FILE = "switchyard.db";
/** How long a SQLite write waits for another process's write to finish before it fails. */
export const DEFAULT_STORE_BUSY_TIMEOUT_MS = 5_000;
/** Connections the PostgreSQL store keeps open at most. */
export const DEFAULT_POSTGRES_CONNECTIONS = 4;
/** Audit entries the PostgreSQL store appends in one transaction at most (the ones that waited). */
export const DEFAULT_AUDIT_BATCH_ROWS = 256;
/** Characters kept of each recorded text (a question, arguments, what the model said, an error). */
export const DEFAULT_RECORD_TEXT_CHARS = 2_000;

/** Characters of a tool's error text kept in a call's record (the model sees the whole, within budget). */
export const DEFAULT_RECORDED_ERROR_CHARS = 500;

/**
 * Where run records, sessions and the audit log are kept: `{ path }` a SQLite file, `{ url }` a
 * PostgreSQL database (`postgres://…`); `false`: the CLI records nothing.
 */
export const storeSchema = z.union(
  [
    z.literal(false),
    z.strictObject({
      path: z
        .string({ error: "expected the SQLite file's path" })
        .min(1, "expected a non-empty path")
        .optional(),
      url: z
        .string({ error: 'expected a PostgreSQL URL, such as "postgres://user@host/db"' })
        .refine((url) => /^postgres(ql)?:\/\//i.test(url) && URL.canParse(url), {
          error: 'expected a PostgreSQL URL, such as "postgres://user@host/db"',
        })
        .optional(),
    }),
  ],
  {
    error:
      'expected { "path": file } (SQLite), { "url": "postgres://…" } (PostgreSQL) or false (record nothing)',
  },
);

/** A resolved `store` section: a path made absolute, or a URL; `false` turns recording off. */
export type StoreSection = { path?: string | undefined; url?: string | undefined } | false;
