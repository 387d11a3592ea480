// The options of sealed sessions are checked where they are given: createGateway's and the config's
// gateway section. A key too short to seal with, a bad expiry, and an expiry or previous key without a
// key to seal with are each refused with what to do (sessionMaxAgeMs alone once did nothing, silently).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createGateway } from "../../src/gateway/index.js";
import { resolveConfig, Switchyard } from "../../src/index.js";

const KEY = "a-session-key-long-enough-0123456789";
let yard: Switchyard;
beforeAll(async () => {
  yard = await Switchyard.connect({ mcpServers: {} });
});
afterAll(async () => {
  await yard.close();
});

function refusal(run: () => unknown): { code: string; message: string; path?: string } {
  try {
    run();
  } catch (error) {
    return error as { code: string; message: string; path?: string };
  }
  throw new Error("expected a refusal");
}

describe("createGateway's session options", () => {
  it("refuses sessionMaxAgeMs without sessionKey, saying it bounds sealed sessions only", () => {
    expect(refusal(() => createGateway(yard, { sessionMaxAgeMs: 60_000 }))).toMatchObject({
      code: "INVALID_INPUT",
      message: expect.stringMatching(
        /sessionMaxAgeMs \(60000\) bounds sealed sessions only: give sessionKey/,
      ),
    });
  });

  it("refuses a key too short and an expiry that is not a positive integer", () => {
    expect(refusal(() => createGateway(yard, { sessionKey: "short" }))).toMatchObject({
      code: "INVALID_INPUT",
    });
    for (const sessionMaxAgeMs of [0, -1, 1.5])
      expect(refusal(() => createGateway(yard, { sessionKey: KEY, sessionMaxAgeMs }))).toMatchObject({
        code: "INVALID_INPUT",
        message: expect.stringContaining("sessionMaxAgeMs must be a positive integer"),
      });
  });

  it("takes a key with an expiry", async () => {
    const gateway = createGateway(yard, { sessionKey: KEY, sessionMaxAgeMs: 60_000 });
    await gateway.close();
  });
});

describe("the config's gateway section", () => {
  const servers = { s: { command: "node" } };
  const resolve = (gateway: object) => () =>
    resolveConfig({ mcpServers: servers, gateway }, { baseDir: "/cfg" });

  it("refuses limits.sessionMaxAgeMs and previousSessionKeys without sessionKey", () => {
    expect(refusal(resolve({ limits: { sessionMaxAgeMs: 60_000 } }))).toMatchObject({
      code: "CONFIG_INVALID",
      message: expect.stringContaining('expected "sessionKey" beside "limits.sessionMaxAgeMs"'),
    });
    expect(refusal(resolve({ previousSessionKeys: [KEY] }))).toMatchObject({
      code: "CONFIG_INVALID",
      message: expect.stringContaining('expected "sessionKey" beside "previousSessionKeys"'),
    });
  });

  it("takes sessionKey with limits.sessionMaxAgeMs", () => {
    const config = resolveConfig(
      { mcpServers: servers, gateway: { sessionKey: KEY, limits: { sessionMaxAgeMs: 60_000 } } },
      { baseDir: "/cfg" },
    );
    expect(config.gateway).toMatchObject({ sessionKey: KEY, limits: { sessionMaxAgeMs: 60_000 } });
  });
});
