import { describe, expect, it } from "vitest";
import { CatalogAcronyms } from "../../src/routing/catalog-acronyms.js";
import { CatalogSynonyms } from "../../src/routing/catalog-synonyms.js";
import { splitDetails } from "../../src/routing/clauses.js";
import { serverRecallAt } from "../../src/routing/metrics.js";
import { OBJECT_FAMILIES, objectsIn } from "../../src/routing/object-families.js";
import { QueryExpansion } from "../../src/routing/query-expansion.js";
import { Router } from "../../src/routing/router.js";
import { LexicalStrategy } from "../../src/routing/strategies/lexical.js";
import { tokenize } from "../../src/routing/tokenizer.js";
import type { ToolDescriptor } from "../../src/routing/tool-descriptor.js";
import { toolText } from "../../src/routing/tool-text.js";
import { pathWords, valuesIn } from "../../src/routing/value-forms.js";
import {
  isEnglishFamilyVerb,
  opensWithVerb,
  VERB_FAMILIES,
  verbFamily,
  withVerbFamilies,
} from "../../src/routing/verb-families.js";
import { msFor, offeredBy, toolOf, top } from "./ranking-helpers.js";

describe("verb families", () => {
  it("give words of one action in either language the same family term", () => {
    expect(verbFamily("提交")).toBe("^commit");
    expect(verbFamily(tokenize("commit")[0]!)).toBe("^commit");
    expect(verbFamily(tokenize("retrieved")[0]!)).toBe(verbFamily("获取"));
    expect(withVerbFamilies(tokenize)("fetch the weather")).toEqual(["fetch", "^get", "weather"]);
    expect(opensWithVerb("please save a note")).toBe(true);
    expect(opensWithVerb("humidity of Berlin")).toBe(false);
  });

  it("count a request's English verb through its family, so a tool wearing the verb in its name does not win by it", () => {
    const tools = [
      toolOf("browser", "save_as_pdf", "Save the current page as a PDF"),
      toolOf("browser", "navigate", "Open a URL in the browser"),
      toolOf("fs", "write_file", "Write text to a file at a path"),
      toolOf("fs", "read_file", "Read a file"),
    ];
    const first = (options: { verbWordWeight?: number }, request: string) =>
      new Router(tools, { offerAllUpTo: 0, strategy: new LexicalStrategy(options) }).rankNow(request, {
        topK: 1,
      })[0]?.id;
    for (const request of [
      "save the summary as markdown to ~/notes/today.md",
      "save the meeting notes in a file",
    ]) {
      expect(first({}, request), request).toBe("fs_write_file");
      expect(first({ verbWordWeight: 1 }, request), request).toBe("browser_save_as_pdf");
    }
    // English verbs only, and not the noun the remember family names.
    expect([tokenize("save")[0]!, "^save", "保存", tokenize("memory")[0]!].map(isEnglishFamilyVerb)).toEqual([
      true,
      false,
      false,
      false,
    ]);
  });

  it("find a Chinese verb the segmenter cut in two by its bigram, counting it once either way", () => {
    const families = (text: string) =>
      withVerbFamilies(tokenize)(text).filter((term) => term.startsWith("^"));
    // 写入 as 写 + 入 (写 is a save verb itself), 拉取 as 拉 + 取, 提交 kept whole: one family term each.
    expect(families("再把结果写入文件")).toEqual(["^save"]);
    expect(families("拉取最新的代码")).toEqual(["^pull"]);
    expect(families("提交")).toEqual(["^commit"]);
    // A bigram across two words the segmenter kept is no verb: 出发|到达 holds 发到, 重新|建立 holds 新建.
    expect(families("查询出发到达时间")).toEqual(["^search"]);
    expect(families("重新建立连接")).toEqual(["^create"]);
  });

  it("put no word in two families, verbs and objects alike", () => {
    const seen = new Map<string, string>();
    for (const [table, families] of [
      ["verb", VERB_FAMILIES],
      ["object", OBJECT_FAMILIES],
    ] as const)
      for (const [family, words] of Object.entries(families))
        for (const word of words.split(/\s+/)) {
          const key = /\p{Script=Han}/u.test(word) ? word : (tokenize(word)[0] ?? word);
          const where = `${table} ${family}`;
          expect([undefined, where], `${word} (${where}) is also in ${seen.get(key)}`).toContain(
            seen.get(key),
          );
          seen.set(key, where);
        }
  });

  it("tie remembering and recalling to a memory, in either language", () => {
    const family = verbFamily(tokenize("memory")[0]!);
    expect(family).toBe("^remember");
    for (const word of ["remember", "recall", "memorize"])
      expect(verbFamily(tokenize(word)[0]!)).toBe(family);
    expect(verbFamily("记住")).toBe(family);
  });

  it("leave out words as often something else: 比较 is 'rather' as often as 'compare'", () => {
    expect(verbFamily("对比")).toBe("^compare");
    expect(withVerbFamilies(tokenize)("我比较喜欢红酒")).not.toContain("^compare");
  });

  it("lead a Chinese request to a tool described in English", () => {
    const tools: ToolDescriptor[] = [
      { id: "git_commit", server: "git", name: "git_commit", description: "Commit staged changes" },
      { id: "git_log", server: "git", name: "git_log", description: "Show the commit history" },
      { id: "notes_add", server: "notes", name: "notes_add", description: "Save a note" },
    ];
    const on = new Router(tools, { offerAllUpTo: 0 }).rankNow("提交修改", { topK: 1 });
    expect(on.map((tool) => tool.id)).toEqual(["git_commit"]);
    const off = new Router(tools, {
      offerAllUpTo: 0,
      strategy: new LexicalStrategy({ verbFamilies: false }),
    });
    expect(off.rankNow("提交修改", { topK: 1 })).toEqual([]);
  });
});

