// The one-pass check of a tools/call result that replaces the SDK's zod parse on Switchyard's call
// path: what it accepts, what it refuses and how it says so. (A real SDK server will not send a
// malformed result — its own checks refuse it first — so the refusals are tested here, directly.)
import { describe, expect, it } from "vitest";
import { CALL_TOOL_RESULT, declaresHeaders } from "../../src/fleet/tool-result.js";

const check = (value: unknown) =>
  CALL_TOOL_RESULT["~standard"].validate(value) as { value?: unknown; issues?: { message: string }[] };

describe("CALL_TOOL_RESULT", () => {
  it("accepts every kind of content block, and keeps what it does not know of", () => {
    const result = {
      content: [
        { type: "text", text: "hi", annotations: { audience: ["user"] } },
        { type: "image", data: "aGk=", mimeType: "image/png" },
        { type: "audio", data: "aGk=", mimeType: "audio/wav" },
        { type: "resource_link", uri: "file:///a", name: "a" },
        { type: "resource", resource: { uri: "file:///b", text: "b" } },
        { type: "resource", resource: { uri: "file:///c", blob: "Yw==" } },
      ],
      structuredContent: [1, 2],
      isError: false,
      _meta: { trace: "x" },
      extra: true,
    };
    expect(check(result)).toEqual({ value: result });
  });

  it("fills in content when the server left it out", () => {
    expect(check({ structuredContent: { a: 1 } })).toEqual({
      value: { structuredContent: { a: 1 }, content: [] },
    });
  });

  it.each([
    ["null", null, /the result is null, not an object/],
    ["an array", [], /the result is an array, not an object/],
    ["a string", "ok", /the result is a string, not an object/],
    ["content not a list", { content: "text" }, /content is a string, not an array/],
    ["isError not a boolean", { content: [], isError: "yes" }, /isError is a string, not a boolean/],
    ["_meta not an object", { content: [], _meta: 3 }, /_meta is a number, not an object/],
    ["a block that is not an object", { content: [7] }, /content\[0\] is a number, not a content block/],
    [
      "a text block without text",
      { content: [{ type: "text" }] },
      /content\[0\] \(text\) has no text string/,
    ],
    [
      "an image without mimeType",
      { content: [{ type: "image", data: "" }] },
      /\(image\) has no mimeType string/,
    ],
    [
      "a link without a name",
      { content: [{ type: "resource_link", uri: "u" }] },
      /\(resource_link\) has no name/,
    ],
    [
      "a resource without contents",
      { content: [{ type: "resource", resource: { uri: "u" } }] },
      /neither a text nor a blob/,
    ],
    ["a resource that is not an object", { content: [{ type: "resource" }] }, /has no resource object/],
    [
      "an unknown block type",
      { content: [{ type: "text", text: "a" }, { type: "video" }] },
      /content\[1\] has type "video"/,
    ],
  ])("refuses %s, saying what is wrong", (_what, value, problem) => {
    const outcome = check(value);
    expect(outcome.value).toBeUndefined();
    expect(outcome.issues?.[0]?.message).toMatch(problem);
  });
});

describe("declaresHeaders", () => {
  it("finds x-mcp-header anywhere in an input schema, and nothing where there is none", () => {
    const tool = (inputSchema: object) =>
      ({ name: "t", inputSchema }) as Parameters<typeof declaresHeaders>[0];
    expect(
      declaresHeaders(
        tool({ type: "object", properties: { region: { type: "string", "x-mcp-header": "Region" } } }),
      ),
    ).toBe(true);
    expect(declaresHeaders(tool({ type: "object", properties: { header: { type: "string" } } }))).toBe(false);
  });
});
