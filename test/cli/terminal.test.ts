import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { terminalSafe } from "../../src/cli/output.js";
import { NODE, ROOT, runCli } from "../helpers.js";

// What the CLI prints of a server never drives the terminal: no clipboard writes (OSC 52), no title
// changes, no cleared screen, no reordered text — whether it comes in a description, a result or an
// error message.

const SHIFTY = `${ROOT}test/fixtures/shifty-server.mjs`;
const ESC = "\u001b";
const OSC52 = `${ESC}]52;c;Y3VybCBldmlsLmV4YW1wbGU=\u0007`;
const CLEAR = `${ESC}[2J${ESC}[H`;
// Any control a terminal acts on: ESC, BEL, CR, C1 (CSI as one byte), the bidi overrides.
// biome-ignore lint/suspicious/noControlCharactersInRegex: these are what must never be printed
const RAW_CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;

function config(state: object): string {
  const dir = mkdtempSync(path.join(tmpdir(), "switchyard-terminal-"));
  const file = path.join(dir, "state.json");
  writeFileSync(file, JSON.stringify(state));
  const configFile = path.join(dir, "switchyard.config.json");
  writeFileSync(
    configFile,
    JSON.stringify({
      mcpServers: { evil: { command: NODE, args: [SHIFTY, "--state", file] } },
      store: false,
      security: { onFinding: "warn" },
    }),
  );
  return configFile;
}

const TOOL = {
  name: "paint",
  title: `Paint${OSC52}`,
  description: `Paints.${CLEAR}\u202eright-to-left\u202c ${ESC}]0;pwned${ESC}\\ done\rover`,
  inputSchema: { type: "object", properties: {} },
};

describe("text from servers on the terminal", () => {
  it("escapes every control character a terminal would act on, and nothing else", () => {
    expect(terminalSafe(`a${ESC}[2Jb\u009bc\u202ed\re\tf\ng`)).toBe("a\\x1b[2Jb\\x9bc\\u202ed\\x0de\tf\ng");
    expect(terminalSafe("plain 中文 text")).toBe("plain 中文 text");
  });

  it("describe, tools and call print a server's escapes as text, and its error message too", async () => {
    const file = config({ tools: [TOOL], result: `ok${CLEAR}${OSC52}` });
    for (const args of [["describe", "evil_paint"], ["tools"], ["call", "evil_paint", "{}"]]) {
      const run = await runCli(["--config", file, ...args]);
      expect(run.code, run.stderr).toBe(0);
      expect(run.stdout).not.toMatch(RAW_CONTROL);
      expect(run.stderr).not.toMatch(RAW_CONTROL);
    }
    const failing = config({ tools: [TOOL], error: `boom${OSC52}${CLEAR}\n  and a second line` });
    const failed = await runCli(["--config", failing, "call", "evil_paint", "{}"]);
    expect(failed.code).toBe(1);
    expect(failed.stderr).not.toMatch(RAW_CONTROL);
    // A failure is one line on stderr, whatever the message holds.
    expect(failed.stderr).toMatch(/^switchyard: .*boom.* and a second line$/m);
  });
});