describe("catalog synonyms", () => {
  it("link a description word to the name term most of its tools share, and forget a removed tool", () => {
    const synonyms = new CatalogSynonyms({ minShared: 2, minShare: 0.6, maxWordShare: 1 });
    synonyms.add("a", ["update", "profile"], ["更新", "用户", "资料"]);
    synonyms.add("b", ["update", "order"], ["更新", "订单"]);
    synonyms.add("c", ["create", "order"], ["创建", "订单"]);
    // Other tools: a name term held by over a quarter of the names is never added.
    for (const other of ["weather", "stock", "news", "map", "clock", "mail"])
      synonyms.add(other, [other], ["其他"]);
    expect(synonyms.expand([{ term: "更新", weight: 1 }])).toEqual([{ term: "update", weight: 0.5 }]);
    expect(synonyms.expand([{ term: "订单", weight: 1 }])).toEqual([{ term: "order", weight: 0.5 }]);
    synonyms.remove("b");
    expect(synonyms.expand([{ term: "更新", weight: 1 }])).toEqual([]);
  });
});

describe("server-level recall", () => {
  it("counts a group found when one of its tools' servers is among the first k servers ranked", () => {
    const serverOf = (id: string) => id.split("_")[0];
    const ranked = ["a_1", "a_2", "b_1", "c_1"];
    expect(serverRecallAt(ranked, [["c_9"], ["d_1"]], 3, serverOf)).toBe(0.5);
    expect(serverRecallAt(ranked, [["c_9"]], 2, serverOf)).toBe(0);
  });
});

