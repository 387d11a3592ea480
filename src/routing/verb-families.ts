// Action verbs in families: "retrieve", "fetch" and 获取 ask for the same operation as a tool named `get_…`.
// Each word of a family also yields the family's term, in tools and requests alike, so a request meets a
// tool whose text says the same action in other words or in the other language.
import { stem } from "./stem.js";
import { BIGRAM_PREFIX, HAN, type Tokenize } from "./tokenizer.js";

/**
 * General verb families of English and Chinese (from everyday usage, not from any data set). Words that
 * are as often nouns ("order", "book", "post", "record", "log") or something else ("add" two numbers) are
 * left out: they would tie a noun to an action; so is 查 (by turns "check", "look up", "search" and
 * "view": 查一下 … 订单 went to the one tool that says "search"), and so is 比较, as often "rather"
 * (我比较喜欢红酒, 我比较急) as "compare". The single Chinese characters here (读 找 搜 改 删 发 存 写 推 拉 切)
 * count only where the segmenter leaves them standing alone: inside a word they are its characters. A
 * word belongs to one family.
 */
export const VERB_FAMILIES: Readonly<Record<string, string>> = {
  get: "get fetch retrieve obtain read load view show display 获取 读取 查看 获得 得到 调取 显示 读 看看",
  search: "search find locate seek lookup discover explore 搜索 查找 寻找 搜寻 检索 查询 发现 探索 找 搜",
  list: "list enumerate browse 列出 列举 浏览 罗列",
  create:
    "create make generate build insert draw paint 创建 新建 生成 添加 建立 制作 新增 增加 构建 绘制 画出",
  update: "update modify edit change alter patch adjust revise 更新 修改 编辑 更改 调整 变更 修订 改",
  delete: "delete remove erase destroy purge 删除 移除 清除 删掉 去掉 删",
  cancel: "cancel abort revoke withdraw 取消 撤销 撤回",
  send: "send notify dispatch deliver 发送 通知 寄送 传送 发给 发到 发",
  publish: "publish announce 发布 公布",
  save: "save store persist write 保存 存储 写入 储存 存 写",
  commit: "commit submit 提交",
  move: "move rename relocate 移动 重命名 迁移",
  copy: "copy duplicate clone 复制 拷贝 克隆",
  push: "push 推送 推到 推",
  pull: "pull 拉取 拉",
  open: "open navigate visit 打开 访问 前往",
  switch: "switch checkout 切换 切",
  analyze: "analyze analyse assess evaluate examine inspect review 分析 评估 评价 审查 审核",
  compute: "calculate compute estimate measure 计算 估算 测量 测算",
  convert: "convert transform 转换 换算 转化",
  translate: "translate 翻译",
  predict: "predict forecast 预测 预报",
  recommend: "recommend suggest advise propose 推荐 建议",
  reserve: "reserve schedule arrange 预约 预订 预定 安排",
  track: "track monitor trace 跟踪 追踪 监控 监测",
  compare: "compare contrast 对比",
  verify: "verify validate check confirm 验证 校验 检查 确认 核实 检测",
  download: "download 下载",
  upload: "upload 上传",
  run: "run execute launch invoke 运行 执行 启动",
  stop: "stop halt terminate 停止 终止",
  summarize: "summarize summarise 总结 概括 汇总",
  pay: "pay 支付 付款",
  buy: "buy purchase 购买 订购 下单",
  merge: "merge combine 合并",
  optimize: "optimize improve enhance 优化 改善 改进",
  share: "share 分享 共享",
  design: "design 设计",
  manage: "manage 管理",
  // "memory" is a noun, kept for the one thing it names: what a request to remember or recall goes to.
  remember: "remember memorize memorise recall memory 记住 记得 记忆 回忆",
};

/** Prefix that keeps a family's term apart from any word. */
const FAMILY_PREFIX = "^";

/** Word (raw and stemmed, lower-case) → its verb family's term. */
const VERB_OF: ReadonlyMap<string, string> = (() => {
  const map = new Map<string, string>();
  for (const [family, words] of Object.entries(VERB_FAMILIES)) {
    for (const word of words.split(/\s+/)) {
      map.set(word, `${FAMILY_PREFIX}${family}`);
      map.set(stem(word), `${FAMILY_PREFIX}${family}`);
    }
  }
  return map;
})();

/** The verb family term of a term (`retriev` → `^get`, `提交` → `^commit`), or undefined. */
export function verbFamily(term: string): string | undefined {
  return VERB_OF.get(term);
}

/** A Latin word at the start of a text: an English one, as the families' words go. */
const FIRST_LATIN_WORD = /^[\p{Script=Latin}]+/u;
/** The words of a family that are nouns only (the remember family's "memory"): what they name counts in full. */
const FAMILY_NOUNS: ReadonlySet<string> = new Set(["memory"]);

/**
 * True for a term that is an English word of a verb family (`save`, `retriev`; a noun that is one of
 * its verbs too, such as "forecast", alike), not a family's term or a Chinese word: a request's English
 * verb says its action through its family too (see `LexicalOptions.verbWordWeight`; why Chinese verbs
 * keep their weight is in docs/routing.md).
 */
export function isEnglishFamilyVerb(term: string): boolean {
  return FIRST_LATIN_WORD.test(term) && VERB_OF.has(term) && !FAMILY_NOUNS.has(term);
}

/**
 * A tokenizer that adds, after each term of a verb family, the family's term. A two-character verb the
 * segmenter cut into two single characters (写入 as 写 + 入) is found by its bigram, and counts once: not
 * again when one of its characters is a verb of the same family (写). A bigram across two words the
 * segmenter kept (出发|到达 holds 发到, 重新|建立 holds 新建) is not a verb.
 */
