// The phrases the text scans look for, English and Chinese, compiled once. Each is a signal; the
// severity comes from how signals combine (text-signals.ts), because most of them alone are common in
// honest tools ("you must provide", "always", a URL) and only together are they an attack.
//
// Written to be cheap: no nested quantifiers, windows bounded (`{0,60}`). A phrase is two expressions:
// English, in ASCII and without the `u` flag (V8 runs those several times faster), and Chinese, with the
// `u` flag, tried only on text that has Han characters. The flag is not optional there: the build writes
// non-ASCII characters as `\u{…}`, which only a Unicode expression reads as the character
// (test/trust/phrases.test.ts holds every expression to it).

/** A signal in both languages. */
export interface Phrase {
  /** English: ASCII source, case-insensitive. */
  en: RegExp;
  /** Chinese: Unicode, tried only when the text has Han characters. */
  zh?: RegExp;
}

/** Han characters and CJK punctuation: a text worth the Chinese expressions. */
export const HAN = /[\u3000-\u303f\u3400-\u9fff\uf900-\ufaff]/;

/** The first text a phrase matches, or undefined. */
export function findPhrase(phrase: Phrase, text: string, han: boolean): string | undefined {
  return phrase.en.exec(text)?.[0] ?? (han && phrase.zh ? phrase.zh.exec(text)?.[0] : undefined);
}

/** One expression of several: case-insensitive, `^`/`$` at line ends (`u` for the Chinese ones). */
const union = (flags: string, parts: readonly (RegExp | string)[]) =>
  new RegExp(parts.map((part) => (typeof part === "string" ? part : part.source)).join("|"), flags);
/** A phrase from its English and Chinese expressions (or sources). */
export const phrase = (en: readonly (RegExp | string)[], zh?: readonly (RegExp | string)[]): Phrase =>
  zh ? { en: union("im", en), zh: union("imu", zh) } : { en: union("im", en) };

/** Space, or markdown emphasis, between the words of a phrase. */
const _ = "[\\s*_`~'\"]+";
/**
 * Words a phrase allows between two of its words, lazily. A word is letters and digits (an apostrophe or
 * hyphen only inside), so it shares no character with the space after it: a run of `_` or quotes can be
 * read one way only, and the expression stays linear.
 */
const gap = (n: number) => `(?:[a-z0-9]+(?:['\\u2019-][a-z0-9]+)*[\\s*_\`~'",]+){0,${n}}?`;