describe("object families", () => {
  // Each request shares no word with the tool it must find but its object's: the family is the only link.
  const tools: ToolDescriptor[] = [
    toolOf("fs", "list_directory", "List the entries"),
    toolOf("fs", "stat", "Size and dates of a file"),
    toolOf("web", "capture", "Take a screenshot"),
    toolOf("memory", "read_graph", "Everything in the knowledge graph"),
    toolOf("art", "generate", "An image from a prompt"),
    toolOf("office", "sheets", "Cells of a spreadsheet"),
    toolOf("env", "status", "Temperature and humidity of a district"),
    toolOf("mail", "find", "Find emails by sender"),
    toolOf("arxiv", "query", "Research papers by topic"),
    toolOf("kitchen", "suggest", "根据人数推荐菜品组合"),
  ];
  const on = new Router(tools, { offerAllUpTo: 0 });
  const off = new Router(tools, {
    offerAllUpTo: 0,
    strategy: new LexicalStrategy({ objectFamilies: false }),
  });

  it("lead a request's word to the word the tools use, in either language", () => {
    for (const [request, id] of [
      ["my projects folder", "fs_list_directory"],
      ["项目目录", "fs_list_directory"],
      ["文件夹", "fs_list_directory"],
      ["这个文件多大", "fs_stat"],
      ["网页截图", "web_capture"],
      ["一张图", "art_generate"],
      ["知识图谱", "memory_read_graph"],
      ["那张电子表格", "office_sheets"],
      ["the weather in Shanghai", "env_status"],
      ["上海的天气", "env_status"],
      ["anything new in my inbox", "mail_find"],
      ["an illustration of a fox", "art_generate"],
      ["recent preprints on speculative decoding", "arxiv_query"],
      ["four people coming for dinner and I have no idea", "kitchen_suggest"],
    ] as const) {
      expect(top(on, request), request).toBe(id);
      expect(top(off, request), request).toBeUndefined();
    }
  });

  it("read Chinese words longest first, however the segmenter cut them: 文件夹 is no 文件, 知识图谱 no 图", () => {
    const words = (text: string) => objectsIn(text, tokenize(text)).map((object) => object.heldAs.join(" "));
    expect(words("文件夹")).toEqual(["~文件 ~件夹"]);
    expect(words("知识图谱")).toEqual(["~图谱"]);
    expect(words("一张图")).toEqual(["图"]);
    expect(words("Show the folder")).toEqual(["folder"]);
    expect(objectsIn("文件夹", [])[0]!.others).toEqual(["folder", tokenize("directory")[0], "~目录"]);
    expect(objectsIn("哪班飞机最便宜", [])[0]!.others).toContain("flight");
  });

  it("read what a value's form names: a path is a file, a URL a link, #name a channel", () => {
    const kinds = (text: string) => valuesIn(text).map((object) => object.others[0]);
    const file = tokenize("file")[0];
    for (const path of [
      "save it to ~/notes/rust.md",
      "what is in ./build",
      "list /usr/local/bin",
      "读一下 D:\\报表\\5月销售.xlsx 的 Sheet1",
      "fix src/http.ts",
      "open q3_sales.xlsx",
      "edit src/app.js",
      "把~/blog/drafts下面的都挪走",
    ])
      expect(kinds(path)[0]).toBe(file);
    expect(kinds("grab https://linear.app/pricing")).toEqual(["url"]);
    expect(kinds("see www.example.com")).toEqual(["url"]);
    expect(kinds("post it in #oncall")).toEqual([tokenize("channel")[0]]);
    // File names in any case; every extension with a family is a file's too.
    expect(kinds("open Q3_REPORT.PDF")).toEqual([file]);
    expect(kinds("trim clip.mp4")).toEqual([file, tokenize("video")[0]]);
    for (const flight of ["is CA981 on time?", "查一下MU5137的状态", "UA1234 from SFO"])
      expect(kinds(flight)).toEqual(["flight"]);
    // Capitals right beside a word of the market are a ticker; a common acronym's, or capitals alone, none.
    const stock = tokenize("stock")[0];
    for (const ticker of [
      "NVDA price rn?",
      "what are VOO, QQQ and SCHD worth?",
      "$AAPL closing prices since May",
      "What are NVDA, AMD and INTC trading at right now?",
      "pull daily closing prices for NVDA and AMD since Jan 2",
    ])
      expect(kinds(ticker), ticker).toEqual([stock]);
    for (const none of [
      "convert 100 USD to EUR at today's price",
      "ask the NVDA team",
      "what's the price of pizza",
      "cheapest flight price from JFK to LAX next friday",
      "is the MBA worth it",
      "list the NFS shares on the server",
      "GPU prices on amazon",
      "closing the JIRA ticket",
      "WHAT IS THE NVDA PRICE",
    ])
      expect(kinds(none), none).toEqual([]);
    // A long run of capitals and commas is no quadratic search.
    for (const run of ["AB, ".repeat(25_000), `${"AB, ".repeat(25_000)}price`])
      expect(msFor(() => valuesIn(run))).toBeLessThan(2_000);
    // Codes like flight numbers that are years, standards or cells are none.
    for (const none of ["the FY24 budget", "compile to ES2020 in VS2022", "IE11 and IP68", "cell AB12"])
      expect(kinds(none)).toEqual([]);
    // A file name inside a URL is the URL's, and so is its fragment; "/help" is a command; libraries,
    // ratios, versions, a PR's number, C#, a colour and an email address (as often a parameter as a
    // message to send) name nothing.
    for (const url of [
      "grab https://x.io/pricing.html",
      "open http://localhost:3000/app.js",
      "see https://x.io:8080/report.pdf?page=2",
      "jump to https://x.io/#pricing",
    ])
      expect(kinds(url)).toEqual(["url"]);
    for (const none of [
      "/help me",
      "compare Node.js and Next.js",
      "a 3/4 ratio, an A/B test, and/or v1.2.3",
      "review PR #482 in C#",
      "set the button to #ffcc00 and the border to #fff",
      "see the (#usage) section",
      "invite bob@example.com",
    ])
      expect(kinds(none)).toEqual([]);
  });

  it("offer the tool a value's kind asks for when no word names it", () => {
    const tools = [
      toolOf("filesystem", "write_file", "Write content to a file"),
      toolOf("notion", "create_page", "Create a page from markdown content"),
      toolOf("notion", "append_markdown", "Append markdown to a page"),
      toolOf("fetch", "fetch_markdown", "Fetch a web page and return its content as markdown"),
      toolOf("slack", "post_message", "Send a message to a channel"),
      toolOf("github", "add_comment", "Post a comment on an issue"),
      toolOf("blog", "publish_post", "Publish a new post with a number of tags"),
      toolOf("mysql", "query", "Run a SQL query on the database"),
    ];
    const router = new Router(tools, { offerAllUpTo: 0 });
    // Without the kinds: notion_append_markdown and blog_publish_post.
    expect(top(router, "keep the summary as markdown at ~/notes/rust.md")).toBe("filesystem_write_file");
    expect(top(router, "post the number in #growth")).toBe("slack_post_message");
  });

  it("offer a stock's tools for a ticker and a price, though other tools speak of prices", () => {
    const tools = [
      toolOf("stocks", "get_stock_quote", "Fetch the current stock quote for a ticker symbol"),
      toolOf("shop", "list_prices", "List the prices of products, with their currency"),
      toolOf("hotels", "get_room_prices", "Get the room prices of a hotel for given dates"),
    ];
    const router = new Router(tools, { offerAllUpTo: 0 });
    expect(top(router, "NVDA price rn?")).toBe("stocks_get_stock_quote");
    expect(top(router, "what are VOO and QQQ trading at")).toBe("stocks_get_stock_quote");
  });

  it("read what a file's extension says it holds, where the catalog's file tools name the extension", () => {
    const families = (text: string) =>
      valuesIn(text).map((object) => object.others.find((term) => !term.startsWith("~")));
    expect(families("add a row to ~/finance/q3.xlsx")).toEqual([tokenize("file")[0], "spreadsheet"]);
    expect(families("open deck.pptx")).toEqual([tokenize("file")[0], tokenize("slides")[0]]);
    expect(families("see https://x.io/cat.png")).toEqual([tokenize("image")[0], "url"]);
    expect(families("rotate server.key and the docs")).toEqual([]);
    const tools = [
      toolOf("desktop", "read_file", "Read a file: text, PDF, DOCX or XLSX"),
      toolOf("desktop", "write_file", "Write a file: text, DOCX or XLSX"),
      toolOf("parser", "parse", "Parse a PDF, DOCX or XLSX document into text"),
      toolOf("excel", "read_sheet", "Read values from an Excel sheet"),
      toolOf("excel", "write_to_sheet", "Write values to an Excel sheet"),
      toolOf("notes", "append", "Append a line to a note"),
    ];
    // "xlsx" is in three tools, too many to ask for its family; the extension asks for it anyway.
    // Without it: desktop_write_file, desktop_read_file, parser_parse.
    const offered = offeredBy(tools, "add a row with today's total to ~/finance/q3.xlsx", 3);
    expect(offered.some((id) => id.startsWith("excel_"))).toBe(true);
  });

  it("count the words only a path holds for little: they name the user's files, not what a tool does", () => {
    const words = (text: string) => [...pathWords(text, tokenize)];
    const [meeting, notes, standup, md, rust] = tokenize("meeting notes standup md rust");
    expect(words("Read ~/meeting-notes/standup.md")).toEqual(
      expect.arrayContaining([meeting, notes, standup]),
    );
    // The extension says what the file is, and a word said outside the path is the request's.
    expect(words("Read ~/meeting-notes/standup.md")).not.toContain(md);
    expect(words("save my notes to ~/notes/rust.md.")).toContain(rust);
    expect(words("save my notes to ~/notes/rust.md.")).not.toEqual(expect.arrayContaining([notes]));
    expect(words("save my notes to ~/notes/rust.md.")).not.toEqual(expect.arrayContaining([md]));
    expect(words("open college_essay.txt")).toEqual(expect.arrayContaining(tokenize("college essay")));
    expect(words("把 ~/blog/drafts 下面的文件挪到 ~/blog/archive")).toEqual(tokenize("blog drafts archive"));
    // Many paths after a long text are no quadratic search.
    const many = `${"x ".repeat(50_000)}${"~/notes/standup.md ".repeat(20_000)}`;
    expect(msFor(() => expect(words(many)).toContain(standup))).toBeLessThan(2_000);
    // A path ends where its characters do: quotes, punctuation and Chinese after it are not its words.
    expect(words("Read `~/notes/standup.md`")).not.toContain(md);
    expect(words("把 ~/reports/q3.xlsx，做成图表然后发邮件给我")).toEqual(
      expect.arrayContaining(tokenize("reports")),
    );
    expect(words("把 ~/reports/q3.xlsx，做成图表然后发邮件给我")).not.toEqual(
      expect.arrayContaining([tokenize("图表")[0]]),
    );
    expect(words("把~/blog/drafts下面的都挪走")).toEqual(tokenize("blog drafts"));
    expect(words("~/Downloads/租房合同.pdf 里关于押金的条款")).not.toEqual(
      expect.arrayContaining(tokenize("押金")),
    );
    for (const none of ["grab https://x.io/notes/a.md", "read my notes", "a 3/4 ratio and an A/B test"])
      expect(words(none), none).toEqual([]);
    const tools = [
      toolOf("notes", "get_note", "Get a meeting note from your notes workspace"),
      toolOf("fs", "read_file", "Read the complete contents of a file"),
      toolOf("fs", "write_file", "Write content to a file"),
    ];
    const first = (options: { pathWordWeight?: number }, request: string) =>
      new Router(tools, { offerAllUpTo: 0, strategy: new LexicalStrategy(options) }).rankNow(request, {
        topK: 1,
      })[0]?.id;
    expect(first({}, "Read ~/meeting-notes/standup.md")).toBe("fs_read_file");
    expect(first({ pathWordWeight: 1 }, "Read ~/meeting-notes/standup.md")).toBe("notes_get_note");
    // Said outside the path, the words count in full.
    expect(first({}, "Read the meeting notes")).toBe("notes_get_note");
    // A path asks for the file family at 1.5, even where the path's own "files" counts a quarter.
    const expansion = new QueryExpansion({ documentFrequency: () => 10, objects: true });
    const file = tokenize("file")[0];
    for (const [request, ownWeight] of [
      ["summarize ~/notes/report.md", undefined],
      ["summarize ~/files/report.md", 0.25],
    ] as const) {
      const terms = tokenize(request).map((term) => ({ term, weight: term === file ? ownWeight! : 1 }));
      const expanded = expansion.expand(terms, expansion.wordsOf(request, tokenize(request)));
      expect(
        expanded.filter((term) => term.term === file),
        request,
      ).toEqual([{ term: file, weight: 1.5 }]);
    }
  });

  it("count the words only a part's details hold for little: 'including its size' asks of the thing", () => {
    expect(splitDetails("get the database, including its size and tables")).toEqual([
      "get the database, ",
      "including its size and tables",
    ]);
    expect(splitDetails("list cities such as Paris")).toEqual(["list cities ", "such as Paris"]);
    expect(splitDetails("get the table sizes")).toEqual(["get the table sizes", ""]);
    const tools = [
      toolOf("db", "getDatabaseInfo", "Retrieve information about a database"),
      toolOf("db", "getTableSize", "Get the size and the number of rows of a table"),
    ];
    const first = (options: { detailWordWeight?: number }, request: string) =>
      new Router(tools, { offerAllUpTo: 0, strategy: new LexicalStrategy(options) }).rankNow(request, {
        topK: 1,
      })[0]?.id;
    const request =
      "Retrieve information about the Employees database, including its size and the number of tables";
    expect(first({}, request)).toBe("db_getDatabaseInfo");
    expect(first({ detailWordWeight: 1 }, request)).not.toBe("db_getDatabaseInfo");
    // A word the part also asks with counts in full: here the table's size is what is asked for.
    expect(
      first({}, "Retrieve the size of a table in the Employees database, including its number of rows"),
    ).toBe("db_getTableSize");
  });

  it("leave a word the catalog itself uses alone: its own tools are evidence enough", () => {
    // "ticket" names three tools: it does not also ask for "issue".
    const ticketing: ToolDescriptor[] = [
      ...["open", "close", "assign"].map((verb) =>
        toolOf("desk", `${verb}_ticket`, `${verb} a support ticket`),
      ),
      toolOf("gh", "create_issue", "Create an issue"),
    ];
    const ranked = new Router(ticketing, { offerAllUpTo: 0 }).rankNow("open a ticket", { topK: 5 });
    expect(ranked.map((tool) => tool.id)).not.toContain("gh_create_issue");
    // A Chinese catalog that says 目录 is not sent to "folder" either.
    const chinese = [
      toolOf("fs", "browse", "浏览文件目录"),
      toolOf("fs", "mkdir", "新建一个空目录"),
      toolOf("fs", "rmdir", "删掉整个目录"),
      toolOf("tree", "folder_tree", "Show a folder tree"),
    ];
    const found = new Router(chinese, { offerAllUpTo: 0 }).rankNow("目录", { topK: 5 });
    expect(found.map((tool) => tool.id).sort()).toEqual(["fs_browse", "fs_mkdir", "fs_rmdir"]);
  });
});

