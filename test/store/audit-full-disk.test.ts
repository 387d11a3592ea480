// The audit log on a full disk, through the built CLI (`npm run build` first): the store's files may
// not grow (`ulimit -f`, a soft limit just above the database's -shm file, so the store opens but no
// write fits). A call whose audit row cannot be written fails, and says so, unless
// `audit.onWriteError: "continue"`: then it goes on, said loudly, and once the limit is lifted (prlimit,
// while the process runs) a gap row marks what was lost, and `audit verify` reports it. Then the
// signed checkpoint: `audit checkpoint --out`, and `audit verify --checkpoint` after tampering.
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { openSqlite } from "../../src/store/sqlite-engine.js";
import { CLI, NODE, ROOT, runCli, SDK_SERVER, waitFor } from "../helpers.js";

/** 1 KiB blocks a store file may grow to: the -shm file (32 KiB) fits, no WAL frame (4 KiB) does. */
const FULL_DISK_BLOCKS = 33;
const PRLIMIT = ["/usr/bin/prlimit", "/bin/prlimit"].find((file) => existsSync(file));

function setup(audit?: Record<string, unknown>) {
  const dir = mkdtempSync(path.join(tmpdir(), "switchyard-audit-disk-"));
  const config = path.join(dir, "switchyard.config.json");
  writeFileSync(
    config,
    JSON.stringify({
      mcpServers: { a: { command: NODE, args: [SDK_SERVER] } },
      store: { path: path.join(dir, "data", "switchyard.db") },
      ...(audit ? { audit } : {}),
    }),
  );
  const env = { SWITCHYARD_AUDIT_KEY: "the-audit-key-of-this-test-0123456789" };
  const cli = (...args: string[]) => runCli(["--config", config, ...args], { env });
  return { dir, config, env, cli };
}

/** The CLI under a file-size limit (soft: it can be lifted while it runs); its pid, output and exit. */
function onFullDisk(args: string[], env: Record<string, string> = {}) {
  const quoted = [NODE, CLI, ...args].map((arg) => `'${arg.replaceAll("'", "'\\''")}'`).join(" ");
  const child = spawn("bash", ["-c", `ulimit -S -f ${FULL_DISK_BLOCKS} && exec ${quoted}`], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk));
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
  const exited = new Promise<number | null>((resolve) => child.once("close", (code) => resolve(code)));
  return { pid: child.pid!, exited, stdout: () => stdout, stderr: () => stderr };
}

