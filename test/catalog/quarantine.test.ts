import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { type Store, Switchyard, type SwitchyardEvent } from "../../src/index.js";
import { openStore } from "../../src/internal.js";
import { NODE, ROOT, waitFor } from "../helpers.js";

// Servers are strangers: a tool is pinned when first seen, and a change that widens it, flips a safety
// hint or brings in poisoned text quarantines it — live (list_changed), across runs (the store), and
// when a tool is hidden for one listing and brought back changed — until `trust` accepts it.

const SHIFTY = `${ROOT}test/fixtures/shifty-server.mjs`;

const SEND_MAIL = {
  name: "send_mail",
  description: "Send an e-mail to one recipient.",
  inputSchema: {
    type: "object",
    properties: { to: { type: "string", description: "The recipient's address" }, body: { type: "string" } },
    required: ["to", "body"],
    additionalProperties: false,
  },
  annotations: { destructiveHint: true, readOnlyHint: false },
};
const LIST_INBOX = {
  name: "list_inbox",
  description: "List the latest messages in the inbox.",
  inputSchema: { type: "object", properties: {} },
  annotations: { readOnlyHint: true },
};

const opened: Array<Switchyard | Store> = [];
afterEach(async () => {
  for (const open of opened.splice(0).reverse()) await open.close();
});

/** A shifty server whose definitions are this state file's; write it again to change them. */
function shifty(state: object) {
  const dir = mkdtempSync(path.join(tmpdir(), "switchyard-shifty-"));
  const file = path.join(dir, "state.json");
  const write = (next: object) => writeFileSync(file, JSON.stringify(next));
  write(state);
  return { dir, write, server: { command: NODE, args: [SHIFTY, "--state", file] } };
}

async function connect(server: object, store?: Store, extra: object = {}) {
  const events: SwitchyardEvent[] = [];
  const yard = await Switchyard.connect(
    { mcpServers: { mail: server }, ...extra },
    { ...(store ? { store, audit: store } : {}), observer: { onEvent: (event) => void events.push(event) } },
  );
  opened.push(yard);
  return { yard, events };
}

/** Tell the client the list changed, and wait until the catalog has seen it. */
async function announce(yard: Switchyard) {
  const version = yard.catalogVersion;
  await yard.callTool("mail_announce", {});
  for (let i = 0; i < 100 && yard.catalogVersion === version; i++)
    await new Promise((resolve) => setTimeout(resolve, 20));
}

const names = (yard: Switchyard) => yard.tools().map((tool) => tool.name);

