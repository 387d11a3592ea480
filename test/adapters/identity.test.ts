import { AIMessage } from "@langchain/core/messages";
import { ToolNode } from "@langchain/langgraph/prebuilt";
import { describe, expect, it } from "vitest";
import { aiSdkTools } from "../../src/adapters/ai-sdk.js";
import { langchainTools } from "../../src/adapters/langchain.js";
import { Switchyard } from "../../src/index.js";
import { sdk } from "../helpers.js";

const READER = { user: "ann", roles: ["reader"] };

/** A server with echo and add; the policy lets readers echo, nobody else anything. */
const guarded = () =>
  Switchyard.connect({
    mcpServers: { s: sdk() },
    policy: { rules: [{ id: "readers-echo", effect: "allow", tools: ["s_echo"], roles: ["reader"] }] },
  });

describe("the adapters' identity", () => {
  it("lists what the identity may call and makes the calls for it (the policy decides for it, not the default)", async () => {
    await using yard = await guarded();
    expect(Object.keys(aiSdkTools(yard))).toEqual([]);
    const tools = aiSdkTools(yard, { identity: READER });
    expect(Object.keys(tools)).toEqual(["s_echo"]);
    const output = await tools.s_echo!.execute!({ text: "hi" }, { toolCallId: "e", messages: [] } as never);
    expect(String(output)).toMatch(/^\[tool s_echo → ok\]/);
    expect(langchainTools(yard, { identity: READER }).map((t) => t.name)).toEqual(["s_echo"]);
  });

  it("hands a refusal to the model in the agent's words (POLICY_DENIED)", async () => {
    await using yard = await guarded();
    // Not listed for the reader; made from the whole catalog (as a cached listing would be), the call is
    // still decided for the reader, who may not add.
    expect(() => langchainTools(yard, { identity: READER, names: ["s_add"] })).toThrow(
      expect.objectContaining({
        code: "TOOL_NOT_FOUND",
        message: expect.stringContaining("s_add is not among"),
      }),
    );
    expect(() => aiSdkTools(yard, { identity: READER, names: ["s_ecoh"] })).toThrow(/did you mean s_echo/);
    const all = langchainTools(
      new Proxy(yard, {
        get(target, key) {
          if (key === "tools") return () => target.tools({ policy: false });
          const value = Reflect.get(target, key, target);
          return typeof value === "function" ? value.bind(target) : value;
        },
      }),
      { identity: READER, names: ["s_add"] },
    );
    const { messages } = (await new ToolNode(all).invoke({
      messages: [
        new AIMessage({ content: "", tool_calls: [{ id: "a", name: "s_add", args: { a: 1, b: 2 } }] }),
      ],
    })) as {
      messages: Array<{ status: string; content: unknown; additional_kwargs: Record<string, unknown> }>;
    };
    expect(messages[0]!.status).toBe("error");
    expect(String(messages[0]!.content)).toMatch(/s_add was refused: .*do not call it again/s);
    expect(messages[0]!.additional_kwargs).toMatchObject({ switchyard: { code: "POLICY_DENIED" } });
  });
});
