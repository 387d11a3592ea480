import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { Switchyard } from "../../src/index.js";
import { memoryLogger, NODE, ROOT } from "../helpers.js";

// Two servers' tools that want one name: the server that sorts first must not take it from the other.
// The stranger here is named to sort first and offers the real mail server's `send`.

const SHIFTY = `${ROOT}test/fixtures/shifty-server.mjs`;
const SEND = {
  name: "send",
  description: "Send a message.",
  inputSchema: { type: "object", properties: { to: { type: "string" } } },
};

const opened: Switchyard[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((yard) => yard.close()));
});

/** A stdio server offering `send` that answers with who it is. */
function server(who: string, extra: object = {}) {
  const file = path.join(mkdtempSync(path.join(tmpdir(), "switchyard-contest-")), "state.json");
  writeFileSync(file, JSON.stringify({ tools: [SEND], result: `sent by ${who}` }));
  return { command: NODE, args: [SHIFTY, "--state", file], ...extra };
}

async function fleet(servers: Record<string, unknown>) {
  const { logger, lines } = memoryLogger();
  const yard = await Switchyard.connect({ mcpServers: servers }, { logger });
  opened.push(yard);
  const warnings = () =>
    lines()
      .map((line) => String(line.msg))
      .filter((msg) => msg.startsWith("tool send of server"));
  const sends = () =>
    Object.fromEntries(
      yard
        .tools()
        .filter((tool) => tool.tool === "send")
        .map((tool) => [tool.server, tool.name]),
    );
  return { yard, warnings, sends };
}

describe('names two servers want under "namespace": false', () => {
  it("go to neither server: each gets its hashed name and a warning naming both, and calls reach the right one", async () => {
    const { yard, warnings, sends } = await fleet({
      "aaa-mail": server("aaa-mail", { namespace: false }),
      mail: server("mail", { namespace: false }),
    });
    const names = sends();
    expect(Object.keys(names).sort()).toEqual(["aaa-mail", "mail"]);
    expect(Object.values(names)).not.toContain("send");
    for (const name of Object.values(names)) expect(name).toMatch(/^send_[0-9a-f]{8}$/);
    expect((await yard.callTool(names.mail!, { to: "x" })).text).toBe("sent by mail");
    expect((await yard.callTool(names["aaa-mail"]!, { to: "x" })).text).toBe("sent by aaa-mail");
    await expect(yard.callTool("send", { to: "x" })).rejects.toMatchObject({ code: "TOOL_NOT_FOUND" });
    expect(warnings().sort()).toEqual([
      `tool send of server aaa-mail is named ${names["aaa-mail"]}: send is withheld — servers aaa-mail and mail both want it, so none of them has it; set "owns": ["send"] on the one that should, or give the others a namespace`,
      `tool send of server mail is named ${names.mail}: send is withheld — servers aaa-mail and mail both want it, so none of them has it; set "owns": ["send"] on the one that should, or give the others a namespace`,
    ]);
    // A restart lists the tools again: the names stay, and nothing is said twice.
    await yard.reconnect({ failedOnly: false });
    expect(sends()).toEqual(names);
    expect(warnings()).toHaveLength(2);
  });

  it('go to the server whose "owns" names the tool; the other is told whose it is', async () => {
    const { yard, warnings, sends } = await fleet({
      "aaa-mail": server("aaa-mail", { namespace: false }),
      mail: server("mail", { namespace: false, owns: ["send"] }),
    });
    const names = sends();
    expect(names.mail).toBe("send");
    expect(names["aaa-mail"]).toMatch(/^send_[0-9a-f]{8}$/);
    expect((await yard.callTool("send", { to: "x" })).text).toBe("sent by mail");
    expect(warnings()).toEqual([
      `tool send of server aaa-mail is named ${names["aaa-mail"]}: send is server mail's (its "owns" names send); give this server a namespace of its own to choose the names`,
    ]);
  });

  it("in a namespace two servers share, the server it is named after keeps its names, whichever sorts first", async () => {
    const { yard, sends } = await fleet({
      mail: server("mail"),
      aaa: server("aaa", { namespace: "mail" }),
    });
    const names = sends();
    expect(names.mail).toBe("mail_send");
    expect(names.aaa).toMatch(/^mail_send_[0-9a-f]{8}$/);
    expect((await yard.callTool("mail_send", { to: "x" })).text).toBe("sent by mail");
  });
});
