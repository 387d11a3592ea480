import { describe, expect, it } from "vitest";
import {
  collapseRepeats,
  contextSettings,
  fitActiveContext,
  markToolResult,
} from "../../src/context/active.js";
import { budgetFor } from "../../src/context/budget.js";
import {
  compactionOf,
  extractiveSummary,
  roundStarts,
  SUMMARY_HEADING,
  summaryMessage,
} from "../../src/context/compact.js";
import { parseJsonPath } from "../../src/context/handles.js";
import { tokenCounterFor } from "../../src/context/tokens.js";
import { type ChatMessage, ResultHandles } from "../../src/internal.js";

const counter = tokenCounterFor("gpt-4o-mini");

function call(id: string, name = "a_echo", args = '{"text":"x"}'): ChatMessage {
  return { role: "assistant", content: null, toolCalls: [{ id, name, arguments: args }] };
}
function result(
  id: string,
  content: string,
  info?: { key?: string; ok?: boolean; tool?: string },
): ChatMessage {
  const message: ChatMessage = { role: "tool", toolCallId: id, content };
  if (info)
    markToolResult(message, {
      tool: info.tool ?? "a_echo",
      callId: id,
      ok: info.ok ?? true,
      ...(info.key ? { key: info.key } : {}),
    });
  return message;
}

describe("rounds", () => {
  it("start at a user message or a model turn, never at a tool message", () => {
    const messages: ChatMessage[] = [
      { role: "user", content: "q1" },
      call("c1"),
      result("c1", "r1"),
      call("c2"),
      result("c2", "r2"),
      { role: "assistant", content: "a1" },
      { role: "user", content: "q2" },
      { role: "assistant", content: "a2" },
    ];
    expect(roundStarts(messages)).toEqual([0, 3, 5, 6]);
  });
});

describe("collapseRepeats", () => {
  it("stubs earlier results of a call only when a later one of the same call answered", () => {
    const messages = [
      call("c1"),
      result("c1", "first", { key: "k" }),
      call("c2"),
      result("c2", "second", { key: "k" }),
      call("c3"),
      result("c3", "refused", { key: "k", ok: false }),
      call("c4"),
      result("c4", "unmarked"),
    ];
    const { messages: out, stubs } = collapseRepeats(messages);
    expect(stubs).toBe(1);
    expect(out[1]).toEqual({
      role: "tool",
      toolCallId: "c1",
      content:
        "[tool a_echo → repeated: the same call was made again later (call c2); its result there is the current one]",
    });
    expect(out.slice(3).map((m) => m.content)).toEqual(["second", null, "refused", null, "unmarked"]);
    // The messages given are not changed.
    expect(messages[1]!.content).toBe("first");
  });
});

describe("compaction", () => {
  it("round-trips a summary through a continued history", () => {
    const history = [summaryMessage("- user: q1"), { role: "user", content: "q2" } as ChatMessage];
    expect(history[0]!.content).toBe(`${SUMMARY_HEADING}\n- user: q1`);
    expect(compactionOf(history)).toEqual({ summary: "- user: q1", upTo: 1 });
    expect(compactionOf([{ role: "user", content: "q" }])).toEqual({ upTo: 0 });
    // A system message of the caller's own is not a summary: it stays where it is.
    expect(compactionOf([{ role: "system", content: "Be brief." }])).toEqual({ upTo: 0 });
  });

  it("summarizes extractively: a line per question, call, result and answer; the oldest left out to fit", async () => {
    const messages: ChatMessage[] = [];
    for (let i = 1; i <= 50; i++) {
      messages.push(
        { role: "user", content: `question ${i}` },
        call(`c${i}`, "orders_query", `{"id":${i}}`),
        result(`c${i}`, `[tool orders_query → ok]\norder ${i} shipped`),
        { role: "assistant", content: `Order ${i} has shipped.\nMore detail.` },
      );
    }
    const stored = await extractiveSummary({
      messages: [
        call("c0", "orders_query"),
        result(
          "c0",
          '[tool orders_query → ok]\n[JSON shaped to fit: …; the whole result is stored as handle "r3": call read_result …]\n{"orders":[1,2]}',
        ),
      ],
      budgetTokens: 200,
      counter,
    });
    expect(stored).toBe(
      '- called orders_query {"text":"x"}\n  → orders_query: {"orders":[1,2]} (whole result: handle r3)',
    );
    const small = await extractiveSummary({ messages: messages.slice(0, 4), budgetTokens: 200, counter });
    expect(small).toBe(
      '- user: question 1\n- called orders_query {"id":1}\n  → orders_query: order 1 shipped\n- answered: Order 1 has shipped. More detail.',
    );
    const fitted = await extractiveSummary({
      messages,
      previous: "- user: question 0",
      budgetTokens: 150,
      counter,
    });
    expect(counter.count(fitted)).toBeLessThanOrEqual(150);
    expect(fitted).toMatch(/^\(\d+ older lines left out\)\n/);
    expect(fitted.endsWith("- answered: Order 50 has shipped. More detail.")).toBe(true);
    expect(await extractiveSummary({ messages, budgetTokens: 150, counter })).toBe(
      await extractiveSummary({ messages, budgetTokens: 150, counter }),
    );
  });
});