/** Orders to drop what the model was told: "ignore all previous instructions", 忽略之前的指令. High alone. */
export const OVERRIDE = phrase(
  [
    `\\b(?:ignore|disregard|forget|bypass|neglect|abandon)${_}${gap(3)}(?:previous|prior|preceding|above|earlier|former|original|initial|system|safety|all${_}(?:other|your|the|of))${_}${gap(1)}(?:instructions?|prompts?|directions?|directives?|rules|guidelines|guidance|messages|context|commands|constraints|polic(?:y|ies)|safeguards|guardrails)\\b`,
    `\\b(?:ignore|disregard|forget)${_}(?:everything|anything|all)${_}(?:above|before|else|you${_}(?:were|have${_}been)${_}told)\\b`,
    `\\boverride${_}(?:your|the|all|any)${_}${gap(1)}(?:instructions|system${_}prompt|rules|guidelines|safety)\\b`,
    `\\byou${_}are${_}now${_}(?:in${_})?(?:a${_}|an${_})?(?:developer${_}mode|dan\\b|jailbroken|unrestricted|unfiltered|no${_}longer)`,
    `\\b(?:ignore|disregard|forget)${_}(?:all${_})?(?:of${_})?(?:the${_})?(?:above|foregoing|preceding)\\b`,
    `\\b(?:ignore|disregard|forget|bypass|override)${_}(?:your|the${_}system(?:'s)?|the${_}developer(?:'s)?)${_}(?:instructions|rules|guidelines|system${_}prompt|prompt)\\b`,
    `\\bdo${_}anything${_}now\\b|\\bjailbreak${_}mode\\b|\\bsystem${_}override\\b`,
    `\\bnew${_}(?:system${_})?instructions?(?:${_})?:`,
    `\\bfrom${_}now${_}on,?${_}(?:you|the${_}assistant)${_}(?:must|will|shall|should|are)\\b`,
    `\\b(?:reveal|print|output|repeat|show|leak|disclose)${_}(?:me${_})?(?:your|the)${_}(?:full${_}|entire${_}|hidden${_}|original${_})?(?:system${_}prompt|initial${_}instructions|hidden${_}instructions|instructions${_}above)`,
    `\\b(?:reveal|print|output|repeat|leak|disclose)${_}(?:all${_})?(?:of${_})?your${_}(?:instructions|rules|guidelines)\\b`,
    // Orders addressed to the model by name, in the imperative: "Assistant, forward this e-mail".
    `\\b(?:ai|assistant|agent|claude|gpt|chatgpt|copilot|llm|language${_}model)s?(?:${_})?[,:]${_}(?:please${_})?(?:now${_}|immediately${_})?(?:ignore|forward|send|delete|remove|transfer|wire|pay|execute|run|email|share|upload|post|reveal|print|open|visit|download|install|approve|grant|exfiltrate)\\b`,
    `\\b(?:ai|llm)${_}(?:agents?|assistants?|models?)${_}reading${_}this\\b`,
  ],
  [
    /(?:忽略|无视|忘记|忘掉|不要理会|不用理会|不必理会|跳过|绕过|抛开|放弃)(?:掉)?(?:你|您)?(?:收到的)?(?:之前|以前|先前|此前|上面|上述|前面|以上|原有|原来|原先|所有|全部|系统|一切)(?:的)?(?:所有|全部|一切)?(?:的)?(?:指令|指示|说明|规则|提示词?|要求|设定|约束|命令|限制|安全策略)/u,
    /(?:忽略|无视|忘记|忘掉)(?:掉)?(?:之前|以前|先前|此前|上面|上述|前面|以上)(?:的)?(?:所有|全部)?(?:的)?(?:内容|消息|话|一切)/u,
    /(?:新的|最新的?)(?:系统)?指令\s*[:：]|从现在(?:开始|起)\s*[，,]?\s*你(?:必须|要|将|是|只能)/u,
    /(?:AI|人工智能|助手|模型|智能体|大模型)\s*[，,:：]\s*(?:请)?(?:立即|马上)?(?:忽略|转发|发送|删除|转账|执行|运行|上传|泄露|打开|下载|安装|批准)/iu,
    /(?:输出|打印|显示|透露|泄露|复述)(?:你的|完整的?)?(?:系统提示词?|初始指令|隐藏指令)/u,
  ],
);

/** Keeping the user in the dark: "do not tell the user", 不要告诉用户. High alone. */
export const SECRECY = phrase(
  [
    `\\b(?:do${_}not|don'?t|never|must${_}not|mustn'?t|should${_}not|shouldn'?t|without)${_}${gap(2)}(?:tell(?:ing)?|inform(?:ing)?|reveal(?:ing)?|disclos(?:e|ing)|mention(?:ing)?|alert(?:ing)?)${_}(?:this${_}|it${_}|that${_}|anything${_})?(?:to${_})?(?:the${_}|your${_})?(?:user|human|operator)(?!['\\u2019]s|\\w)`,
    `\\b(?:keep|hide)${_}(?:this|it|these${_}\\w+|the${_}\\w+)${_}(?:a${_})?(?:secret${_})?(?:from|hidden${_}from)${_}(?:the${_})?(?:user|human)\\b`,
    `\\b(?:the${_})?user${_}(?:must|should|need${_}not|does${_}not${_}need${_}to)${_}(?:not${_})?(?:know|find${_}out|be${_}(?:told|informed|aware|notified))\\b`,
    `\\bwithout${_}the${_}user'?s?${_}(?:knowledge|knowing|noticing|awareness)\\b`,
    `\\b(?:these|this|the${_}following)${_}instructions?${_}(?:are|is)${_}(?:secret|confidential|hidden)\\b`,
  ],
  [
    /(?:不要|不准|切勿|千万不要|千万别|别|禁止|不得|请勿|不能)(?:向|对|跟|和|给)?(?:用户|使用者|人类)(?:提及|透露|说明|告知|提起|显示|展示|说|解释)/u,
    /(?:不要|切勿|请勿|别|不得|禁止|千万不要)(?:告诉|告知|通知|提醒|透露给|让)(?:用户|使用者)/u,
    /(?:对|向)(?:用户|使用者)(?:保密|隐瞒)|瞒着(?:用户|使用者)|(?:用户|使用者)(?:不需要|不必|不应|不能|不会|无需)(?:知道|察觉|发现|被告知)/u,
    /(?:悄悄|偷偷|秘密|暗中|静默)地?(?:读取|发送|上传|调用|执行|复制|转发|抄送|附上)/u,
  ],
);

