// The shared store suite against PostgreSQL: the database SWITCHYARD_TEST_POSTGRES_URL names (.ci/run
// starts one). Without it, these tests are skipped and say why.
import { describe, expect, it } from "vitest";
import { openStore } from "../../src/index.js";
import type { StoreOptions } from "../../src/store/store.js";
import { auditSigningSuite } from "./audit-signing-suite.js";
import { execPostgres, freshSchema, POSTGRES_SKIP_REASON, POSTGRES_URL } from "./postgres-url.js";
import { storeSuite } from "./store-suite.js";

if (!POSTGRES_URL)
  console.warn(
    `test/store/postgres.test.ts: the PostgreSQL store tests are SKIPPED: ${POSTGRES_SKIP_REASON}`,
  );

/** An empty schema each time: the store creates its tables in it. */
async function fresh() {
  const url = await freshSchema("switchyard_suite");
  const store = await openStore({ url });
  return {
    store,
    target: url,
    exec: (sql: string) => execPostgres(sql, url),
    reopen: (options?: StoreOptions) => openStore({ url }, options),
  };
}

storeSuite("postgres", POSTGRES_URL ? fresh : undefined, POSTGRES_SKIP_REASON);
auditSigningSuite("postgres", POSTGRES_URL ? fresh : undefined, POSTGRES_SKIP_REASON);

describe.skipIf(!POSTGRES_URL)(
  `postgres store${POSTGRES_URL ? "" : ` — SKIPPED: ${POSTGRES_SKIP_REASON}`}`,
  () => {
    it("says which server it cannot reach, without the password", async () => {
      const failure = await openStore({ url: "postgres://someone:s3cret@127.0.0.1:1/none" }).catch(
        (error) => error,
      );
      expect(failure).toMatchObject({
        code: "STORE_ERROR",
        message: expect.stringMatching(
          /^cannot connect to the store postgres:\/\/someone:\*\*\*@127\.0\.0\.1:1\/none: /,
        ),
      });
      expect(failure.message).not.toContain("s3cret");
    });
  },
);
