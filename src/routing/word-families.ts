// Words in families: "retrieve", "fetch" and 获取 ask for the same operation as a tool named `get_…`;
// "folder", "directory" and 目录 name the same thing as a tool named `list_directory`. Each word of a family
// also yields the family's term, in tools and requests alike, so a request meets a tool whose text says
// the same in other words or in the other language (a Chinese request to a server written in English).
import { stem } from "./stem.js";
import type { Tokenize } from "./tokenizer.js";

/**
 * General verb families of English and Chinese (from everyday usage, not from any data set). Words that
 * are as often nouns ("order", "book", "post", "record", "log") or something else ("add" two numbers) are
 * left out: they would tie a noun to an action; so are single Chinese characters (查 is "check", "look
 * up", "search" and "view" by turns: 查一下 … 订单 went to the one tool that says "search"), and so is 比较,
 * as often "rather" (我比较喜欢红酒, 我比较急) as "compare". A word belongs to one family.
 */
const VERBS: Readonly<Record<string, string>> = {
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

/**
 * The things tools act on, in English and Chinese: the nouns of files, code, messages, the web, maps and
 * time that every kind of MCP server names (from everyday usage, not from any data set). Words of
 * several meanings are left out (问题 is a question as often as an issue; 信息 any information; 记录 a
 * record and to record; "code" a zip, error or country code as often as source code, so 提交代码 must not
 * lead to `search_code`), as is 表 (a table, a watch, a form). A single Chinese character counts only
 * where it is not part of a longer word of a family (图 alone is a picture; in 知识图谱 it is part of a
 * graph). A word belongs to one family.
 */
const OBJECTS: Readonly<Record<string, string>> = {
  file: "file 文件 档案",
  folder: "folder directory 目录 文件夹",
  log: "log 日志",
  tag: "tag label 标签",
  branch: "branch 分支",
  repository: "repository repo 仓库 代码库 存储库",
  ticket: "issue ticket 工单 议题",
  message: "message 消息 留言",
  channel: "channel 频道",
  reply: "reply 回复 答复",
  email: "email mail 邮件 邮箱",
  screenshot: "screenshot 截图 截屏",
  image: "image picture photo 图片 图像 照片 图",
  page: "webpage website page 网页 网站 页面",
  web: "web internet online 网上 网络 互联网",
  link: "url link 网址 链接",
  time: "time clock 时间 几点 时刻",
  timezone: "timezone 时区",
  date: "date 日期",
  week: "week 星期 周数",
  month: "month 月份",
  directions: "directions route 路线 导航",
  drive: "drive driving 开车 驾车",
  distance: "distance 距离",
  elevation: "elevation altitude 海拔",
  place: "place location 地点 位置 地方",
  address: "address 地址",
  weather: "weather 天气",
  database: "database 数据库",
  table: "table 表格 数据表",
  user: "user 用户",
  comment: "comment 评论",
  note: "note 笔记 备忘",
  document: "document 文档",
  content: "content 内容",
  status: "status 状态",
  diff: "diff difference 差异 区别 改动",
  history: "history 历史",
  graph: "graph 图谱",
  spreadsheet: "spreadsheet excel xlsx workbook 电子表格 工作簿",
  chart: "chart plot diagram 图表 统计图",
  slides: "slides presentation powerpoint pptx 幻灯片 演示文稿",
  paper: "paper publication 论文",
  stock: "stock shares ticker 股票 股价",
  currency: "currency 货币 汇率",
  video: "video 视频",
  music: "music song 音乐 歌曲",
  movie: "movie film 电影",
  calendar: "calendar 日历 日程",
  meeting: "meeting 会议",
  task: "task todo 任务 待办",
  contact: "contact 联系人",
  browser: "browser 浏览器",
  command: "command shell terminal 命令 终端",
  encyclopedia: "encyclopedia wikipedia wiki 百科 维基",
  recipe: "recipe 菜谱 食谱",
  hotel: "hotel 酒店 宾馆",
  flight: "flight 航班 机票",
  train: "train railway 火车 列车 高铁",
  compress: "compress zip gzip 压缩",
  news: "news 新闻",
  nearby: "nearby 附近 周边 周围",
  profile: "profile 个人资料 资料",
  reaction: "reaction emoji 表情 点赞 赞",
};

const HAN = /\p{Script=Han}/u;

/** Prefix that keeps a family's term apart from any word. */
const FAMILY_PREFIX = "^";
/** Prefix of the tokenizer's Chinese character bigrams (tokenizer.ts). */
const BIGRAM_PREFIX = "~";

/** Word (raw and stemmed, lower-case) → its verb family's term. */
const VERB_OF: ReadonlyMap<string, string> = (() => {
  const map = new Map<string, string>();
  for (const [family, words] of Object.entries(VERBS)) {
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

/**
 * A tokenizer that adds, after each term of a verb family, the family's term. A Chinese verb the
 * segmenter cut apart (写入 as 写 + 入) is still found as its bigram; a bigram whose word the segmenter
 * kept whole adds nothing more, so the family counts once per word either way.
 */
export function withVerbFamilies(tokenize: Tokenize): Tokenize {
  return (text) => {
    const out: string[] = [];
    /** Chinese verbs (whole words, or single characters such as 写) already counted, by text. */
    const counted = new Map<string, number>();
    const take = (word: string) => {
      const left = counted.get(word) ?? 0;
      if (left > 0) counted.set(word, left - 1);
      return left > 0;
    };
    for (const term of tokenize(text)) {
      out.push(term);
      if (term.startsWith(BIGRAM_PREFIX)) {
        // A bigram adds its family only for a verb the segmenter did not already count: not 提交 when 提交
        // was a word, nor 写入 when 写 was.
        const word = term.slice(BIGRAM_PREFIX.length);
        const family = VERB_OF.get(word);
        if (family === undefined || take(word)) continue;
        const single = [...word].find((character) => VERB_OF.get(character) === family);
        if (single === undefined || !take(single)) out.push(family);
        continue;
      }
      const family = VERB_OF.get(term);
      if (family === undefined) continue;
      out.push(family);
      if (HAN.test(term)) counted.set(term, (counted.get(term) ?? 0) + 1);
    }
    return out;
  };
}

/** A word of an object family as the tokenizer writes it in a tool's text: stemmed, or a Chinese bigram. */
function indexForm(word: string): string {
  if (!HAN.test(word)) return stem(word.toLowerCase());
  return word.length === 2 ? `${BIGRAM_PREFIX}${word}` : word;
}

/** The terms a tool's text holds a request's term as: itself, and its bigram for a two-character Chinese word. */
export function heldAs(term: string): readonly string[] {
  return term.length === 2 && HAN.test(term) ? [term, `${BIGRAM_PREFIX}${term}`] : [term];
}

/** A request's term (stemmed word, Chinese word or bigram) → its object family's words, as tools hold them. */
const OBJECT_WORDS: ReadonlyMap<string, readonly string[]> = (() => {
  const map = new Map<string, readonly string[]>();
  for (const words of Object.values(OBJECTS)) {
    const forms = [...new Set(words.split(/\s+/).map(indexForm))];
    for (const word of words.split(/\s+/)) {
      map.set(indexForm(word), forms);
      if (HAN.test(word)) map.set(word, forms);
    }
  }
  return map;
})();

/**
 * The other words of a request term's object family, as a tool's text holds them (`目录` → `folder`,
 * `directori`, `~文件夹`…); empty when the term names no object, or is a single character that is part
 * of a longer object word among the request's terms.
 */
export function objectWords(term: string, terms: ReadonlySet<string>): readonly string[] {
  const forms = OBJECT_WORDS.get(term);
  if (!forms) return [];
  if (term.length === 1 && [...terms].some((other) => isObjectBigramWith(other, term))) return [];
  return forms.filter((form) => form !== term && form !== `${BIGRAM_PREFIX}${term}`);
}

/** True when a term is a bigram holding the character and naming an object itself (图谱 for 图). */
function isObjectBigramWith(term: string, character: string): boolean {
  return term.startsWith(BIGRAM_PREFIX) && term.includes(character) && OBJECT_WORDS.has(term);
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
const FIRST_LATIN_WORD = /^[\p{Script=Latin}]+/u;

/**
 * True when the text opens with an action verb of a family ("save a note", "提交更改"), possibly after a
 * "please" or 帮我, with 把 (把结果写入文件: the object before its verb), or with a question word or
 * "tell me" — the mark of a new request after "and" or 以及.
 */
export function opensWithVerb(text: string): boolean {
  const rest = text.replace(/^(?:please\s+|(?:请|帮我|再|也|还|去)\s*)+/iu, "");
  if (REQUEST_OPENER.test(rest) || rest.startsWith("把")) return true;
  const latin = FIRST_LATIN_WORD.exec(rest)?.[0].toLowerCase();
  if (latin) return VERB_OF.has(latin) || VERB_OF.has(stem(latin));
  return HAN_VERBS.some((word) => rest.startsWith(word));
}