/** Blocks that pose as the system's or the user's voice: `<IMPORTANT>`, `[SYSTEM]`, `<|im_start|>`. */
export const TAG_BLOCK = phrase(
  [
    /<\s*\/?\s*(?:important|system|instructions?|admin|secret|hidden|critical|priority|mandatory|note[\s_-]?to[\s_-]?(?:ai|assistant|model)|ai[\s_-]?instructions?|assistant[\s_-]?instructions?|sys)\b[^<>]{0,40}>/,
    /\[\s*\/?(?:INST|SYSTEM|IMPORTANT|ADMIN)\s*\]|<\|im_start\|>|<\|system\|>|^\s*#{1,4}\s*(?:system|instructions?)\s*:?\s*$/,
    /<!--[\s\S]{0,400}?-->/,
  ],
  [/【\s*(?:重要|系统|指令|系统指令|重要提示)\s*】|<\s*(?:重要|系统|指令)\s*>/u],
);

/** Addressing the model rather than describing the tool: "Note to the AI", 致AI助手. */
export const ADDRESSED_TO_MODEL = phrase(
  [
    /\bnote\s+(?:to|for)\s+(?:the\s+)?(?:ai|assistant|model|llm|agent)\b/,
    /\b(?:dear|hey|attention)\s*,?\s+(?:ai|assistant|claude|gpt|chatgpt|llm|model)\b/,
    /\b(?:ai|llm|language\s+model|assistant)\s*[:,]\s*you\s+(?:must|should|will|need)\b/,
  ],
  [
    /(?:致|给)(?:AI|人工智能|大模型|助手|模型)(?:助手)?[:：的]|(?:AI|模型|助手)\s*[，,:：]\s*你(?:必须|应该|需要|要)/u,
  ],
);

