import { describe, expect, it } from "vitest";
import { Bm25Index } from "../../src/routing/bm25-index.js";

const terms = (text: string) => text.split(" ").filter(Boolean);
const query = (text: string) => terms(text).map((term) => ({ term, weight: 1 }));

function indexOf(docs: Record<string, { name: string; body: string }>, nameWeight = 1) {
  const index = new Bm25Index({ fields: { name: { weight: nameWeight }, body: { weight: 1 } } });
  for (const [id, doc] of Object.entries(docs))
    index.add(id, { name: terms(doc.name), body: terms(doc.body) });
  return index;
}

const DOCS = {
  refund: { name: "refund order", body: "give money back for an order" },
  track: { name: "track order", body: "where is my parcel order" },
  weather: { name: "weather", body: "forecast rain sun for a city" },
  convert: { name: "convert currency", body: "money exchange rate" },
};

describe("BM25F index", () => {
  it("ranks documents by shared terms, rare terms counting more, and leaves out the rest", () => {
    const index = indexOf(DOCS);
    const hits = index.search(query("money back"), 10);
    expect(hits.map((hit) => hit.id)).toEqual(["refund", "convert"]);
    expect(hits[0]!.score).toBeGreaterThan(hits[1]!.score);
    // "rain" is in one document, "money" in two: the rarer term decides.
    expect(index.search(query("money rain"), 1)[0]!.id).toBe("weather");
  });

  it("weights fields: a name match outranks a body match when the name weighs more", () => {
    const docs = { a: { name: "rain", body: "x" }, b: { name: "x", body: "rain" } };
    expect(indexOf(docs, 1).search(query("rain"), 2)[0]!.score).toBeCloseTo(
      indexOf(docs, 1).search(query("rain"), 2)[1]!.score,
    );
    expect(
      indexOf(docs, 3)
        .search(query("rain"), 2)
        .map((hit) => hit.id),
    ).toEqual(["a", "b"]);
  });

  it("leaves a zero-weight field out of matching entirely", () => {
    const index = new Bm25Index({ fields: { name: { weight: 1 }, body: { weight: 0 } } });
    index.add("a", { name: ["refund"], body: ["secret"] });
    expect(index.search(query("secret"), 5)).toEqual([]);
  });

  it("keeps the best `limit` hits in order, ties broken by id", () => {
    const index = new Bm25Index({ fields: { name: { weight: 1 } } });
    for (const id of ["d", "b", "a", "c"]) index.add(id, { name: ["same"] });
    expect(index.search(query("same"), 3).map((hit) => hit.id)).toEqual(["a", "b", "c"]);
    expect(index.search(query("same"), 0)).toEqual([]);
  });

  it("scores the same after removals and re-adds as an index built fresh", () => {
    const updated = indexOf(DOCS);
    updated.remove("weather");
    updated.add("track", { name: terms("track parcel"), body: terms("follow a shipment") });
    updated.add("cancel", { name: terms("cancel order"), body: terms("stop an order before it ships") });
    const fresh = indexOf({
      refund: DOCS.refund,
      track: { name: "track parcel", body: "follow a shipment" },
      convert: DOCS.convert,
      cancel: { name: "cancel order", body: "stop an order before it ships" },
    });
    for (const text of ["order money", "parcel shipment", "rain forecast", "cancel order before"]) {
      expect(updated.search(query(text), 10)).toEqual(fresh.search(query(text), 10));
    }
    expect(updated.size).toBe(4);
    expect(updated.remove("weather")).toBe(false);
  });
});
