/**
 * English words too common to tell tools apart: articles, pronouns, auxiliaries, prepositions, the
 * politeness of requests ("please", "could you"), and light words that name no tool's thing though tool
 * names hold them ("how many" is no `insert-many`, "put it on my calendar" no HTTP PUT; the cost: "an
 * HTTP PUT request" no longer tells `playwright_put` from `playwright_post` by the method's name).
 * Lower-case, before stemming.
 */
export const ENGLISH_STOP_WORDS: ReadonlySet<string> = new Set(
  `a about above after again against all am an and any are as at be because been before being below
  between both but by can could did do does doing down during each few for from further had has have
  having he her here hers herself him himself his how i if in into is it its itself just me more most
  my myself no nor not now of off on once only or other our ours ourselves out over own same she
  should so some such than that the their theirs them themselves then there these they this those
  through to too under until up very was we were what when where which while who whom why will with
  would you your yours yourself yourselves also e g eg etc ie may might must shall let lets please
  want wants need needs like would i'd i'm it's can't don't
  additionally furthermore moreover besides finally lastly firstly secondly thirdly afterwards
  specifically particularly kindly thank thanks hello hi many much put`.split(/\s+/),
);

/**
 * Chinese function words and request phrasing ("please help me", "I want to know") that carry no
 * clue about which tool is meant. Matched against whole segmenter words and single characters.
 */
export const CHINESE_STOP_WORDS: ReadonlySet<string> = new Set(
  `的 了 和 与 及 或 是 在 我 你 您 他 她 它 我们 你们 他们 这 那 这个 那个 这些 那些 吗 呢 吧 啊 呀
  请 帮 帮我 帮忙 一下 能 能否 可以 可否 想 想要 需要 希望 我想 知道 了解 如何 怎么 怎样 什么 哪些 一个
  也 都 就 还 并 把 被 让 给 对 从 到 为 以 等 个 中 上 下 里 之 其 该 所 有 没有 不 很 再 又 已经 进行
  另外 此外 然后 首先 其次 接着 顺便 谢谢 多谢 麻烦`.split(/\s+/),
);