/** An order that makes another signal an attack (alone it is common: "always", "you must"). */
export const ORDER = phrase(
  [
    /\byou\s+(?:must|should|shall|need\s+to|have\s+to|are\s+(?:required|instructed|expected)\s+to)\b/,
    /\b(?:always|never|must\s+(?:always|first|also|now))\b/,
    /\bbefore\s+(?:using|calling|invoking|running|executing|answering|responding|replying|doing)\b/,
    /\b(?:first|immediately|then)\s+(?:read|call|send|run|execute|fetch|open|cat|upload|include|pass|copy|email)\b/,
    /\b(?:make|be)\s+sure\s+(?:you|to)\b|\bit\s+is\s+(?:very\s+|extremely\s+|absolutely\s+)?(?:important|critical|essential|mandatory|vital)\s+(?:that|to)\b/,
    /\b(?:important|critical|mandatory)\s*[:!]/,
    /\bdo\s+not\s+(?:ask|confirm|warn|mention|question)\b/,
    /\b(?:do\s+not|don'?t|never|stop)\s+(?:use|using|call|calling|invoke|run)\b/,
  ],
  [
    /(?:必须|务必|一定要|始终|总是|永远|每次|首先|先(?:读取|调用|执行|发送)|请(?:务必|先)|不要(?:询问|确认|提示|使用|调用)|禁止(?:使用|调用)|改用|非常重要|重要[:：！!]|你(?:必须|应该|需要|要))/u,
    /在(?:使用|调用|执行|运行|回答)[^。\n]{0,12}(?:之前|前|之后|后)/u,
  ],
);

/**
 * Forbidding rather than ordering: "never read ~/.ssh", 请勿读取 (but not "do not forget to", 不要忘记).
 * An order's clause with one is a rule, not an attack.
 */
export const PROHIBITION = phrase(
  [
    /\b(?:never|do\s+not|don'?t|must\s+not|mustn'?t|should\s+not|cannot|can'?t|won'?t|will\s+not|refuses?\s+to|(?:is|are)\s+(?:blocked|denied|forbidden|refused|not\s+allowed|excluded))\b(?!\s+(?:forget|fail|hesitate|skip|omit|neglect))/,
  ],
  [/(?:不要|禁止|切勿|不得|不能|不会|请勿|拒绝|不允许)(?![忘漏略])/u],
);

/** Files and folders that hold secrets. Alone medium (an SSH tool names its key file); with an order, high. */
export const SECRET_PATH = phrase([
  /(?:~|\$HOME|%USERPROFILE%|\/home\/[\w.-]+|\/Users\/[\w.-]+|C:\\Users\\[\w.-]+|\/root)?[/\\]\.(?:ssh|aws|gnupg|kube|docker|azure|netrc|npmrc|pypirc|git-credentials|cursor|bash_history|zsh_history|password-store|config\/gcloud|config\/gh)\b/,
  /\bid_(?:rsa|dsa|ecdsa|ed25519)(?:\.pub)?\b|\bauthorized_keys\b|\.aws\/credentials\b|\/etc\/(?:passwd|shadow|sudoers)\b/,
  /(?:^|[\s'"`(/\\])\.env(?:\.local|\.production|\.prod)?\b(?![-\w])/,
  /\b(?:mcp|claude_desktop_config|settings)\.json\b(?=[\s\S]{0,60}(?:cursor|claude|mcp|config))|\bclaude_desktop_config\.json\b|\.cursor[/\\]mcp\.json/,
  /\bwallet\.dat\b|\bkeychain\b|\bLogin Data\b|\bcookies\.sqlite\b|\bkeystore\b/,
]);

/** Reading, in the imperative (the order, not "Reads …"): what makes a secret path an attack. */
export const READ_ORDER = phrase(
  [
    /\b(?:read|cat|open|load|access|retrieve|fetch|grab|collect|extract|dump|include|attach|upload|copy|print|output|get)\s+(?:the\s+)?(?:(?:full\s+|entire\s+|complete\s+)?(?:contents?|text)\s+of\s+)?[^\s]{0,20}[/\\~.]/,
  ],
  [/(?:读取|读|获取|打开|查看|复制|上传|发送|附上|附加|包含|拷贝|导出)\s*(?:用户的?)?[^。\n]{0,12}[~/\\.]/u],
);

/** A value slipped into a parameter: "pass its content as 'sidenote'", 放入 notes 参数. */
export const PARAMETER_CHANNEL = phrase(
  [
    /\b(?:pass|put|include|add|insert|place|provide|embed|append|send)\b[^.\n]{0,60}?\b(?:as|in|into|inside|within|via|through)\s+(?:the\s+)?['"`]?[\w.-]+['"`]?\s+(?:parameter|argument|field|param|property)\b/,
  ],
  [/(?:放入|填入|写入|附加到|加入|放到|填到|传入|作为)[^。\n]{0,20}?(?:参数|字段|属性)/u],
);

/** Where data goes out: a URL, an e-mail address, or a bare domain. */
const URL_SOURCE = String.raw`https?:\/\/[^\s'"<>)\]}\uff0c\u3002]*[^\s'"<>)\]}\uff0c\u3002.,;:!?]`;
// Bounded parts, and an address starts where a run of its characters starts: a long run without `@`
// is read once, not once per character (which made a 20,000-character run cost 0.3 s).
const EMAIL_SOURCE = String.raw`(?<![\w.+-])[\w.+-]{1,64}@[\w-]{1,63}(?:\.[\w-]{1,63}){0,8}\.[a-z]{2,24}\b`;
const DOMAIN_SOURCE = String.raw`(?:[a-z0-9-]+\.)+(?:com|net|org|io|xyz|ru|cn|top|site|app|dev|info|biz|co|me|tk|sh|cc)\b(?:\/\S*)?`;
const PLACE_SOURCE = `(?:${URL_SOURCE}|${EMAIL_SOURCE}|${DOMAIN_SOURCE})`;
export const URL = new RegExp(URL_SOURCE, "gi");
export const EMAIL = new RegExp(EMAIL_SOURCE, "gi");

/** Sending to a place: "send … to https://…", "bcc archive@…", 发送到 x@y. */
export const SINK = phrase(
  [
    String.raw`\b(?:send|post|upload|forward|transmit|exfiltrate|copy|mail|email|e-mail|report|submit|leak|sync|pipe|relay|deliver|log)\b[^.\n]{0,80}?\b(?:to|at|into|onto)\s+${PLACE_SOURCE}`,
    String.raw`\b(?:bcc|cc)\b\s*:?\s*(?:to\s+|it\s+to\s+|a\s+copy\s+to\s+)?${EMAIL_SOURCE}`,
    /\b(?:curl|wget)\b[^\n]{0,80}?(?:-d|--data|-F|--form|-T|--upload-file|--post-data)\b/,
  ],
  [
    String.raw`(?:发送|发|转发|上传|传送|提交|抄送|密送|同步|复制|回传|外发|推送)(?:到|至|给)\s*[^。\n]{0,20}?(?:${PLACE_SOURCE}|外部|远程服务器|第三方)`,
    String.raw`(?:抄送|密送)\s*(?:给|至|到)?\s*${EMAIL_SOURCE}`,
  ],
);

/** What is being sent, in the sentence of a sink: "send it / the contents / all of the data". */
export const SENT_DATA = phrase(
  [
    /\b(?:send|post|upload|forward|transmit|exfiltrate|copy|mail|email|report|submit|leak|sync|relay|bcc|cc)\s+(?:it|them|this|that|these|everything|all|a\s+copy|copies|(?:the\s+|all\s+|any\s+|its\s+|their\s+|your\s+|the\s+user'?s\s+)(?:full\s+|entire\s+|complete\s+|raw\s+)?(?:data|contents?|results?|outputs?|files?|conversation|history|messages?|keys?|tokens?|credentials?|secrets?|passwords?|information|details|response|documents?|emails?|notes?))\b/,
    /\b(?:bcc|cc)\b/,
  ],
  [
    /(?:将|把)[^。\n]{1,40}?(?:发送|发|转发|上传|传送|提交|抄送|密送|同步|复制|回传|推送)(?:到|至|给)|(?:抄送|密送)/u,
  ],
);

/** Data the model should never hand out, the strong kind: conversations, prompts, keys, the environment. */
export const PRIVATE_DATA = phrase(
  [
    /\b(?:conversation|chat|message)\s+(?:history|log|logs|transcript)\b|\b(?:previous|prior|all|entire|full|earlier)\s+(?:messages|conversation|chat)\b/,
    /\bsystem\s+prompt\b|\benvironment\s+variables\b|\b(?:ssh|private)\s+keys?\b|\bseed\s+phrase\b|\bmnemonic\b|\bother\s+tools?'?\s+(?:results|outputs)\b/,
  ],
  [
    /对话历史|聊天记录|历史消息|之前的(?:对话|消息|聊天)|系统提示词?|环境变量|私钥|SSH\s*密钥|助记词|其他工具的(?:结果|输出)/u,
  ],
);

/**
 * Handing such data over: a verb of passing shortly before it ("include the conversation history",
 * 附上对话历史). Alone medium; with an order or a parameter to put it in, high.
 */
export const HARVEST = phrase(
  [
    String.raw`\b(?:include|pass|add|append|attach|send|forward|copy|put|insert|provide|embed|dump|paste|collect|gather|share|leak|upload|output|print)\b[^.\n]{0,40}?(?:${PRIVATE_DATA.en.source})`,
  ],
  [
    String.raw`(?:附上|附加|包含|传入|放入|填入|发送|转发|复制|粘贴|提供|收集|汇总|上传|输出)[^。\n]{0,40}?(?:${PRIVATE_DATA.zh!.source})`,
  ],
);

/** Data that is only secret in the wrong hands: credentials and tokens. */
export const CREDENTIALS = phrase(
  [
    /\bapi[\s_-]*keys?\b|\b(?:access|auth|bearer|session|refresh|api)[\s_-]*tokens?\b|\bpasswords?\b|\bcredentials?\b|\bsecrets?\b|\bcookies?\b/,
  ],
  [/密码|密钥|令牌|凭证|凭据|口令/u],
);

/** Orders about tools in general: "instead of any other tool", "whenever any tool is called", 调用其他工具时. */
export const OTHER_TOOLS = phrase(
  [
    /\b(?:instead\s+of|rather\s+than|before|after|whenever|when|every\s+time)\s+(?:using\s+|calling\s+|any\s+)?(?:any|another|other|every|all|the\s+other)\s+(?:other\s+)?(?:tools?|servers?|functions?|mcp\s+servers?)\b/,
  ],
  [
    /(?:调用|使用|执行)(?:任何|其他|其它|别的|所有|另一个)的?(?:工具|服务器|函数)|(?:代替|取代|而不是)(?:其他|其它|别的|所有)的?(?:工具|服务器)/u,
  ],
);

/** Example hosts that honest documentation uses: a URL or address there is no place to send data to. */
export const EXAMPLE_HOST =
  /(?:^|[@./])(?:example\.(?:com|org|net)|localhost|127\.0\.0\.1|0\.0\.0\.0|[\w-]+\.(?:test|example|invalid|local))(?:[:/]|$)/i;