export function withVerbFamilies(tokenize: Tokenize): Tokenize {
  return (text) => {
    const out: string[] = [];
    /** Single Chinese characters the segmenter left standing alone, not yet taken by a bigram. */
    const alone = new Map<string, number>();
    for (const term of tokenize(text)) {
      out.push(term);
      if (term.startsWith(BIGRAM_PREFIX)) {
        const [first, second] = [...term.slice(BIGRAM_PREFIX.length)] as [string, string];
        const family = VERB_OF.get(first + second);
        if (family === undefined || !alone.get(first) || !alone.get(second)) continue;
        alone.set(first, alone.get(first)! - 1);
        alone.set(second, alone.get(second)! - 1);
        if (VERB_OF.get(first) !== family && VERB_OF.get(second) !== family) out.push(family);
        continue;
      }
      if (term.length === 1 && HAN.test(term)) alone.set(term, (alone.get(term) ?? 0) + 1);
      const family = VERB_OF.get(term);
      if (family !== undefined) out.push(family);
    }
    return out;
  };
}

/** Chinese words of the verb families, longest first, to find one opening a piece of text. */
const HAN_VERBS: readonly string[] = [...VERB_OF.keys()]
  .filter((word) => HAN.test(word))
  .sort((a, b) => b.length - a.length);
/**
 * Openings of a question or an ask that start a request of their own after "and" or a comma, as an action
 * verb does: "what time is it, what files are in ~/notes, and tell me what you remember about Alice".
 */
const REQUEST_OPENER = /^(?:(?:tell|show|give)\s+me|let\s+me\s+know|what|how|when|where|which|who|why)\b/iu;
/** What may come before the verb of a request: "please", 请, 帮我… */
const POLITE = /^(?:please\s+|(?:请|帮我|再|也|还|去)\s*)+/iu;
/**
 * An ask that may come before the verb of a request: "help me (to)", "can you", "could you", "would you",
 * "I need (you) to", "I want to", "I'd like (you) to". Only before a verb or a question: "help me with the
 * plan" and "can you believe it" keep theirs.
 */
const ASKING =
  /^(?:help\s+me\s+(?:to\s+)?|(?:can|could|would)\s+you\s+(?:please\s+)?|i\s+(?:need|want)\s+(?:you\s+)?to\s+|i(?:\s+would|['’]d)\s+like\s+(?:you\s+)?to\s+)/iu;
/**
 * The asks of {@link ASKING} that speak to the one asked ("can you", "I need you to", "help me"), not of
 * the speaker's own wish ("I want to keep a copy", which may be a reason given for the request).
 */
const ASKING_YOU =
  /^(?:help\s+me\s+(?:to\s+)?|(?:can|could|would)\s+you\s+(?:please\s+)?|i\s+(?:need|want)\s+you\s+to\s+|i(?:\s+would|['’]d)\s+like\s+you\s+to\s+)/iu;

/**
 * True when the text opens with an action verb of a family ("save a note", "提交更改"), possibly after a
 * "please", "can you" or 帮我, with 把 (把结果写入文件: the object before its verb), or with a question word
 * or "tell me" — the mark of a new request after "and" or 以及.
 */
export function opensWithVerb(text: string): boolean {
  const rest = text.slice(beforeVerb(text));
  return (
    REQUEST_OPENER.test(rest) ||
    rest.startsWith("把") ||
    verbOpening(rest) !== undefined ||
    HAN_VERBS.some((word) => rest.startsWith(word))
  );
}

/**
 * The English action verb of a family the text opens with, what comes before it included ("Please
 * retrieve", "Can you find"); none for a question or "tell me", "show me" (what follows them is no list of
 * things to act on).
 */
export function leadingActionVerb(text: string): string | undefined {
  const before = beforeVerb(text);
  const rest = text.slice(before);
  if (REQUEST_OPENER.test(rest)) return undefined;
  const verb = verbOpening(rest);
  return verb === undefined ? undefined : text.slice(0, before + verb.length);
}

/** A family's verb or a question opens the text. */
const opensWithFamilyVerb = (text: string): boolean =>
  REQUEST_OPENER.test(text) || verbOpening(text) !== undefined;

/**
 * How much of the text comes before its verb: a {@link POLITE} word, then an {@link ASKING} when what
 * follows it opens as a verb does (by default a family's verb or a question; used-as-verb.ts asks of
 * its own words used as verbs, and takes only the asks {@link ASKING_YOU}: a word known as a verb only by
 * where it stands is weaker evidence of a request than a family's verb).
 */
export function beforeVerb(
  text: string,
  {
    verbFollows = opensWithFamilyVerb,
    asks = "any",
  }: { verbFollows?: (rest: string) => boolean; asks?: "any" | "of-you" } = {},
): number {
  const polite = POLITE.exec(text)?.[0].length ?? 0;
  const asking = (asks === "any" ? ASKING : ASKING_YOU).exec(text.slice(polite))?.[0].length ?? 0;
  if (asking === 0) return polite;
  return verbFollows(text.slice(polite + asking)) ? polite + asking : polite;
}

/** The first word of the text, when it is an English action verb of a family. */
function verbOpening(text: string): string | undefined {
  const latin = FIRST_LATIN_WORD.exec(text)?.[0];
  if (latin === undefined) return undefined;
  const word = latin.toLowerCase();
  return VERB_OF.has(word) || VERB_OF.has(stem(word)) ? latin : undefined;
}
