// The things tools act on, in families: "folder", "directory" and 目录 name what a tool named
// `list_directory` lists. Used on the request's side only: a request's word that the catalog barely uses
// also asks for the other words of its family, so a Chinese request meets a server written in English
// (截图 → `screenshot`) and "folder" meets `list_directory`, while a catalog that says the request's own
// words ranks as before. A value may name its thing with no word (value-forms.ts): a path is a file.
import { stem } from "./stem.js";
import { BIGRAM_PREFIX, HAN } from "./tokenizer.js";

/**
 * The things tools act on, in English and Chinese: the nouns of files, code, messages, the web, maps and
 * time that every kind of MCP server names (from everyday usage, not from any data set). Words of
 * several meanings are left out (问题 is a question as often as an issue; 信息 any information; 记录 a
 * record and to record; "code" a zip, error or country code as often as source code, so 提交代码 must not
 * lead to `search_code`; 表 a table, a watch or a form), and so is "location", which stems as the search
 * verb "locate" does. Chinese words are read longest first (see {@link objectsIn}): 图 alone is a picture,
 * in 知识图谱 part of a graph. A word belongs to one family (a test checks it, verbs included).
 */
export const OBJECT_FAMILIES: Readonly<Record<string, string>> = {
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
  email: "email mail inbox 邮件 邮箱 收件箱",
  screenshot: "screenshot 截图 截屏",
  image: "image picture photo illustration artwork 图片 图像 照片 插图 插画 图",
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
  place: "place 地点 位置 地方",
  address: "address 地址",
  weather: "weather temperature 天气 气温 温度",
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
  paper: "paper publication preprint 论文 预印本",
  stock: "stock ticker 股票 股价",
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
  meal: "meal dinner dish 膳食 菜品 饭菜 晚饭",
  hotel: "hotel 酒店 宾馆",
  flight: "flight airplane 航班 机票 飞机",
  train: "train railway 火车 列车 高铁",
  compress: "compress zip gzip 压缩",
  news: "news 新闻",
  nearby: "nearby 附近 周边 周围",
  profile: "profile 个人资料 资料",
  reaction: "reaction emoji 表情 点赞 赞",
};

const HAN_RUN = /\p{Script=Han}+/gu;

/** A word of a request that names a thing tools act on, or a value whose form names it (value-forms.ts). */
export interface ObjectMention {
  /**
   * The terms a tool's text holds the word as: its stem, a Chinese character, or a Chinese word's
   * bigrams; none for a value.
   */
  heldAs: readonly string[];
  /** Named by a value, not a word: its family's words are asked for however many tools hold them. */
  fromValue?: true;
  /** How much its family's words count in the request: 1, or more where a value says it plainly. */
  weight?: number;
  /** The other words of its family, as a tool's text holds them (stems, characters, bigrams). */
  others: readonly string[];
}

/** The terms of a word as a tool's text holds it. Chinese words of three or more characters by their bigrams. */
function heldAs(word: string): string[] {
  if (!HAN.test(word)) return [stem(word.toLowerCase())];
  const characters = [...word];
  if (characters.length === 1) return characters;
  return characters.slice(1).map((character, i) => `${BIGRAM_PREFIX}${characters[i]}${character}`);
}

/** Each family's words, by the word (a Latin stem, or Chinese as written). */
const FAMILY_OF_WORD: ReadonlyMap<string, readonly string[]> = (() => {
  const map = new Map<string, readonly string[]>();
  for (const line of Object.values(OBJECT_FAMILIES)) {
    const words = line.split(/\s+/);
    for (const word of words) map.set(HAN.test(word) ? word : stem(word.toLowerCase()), words);
  }
  return map;
})();
/** The longest Chinese word of the families, in characters. */
const LONGEST_HAN = Math.max(
  ...[...FAMILY_OF_WORD.keys()].filter((word) => HAN.test(word)).map((word) => [...word].length),
);

/** Mentions made so far, by word: a family word's mention never changes, and requests repeat them. */
const MENTIONS = new Map<string, ObjectMention>();

/** A mention of `word` (a key of {@link FAMILY_OF_WORD}): how tools hold it, and its family's other words. */
function mention(word: string): ObjectMention {
  const known = MENTIONS.get(word);
  if (known) return known;
  const made = mentionOf(word);
  MENTIONS.set(word, made);
  return made;
}

function mentionOf(word: string): ObjectMention {
  const family = FAMILY_OF_WORD.get(word)!;
  const own = new Set(HAN.test(word) ? heldAs(word) : [word]);
  // Chinese words of three or more characters are not asked for: a tool holds them only as bigrams, and
  // those are other words' too (文件夹's 文件 is a file).
  const others = family
    .filter((other) => other !== word && !(HAN.test(other) && [...other].length > 2))
    .flatMap(heldAs)
    .filter((term) => !own.has(term));
  return { heldAs: [...own], others: [...new Set(others)] };
}

/**
 * The things a request's text names: English words among its terms (stemmed, as the tokenizer writes
 * them), Chinese words found in its text longest first, so that 知识图谱 is a graph and not also a picture
 * (图), and 文件夹 a folder and not also a file (文件), however the segmenter cut them.
 */
export function objectsIn(text: string, terms: readonly string[]): ObjectMention[] {
  const words = new Set<string>();
  for (const term of terms) if (!HAN.test(term) && FAMILY_OF_WORD.has(term)) words.add(term);
  for (const [run] of text.normalize("NFKC").matchAll(HAN_RUN)) {
    const characters = [...run];
    for (let i = 0; i < characters.length; ) {
      let length = Math.min(LONGEST_HAN, characters.length - i);
      while (length > 0 && !FAMILY_OF_WORD.has(characters.slice(i, i + length).join(""))) length -= 1;
      if (length > 0) words.add(characters.slice(i, i + length).join(""));
      i += Math.max(length, 1);
    }
  }
  return [...words].map(mention);
}

/**
 * The mention of a thing a value names (value-forms.ts): its family's every word, as a tool's text holds
 * it, asked for whatever the catalog holds, at `weight`.
 */
export function valueMention(family: string, weight = 1): ObjectMention {
  return {
    heldAs: [],
    others: [...new Set(OBJECT_FAMILIES[family]!.split(/\s+/).flatMap(heldAs))],
    fromValue: true,
    ...(weight !== 1 ? { weight } : {}),
  };
}
