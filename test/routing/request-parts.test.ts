import { describe, expect, it } from "vitest";
import { splitParts } from "../../src/routing/clauses.js";
import { Router } from "../../src/routing/router.js";
import { tokenize } from "../../src/routing/tokenizer.js";
import type { ToolDescriptor } from "../../src/routing/tool-descriptor.js";
import { withImpliedAction } from "../../src/routing/used-as-verb.js";
import { msFor, offeredBy, toolOf } from "./ranking-helpers.js";

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

  it("leave a lone verb with the verb after it: the two share one object", () => {
    for (const whole of [
      "Find and hire a freelance journalist named Emily",
      "I need to download and install a software update",
      "Please read and summarize ~/notes/q3.md",
    ])
      expect(splitParts(whole), whole).toEqual([whole]);
    // A verb with an object of its own still starts a part after it.
    expect(splitParts("Find the report and send it to Maya")).toEqual(["Find the report", "send it to Maya"]);
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
