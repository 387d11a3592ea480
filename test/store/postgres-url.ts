// The PostgreSQL database the tests use (SWITCHYARD_TEST_POSTGRES_URL), one schema per test file, so
// that files running at once never empty each other's tables.
import pg from "pg";

export const POSTGRES_URL_VAR = "SWITCHYARD_TEST_POSTGRES_URL";
export const POSTGRES_URL = process.env[POSTGRES_URL_VAR];
export const POSTGRES_SKIP_REASON = `${POSTGRES_URL_VAR} is not set (a postgres:// URL of a database the tests may write to; .ci/run starts one)`;

/** Run SQL on the test database (any schema). */
export async function execPostgres(sql: string, url = POSTGRES_URL): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

/** An empty schema of its own, and the URL that works in it (its `search_path`). */
export async function freshSchema(name: string): Promise<string> {
  await execPostgres(`DROP SCHEMA IF EXISTS ${name} CASCADE; CREATE SCHEMA ${name}`);
  const url = new URL(POSTGRES_URL!);
  url.searchParams.set("options", `-c search_path=${name}`);
  return url.toString();
}
