import { describe, expect, it } from "vitest";
import { LruMap } from "../../src/lru-map.js";

describe("LruMap", () => {
  it("keeps at most max entries, dropping the least recently used; a read or a write makes one recent", () => {
    const map = new LruMap<string, number>(2);
    map.set("a", 1);
    map.set("b", 2);
    expect(map.get("a")).toBe(1); // a is now the most recent: b goes first
    map.set("c", 3);
    expect([map.get("b"), map.get("a"), map.get("c")]).toEqual([undefined, 1, 3]);
    map.set("a", 10); // a rewritten, the most recent again: c goes
    map.set("d", 4);
    expect([map.get("c"), map.get("a"), map.get("d"), map.size]).toEqual([undefined, 10, 4, 2]);
  });

  it("reads a falsy value as kept, and forgets on delete and clear", () => {
    const map = new LruMap<string, number>(3);
    map.set("zero", 0);
    expect(map.get("zero")).toBe(0);
    expect(map.delete("zero")).toBe(true);
    expect(map.get("zero")).toBeUndefined();
    map.set("x", 1);
    map.clear();
    expect(map.size).toBe(0);
  });
});
