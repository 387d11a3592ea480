import { describe, expect, it } from "vitest";
import { resolveModel } from "../../src/index.js";

describe("resolveModel", () => {
  it("says exactly how to configure a model when there is none", () => {
    expect(() => resolveModel({ env: {} })).toThrow(
      /no model is configured: add a "model" section .*OPENAI_API_KEY.*SWITCHYARD_MODEL.*--model/,
    );
  });

  it("reads the environment, with OpenAI's endpoint and default model for a bare key", () => {
    expect(resolveModel({ env: { OPENAI_API_KEY: "k" } }).name).toBe("gpt-4o-mini");
    expect(
      resolveModel({ env: { OPENAI_BASE_URL: "http://127.0.0.1:1/v1", SWITCHYARD_MODEL: "llama" } }).name,
    ).toBe("llama");
    expect(() => resolveModel({ env: { OPENAI_BASE_URL: "http://127.0.0.1:1/v1" } })).toThrow(
      /set SWITCHYARD_MODEL/,
    );
    expect(resolveModel({ section: { baseURL: "http://x/v1", name: "a" }, name: "b", env: {} }).name).toBe(
      "b",
    );
  });
});
