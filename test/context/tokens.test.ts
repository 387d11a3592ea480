import { spawnSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import {
  DEFAULT_CONTEXT_WINDOW_TOKENS,
  DEFAULT_TOKEN_CALIBRATION_BOUNDS,
} from "../../src/config/defaults.js";
import { resolveConfig } from "../../src/config/index.js";
import { budgetFor } from "../../src/context/budget.js";
import { contextWindowFor, createTokenCounter, tokenCounterFor } from "../../src/context/tokens.js";
import type { ChatMessage, ModelTool } from "../../src/models/model.js";
import { NODE, ROOT } from "../helpers.js";

describe("token counting", () => {
  it("uses OpenAI's tokenizer for OpenAI model families, with or without a provider prefix", () => {
    for (const name of [
      "gpt-4o-mini",
      "openai/gpt-4.1",
      "gpt-5-nano",
      "o3-mini",
      "o4-mini",
      "gpt-4",
      "gpt-3.5-turbo",
    ]) {
      expect(createTokenCounter(name).exact, name).toBe(true);
    }
    for (const name of ["qwen2.5:7b", "deepseek-chat", "claude-sonnet-4", "llama3.1", "omni", undefined]) {
      expect(createTokenCounter(name).exact, String(name)).toBe(false);
    }
    const gpt = createTokenCounter("gpt-4o");
    expect(gpt.count("hello world")).toBe(2);
    expect(gpt.count("")).toBe(0);
    // Special tokens in a tool's text are text, not a reason to throw.
    expect(gpt.count("<|endoftext|>")).toBeGreaterThan(1);
  });

  it("estimates other models at one token per CJK character and four characters per token elsewhere", () => {
    const qwen = createTokenCounter("qwen3-32b");
    expect(qwen.count("你好世界")).toBe(4);
    expect(qwen.count("こんにちは")).toBe(5);
    expect(qwen.count("안녕하세요")).toBe(5);
    expect(qwen.count("a".repeat(400))).toBe(100);
    expect(qwen.count("订单 order 12345")).toBe(5); // 2 CJK characters, then 12 others at 4 a token
    // An emoji is one character (two UTF-16 halves), about one token.
    expect(qwen.count("🚚")).toBe(1);
  });

  it("counts long runs of one letter or sign in slices, as BPE would take minutes on them whole", () => {
    const gpt = createTokenCounter("gpt-4o");
    expect(gpt.count("x".repeat(200_000))).toBe(25_000);
    expect(gpt.count(`${"[".repeat(200_000)}${"]".repeat(200_000)}`)).toBeGreaterThanOrEqual(100_000);
    expect(gpt.count("订".repeat(50_000))).toBeGreaterThan(0);
  });

  it("stops counting early when asked whether a huge text fits a limit", () => {
    const huge = "word ".repeat(1_000_000);
    for (const counter of [createTokenCounter("gpt-4o"), createTokenCounter("glm-4")]) {
      expect(counter.countUpTo(huge, 100)).toBeGreaterThan(100);
      expect(counter.countUpTo("hello world", 100)).toBe(counter.count("hello world"));
    }
  });

  it("counts messages with the chat format's overhead, tool calls included", () => {
    const gpt = createTokenCounter("gpt-4o");
    const user: ChatMessage = { role: "user", content: "What is the weather in Paris?" };
    const none = gpt.countMessages([]);
    const one = gpt.countMessages([user]);
    expect(none).toBe(3); // every reply is primed with 3 tokens
    expect(one).toBe(none + 4 + gpt.count(user.content)); // 3 around each message, 1 for the role
    const call: ChatMessage = {
      role: "assistant",
      content: null,
      toolCalls: [{ id: "c1", name: "weather_now", arguments: '{"city":"Paris"}' }],
    };
    expect(gpt.countMessages([user, call])).toBeGreaterThan(
      one + gpt.count("weather_now") + gpt.count('{"city":"Paris"}'),
    );
    // The same message objects again: the same count (cached per message).
    expect(gpt.countMessages([user, call])).toBe(gpt.countMessages([user, call]));
  });

  it("counts offered tools by their serialized schema", () => {
    const gpt = createTokenCounter("gpt-4o");
    const tool: ModelTool = {
      name: "orders_query",
      description: "Query orders by customer and date",
      parameters: { type: "object", properties: { customer: { type: "string" }, since: { type: "string" } } },
    };
    expect(gpt.countTools([])).toBe(0);
    const wire = JSON.stringify({ type: "function", function: tool });
    expect(gpt.countTools([tool])).toBeGreaterThan(gpt.count(wire));
    expect(gpt.countTools([tool, { ...tool, name: "orders_get" }])).toBeGreaterThan(gpt.countTools([tool]));
  });

  it("corrects the estimate with the usage the server reports, smoothed and within bounds", () => {
    const counter = createTokenCounter("deepseek-chat");
    const text = "x".repeat(4_000); // 1,000 tokens estimated
    expect(counter.count(text)).toBe(1_000);
    const messages: ChatMessage[] = [{ role: "user", content: text }];
    const before = counter.countMessages(messages);
    counter.calibrate(1_000, 2_000); // the server says twice as many: halfway there
    expect(counter.count(text)).toBe(1_500);
    for (let i = 0; i < 20; i++) counter.calibrate(counter.count(text), 2_000);
    expect(counter.count(text)).toBeGreaterThan(1_990);
    expect(counter.count(text)).toBeLessThanOrEqual(2_000);
    // Cached message counts follow the correction too.
    expect(counter.countMessages(messages)).toBeGreaterThan(before * 1.9);
    for (let i = 0; i < 20; i++) counter.calibrate(100, 1_000_000);
    expect(counter.count(text)).toBe(1_000 * DEFAULT_TOKEN_CALIBRATION_BOUNDS.max);
    for (let i = 0; i < 40; i++) counter.calibrate(1_000_000, 1);
    expect(counter.count(text)).toBe(1_000 * DEFAULT_TOKEN_CALIBRATION_BOUNDS.min);
    // Reports that say nothing change nothing.
    for (const [estimated, reported] of [
      [0, 100],
      [100, 0],
      [Number.NaN, 100],
      [100, Number.POSITIVE_INFINITY],
      [-5, 100],
    ] as const) {
      counter.calibrate(estimated, reported);
    }
    expect(counter.count(text)).toBe(1_000 * DEFAULT_TOKEN_CALIBRATION_BOUNDS.min);
  });

  it("never calibrates an exact counter", () => {
    const gpt = createTokenCounter("gpt-4o");
    const before = gpt.count("hello world, hello tokens");
    gpt.calibrate(10, 1_000);
    expect(gpt.count("hello world, hello tokens")).toBe(before);
  });

  it("keeps one counter per model name, so what one run learned serves the next", () => {
    expect(tokenCounterFor("Qwen2.5-7B")).toBe(tokenCounterFor("qwen2.5-7b"));
    expect(tokenCounterFor("openai/gpt-4o")).toBe(tokenCounterFor("gpt-4o"));
    expect(tokenCounterFor("qwen2.5-7b")).not.toBe(tokenCounterFor("qwen2.5-14b"));
    expect(createTokenCounter("gpt-4o")).not.toBe(tokenCounterFor("gpt-4o"));
  });

  it("loads the tokenizer's ranks on first count, not when Switchyard is imported", () => {
    const script = `
      import { createRequire } from "node:module";
      const loaded = () => Object.keys(createRequire(import.meta.url).cache).some((k) => k.includes("gpt-tokenizer"));
      await import(${JSON.stringify(`${ROOT}src/index.ts`)});
      const { tokenCounterFor } = await import(${JSON.stringify(`${ROOT}src/context/tokens.ts`)});
      const before = loaded();
      tokenCounterFor("gpt-4o").count("hi");
      console.log(JSON.stringify({ before, after: loaded() }));`;
    const child = spawnSync(NODE, ["--import", "tsx", "--input-type=module", "-e", script], {
      cwd: ROOT,
      encoding: "utf8",
    });
    expect(child.stderr).toBe("");
    expect(JSON.parse(child.stdout)).toEqual({ before: false, after: true });
  });
});

describe("context windows", () => {
  it("are read from model.contextWindow, a whole number above 0", () => {
    const resolve = (contextWindow: unknown) =>
      resolveConfig({ mcpServers: {}, model: { name: "m", contextWindow } }, { baseDir: "/cfg", env: {} });
    expect(resolve(128_000).model).toEqual({ name: "m", contextWindow: 128_000 });
    expect(() => resolve(0)).toThrow("model.contextWindow: expected a number above 0");
    expect(() => resolve(1.5)).toThrow("model.contextWindow: expected a whole number");
    expect(() => resolve("128k")).toThrow("model.contextWindow: expected a number");
  });

  it("come from the config first, then from the model's name, then the default", () => {
    expect(contextWindowFor("gpt-4o", 16_000)).toBe(16_000);
    expect(contextWindowFor("gpt-4o-mini")).toBe(128_000);
    expect(contextWindowFor("openai/gpt-4.1-mini")).toBe(1_047_576);
    expect(contextWindowFor("gpt-4")).toBe(8_192);
    expect(contextWindowFor("gpt-4-turbo")).toBe(128_000);
    expect(contextWindowFor("gpt-5-mini")).toBe(400_000);
    expect(contextWindowFor("o3-mini")).toBe(200_000);
    expect(contextWindowFor("claude-sonnet-4-5")).toBe(200_000);
    expect(contextWindowFor("Qwen2.5-7B-Instruct")).toBe(32_768);
    expect(contextWindowFor("deepseek-chat")).toBe(65_536);
    expect(contextWindowFor("glm-4.5")).toBe(128_000);
    expect(contextWindowFor("llama3.1:8b")).toBe(131_072);
    expect(contextWindowFor("my-own-model")).toBe(DEFAULT_CONTEXT_WINDOW_TOKENS);
    expect(contextWindowFor(undefined)).toBe(DEFAULT_CONTEXT_WINDOW_TOKENS);
  });
});

describe("the budget split", () => {
  it("shares a window between the answer, the system prompt, the tools and the conversation", () => {
    const budget = budgetFor(128_000);
    expect(budget).toEqual({
      window: 128_000,
      answer: 4_096,
      request: 123_904,
      systemPrompt: 6_195,
      tools: 18_585,
      history: 99_124,
      result: 4_000,
    });
    expect(budget.systemPrompt + budget.tools + budget.history).toBe(budget.request);
    // A small window: the answer's reserve is at most a quarter, a result a tenth of the request.
    expect(budgetFor(8_192)).toMatchObject({ answer: 2_048, request: 6_144, result: 614 });
    expect(budgetFor(32_768, { resultShare: 0.5, maxResultTokens: 1_000 }).result).toBe(1_000);
    expect(budgetFor(32_768, { answerTokens: 1_000, toolsShare: 0 })).toMatchObject({
      answer: 1_000,
      tools: 0,
    });
  });

  it("refuses numbers that cannot make a budget, naming the setting", () => {
    expect(() => budgetFor(0)).toThrow(/model\.contextWindow.*above 0, got 0/);
    expect(() => budgetFor(1.5)).toThrow(/whole number/);
    expect(() => budgetFor(10_000, { toolsShare: 1 })).toThrow(
      /toolsShare must be a share from 0 to below 1/,
    );
    expect(() => budgetFor(10_000, { systemPromptShare: 0.5, toolsShare: 0.5 })).toThrow(
      /leaving nothing for the conversation/,
    );
    expect(() => budgetFor(10_000, { maxResultTokens: -1 })).toThrow(
      expect.objectContaining({ code: "INVALID_INPUT" }),
    );
  });
});
