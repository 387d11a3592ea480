// The gateway's Host and Origin checks (DNS-rebinding protection) on their own: which names pass on a
// loopback address, on another address, and with the allowlists of the `gateway` section.
import { describe, expect, it } from "vitest";
import { createHttpGuard, isLoopbackHost } from "../../src/gateway/http-guard.js";

const request = (headers: Record<string, string>) => new Request("http://127.0.0.1/mcp", { headers });
const status = (guard: ReturnType<typeof createHttpGuard>, headers: Record<string, string>) =>
  guard.check(request(headers))?.status ?? 200;

describe("the gateway's Host and Origin checks", () => {
  it("on loopback, accept the loopback names (any port) and refuse any other Host with 403", async () => {
    const guard = createHttpGuard({ host: "127.0.0.1" });
    expect(status(guard, { host: "127.0.0.1:8080" })).toBe(200);
    expect(status(guard, { host: "localhost:8080" })).toBe(200);
    expect(status(guard, { host: "[::1]:8080" })).toBe(200);
    const refused = guard.check(request({ host: "attacker.example:8080" }))!;
    expect(refused.status).toBe(403);
    expect(((await refused.json()) as { error: { message: string } }).error.message).toMatch(
      /Invalid Host: attacker\.example.*gateway\.allowedHosts/,
    );
  });

  it("accept the names of gateway.allowedHosts and gateway.allowedOrigins besides", () => {
    const guard = createHttpGuard({
      host: "127.0.0.1",
      allowedHosts: ["mcp.internal"],
      allowedOrigins: ["app.example.com"],
    });
    expect(status(guard, { host: "mcp.internal" })).toBe(200);
    expect(status(guard, { host: "127.0.0.1", origin: "https://app.example.com" })).toBe(200);
    expect(status(guard, { host: "127.0.0.1", origin: "http://localhost:5173" })).toBe(200);
    expect(status(guard, { host: "127.0.0.1", origin: "https://other.example.com" })).toBe(403);
    expect(status(guard, { host: "127.0.0.1", origin: "null" })).toBe(403);
  });

  it("on another address, check Host only against gateway.allowedHosts when there is one, and Origin always", () => {
    const open = createHttpGuard({ host: "0.0.0.0" });
    expect(status(open, { host: "gateway.example.com" })).toBe(200);
    expect(status(open, { host: "gateway.example.com", origin: "https://page.example" })).toBe(403);
    const named = createHttpGuard({ host: "0.0.0.0", allowedHosts: ["gateway.example.com"] });
    expect(status(named, { host: "gateway.example.com" })).toBe(200);
    expect(status(named, { host: "localhost" })).toBe(403);
  });

  it("know the loopback addresses", () => {
    expect(["127.0.0.1", "127.1.2.3", "::1", "[::1]", "localhost"].map(isLoopbackHost)).toEqual([
      true,
      true,
      true,
      true,
      true,
    ]);
    expect(["0.0.0.0", "::", "192.168.1.5", "example.com"].map(isLoopbackHost)).toEqual([
      false,
      false,
      false,
      false,
    ]);
  });
});