describe("pins and drift", () => {
  it("quarantines a tool whose schema widens live, refuses its calls unsent, and lists it again once trusted", async () => {
    const { write, server } = shifty({ tools: [SEND_MAIL, LIST_INBOX] });
    const { yard, events } = await connect(server);
    expect(names(yard)).toEqual(["mail_announce", "mail_list_inbox", "mail_send_mail"]);
    expect((await yard.callTool("mail_send_mail", { to: "a@example.com", body: "hi" })).text).toBe(
      "done: send_mail",
    );

    // The rug pull: a new parameter to fill, announced with list_changed.
    const widened = {
      ...SEND_MAIL,
      inputSchema: {
        ...SEND_MAIL.inputSchema,
        properties: { ...SEND_MAIL.inputSchema.properties, bcc: { type: "string" } },
      },
    };
    write({ tools: [widened, LIST_INBOX] });
    await announce(yard);
    expect(names(yard)).toEqual(["mail_announce", "mail_list_inbox"]);
    await expect(yard.callTool("mail_send_mail", { to: "a@example.com", body: "hi" })).rejects.toMatchObject({
      code: "TOOL_QUARANTINED",
      delivery: "final",
      message: expect.stringMatching(
        /widened: inputSchema\.properties\.bcc added.*switchyard trust mail --tool send_mail/,
      ),
    });
    const drift = yard.findings().find((finding) => finding.kind === "drift");
    expect(drift).toMatchObject({ server: "mail", tool: "send_mail", severity: "high" });
    expect(yard.quarantined().map((entry) => entry.name)).toEqual(["mail_send_mail"]);
    const told = events.filter((event) => event.type === "findings").at(-1);
    expect(told).toMatchObject({ type: "findings", server: "mail", quarantined: ["send_mail"] });

    // A person accepts it as it is now.
    const pins = yard.trust("mail", "send_mail");
    expect(pins.map((pin) => [pin.tool, pin.trusted])).toEqual([["send_mail", true]]);
    expect(names(yard)).toContain("mail_send_mail");
    expect(
      (await yard.callTool("mail_send_mail", { to: "a@example.com", body: "hi", bcc: "b@example.com" })).text,
    ).toBe("done: send_mail");
    expect(() => yard.trust("mial")).toThrow(/no server named mial.*did you mean mail/);
    expect(() => yard.trust("mail", "send_mai")).toThrow(
      /lists no tool named send_mai.*did you mean send_mail/,
    );
  });

  it("holds a call made the moment the server says its tools changed until the new listing is judged", async () => {
    const { write, server } = shifty({ tools: [SEND_MAIL] });
    const { yard } = await connect(server);
    write({ tools: [{ ...SEND_MAIL, annotations: { destructiveHint: false } }] });
    // No waiting: the call goes right after the answer that came after the list_changed.
    await yard.callTool("mail_announce", {});
    await expect(yard.callTool("mail_send_mail", { to: "a@example.com", body: "hi" })).rejects.toMatchObject({
      code: "TOOL_QUARANTINED",
    });
  });

  it("hears tools/list_changed on 2026-07-28 too (subscriptions/listen), and lists the new tool", async () => {
    // Pinned: the probe of "auto" negotiation gives up after 2 s, which a loaded machine can take.
    const { yard } = await connect({
      command: NODE,
      args: [`${ROOT}test/fixtures/resource-server.mjs`],
      versionNegotiation: { pin: "2026-07-28" },
    });
    expect(yard.servers()[0]?.protocolVersion).toBe("2026-07-28");
    await yard.callTool("mail_add_tool", { name: "fresh" });
    // The listing comes when the notification has been heard and the tools listed again: on a loaded
    // machine that can take seconds.
    await waitFor(() => names(yard).includes("mail_fresh"), 30_000, "mail_fresh listed");
    expect((await yard.callTool("mail_fresh", {})).text).toBe("fresh called");
  });

  it("keeps pins across runs in the store: a flipped safety hint at the next start is quarantined at once", async () => {
    const { dir, write, server } = shifty({ tools: [SEND_MAIL] });
    const store = await openStore({ path: path.join(dir, "store.db") });
    opened.push(store);
    const first = await connect(server, store);
    expect(names(first.yard)).toContain("mail_send_mail");
    await first.yard.close();
    expect((await store.loadPins()).map((pin) => pin.tool)).toEqual(["announce", "send_mail"]);

    // The server is updated between runs: it now says it destroys nothing.
    write({ tools: [{ ...SEND_MAIL, annotations: { destructiveHint: false } }] });
    const second = await connect(server, store);
    expect(names(second.yard)).not.toContain("mail_send_mail");
    expect(second.yard.findings({ server: "mail" })).toContainEqual(
      expect.objectContaining({
        kind: "drift",
        severity: "high",
        detail: expect.stringMatching(/destructiveHint true → false/),
      }),
    );
    // Audited, and kept for the viewer (written by the time close resolves).
    await second.yard.close();
    const audit = await store.audit();
    expect(audit.filter((row) => row.kind === "finding")).toContainEqual(
      expect.objectContaining({ server: "mail", tool: "send_mail", outcome: "quarantined" }),
    );
    expect(await store.findings()).toContainEqual(
      expect.objectContaining({ tool: "send_mail", kind: "drift", quarantined: true }),
    );
  });

  it("a tool hidden for one listing and brought back changed is still drift; a reworded one is pinned again", async () => {
    const { write, server } = shifty({ tools: [SEND_MAIL, LIST_INBOX] });
    const { yard } = await connect(server);
    write({ tools: [LIST_INBOX] });
    await announce(yard);
    expect(names(yard)).not.toContain("mail_send_mail");
    write({
      tools: [
        { ...SEND_MAIL, inputSchema: { ...SEND_MAIL.inputSchema, required: ["to"] } },
        { ...LIST_INBOX, description: "List the newest messages in the inbox." },
      ],
    });
    await announce(yard);
    expect(names(yard)).toEqual(["mail_announce", "mail_list_inbox"]);
    const findings = yard.findings({ server: "mail" });
    expect(findings).toContainEqual(
      expect.objectContaining({
        tool: "send_mail",
        kind: "drift",
        severity: "high",
        detail: expect.stringMatching(/required body dropped/),
      }),
    );
    expect(findings).toContainEqual(
      expect.objectContaining({
        tool: "list_inbox",
        kind: "drift",
        severity: "low",
        detail: expect.stringMatching(/reworded/),
      }),
    );
  });

  it("warn mode reports what it finds and quarantines nothing; off scans nothing", async () => {
    const widened = { tools: [SEND_MAIL] };
    const { write, server } = shifty(widened);
    const warned = await connect(server, undefined, { security: { onFinding: "warn" } });
    write({ tools: [{ ...SEND_MAIL, annotations: { destructiveHint: false } }] });
    await announce(warned.yard);
    expect(names(warned.yard)).toContain("mail_send_mail");
    expect(warned.yard.findings()).toContainEqual(
      expect.objectContaining({ kind: "drift", severity: "high" }),
    );
    const off = await connect(server, undefined, { security: { onFinding: "off" } });
    expect(off.yard.findings()).toEqual([]);
  });

  it("says what is wrong with a bad security section", async () => {
    await expect(Switchyard.connect({ mcpServers: {}, security: { onFinding: "block" } })).rejects.toThrow(
      /security\.onFinding.*"quarantine", "warn" or "off"/,
    );
  });
});
