// The redactor's own rules for secrets that have no telltale key: credentials inside ordinary values, the
// values a config fills into a server's env and headers, and values nested too deep to walk.
import { describe, expect, it } from "vitest";
import { resolveConfig } from "../../src/config/resolve.js";
import { Redactor } from "../../src/index.js";
import { MAX_REDACT_DEPTH, REDACTED, TOO_DEEP } from "../../src/telemetry/redact.js";

const redactor = new Redactor({ env: false });

/** `value` wrapped in `levels` objects: `{ child: { child: … value } }`. */
function nested(levels: number, value: unknown): unknown {
  let wrapped = value;
  for (let level = 0; level < levels; level++) wrapped = { child: wrapped };
  return wrapped;
}

describe("redaction of credentials without a secret name", () => {
  it("replaces a URL's password and what follows Authorization in any text, and nothing else", () => {
    expect(redactor.text("could not reach postgres://app_user:pass@db:5432/orders")).toBe(
      `could not reach postgres://app_user:${REDACTED}@db:5432/orders`,
    );
    expect(redactor.text("clone https://x:token@github.example/r.git and redis://:pw@cache")).toBe(
      `clone https://x:${REDACTED}@github.example/r.git and redis://:${REDACTED}@cache`,
    );
    expect(redactor.text("sent Authorization: Bearer xyz; then gave up")).toBe(
      `sent Authorization: ${REDACTED}; then gave up`,
    );
    expect(redactor.text('{"authorization":"Basic dXNlcjpwYXNz","proxy-authorization": "abc"}')).toBe(
      `{"authorization":"${REDACTED}","proxy-authorization": "${REDACTED}"}`,
    );
    // Inside a JSON text inside a string (a record's JSON, logged).
    expect(redactor.text(JSON.stringify({ text: "Authorization: Token t1" }))).toBe(
      JSON.stringify({ text: `Authorization: ${REDACTED}` }),
    );
    // What has no credential stays: a port, a user alone, advice that shows a placeholder.
    for (const plain of [
      "https://example.com:8080/path@v2",
      "ssh://git@example.com/repo",
      'set "Authorization": "Bearer ${TOKEN}" with TOKEN from the environment',
      "expected Authorization: Bearer <token>",
    ])
      expect(redactor.text(plain)).toBe(plain);
  });

  it("cuts a value nested deeper than 32 levels instead of leaving it unredacted", () => {
    const deep = nested(MAX_REDACT_DEPTH + 8, { password: "hunter2-deep", note: "postgres://u:pw@h" });
    const clean = JSON.stringify(redactor.value(deep));
    expect(clean).not.toContain("hunter2-deep");
    expect(clean).not.toContain(":pw@");
    expect(clean).toContain(TOO_DEEP);
    // As deep as it is walked, it is redacted member by member, not cut.
    const shallow = JSON.stringify(
      redactor.value(nested(MAX_REDACT_DEPTH - 1, { password: "hunter2-deep" })),
    );
    expect(shallow).toContain("[REDACTED:password]");
    expect(shallow).not.toContain(TOO_DEEP);
    // A JSON text of a deep value (a call's arguments) likewise.
    expect(redactor.json(JSON.stringify(deep))).not.toContain("hunter2-deep");
    // Arrays count as levels too.
    let list: unknown = ["ghp-less secret: postgres://a:deep-secret@h"];
    for (let level = 0; level < 40; level++) list = [list];
    expect(JSON.stringify(redactor.value(list))).not.toContain("deep-secret");
  });

  it("knows what a config filled into a server's env and headers, and the passwords of its URLs", () => {
    const config = resolveConfig(
      {
        mcpServers: {
          db: {
            command: "node",
            args: ["server.mjs", "--dsn", "postgres://reader:arg-password-1@db/app"],
            env: { UPSTREAM_HANDLE: "${PLAIN_NAMED}", DATABASE_URL: "mysql://app:env-password-2@db/app" },
          },
          remote: { url: "http://127.0.0.1:9/mcp", headers: { "X-Custom": "${OTHER_PLAIN}" } },
        },
      },
      { env: { PLAIN_NAMED: "handle-value-3", OTHER_PLAIN: "header-value-4", UNUSED: "not-a-secret-5" } },
    );
    const fromConfig = Redactor.fromConfig(config, false);
    const said = "handle-value-3 header-value-4 arg-password-1 env-password-2 not-a-secret-5";
    expect(fromConfig.text(said)).toBe(`${REDACTED} ${REDACTED} ${REDACTED} ${REDACTED} not-a-secret-5`);
  });
});
