import { describe, expect, it } from "vitest";
import {
  DEFAULT_RESULT_BUDGET_TOKENS,
  type ShapeToolResultOptions,
  shapeResult,
  shapeToolResult,
} from "../../src/context/shape-result.js";
import { createTokenCounter, type TokenCounter } from "../../src/context/tokens.js";

const gpt = createTokenCounter("gpt-4o");
const estimate = createTokenCounter("qwen3-32b");
const COUNTERS: Array<[string, TokenCounter]> = [
  ["exact", gpt],
  ["estimate", estimate],
];

function shape(options: Partial<ShapeToolResultOptions> & { text?: string }) {
  return shapeToolResult({ tool: "orders_query", outcome: "ok", text: "", ...options });
}

/** The body of a tool message: what follows the anchor line. */
const bodyOf = (text: string) => text.slice(text.indexOf("\n") + 1);
/** The JSON a shaped message carries on its last line (after the anchor and the note). */
const jsonOf = (text: string): unknown => JSON.parse(text.split("\n").at(-1)!);
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

describe("shaping a tool result", () => {
  it("leaves a result that fits as it is, and says it did not cut", () => {
    const shaped = shape({ text: '{"id": 1,\n "name": "张伟"}', counter: gpt });
    expect(shaped).toEqual({
      text: '[tool orders_query → ok]\n{"id": 1,\n "name": "张伟"}',
      cut: false,
      originalTokens: gpt.count('{"id": 1,\n "name": "张伟"}'),
      tokens: gpt.count('[tool orders_query → ok]\n{"id": 1,\n "name": "张伟"}'),
    });
  });

  it("keeps an empty result empty", () => {
    expect(shape({ text: "", counter: gpt })).toMatchObject({
      text: "[tool orders_query → ok]\n",
      cut: false,
      originalTokens: 0,
    });
    expect(shape({ text: "", content: [], anchor: false })).toMatchObject({ text: "", cut: false });
  });

  for (const [kind, counter] of COUNTERS) {
    it(`keeps a huge array valid JSON within the token budget: its first items and a count (${kind})`, () => {
      const rows = Array.from({ length: 100_000 }, (_, i) => ({ id: i, city: "北京", tags: ["a", "b"] }));
      const shaped = shape({ text: JSON.stringify(rows), counter, budgetTokens: 1_000 });
      expect(shaped.cut).toBe(true);
      expect(shaped.tokens).toBeLessThanOrEqual(1_000);
      expect(counter.count(shaped.text)).toBe(shaped.tokens);
      expect(shaped.originalTokens).toBeGreaterThan(1_000_000);
      const value = jsonOf(shaped.text) as unknown[];
      expect(value[0]).toEqual({ id: 0, city: "北京", tags: ["a", "b"] });
      expect(value.length).toBeGreaterThan(10);
      expect(value.at(-1)).toBe(
        `… ${(100_001 - value.length).toLocaleString("en-US")} more items (100,000 in all)`,
      );
      const note = shaped.text.split("\n")[1];
      expect(note).toMatch(
        /^\[JSON shaped to fit: long arrays keep their first [\d,]+ items \([\d,]+ items left out\); the whole is [\d,]+ characters, ~[\d,]+ tokens; ask for less, e.g\. a narrower query\]$/,
      );
    });

    it(`keeps CJK text within the token budget, head and tail (${kind})`, () => {
      const text = Array.from({ length: 5_000 }, (_, i) => `第${i + 1}行：订单已发货，客户满意。`).join("\n");
      const shaped = shape({ text, counter, budgetTokens: 500 });
      expect(shaped.tokens).toBeLessThanOrEqual(500);
      const body = bodyOf(shaped.text);
      expect(body.startsWith("第1行：订单已发货，客户满意。\n")).toBe(true);
      expect(body.endsWith("\n第5000行：订单已发货，客户满意。")).toBe(true);
      const [, left, all] =
        /\n\[… ([\d,]+) of ([\d,]+) characters left out here; ask for less, e\.g\. a narrower query\]\n/.exec(
          body,
        )!;
      expect(Number(all!.replaceAll(",", ""))).toBe(text.length);
      // What is shown and what is said to be left out add up to the whole.
      const marker = body.match(/\n\[…[^\]]*\]\n/)![0];
      expect(body.length - marker.length + Number(left!.replaceAll(",", ""))).toBe(text.length);
    });
  }

  it("prunes deeply nested values with a marker, and the JSON stays valid", () => {
    const root: Record<string, unknown> = {};
    let node = root;
    for (let level = 0; level < 500; level++) {
      const child: Record<string, unknown> = { level, label: "x".repeat(30) };
      node.child = child;
      node = child;
    }
    const shaped = shape({ text: JSON.stringify(root), counter: gpt, budgetTokens: 400 });
    expect(shaped.cut).toBe(true);
    expect(shaped.tokens).toBeLessThanOrEqual(400);
    expect(shaped.text).toMatch(/\[JSON shaped to fit: 1 value nested deeper than [\d]+ levels summarized;/);
    let value = jsonOf(shaped.text) as Record<string, unknown>;
    while (typeof value.child === "object") value = value.child as Record<string, unknown>;
    expect(value.child).toBe("… {an object of 3 keys}");
  });

  it("summarizes JSON nested deeper than a serializer can go", () => {
    const text = `${"[".repeat(200_000)}${"]".repeat(200_000)}`;
    const shaped = shape({ text, counter: gpt, budgetTokens: 300 });
    expect(jsonOf(shaped.text)).toEqual([[[[[[[[[[[[[[["… [an array of 1 item]"]]]]]]]]]]]]]]]);
    let deep: unknown = 1;
    for (let level = 0; level < 100_000; level++) deep = [deep];
    // Structured content that cannot be serialized gives way to the text.
    const structured = shape({
      counter: gpt,
      structuredContent: deep as Record<string, unknown>,
      text: "deep",
    });
    expect(structured.text).toBe("[tool orders_query → ok]\ndeep");
  });

  it("cuts long strings with a marker, never inside a surrogate pair", () => {
    for (const budgetTokens of [300, 301, 302, 333, 777]) {
      const value = { title: "路线", text: `${"🚚".repeat(5_000)}`, odd: `a${"😀".repeat(4_000)}` };
      const shaped = shape({ text: JSON.stringify(value), counter: estimate, budgetTokens });
      const json = jsonOf(shaped.text) as Record<string, string>;
      expect(json.title).toBe("路线");
      expect(json.text).toMatch(/^(🚚)+… \[\+[\d,]+ characters\]$/);
      expect(json.odd).toMatch(/^a(😀)+… \[\+[\d,]+ characters\]$/);
      expect(LONE_SURROGATE.test(shaped.text), String(budgetTokens)).toBe(false);
      expect(shaped.text).toMatch(/2 long strings cut to [\d,]+ characters \([\d,]+ characters left out\)/);
    }
    for (const budgetChars of [1_000, 1_001, 1_002, 1_003]) {
      const text = `x${"😀".repeat(3_000)}`;
      const shaped = shape({ text, budgetChars });
      expect(bodyOf(shaped.text).length).toBeLessThanOrEqual(budgetChars);
      expect(LONE_SURROGATE.test(shaped.text), String(budgetChars)).toBe(false);
    }
  });

  it("keeps big objects' first keys and counts the rest; a __proto__ key stays a key", () => {
    const wide: Record<string, number> = JSON.parse('{"__proto__": -1}');
    for (let i = 0; i < 20_000; i++) wide[`key_${i}`] = i;
    const shaped = shape({ text: JSON.stringify(wide), counter: gpt, budgetTokens: 600 });
    const value = jsonOf(shaped.text) as Record<string, unknown>;
    expect(Object.hasOwn(value, "__proto__")).toBe(true);
    expect(value["…"]).toMatch(/^[\d,]+ more keys \(20,001 in all\)$/);
    expect(shaped.tokens).toBeLessThanOrEqual(600);
  });

  it("describes images, audio and binary resources instead of sending their bytes", () => {
    const png = Buffer.alloc(12_000, 1).toString("base64");
    const shaped = shape({
      counter: gpt,
      content: [
        { type: "image", mimeType: "image/png", data: png },
        { type: "audio", mimeType: "audio/wav", data: Buffer.alloc(3, 1).toString("base64") },
        { type: "resource", resource: { uri: "file:///r.bin", mimeType: "application/zip", blob: png } },
        { type: "resource", resource: { uri: "file:///r.json", text: '{"ok": true}' } },
        { type: "resource_link", uri: "file:///big.csv", name: "big.csv" },
        { type: "text", text: "caption" },
      ],
    });
    expect(shaped.text).toBe(
      [
        "[tool orders_query → ok]",
        "[image image/png, 12,000 bytes, not shown]",
        "[audio audio/wav, 3 bytes, not shown]",
        "[resource file:///r.bin (application/zip), 12,000 bytes, not shown]",
        "[resource file:///r.json]",
        '{"ok": true}',
        "[link big.csv: file:///big.csv]",
        "caption",
      ].join("\n"),
    );
    expect(shaped.cut).toBe(false);
  });

  it("prefers structured content over its JSON text, and over a text of the tool's own that does not fit", () => {
    const structured = { total: 3_000, rows: Array.from({ length: 3_000 }, (_, i) => ({ i })) };
    const duplicate = shape({
      counter: gpt,
      structuredContent: { sum: 42 },
      content: [{ type: "text", text: '{\n  "sum": 42\n}' }],
    });
    expect(duplicate.text).toBe('[tool orders_query → ok]\n{"sum":42}');
    // Words of the tool's own that fit are shown as the tool wrote them.
    const words = shape({
      counter: gpt,
      structuredContent: { sum: 42 },
      content: [{ type: "text", text: "42" }],
    });
    expect(words.text).toBe("[tool orders_query → ok]\n42");
    // Too big: the structured content is shaped, valid, rather than the text cut.
    const big = shape({
      counter: gpt,
      budgetTokens: 500,
      structuredContent: structured,
      content: [{ type: "text", text: structured.rows.map((row) => `row ${row.i}`).join("\n") }],
    });
    expect(big.tokens).toBeLessThanOrEqual(500);
    expect((jsonOf(big.text) as typeof structured).rows.at(-1)).toMatch(/\(3,000 in all\)$/);
    expect(big.text).not.toContain("row 2999");
  });

  it("keeps to a budget in characters, alone or beside the token budget", () => {
    const rows = JSON.stringify(Array.from({ length: 10_000 }, (_, i) => ({ i, name: `name ${i}` })));
    for (const options of [{ budgetChars: 2_000 }, { budgetChars: 2_000, budgetTokens: 100_000 }]) {
      const shaped = shape({ text: rows, counter: gpt, ...options });
      expect(bodyOf(shaped.text).length).toBeLessThanOrEqual(2_000);
      expect((jsonOf(shaped.text) as unknown[]).at(-1)).toMatch(/\(10,000 in all\)$/);
    }
    // Tokens are the default budget.
    const byDefault = shape({ text: rows, counter: gpt });
    expect(byDefault.tokens).toBeLessThanOrEqual(DEFAULT_RESULT_BUDGET_TOKENS);
    expect(byDefault.tokens).toBeGreaterThan(DEFAULT_RESULT_BUDGET_TOKENS * 0.7);
  });

  it("says how to get the rest as the caller tells it, and what it left out when nothing fits", () => {
    const more = 'call read_result with {"handle": "r1"}';
    const text = "line\n".repeat(10_000);
    expect(shape({ text, counter: gpt, budgetTokens: 200, more }).text).toContain(
      `characters left out here; ${more}]`,
    );
    const tiny = shape({ text, counter: gpt, budgetTokens: 20, more: "ask again" });
    expect(tiny.cut).toBe(true);
    expect(bodyOf(tiny.text)).toBe(
      `[… the whole result left out (50,000 characters, ~${gpt.count(text).toLocaleString("en-US")} tokens): it does not fit this message's budget; ask again]`,
    );
  });

  it("keeps shapeResult, in characters, as it was for its callers", () => {
    expect(shapeResult({ tool: "t", outcome: "invalid_arguments", text: "bad" })).toBe(
      "[tool t → invalid arguments]\nbad",
    );
    expect(shapeResult({ tool: "t", outcome: "ok", text: "x", anchor: false })).toBe("x");
    expect(shapeResult({ tool: "t", outcome: "ok", text: "x", anchor: ({ tool }) => `<${tool}>` })).toBe(
      "<t>\nx",
    );
    const cut = shapeResult({ tool: "t", outcome: "ok", text: "y".repeat(20_000) });
    expect(bodyOf(cut).length).toBeLessThanOrEqual(8_000);
    expect(cut).toContain("[… ");
  });
});
