import { describe, expect, it } from "vitest";
import { splitIdentifier } from "../../src/routing/identifiers.js";
import { stem } from "../../src/routing/stem.js";
import { createTokenizer, tokenize } from "../../src/routing/tokenizer.js";

describe("English tokenization", () => {
  it("lower-cases words and drops stop words and stray letters", () => {
    expect(tokenize("Please show me THE Weather in Berlin, it's cold")).toEqual([
      "show",
      "weather",
      "berlin",
      "cold",
    ]);
  });

  it("drops the adverbs that join a request's steps: they say nothing about a tool", () => {
    // "Additionally" stemmed to "additional" met every tool with an `additional_info` parameter.
    expect(
      tokenize("Additionally, send the report. Furthermore, specifically the sales; finally, thanks"),
    ).toEqual(["send", "report", stem("sales")]);
  });

  it("folds plurals, -ing, -ed and -ation forms onto one stem", () => {
    expect(new Set(["analyze", "analyzed", "analyzing", "analyzes"].map(stem))).toEqual(new Set(["analyz"]));
    expect(stem("translation")).toBe(stem("translate"));
    expect(stem("optimization")).toBe(stem("optimize"));
    expect(stem("repositories")).toBe(stem("repository"));
    expect(stem("running")).toBe("run");
  });

  it("folds -ence into -ent, and not -ance into -ant", () => {
    expect(new Set(["different", "difference", "differences"].map(stem))).toEqual(new Set(["different"]));
    expect(new Set(["reference", "references", "referenced", "referencing"].map(stem)).size).toBe(1);
    expect(stem("dependence")).toBe(stem("dependent"));
    expect(stem("instance")).not.toBe(stem("instant"));
  });

  it("leaves short words and non-words alone", () => {
    expect(stem("bus")).toBe("bus");
    expect(stem("analysis")).toBe("analysis");
    expect(stem("sha256")).toBe("sha256");
  });

  it("keeps numbers as terms and splits a number glued to a unit", () => {
    expect(tokenize("order 12345 weighs 10kg")).toEqual(["order", "12345", "weigh", "10", "kg", "10kg"]);
  });

  it("can be switched to plain lower-cased words", () => {
    const plain = createTokenizer({ stem: false, stopWords: false, compounds: false });
    expect(plain("Listing the files")).toEqual(["listing", "the", "files"]);
  });
});

describe("identifiers", () => {
  it("split camelCase, PascalCase, snake_case, kebab-case and dotted names", () => {
    expect(splitIdentifier("getUserInfo")).toEqual(["get", "User", "Info"]);
    expect(splitIdentifier("HTTPServerError")).toEqual(["HTTP", "Server", "Error"]);
    expect(splitIdentifier("query_recent_orders")).toEqual(["query", "recent", "orders"]);
    expect(splitIdentifier("list-open-issues")).toEqual(["list", "open", "issues"]);
    expect(splitIdentifier("fs.readFile")).toEqual(["fs", "read", "File"]);
    expect(splitIdentifier("utf8Decode")).toEqual(["utf8", "Decode"]);
  });

  it("are indexed as words and also whole, so a query naming a tool exactly finds it", () => {
    expect(tokenize("call get_user_info")).toEqual(["call", "get", "user", "info", "getuserinfo"]);
    expect(tokenize("getUserInfo")).toEqual(tokenize("get_user_info"));
  });
});

describe("Chinese tokenization", () => {
  it("gives Intl.Segmenter words without stop words, plus character bigrams", () => {
    const terms = tokenize("我想查询订单状态");
    expect(terms).toEqual(expect.arrayContaining(["查询", "订单", "状态"]));
    expect(terms).not.toContain("我");
    expect(terms).toEqual(expect.arrayContaining(["~查询", "~询订", "~订单", "~单状", "~状态"]));
  });

  it("drops the words that join a request's steps", () => {
    const terms = tokenize("另外，顺便查询订单");
    expect(terms).toContain("查询");
    expect(terms).not.toContain("另外");
    expect(terms).not.toContain("顺便");
  });

  it("meets a differently segmented text through the bigrams", () => {
    const query = new Set(tokenize("优化"));
    const tool = tokenize("能量存储优化工具");
    expect(tool.some((term) => query.has(term))).toBe(true);
  });

  it("can leave the bigrams out", () => {
    expect(createTokenizer({ cjkBigrams: false })("查询订单").every((term) => !term.startsWith("~"))).toBe(
      true,
    );
  });
});

describe("mixed text", () => {
  it("tokenizes Chinese runs and Latin words and identifiers side by side", () => {
    const terms = tokenize("请用getWeather查询北京的天气, city=Beijing, 温度30度");
    expect(terms).toEqual(
      expect.arrayContaining([
        "get",
        "weather",
        "getweather",
        "查询",
        "北京",
        "天气",
        "city",
        "beij",
        "温度",
        "30",
      ]),
    );
  });

  it("normalizes full-width characters first", () => {
    expect(tokenize("ＡＢＣ１２３")).toEqual(tokenize("ABC123"));
  });
});
