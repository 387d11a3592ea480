// The shared store suite against PostgreSQL: the database SWITCHYARD_TEST_POSTGRES_URL names (.ci/run
// starts one). Without it, these tests are skipped and say why.
import pg from "pg";
import { describe, expect, it } from "vitest";
import { openStore } from "../../src/index.js";
import { storeSuite } from "./store-suite.js";

const URL_VAR = "SWITCHYARD_TEST_POSTGRES_URL";
const url = process.env[URL_VAR];
const SKIP_REASON = `${URL_VAR} is not set (a postgres:// URL of a database the tests may empty; .ci/run starts one)`;
if (!url) console.warn(`test/store/postgres.test.ts: the PostgreSQL store tests are SKIPPED: ${SKIP_REASON}`);

async function exec(sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

/** An empty database each time: the tables dropped, then the store creates them again. */
async function fresh() {
  await exec("DROP TABLE IF EXISTS runs, steps, calls, sessions, audit, audit_head, switchyard_schema");
  const store = await openStore({ url: url! });
  return { store, target: url!, exec, reopen: () => openStore({ url: url! }) };
}

storeSuite("postgres", url ? fresh : undefined, SKIP_REASON);

describe.skipIf(!url)(`postgres store${url ? "" : ` — SKIPPED: ${SKIP_REASON}`}`, () => {
  it("says which server it cannot reach, without the password", async () => {
    await expect(openStore({ url: "postgres://someone:s3cret@127.0.0.1:1/none" })).rejects.toMatchObject({
      code: "STORE_ERROR",
      message: expect.stringMatching(
        /cannot connect to the store postgres:\/\/someone:\*\*\*@127\.0\.0\.1:1\/none/,
      ),
    });
    await expect(openStore({ url: "postgres://someone:s3cret@127.0.0.1:1/none" })).rejects.not.toThrow(
      /s3cret/,
    );
  });
});