describe("acronyms from the catalog's names", () => {
  const tools: ToolDescriptor[] = [
    toolOf("gh", "list_pull_requests", "List open changes"),
    toolOf("gh", "merge_pull_request", "Merge a change"),
    toolOf("gh", "list_issues", "List the issues"),
    toolOf("gh", "get_issue", "Get an issue"),
    toolOf("fs", "search_files", "Find files by pattern"),
  ];
  const router = new Router(tools, { offerAllUpTo: 0 });

  it("read a word in capitals the catalog never uses as the words it spells: PR → pull request", () => {
    expect(top(router, "merge PR #318")).toBe("gh_merge_pull_request");
    expect(top(router, "列出PRs")).toBe("gh_list_pull_requests");
    expect(top(router, "list PRs")).toBe("gh_list_pull_requests");
    const off = new Router(tools, {
      offerAllUpTo: 0,
      strategy: new LexicalStrategy({ catalogAcronyms: false }),
    });
    expect(off.rankNow("list PRs", { topK: 1 })[0]?.id).toBe("gh_list_issues");
  });

  it("leave lower-case words, ids, stop words and runs of one name alone", () => {
    expect(top(router, "list pr")).toBe("gh_list_issues");
    expect(top(router, "list PRX9")).toBe("gh_list_issues");
    // search_files is one name: "SF" is San Francisco as likely as it is search files.
    expect(top(router, "events in SF")).toBeUndefined();
  });

  it("spell the run most names hold, at least two, and forget a removed tool", () => {
    const acronyms = new CatalogAcronyms(tokenize);
    acronyms.add("a", "get_pull_request");
    acronyms.add("b", "list_pull_requests");
    acronyms.add("c", "post_review");
    acronyms.add("d", "publish_review");
    const expanded = (term: string) => acronyms.expand([{ term, weight: 0.5 }]).map((hit) => hit.term);
    expect(expanded("pr")).toEqual(["pull", "request"]);
    expect(acronyms.expand([{ term: "pr", weight: 0.5 }])[0]?.weight).toBe(0.5);
    acronyms.remove("a");
    expect(expanded("pr")).toEqual([]);
    acronyms.add("e", "post_reply");
    expect(expanded("pr")).toEqual([]);
    acronyms.add("f", "post_review_comment");
    expect(expanded("pr")).toEqual(["post", "review"]);
  });
});

describe("a tool's text", () => {
  it("holds the values its parameters take: enum, const and the schema's examples", () => {
    const text = toolText({
      id: "clock_now",
      server: "clock",
      name: "now",
      inputSchema: {
        type: "object",
        properties: {
          zone: { type: "string", examples: ["Europe/Berlin", "Asia/Tokyo"] },
          format: { const: "iso8601" },
          unit: { enum: ["seconds", 60] },
        },
      },
    });
    expect(text.enums.split("\n")).toEqual(["Europe/Berlin", "Asia/Tokyo", "iso8601", "seconds", "60"]);
    const router = new Router(
      [
        {
          id: "clock_now",
          server: "clock",
          name: "now",
          inputSchema: { type: "object", properties: { zone: { type: "string", examples: ["Asia/Tokyo"] } } },
        },
        toolOf("notes", "add", "Add a note"),
      ],
      { offerAllUpTo: 0 },
    );
    expect(top(router, "what is it in Tokyo")).toBe("clock_now");
  });
});
