import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Switchyard } from "../../src/index.js";
import { failureOf, NODE, ROOT } from "../helpers.js";

// `under` as servers resolve paths: a file server that opens whatever it is given (`~` from its home,
// relative paths from its working folder, links followed) and writes down every call it receives.

const FILE_SERVER = `${ROOT}test/fixtures/file-server.mjs`;

let dir: string;
let data: string;
let outside: string;
let log: string;
let yard: Switchyard;

/** The calls the file server has received so far. */
function received(): Array<{ name: string; arguments: { path: unknown } }> {
  if (!existsSync(log)) return [];
  return readFileSync(log, "utf8")
    .split("\n")
    .filter(Boolean)
    .map((line) => JSON.parse(line));
}

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), "switchyard-paths-"));
  data = path.join(dir, "data");
  outside = path.join(dir, "outside");
  const home = path.join(dir, "home");
  for (const folder of [data, path.join(data, "sub"), outside, path.join(home, ".ssh")])
    mkdirSync(folder, { recursive: true });
  writeFileSync(path.join(data, "a.txt"), "a");
  writeFileSync(path.join(data, "sub", "b.txt"), "b");
  writeFileSync(path.join(outside, "secret.txt"), "secret");
  writeFileSync(path.join(outside, ".env"), "TOKEN=secret");
  writeFileSync(path.join(home, ".ssh", "id_rsa"), "PRIVATE KEY");
  symlinkSync(path.join(outside, "secret.txt"), path.join(data, "link")); // inside, pointing out
  symlinkSync(path.join(outside, "new.txt"), path.join(data, "dangling")); // the same, not there yet
  symlinkSync(outside, path.join(data, "door")); // a folder link out
  symlinkSync(path.join(data, "a.txt"), path.join(data, "inner")); // inside, pointing in
  log = path.join(dir, "calls.jsonl");
  const server = (cwd?: string) => ({
    command: NODE,
    args: [FILE_SERVER, "--log", log],
    env: { HOME: home },
    ...(cwd ? { cwd } : {}),
  });
  yard = await Switchyard.connect({
    mcpServers: { files: server(data), elsewhere: server(outside), nocwd: server() },
    policy: {
      rules: [
        {
          id: "data-only",
          effect: "allow",
          tools: ["*_read_file"],
          arguments: { path: { under: data } },
        },
      ],
    },
  });
});

afterAll(async () => {
  await yard?.close();
  rmSync(dir, { recursive: true, force: true });
});

async function refused(tool: string, value: unknown): Promise<string> {
  const before = received().length;
  const error = await failureOf(yard.callTool(tool, { path: value }));
  expect(error.code, JSON.stringify(value)).toBe("POLICY_DENIED");
  expect(received().length, `${JSON.stringify(value)} reached the server`).toBe(before);
  return error.message;
}

describe("policy `under`: a path counts only where the server will open it", () => {
  it("~, ~user, .. out of the folder, links out of it and what is not a plain path string never reach the server", async () => {
    for (const value of [
      "~/.ssh/id_rsa",
      "~",
      "~root/x",
      "../x",
      "sub/../../outside/secret.txt",
      `${data}/../outside/secret.txt`,
      `${data}/./sub/../../etc/passwd`,
      `${data}base/x`,
      path.join(data, "link"),
      path.join(data, "dangling"),
      path.join(data, "door", "secret.txt"),
      `${data}/sub\\..\\..\\outside`,
      `${data}/a.txt\0`,
      pathToFileURL(path.join(outside, "secret.txt")).href,
      "https://example.com/x",
      42,
      [path.join(data, "a.txt")],
      { path: path.join(data, "a.txt") },
      null,
    ])
      await refused("files_read_file", value);
    expect(await refused("files_read_file", "~/.ssh/id_rsa")).toContain(
      "starts with ~, which the server reads as a home folder",
    );
    expect(await refused("files_read_file", "https://example.com/x")).toContain(
      "is a https: URL, not a path",
    );
    expect(await refused("files_read_file", 42)).toContain("is not a string but a number");
    expect(received()).toEqual([]);
  });

  it("a relative path is refused unless the server's cwd is set and it resolves under the folder from there", async () => {
    for (const value of ["etc/passwd", ".env", "a.txt"]) {
      const message = await refused("nocwd_read_file", value);
      expect(message).toContain(
        `is a relative path, and server nocwd has no "cwd" in its config to resolve it against; send the absolute path under ${data}, or set servers.nocwd.cwd to a folder under it`,
      );
    }
    for (const value of [".env", "secret.txt", "etc/passwd"]) {
      expect(await refused("elsewhere_read_file", value)).toContain("policy's default");
    }
    expect(received()).toEqual([]);
    const result = await yard.callTool("files_read_file", { path: "sub/b.txt" });
    expect(JSON.parse((result.content[0] as { text: string }).text)).toEqual({
      resolved: path.join(data, "sub", "b.txt"),
      text: "b",
    });
  });

  it("paths under the folder are admitted: plain, file URLs, links that stay inside, files not there yet", async () => {
    for (const value of [
      path.join(data, "a.txt"),
      `${data}/sub/../a.txt`,
      data,
      `${data}/..hidden`,
      pathToFileURL(path.join(data, "sub", "b.txt")).href,
      path.join(data, "inner"),
      path.join(data, "new", "file.txt"),
    ]) {
      const result = await yard.callTool("nocwd_read_file", { path: value });
      expect(result.isError, value).toBe(false);
    }
    expect(received().map((call) => call.arguments.path)).toContain(path.join(data, "inner"));
  });

  it("a deny rule is not escaped by a path it cannot place: that request is refused too", async () => {
    await using denying = await Switchyard.connect({
      mcpServers: { nocwd: { command: NODE, args: [FILE_SERVER, "--log", log] } },
      policy: {
        mode: "deny-overrides",
        default: "allow",
        rules: [{ id: "no-etc", effect: "deny", arguments: { path: { under: "/etc" } } }],
      },
    });
    const before = received().length;
    const error = await failureOf(denying.callTool("nocwd_read_file", { path: "etc/passwd" }));
    expect(error).toMatchObject({ code: "POLICY_DENIED" });
    expect(error.message).toContain("by rule no-etc: argument path");
    const ok = await denying.callTool("nocwd_read_file", { path: `${data}/a.txt` });
    expect(ok.isError).toBe(false);
    expect(received().length).toBe(before + 1);
  });
});
