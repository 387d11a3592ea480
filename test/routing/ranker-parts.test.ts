import { describe, expect, it } from "vitest";
import { CatalogAcronyms } from "../../src/routing/catalog-acronyms.js";
import { CatalogSynonyms } from "../../src/routing/catalog-synonyms.js";
import { splitParts } from "../../src/routing/clauses.js";
import { serverRecallAt } from "../../src/routing/metrics.js";
import { OBJECT_FAMILIES, objectsIn } from "../../src/routing/object-families.js";
import { QueryExpansion } from "../../src/routing/query-expansion.js";
import { Router } from "../../src/routing/router.js";
import { LexicalStrategy } from "../../src/routing/strategies/lexical.js";
import { tokenize } from "../../src/routing/tokenizer.js";
import type { ToolDescriptor } from "../../src/routing/tool-descriptor.js";
import { toolText } from "../../src/routing/tool-text.js";
import { withImpliedAction } from "../../src/routing/used-as-verb.js";
import { pathWords, valuesIn } from "../../src/routing/value-forms.js";
import {
  isEnglishFamilyVerb,
  opensWithVerb,
  VERB_FAMILIES,
  verbFamily,
  withVerbFamilies,
} from "../../src/routing/verb-families.js";

/** A tool of a server, its id the two joined as the catalog joins them. */
const toolOf = (server: string, name: string, description: string): ToolDescriptor => ({
  id: `${server}_${name}`,
  server,
  name,
  description,
});

/** The id of the tool a router ranks first for a request, if any. */
const top = (router: Router, request: string) => router.rankNow(request, { topK: 1 })[0]?.id;

/** How long `work` takes, in milliseconds: a guard against a quadratic search, bounded far above its need. */
const msFor = (work: () => unknown) => {
  const started = performance.now();
  work();
  return performance.now() - started;
};

/** The ids of the first `k` tools a router over `tools` (none offered whole) ranks for a request. */
const offeredBy = (tools: ToolDescriptor[], request: string, k: number) =>
  new Router(tools, { offerAllUpTo: 0 }).rankNow(request, { topK: k }).map((tool) => tool.id);

