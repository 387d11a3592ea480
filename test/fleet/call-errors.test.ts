import { ProtocolError, SdkError, SdkErrorCode } from "@modelcontextprotocol/client";
import { describe, expect, it } from "vitest";
import { classifyFailure } from "../../src/fleet/call-errors.js";
import type { ServerRequest } from "../../src/fleet/requests.js";

// Every failure is classified once, where it is caught: what a failed attempt says of the request and
// of its server. These are the SDK's own errors, as its client raises them.

const call: ServerRequest = { method: "tools/call", tool: "summarize", args: {} };
const classify = (error: unknown, request: ServerRequest = call) =>
  classifyFailure(error, {
    server: "s",
    request,
    timeoutMs: 1_000,
    signal: undefined,
    unavailable: () => undefined,
    incident: "s#1",
  });

describe("failures a client cannot help", () => {
  it("an input request the client has no handler for is CAPABILITY_MISSING, never the server's fault", () => {
    const error = new SdkError(
      SdkErrorCode.CapabilityNotSupported,
      "Cannot fulfil input request 'it': no handler is registered for 'sampling/createMessage' on this client. Declare the corresponding capability and register a handler, or handle input_required results manually.",
    );
    expect(classify(error)).toMatchObject({
      code: "CAPABILITY_MISSING",
      capability: "sampling",
      tool: "summarize",
      serverFault: false,
      delivery: "final",
    });
  });

  it("a capability the server does not declare is CAPABILITY_MISSING naming it, for any request", () => {
    const error = new SdkError(
      SdkErrorCode.CapabilityNotSupported,
      "Server does not support completions (required for completion/complete)",
    );
    const failure = classify(error, {
      method: "completion/complete",
      ref: { type: "ref/prompt", name: "greet" },
      argument: { name: "who", value: "" },
    });
    expect(failure).toMatchObject({
      code: "CAPABILITY_MISSING",
      capability: "completions",
      serverFault: false,
    });
    expect(failure.message).toContain("server s does not offer completions");
    expect(failure.tool).toBeUndefined();
  });

  it("a method the server does not know is CAPABILITY_MISSING, not a sign that it is unwell", () => {
    const failure = classify(new ProtocolError(-32601, "Method not found"), {
      method: "prompts/get",
      prompt: "p",
      args: {},
    });
    expect(failure).toMatchObject({ code: "CAPABILITY_MISSING", rpcCode: -32601, serverFault: false });
  });

  it("a server's own failure still counts against it", () => {
    expect(classify(new ProtocolError(-32603, "Internal error"))).toMatchObject({
      code: "SERVER_ERROR",
      serverFault: true,
    });
  });
});