describe("fitActiveContext", () => {
  const settings = (window: number) => contextSettings(budgetFor(window, { answerTokens: 200 }), counter, {});

  it("leaves out a kept result too large for the window, storing it behind a handle", async () => {
    const huge = `[tool a_echo → ok]\n${"lorem ipsum ".repeat(3_000)}`;
    const handles = new ResultHandles();
    const record: ChatMessage[] = [
      { role: "user", content: "q" },
      call("c1"),
      result("c1", huge, { key: "k" }),
    ];
    const active = await fitActiveContext(
      { system: "You help.", tools: [], record, compaction: { upTo: 0 }, handles },
      settings(2_000),
    );
    expect(active.estimate).toBeLessThanOrEqual(1_800);
    expect(active.leftOut).toBe(1);
    expect(active.messages.at(-1)).toEqual({
      role: "tool",
      toolCallId: "c1",
      content:
        '[tool a_echo → result left out of this request to fit the context window; stored as handle "r1": read it with read_result]',
    });
    expect(handles.get("r1")!.text).toBe(huge);
    expect(record[2]!.content).toBe(huge);
  });

  it("keeps the question word for word after the user messages that followed it are summarized", async () => {
    const record: ChatMessage[] = [{ role: "user", content: "the question" }];
    for (let i = 1; i <= 40; i++) {
      record.push(
        call(`c${i}`, "a_echo", `{"text":"${i} ${"x ".repeat(40)}"}`),
        result(`c${i}`, `echo ${i} ${"y ".repeat(40)}`),
      );
      if (i === 2) record.push({ role: "user", content: "a reminder" });
    }
    const active = await fitActiveContext(
      { system: "You help.", tools: [], record, compaction: { upTo: 0 }, question: 0 },
      settings(3_000),
    );
    expect(active.compacted).toBeGreaterThan(10);
    expect(active.messages[1]).toEqual({ role: "user", content: "the question" });
    expect(active.messages.filter((m) => m.content === "a reminder")).toEqual([]);
    expect(active.messages[2]).toMatchObject({ role: "assistant" });
  });

  it("says what to lower when the system prompt and tools alone do not fit", async () => {
    await expect(
      fitActiveContext(
        {
          system: "word ".repeat(3_000),
          tools: [],
          record: [{ role: "user", content: "q" }],
          compaction: { upTo: 0 },
        },
        settings(2_000),
      ),
    ).rejects.toMatchObject({
      code: "INVALID_INPUT",
      message: expect.stringContaining("model.contextWindow"),
    });
  });

  it("rejects settings outside their range, naming them", () => {
    const budget = budgetFor(8_000);
    expect(() => contextSettings(budget, counter, { compactAt: 1.5 })).toThrow(
      /context\.compactAt must be a share/,
    );
    expect(() => contextSettings(budget, counter, { compactAt: 0.5, compactTo: 0.7 })).toThrow(
      /context\.compactTo \(0\.7\) must not be above context\.compactAt \(0\.5\)/,
    );
    expect(() => contextSettings(budget, counter, { keepRounds: 0 })).toThrow(/context\.keepRounds/);
  });
});

describe("ResultHandles", () => {
  const handles = new ResultHandles();
  const json = handles.store(
    "inventory",
    JSON.stringify({ items: [{ name: "a" }, { name: "b", "odd key": 7 }] }),
  );
  const text = handles.store("logs", "line\n".repeat(100));

  it("picks JSON paths in the forms models write", () => {
    expect(parseJsonPath('$.items[1]["odd key"]')).toEqual(["items", 1, "odd key"]);
    expect(parseJsonPath("items.1.name")).toEqual(["items", 1, "name"]);
    expect(handles.read({ handle: json.id, path: "$.items[1].name" })).toBe(
      "[r1 (inventory) at $.items[1].name: characters 0–1 of 1; this is the end]\nb",
    );
    expect(handles.read({ handle: json.id, path: "items[1]['odd key']" })).toMatch(/\n7$/);
  });

  it("pages by offset and limit, saying where the next page starts", () => {
    expect(handles.read({ handle: text.id, offset: 10, limit: 10 })).toBe(
      "[r2 (logs): characters 10–20 of 500; next page: offset 20]\nline\nline\n",
    );
    expect(handles.read({ handle: text.id, offset: 900 })).toBe(
      "[r2 (logs): offset 900 is past its end (500 characters)]",
    );
  });

  it("explains a wrong handle, a path into text, and a path that is not there", () => {
    expect(() => handles.read({ handle: "r9" })).toThrow(
      'no stored result "r9"; the handles are r1 (inventory), r2 (logs)',
    );
    expect(() => handles.read({ handle: text.id, path: "$.a" })).toThrow(
      /r2 \(logs\) is not JSON.*offset and limit/,
    );
    expect(() => handles.read({ handle: json.id, path: "$.items[5]" })).toThrow(
      /\$\.items in r1 is an array of 2 items; "5" is not an index of it/,
    );
    expect(() => handles.read({ handle: json.id, path: "$.things" })).toThrow(
      /\$ in r1 has no "things"; its keys are items/,
    );
    expect(() => handles.read({ handle: json.id, path: "$.items[" })).toThrow(/cannot read the path/);
  });
});