describe("request parts", () => {
  it("cut a sentence where a conjunction starts another request, in English and Chinese", () => {
    expect(splitParts("what time is it and save a note that I called the dentist")).toEqual([
      "what time is it",
      "save a note that I called the dentist",
    ]);
    expect(splitParts("list the files, then post a summary to Slack")).toEqual([
      "list the files",
      "post a summary to Slack",
    ]);
    expect(splitParts("现在几点？另外把待办写进 todo.txt")).toEqual(["现在几点", "把待办写进 todo.txt"]);
    expect(splitParts("查一下天气，然后提醒我带伞")).toEqual(["查一下天气", "提醒我带伞"]);
  });

  it("cut where a question or 'tell me' starts another request, and rank a one-word sentence on its own", () => {
    expect(
      splitParts("What time is it? Also list my files and tell me what you remember about Alice"),
    ).toEqual(["What time is it", "Also list my files", "tell me what you remember about Alice"]);
    expect(
      splitParts("what time is it, what files are in ~/notes, and what do you know about Alice"),
    ).toEqual(["what time is it", "what files are in ~/notes", "what do you know about Alice"]);
    // A sentence with one term left after stop words is a request of its own and gets a slot up front;
    // "Thanks." has none. (Before, a sentence needed two terms: the clock never got one.)
    const tool = (id: string, description: string): ToolDescriptor => ({
      id,
      server: id.split("_")[0]!,
      name: id,
      description,
    });
    const tools = [
      tool("list_files", "List the files in a folder of my home"),
      tool("list_folders", "List the folders of my home directory"),
      tool("list_repos", "List the git repositories in my home"),
      tool("list_tags", "List the tags of a repository"),
      tool("time_now", "Current time"),
    ];
    const router = new Router(tools, { offerAllUpTo: 0 });
    const ranked = router.rankNow("What time is it? List the files, folders and repos in my home.", {
      topK: 3,
    });
    expect(ranked.map((tool) => tool.id)).toContain("time_now");
    expect(router.rankNow("Thanks.", { topK: 3 })).toEqual([]);
  });

  it("leave out a part that only says where in a sequence the next comes, and cut at 'next' only as a join", () => {
    expect(
      splitParts(
        "First, retrieve the water supply of Boston. Next, acquire customers by email. Finally, chart it",
      ),
    ).toEqual(["retrieve the water supply of Boston", "acquire customers by email", "chart it"]);
    expect(splitParts("首先，查一下天气。最后，提醒我带伞")).toEqual(["查一下天气", "提醒我带伞"]);
    for (const one of [
      "predict what my next purchase is going to be",
      "Show my meetings today and next week",
      "book me a flight from Boston to Denver, next Friday morning",
      "find a parking garage, next to the stadium",
      "what's on my calendar this week and next, please",
    ])
      expect(splitParts(one)).toEqual([one]);
    expect(splitParts("然后，提醒我带伞")).toEqual(["提醒我带伞"]);
    expect(splitParts("run the analysis, next plot the results")).toEqual([
      "run the analysis",
      "plot the results",
    ]);
    // A request of nothing else is left as it is.
    expect(splitParts("Next.")).toEqual(["Next"]);
    // The ranking too: "Next" met `predictNextPurchase`, which took a place of the offer.
    const tools = [
      toolOf("shop", "predictNextPurchase", "Predict a customer's next purchase from their history"),
      toolOf("water", "getWaterSupply", "Current status of the water supply of a city"),
      toolOf("water", "getWaterUsage", "Water usage of a city"),
      toolOf("crm", "acquireCustomers", "Acquire new customers through a marketing channel"),
      toolOf("crm", "getCustomerData", "Customer data by id"),
    ];
    expect(
      offeredBy(tools, "First, retrieve the water supply of Boston. Next, acquire customers by email.", 3),
    ).not.toContain("shop_predictNextPurchase");
  });

  it("start a part at 把 after a comma: the object comes before its verb (先…，再把…写入…)", () => {
    expect(splitParts("先查一下东京现在几点，再把结果写入文件 time.txt")).toEqual([
      "先查一下东京现在几点",
      "把结果写入文件 time.txt",
    ]);
  });

  it("cut where a word no family holds is used as a verb: it is followed by what it acts on", () => {
    expect(splitParts("Create a payment link for the Pro plan and email it to dana@example.com")).toEqual([
      "Create a payment link for the Pro plan",
      "email it to dana@example.com",
    ]);
    expect(splitParts("Screenshot the landing page, attach it to the Trello card")).toEqual([
      "Screenshot the landing page",
      "attach it to the Trello card",
    ]);
    expect(splitParts("look up desks under $500 and please put the best five on a page")).toEqual([
      "look up desks under $500",
      "please put the best five on a page",
    ]);
    // Not a verb: a name, a determiner or quantifier, an adverb, a participle, an auxiliary.
    for (const one of [
      "compare the weather in London and Paris the day after tomorrow",
      "get the diagnosis and the treatment",
      "get the rates and all the fees",
      "retrieve data on the corn seed, particularly its growth rate",
      "analyze the file, indicating it as urgent",
      "score a company that uses solar power, has an average emission of 50 g/km",
    ])
      expect(splitParts(one)).toEqual([one]);
  });

  it("offer a tool for a part whose verb no family holds", () => {
    const tools = [
      toolOf("stripe", "create_payment_link", "Create a payment link for a price of a product"),
      toolOf("stripe", "create_price", "Create a price for a product"),
      toolOf("stripe", "create_product", "Create a product"),
      toolOf("stripe", "list_prices", "List the prices of a product"),
      toolOf("stripe", "create_invoice", "Create an invoice for a customer"),
      toolOf("stripe", "list_payment_links", "List the payment links"),
      toolOf("gmail", "send_email", "Sends a new email"),
      toolOf("gmail", "draft_email", "Draft a new email"),
    ];
    // As one part, the Stripe words took every place: the offer was create_payment_link, list_payment_links,
    // create_price.
    const offered = offeredBy(
      tools,
      "Create a payment link for the Pro plan price and email it to dana@example.com",
      3,
    );
    expect(offered).toContain("stripe_create_payment_link");
    expect(offered).toContain("gmail_send_email");
  });

  it("read a noun of sending used as a verb as 'send': email it, text them", () => {
    expect(withImpliedAction("email the links to Maya")).toBe("send email the links to Maya");
    expect(withImpliedAction("Please text them the address")).toBe("send Please text them the address");
    expect(withImpliedAction("text me the address")).toBe("send text me the address");
    // After an ask as after a "please": the ask comes before the verb.
    for (const asked of [
      "can you email it to Maya",
      "I need you to message the team",
      "Could you please DM them",
    ])
      expect(withImpliedAction(asked), asked).toBe(`send ${asked}`);
    expect(splitParts("find the report, and can you email it to Maya")).toEqual([
      "find the report",
      "can you email it to Maya",
    ]);
    for (const same of [
      "can you email address lookups",
      "I need to email",
      "I want to email the team", // the speaker's wish, which may be a reason given, not an ask
      "email address of Bob",
      "check my email",
      "text analysis of the file",
      "ping the staging server to see if it is up",
      "ping her on Slack",
    ])
      expect(withImpliedAction(same)).toBe(same);
    expect(splitParts("find the report and ping her on Slack")).toEqual([
      "find the report",
      "ping her on Slack",
    ]);
    const tools = [
      toolOf("airbnb", "search", "Search for Airbnb listings in a city"),
      toolOf("airbnb", "listing_details", "Get the details of a listing"),
      toolOf("gmail", "search_emails", "Searches for emails"),
      toolOf("gmail", "send_email", "Sends a new email"),
      toolOf("gmail", "read_email", "Read an email"),
      toolOf("hotels", "search_hotels", "Search for hotels in a city"),
    ];
    // Without it: airbnb_search, gmail_search_emails, gmail_read_email.
    const offered = offeredBy(tools, "find 3 airbnbs in Lisbon and email the links to Maya", 3);
    expect(offered).toContain("gmail_send_email");
    expect(offered).toContain("airbnb_search");
  });

  it("read a language named as what a text should become as a request to translate it", () => {
    for (const request of [
      "Read this recipe and give it to me in Italian",
      "I need the policy in Spanish and in French",
      "give my flatmate a German version of the article",
      "add Dutch subtitles",
    ])
      expect(withImpliedAction(request), request).toBe(`${request} translate`);
    for (const same of [
      "translate the page into French",
      "把这段话翻译成法语",
      "reply in English",
      "find Spanish restaurants near me",
      "the French Revolution in five bullets",
      "I want to polish my essay",
      "read the Chinese text in this image",
      "convert 100 USD to Japanese yen",
      "how much is 50 euros in Swedish krona",
      "the best dishes in Italian cuisine",
      "reply in Spanish: what's the weather in Madrid",
    ])
      expect(withImpliedAction(same), same).toBe(same);
    const tools = [
      toolOf("fetch", "fetch_readable", "Fetch a web page as readable text"),
      toolOf("fetch", "fetch_html", "Fetch a web page as HTML"),
      toolOf("deepl", "translate_text", "Translate text to a target language"),
      toolOf("recipes", "get_recipe", "A recipe by its name"),
    ];
    expect(
      offeredBy(tools, "Read https://example.com/cookies and give it to me in Italian for my nonna", 2),
    ).toContain("deepl_translate_text");
  });

  it("leave out light words that name no tool's thing though tool names hold them: many, much, put", () => {
    expect(tokenize("how many, how much, put it")).toEqual([]);
    const tools = [
      toolOf("jira", "jira_put", "Replace Jira resources (full update)"),
      toolOf("http", "put", "Perform an HTTP PUT request"),
      toolOf("calendar", "create_event", "Create a new calendar event"),
      toolOf("calendar", "list_events", "List the events of a calendar"),
      toolOf("calendar", "get_freebusy", "Query free/busy information for calendars"),
      toolOf("mongo", "insert_many", "Insert many documents into a collection"),
      toolOf("mysql", "query", "Run a SQL query"),
    ];
    // With them: http_put, jira_jira_put, calendar_list_events; and mongo_insert_many second.
    expect(offeredBy(tools, "put a dentist appointment on my calendar for Friday", 3)).toEqual([
      "calendar_list_events",
      "calendar_create_event",
      "calendar_get_freebusy",
    ]);
    expect(offeredBy(tools, "how many signups did we get yesterday in the mysql db", 3)).not.toContain(
      "mongo_insert_many",
    );
  });

  it("read 'help me', 'can you' and 'I'd like you to' as what comes before a request's verb", () => {
    // Each cut below is made only because the ask before the verb is read as such.
    for (const ask of [
      "I need to",
      "I want to",
      "would you",
      "can you",
      "could you",
      "I'd like you to",
      "I would like to",
    ])
      expect(splitParts(`the weather in Paris, and ${ask} save a note`), ask).toEqual([
        "the weather in Paris",
        `${ask} save a note`,
      ]);
    expect(
      splitParts("Please help me retrieve the weather in Paris, the time in Tokyo, and the news in Berlin"),
    ).toEqual([
      "Please help me retrieve the weather in Paris",
      "Please help me retrieve the time in Tokyo",
      "Please help me retrieve the news in Berlin",
    ]);
    expect(
      splitParts("Could you find the weather in Paris, the time in Tokyo, and the news in Berlin"),
    ).toEqual([
      "Could you find the weather in Paris",
      "Could you find the time in Tokyo",
      "Could you find the news in Berlin",
    ]);
    // Only before a verb: "help me with the plan" still opens with its own verb, "help".
    expect(splitParts("Check the weather, and help me with the migration plan")).toEqual([
      "Check the weather",
      "help me with the migration plan",
    ]);
    // No verb after the ask: the sentence stays whole.
    expect(splitParts("book a table for two, I need to be home by nine")).toEqual([
      "book a table for two, I need to be home by nine",
    ]);
  });

  it("leave a quotation whole: its joins are the quoted text's", () => {
    for (const one of [
      'commit with message "fix the typos, then deploy"',
      "post 'lunch is here, grab the pizza before it is gone' in #random",
      "set my status to “heads down and ignore the pings”",
    ])
      expect(splitParts(one)).toEqual([one]);
    // Apostrophes quote nothing, and a quotation's end is no request's.
    expect(splitParts("it's late and save a note, then list the users' files")).toEqual([
      "it's late",
      "save a note",
      "list the users' files",
    ]);
    expect(splitParts("save 'a', then list 'b'")).toEqual(["save 'a'", "list 'b'"]);
    // A sentence's end inside a quotation is the quoted text's; outside, it still ends a sentence. An
    // inch mark and a year's apostrophe open no quotation.
    for (const [request, parts] of [
      [
        "translate 'Hello, how are you?' from English to French.",
        ["translate 'Hello, how are you?' from English to French"],
      ],
      ["把“你好吗？我很好。”翻译成英文", ["把“你好吗？我很好。”翻译成英文"]],
      [
        "Translate 'Where is the station?'. Then email it to Ann.",
        ["Translate 'Where is the station?'", "Then email it to Ann"],
      ],
      [
        "Find '90s hits on Spotify. Then show the Beatles' albums.",
        ["Find '90s hits on Spotify", "Then show the Beatles' albums"],
      ],
      ['Price a 27" monitor. Then find a 32" one', ['Price a 27" monitor', 'Then find a 32" one']],
    ] as const)
      expect(splitParts(request), request).toEqual(parts);
    // Unclosed marks are no quadratic search.
    for (const mark of ["‘a. ", "“a? ", "'a. ", '"a. '])
      expect(
        msFor(() => splitParts(mark.repeat(25_000))),
        mark,
      ).toBeLessThan(2_000);
    expect(splitParts("It's 5 o'clock. Tell me the time? I'd like it.")).toEqual([
      "It's 5 o'clock",
      "Tell me the time",
      "I'd like it",
    ]);
    // Many quotations are no quadratic search.
    expect(msFor(() => splitParts(`${"'a' and ".repeat(20_000)}then list them`))).toBeLessThan(2_000);
  });

  it("leave nouns joined by 'and' or a comma together", () => {
    expect(splitParts("get the temperature and humidity of Berlin")).toEqual([
      "get the temperature and humidity of Berlin",
    ]);
    expect(splitParts("更新我的邮件地址和手机号")).toEqual(["更新我的邮件地址和手机号"]);
  });

  it("ask for each thing of a list of three or more with the list's verb, its attributes and phrases kept with it", () => {
    expect(
      splitParts(
        "Please retrieve the political history of the United States, information about a subscriber with the ID 9wW, and details about a legal case",
      ),
    ).toEqual([
      "Please retrieve the political history of the United States",
      "Please retrieve information about a subscriber with the ID 9wW",
      "Please retrieve details about a legal case",
    ]);
    expect(
      splitParts("create a release for the web app, a tag of the last commit, and an issue for the docs"),
    ).toEqual([
      "create a release for the web app",
      "create a tag of the last commit",
      "create an issue for the docs",
    ]);
    // One thing each: its attributes, the phrases describing it, a date's or a count's commas.
    for (const one of [
      "retrieve marketing analysis for the resort, including the target audience, market trends, and competitors",
      "create a scatter plot of the sales dataset, with Height on the x-axis and 9 on the y-axis",
      "analyze the insurance data from January 1, 2021 to December 31, 2021, and its claims",
      "list the open issues, the stale branches, and 3 latest commits",
    ])
      expect(splitParts(one)).toEqual([one]);
  });

  it("leave whole a list that names no things to act on, one by one", () => {
    for (const one of [
      // places, people, addresses, folders, branches: what one thing is about, not things of their own
      "get the weather in Paris, London and Tokyo",
      "send a Slack message to Alice, Bob and Carol",
      "find emails from a@x.com, b@x.com and c@x.com",
      "list the files in src, test and docs",
      "check the CI status of main, develop and release branches",
      "search for invoices from March 3, April 5, and May 7",
      // a question, alternatives, quotes, data
      "how do I create a branch, a tag and a release",
      "tell me the time in Paris, London and Tokyo",
      "search GitHub, Slack, or Jira for the outage and incident report",
      'commit with message "fix the typos, the lint errors and the flaky tests"',
      "create a table with columns id, name and email",
      // an "and" inside a thing: which "and" closes the list is not known
      "retrieve the pros and cons, the cost and the timeline",
      "get the temperature and humidity, the wind speed, and the UV index",
      "show the commits between v1.0 and v2.0, the tags, and the branches",
    ])
      expect(splitParts(one)).toEqual([one]);
    // A list of data, not requests: more things than MAX_LIST_ITEMS.
    const many = `delete the draft ${Array.from({ length: 12 }, (_, i) => `the old file ${i}`).join(", ")}, and the last one`;
    expect(splitParts(many)).toEqual([many]);
    // A run of spaces is no quadratic search.
    const spaces = `get ${" ".repeat(100_000)}and the rest`;
    expect(msFor(() => splitParts(spaces))).toBeLessThan(2_000);
  });

  it("offer a tool for each thing of a list asked for with one verb", () => {
    const tools = [
      toolOf("history", "political", "Retrieve information about the political history of a country"),
      toolOf("crm", "subscriber", "Retrieve information about a specific subscriber"),
      toolOf("law", "case", "Retrieve details about a legal case in a court"),
      toolOf("law", "precedent", "Search legal precedents and case law of a Supreme Court"),
      toolOf("law", "docket", "Get the docket of a Supreme Court case"),
      toolOf("law", "judges", "List the judges of the Supreme Court and their legal cases"),
      toolOf("law", "filing", "File a legal case with the Supreme Court"),
      toolOf("law", "ruling", "Get the ruling of a Supreme Court legal case"),
    ];
    const router = new Router(tools, { offerAllUpTo: 0 });
    // As one part, the list lost its subscriber to the law tools the first sentence and its last thing
    // ask for: the offer was history_political, law_filing, law_judges.
    const offered = router
      .rankNow(
        "I need help with research on Supreme Court legal cases. Please retrieve the political history of France, a subscriber's information, and the docket of the legal case 5678",
        { topK: 3 },
      )
      .map((tool) => tool.id);
    expect(offered.slice(0, 2)).toEqual(["history_political", "crm_subscriber"]);
    expect(offered[2]).toMatch(/^law_/);
  });
});

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