describe("the audit log on a full disk", () => {
  it("fails each call whose audit row cannot be written: non-zero exit, the reason, no result", async () => {
    const { config, cli } = setup();
    expect((await cli("audit", "verify")).code).toBe(0); // the store exists, its schema written
    for (let n = 0; n < 3; n++) {
      const call = onFullDisk([
        "--config",
        config,
        "call",
        "a_echo",
        JSON.stringify({ text: `secret ${n}` }),
      ]);
      expect(await call.exited).toBe(1);
      expect(call.stdout()).not.toContain(`secret ${n}`);
      expect(call.stderr()).toMatch(
        /the call row of a_echo \(call_\w+\) could not be written to the audit log \(cannot write to the store .*\), so the request fails: nothing goes out without its audit row \(audit\.onWriteError: "fail"\)/,
      );
    }
    // Nothing claims success without its row: no row, no success.
    const verified = await cli("audit", "verify");
    expect(verified.stdout).toMatch(/^audit log ok: 0 rows/);
    const ok = await cli("call", "a_echo", JSON.stringify({ text: "room again" }));
    expect(ok).toMatchObject({ code: 0, stdout: expect.stringContaining("room again") });
    expect((await cli("audit", "verify")).stdout).toMatch(/^audit log ok: 1 row,/);
  }, 120_000);

  it('with onWriteError "continue": the calls go on, said loudly; once writing works, a gap row, and verify reports it', async () => {
    if (!PRLIMIT)
      throw new Error("this test needs prlimit (util-linux) to lift the limit of a running process");
    const { dir, config, cli } = setup({ onWriteError: "continue" });
    expect((await cli("audit", "verify")).code).toBe(0);
    const plan = path.join(dir, "plan.yaml");
    writeFileSync(
      plan,
      [
        "steps:",
        "  - { id: first, tool: a_echo, args: { text: first } }",
        // Long enough for the test to lift the limit while it runs, even on a busy machine; nothing is
        // timed by it.
        "  - { id: wait, tool: a_sleep, needs: [first], args: { ms: 6000 } }",
        "  - { id: last, tool: a_echo, needs: [wait], args: { text: last } }",
        "",
      ].join("\n"),
    );
    const run = onFullDisk(["--config", config, "run", plan]);
    await waitFor(() => run.stderr().includes("AUDIT LOG:"), 20_000, "the first row's loud error");
    expect(run.stderr()).toMatch(
      /AUDIT LOG: the call row of a_echo \(first\) could not be written \(cannot write to the store .*\); the request goes on unaudited \(audit\.onWriteError: "continue"\): 1 entry lost so far/,
    );
    await new Promise<void>((resolve, reject) =>
      spawn(PRLIMIT, ["--pid", String(run.pid), "--fsize=unlimited:"], { stdio: "inherit" }).once(
        "close",
        (code) => (code === 0 ? resolve() : reject(new Error(`prlimit exited ${code}`))),
      ),
    );
    expect(await run.exited).toBe(0);
    expect(run.stdout()).toMatch(/first\s+a\s+echo\s+ok/);
    expect(run.stdout()).toMatch(/last\s+a\s+echo\s+ok/);
    const verified = await cli("audit", "verify");
    expect(verified.code).toBe(1);
    expect(verified.stdout).toMatch(/^audit log INCOMPLETE: 1 problem in 3 rows/);
    expect(verified.stdout).toMatch(
      /gap: row 1: 1 audit entry was not written from \S+ to \S+ \(audit\.onWriteError: continue\): cannot write to the store/,
    );
    const tail = await cli("audit", "tail", "--json");
    expect(
      tail.stdout
        .trim()
        .split("\n")
        .map((line) => JSON.parse(line)),
    ).toMatchObject([
      { seq: 1, kind: "gap", outcome: "lost", lost: 1 },
      { seq: 2, kind: "call", callId: "wait", outcome: "ok" },
      { seq: 3, kind: "call", callId: "last", outcome: "ok" },
    ]);
  }, 120_000);

  it("a call on a full disk with continue and nowhere to write, all its life: it says the log is incomplete", async () => {
    const { config, cli } = setup({ onWriteError: "continue" });
    expect((await cli("audit", "verify")).code).toBe(0);
    const call = onFullDisk(["--config", config, "call", "a_echo", JSON.stringify({ text: "through" })]);
    expect(await call.exited).toBe(0);
    expect(call.stdout()).toContain("through");
    expect(call.stderr()).toContain("AUDIT LOG: the call row of a_echo");
    expect(call.stderr()).toMatch(
      /1 entry since \S+ could not be written, and neither could the gap row that marks them: the log is incomplete/,
    );
  }, 120_000);
});

describe("audit checkpoint and verify --checkpoint, signed with audit.key from the environment", () => {
  it("exports a signed checkpoint; a log cut short and its head rewritten then fails verify", async () => {
    const { dir, cli } = setup({ key: "${SWITCHYARD_AUDIT_KEY}" });
    for (const text of ["one", "two", "three"])
      expect((await cli("call", "a_echo", JSON.stringify({ text }))).code).toBe(0);
    const file = path.join(dir, "checkpoint.json");
    const taken = await cli("audit", "checkpoint", "--out", file);
    expect(taken).toMatchObject({
      code: 0,
      stdout: expect.stringMatching(/^audit checkpoint: row 3, 3 rows, signed with audit\.key, written to /),
    });
    const printed = JSON.parse((await cli("audit", "checkpoint")).stdout);
    expect(printed).toMatchObject({
      switchyardAuditCheckpoint: 1,
      seq: 3,
      rows: 3,
      mac: expect.stringMatching(/^[0-9a-f]{64}$/),
    });
    expect((await cli("audit", "verify", "--checkpoint", file)).stdout).toMatch(
      /^audit log ok: 3 rows, .*; signatures checked with audit\.key; holds the checkpoint of \S+ \(row 3\)/,
    );
    // Cut the last row and move the head back onto row 2, as one who can write the database can.
    const db = openSqlite(path.join(dir, "data", "switchyard.db"));
    const second = db.prepare("SELECT hash, mac FROM audit WHERE seq = 2").get() as {
      hash: string;
      mac: string;
    };
    db.exec("DELETE FROM audit WHERE seq = 3");
    db.prepare("UPDATE audit_head SET seq = 2, hash = ?, mac = ? WHERE id = 1").run(second.hash, second.mac);
    db.close();
    const verified = await cli("audit", "verify", "--checkpoint", file);
    expect(verified.code).toBe(1);
    expect(verified.stdout).toContain("audit log TAMPERED: 2 problems in 2 rows");
    expect(verified.stdout).toMatch(/forged: the head \(row 2\) is not signed with audit\.key/);
    expect(verified.stdout).toMatch(
      /checkpoint: the checkpoint of \S+ \(row 3, 3 rows\): row 3 is gone, the log has 2 rows/,
    );
    // No checkpoint is taken of a log that does not verify.
    const refused = await cli("audit", "checkpoint");
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain("does not verify");
  });
});
