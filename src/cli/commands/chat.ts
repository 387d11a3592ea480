import { randomBytes } from "node:crypto";
import {
  type Agent,
  type AgentResult,
  type ChatMessage,
  DEFAULT_OFFER_ALL_UP_TO,
  DEFAULT_TOP_K,
  didYouMean,
  ResultHandles,
  type SessionHandle,
  type Store,
  type Switchyard,
  type SwitchyardConfig,
} from "../../internal.js";
import {
  ChatInput,
  chatHistoryFile,
  parseChatLine,
  readChatHistory,
  writeChatHistory,
} from "../chat-input.js";
import type { CommandContext } from "../context.js";
import { CliError, EXIT_FAILED, EXIT_OK, EXIT_USAGE, messageOf } from "../exit-codes.js";
import { countOf, firstLine, formatTable } from "../table.js";
import { type AskFlags, openAgent, printResult } from "./ask.js";
import { renderServers } from "./servers.js";

/** Exit code of a chat left with Ctrl-C at an empty prompt (128 + SIGINT, as a shell reports it). */
const EXIT_CTRL_C = 130;

/**
 * `switchyard chat`: a conversation on stdin/stdout; the history carries across questions. Lines that
 * start with `/` are commands handled here (`/help` lists them), never sent to the model. On a terminal:
 * line editing, and a history of lines kept in {@link chatHistoryFile}. Ctrl-C (SIGINT) during a
 * question cancels that question and comes back to the prompt; at an empty prompt it leaves.
 */
export async function chatCommand(ctx: CommandContext, flags: AskFlags): Promise<number> {
  // An unknown session fails before any server starts.
  const saved = await openChatSession(ctx, flags.session);
  const { agent, yard, model, config } = await openAgent(ctx, flags);
  ctx.out.note(chatBanner(yard, model.name));
  if (saved)
    ctx.out.note(
      saved.turns > 0
        ? `resuming session ${saved.id} (${countOf(saved.turns, "turn")})`
        : `session ${saved.id} (resume it with: switchyard chat --session ${saved.id})`,
    );
  return new ChatSession(ctx, agent, yard, config, saved).run();
}

/** A chat's session in the store: the one resumed, or a new one; none when nothing is recorded. */
interface ChatSessionState {
  id: string;
  store: Store;
  turns: number;
  history: ChatMessage[];
  handles?: ResultHandles;
}

/**
 * `--session <id>`: the recorded session (an unknown id is a usage error, with the closest ids).
 * Without it: a new session with a new id, when the store can be had (else the chat is not saved).
 */
async function openChatSession(
  ctx: CommandContext,
  id: string | undefined,
): Promise<ChatSessionState | undefined> {
  if (id === undefined) {
    // A config that cannot be read fails the chat, said once; it is not the store's failure.
    ctx.loadConfig();
    let store: Store | undefined;
    try {
      store = await ctx.store();
    } catch (error) {
      ctx.out.note(`warning: this chat is not saved: ${messageOf(error)}`);
    }
    return store ? { id: newSessionId(), store, turns: 0, history: [] } : undefined;
  }
  const store = await ctx.requireStore();
  const session = await store.session(id);
  if (!session) {
    const hint = didYouMean(
      id,
      (await store.sessions({ limit: 100 })).map((recent) => recent.id),
    );
    throw new CliError(
      `no chat session ${id} in ${store.location}${hint ? ` (${hint})` : ""}; switchyard sessions lists them`,
      EXIT_USAGE,
    );
  }
  return {
    id,
    store,
    turns: session.turns,
    history: session.messages as ChatMessage[],
    ...(session.handles.length ? { handles: restoreHandles(session.handles) } : {}),
  };
}

/** `sess_` and 10 hex digits. */
function newSessionId(): string {
  return `sess_${randomBytes(5).toString("hex")}`;
}

/** A session's stored results behind their handles again, with new handles numbered after them. */
function restoreHandles(saved: readonly SessionHandle[]): ResultHandles {
  const handles = new ResultHandles();
  const issued = Math.max(0, ...saved.map((handle) => Number(/^r(\d+)$/.exec(handle.id)?.[1] ?? 0)));
  for (let count = 0; count < issued; count++) handles.reserve();
  for (const handle of saved) handles.store(handle.tool, handle.text, handle.id);
  return handles;
}

/** The commands `chat` handles itself, for `/help`. */
const CHAT_COMMANDS: ReadonlyArray<readonly [string, string]> = [
  ["/help", "this list"],
  ["/tools [request]", "the catalog; with a request, the tools the router would offer for it now"],
  ["/servers", "the servers and their state"],
  ["/history", "the conversation so far"],
  ["/clear", "forget the conversation (a new session starts)"],
  ["/exit, /quit", "leave (Ctrl-D too)"],
];

/** `switchyard chat — 6/6 servers, 9 tools, model gpt-4o-mini; /help for commands`. */
export function chatBanner(yard: Switchyard, modelName: string): string {
  const servers = yard.servers().filter((server) => server.status !== "disabled");
  const ready = servers.filter((server) => server.status === "ready").length;
  const failed = servers
    .filter((server) => server.status === "failed" || server.status === "needs-auth")
    .map((server) => server.name);
  const failures = failed.length ? ` (${failed.join(", ")} failed: /servers says why)` : "";
  return `switchyard chat — ${ready}/${servers.length} servers${failures}, ${yard.tools().length} tools, model ${modelName}; /help for commands`;
}

/** One `switchyard chat`: the conversation, the question running, and chat's own commands. */
class ChatSession {
  readonly #ctx: CommandContext;
  readonly #agent: Agent;
  readonly #yard: Switchyard;
  readonly #config: SwitchyardConfig;
  readonly #input: ChatInput;
  readonly #historyFile: string | undefined;
  /** The conversation to continue from: compacted by the agent once it nears the model's window. */
  #history: ChatMessage[] = [];
  /** The results stored behind handles the history names. */
  #handles: ResultHandles | undefined;
  /** Cancels the question running now. */
  #question: AbortController | undefined;
  #exitCode = EXIT_OK;
  #historyWarned = false;
  /** The session saved after each answered question; none: the chat is not saved. */
  #session: ChatSessionState | undefined;

  constructor(
    ctx: CommandContext,
    agent: Agent,
    yard: Switchyard,
    config: SwitchyardConfig,
    session?: ChatSessionState,
  ) {
    this.#ctx = ctx;
    this.#agent = agent;
    this.#yard = yard;
    this.#config = config;
    this.#session = session;
    if (session) {
      this.#history = session.history;
      this.#handles = session.handles;
    }
    const terminal = process.stdin.isTTY === true && process.stderr.isTTY === true;
    this.#historyFile = terminal ? chatHistoryFile() : undefined;
    this.#input = new ChatInput({
      history: this.#loadHistory(),
      onHistory: (history) => this.#saveHistory(history),
      onCtrlC: () => this.#ctrlC(),
    });
    // A SIGINT that is a signal (stdin is not a terminal, or `kill -INT`) cancels the question too.
    ctx.handleInterrupts((signal) => signal === "SIGINT" && this.#cancelQuestion());
  }

  async run(): Promise<number> {
    try {
      for (;;) {
        const line = await this.#input.next();
        if (line === undefined || this.#ctx.signal.aborted) break;
        const parsed = parseChatLine(line);
        if (parsed.kind === "question") await this.#ask(parsed.text);
        else if (parsed.kind === "command" && (await this.#command(parsed.name, parsed.rest)) === "exit")
          break;
        if (this.#ctx.signal.aborted) break;
      }
    } finally {
      this.#input.close();
    }
    return this.#ctx.signal.aborted ? EXIT_FAILED : this.#exitCode;
  }

  async #ask(question: string): Promise<void> {
    const controller = new AbortController();
    this.#question = controller;
    let result: AgentResult;
    try {
      result = await this.#agent.run(question, {
        history: this.#history,
        ...(this.#handles ? { handles: this.#handles } : {}),
        signal: AbortSignal.any([this.#ctx.runSignal(), controller.signal]),
      });
    } finally {
      this.#question = undefined;
    }
    printResult(this.#ctx, result);
    if (result.stopReason === "cancelled") {
      if (!this.#ctx.signal.aborted)
        this.#ctx.out.note("interrupted: the question was cancelled, and left out of the conversation");
      return;
    }
    this.#history = result.history;
    this.#handles = result.handles;
    await this.#save(result);
  }

  /** Save the conversation to continue from (and its stored results) after the question, redacted. */
  async #save(result: AgentResult): Promise<void> {
    const session = this.#session;
    if (!session) return;
    try {
      // Written to disk like every record: redacted (the model sees the secrets it was given this once).
      const state = this.#yard.redactor.value({ messages: result.history, handles: result.handles.list() });
      await session.store.saveSession(session.id, state, result.runId);
    } catch (error) {
      this.#ctx.out.note(`warning: session ${session.id} was not saved: ${messageOf(error)}`);
    }
  }

  /**
   * Cancel the question running, if there is one; true when there was. A second interrupt while it is
   * being cancelled is not taken: the CLI closes.
   */
  #cancelQuestion(): boolean {
    if (!this.#question || this.#question.signal.aborted) return false;
    this.#question.abort(new Error("interrupted (Ctrl-C)"));
    return true;
  }

  /** Ctrl-C on a terminal: cancel the question running; else drop the line typed; at an empty prompt, leave. */
  #ctrlC(): void {
    if (this.#cancelQuestion()) return;
    if (this.#input.pending !== "") {
      this.#input.discardLine();
      return;
    }
    process.stderr.write("\n");
    this.#exitCode = EXIT_CTRL_C;
    this.#input.close();
  }

  /** Run one of chat's own commands; "exit" ends the chat. */
  async #command(name: string, rest: string): Promise<"exit" | undefined> {
    const out = this.#ctx.out;
    switch (name) {
      case "/exit":
      case "/quit":
        return "exit";
      case "/help":
        out.result(
          [
            ...CHAT_COMMANDS.map(([command, what]) => `${command.padEnd(18)}${what}`),
            `${"//text".padEnd(18)}send "/text" to the model`,
            "Ctrl-C cancels a running question; at an empty prompt it leaves.",
          ].join("\n"),
        );
        return undefined;
      case "/tools":
        await this.#tools(rest);
        return undefined;
      case "/servers":
        out.result(renderServers(this.#yard.servers()));
        return undefined;
      case "/history":
        if (this.#history.length === 0) out.note("the conversation is empty");
        else out.result(this.#history.map(describeMessage).join("\n"));
        return undefined;
      case "/clear":
        this.#history = [];
        this.#handles = undefined;
        out.note("the conversation is cleared");
        // The session so far stays as it was, to resume; what follows is a new one.
        if (this.#session) {
          this.#session = { ...this.#session, id: newSessionId(), turns: 0, history: [] };
          delete this.#session.handles;
          out.note(
            `session ${this.#session.id} (resume it with: switchyard chat --session ${this.#session.id})`,
          );
        }
        return undefined;
      default:
        out.note(`unknown command ${name}, /help lists them`);
        return undefined;
    }
  }

  /** `/tools`: the catalog; `/tools <request>`: what the agent would offer for it, after this conversation. */
  async #tools(request: string): Promise<void> {
    const out = this.#ctx.out;
    const tools = this.#yard.tools();
    if (request === "") {
      out.result(
        formatTable(
          ["TOOL", "SERVER", "DESCRIPTION"],
          tools.map((tool) => [tool.name, tool.server, firstLine(tool.description)]),
        ),
      );
      const offerAllUpTo = this.#config.routing?.offerAllUpTo ?? DEFAULT_OFFER_ALL_UP_TO;
      if (tools.length > offerAllUpTo) {
        const topK = this.#config.routing?.topK ?? DEFAULT_TOP_K;
        out.note(
          `each question is offered about ${topK} of these ${tools.length}; /tools <request> shows which`,
        );
      }
      return;
    }
    // Exactly what the agent would offer first for the request after this conversation, for this user.
    const messages: ChatMessage[] = [...this.#history, { role: "user", content: request }];
    const offered = await this.#agent.preview(messages);
    out.result(`offered for "${firstLine(request, 60)}": ${countOf(offered.length, "tool")}`);
    if (offered.length === 0) return;
    out.result(
      formatTable(
        ["RANK", "TOOL", "SERVER", "SCORE", "DESCRIPTION"],
        offered.map((tool, index) => [
          String(index + 1),
          tool.name,
          this.#yard.describeTool(tool.name)?.server ?? "switchyard",
          tool.score !== undefined ? tool.score.toFixed(2) : (tool.reason ?? (tool.local ? "local" : "-")),
          firstLine(tool.description, 60),
        ]),
      ),
    );
  }

  #loadHistory(): string[] {
    if (!this.#historyFile) return [];
    try {
      return readChatHistory(this.#historyFile);
    } catch (error) {
      this.#warnHistory(error);
      return [];
    }
  }

  #saveHistory(history: string[]): void {
    if (!this.#historyFile) return;
    try {
      writeChatHistory(this.#historyFile, history);
    } catch (error) {
      this.#warnHistory(error);
    }
  }

  #warnHistory(error: unknown): void {
    if (this.#historyWarned) return;
    this.#historyWarned = true;
    this.#ctx.out.note(
      `warning: cannot keep the chat history in ${this.#historyFile}: ${messageOf(error)}; set SWITCHYARD_CHAT_HISTORY to another file, or to "" for none`,
    );
  }
}

/** One line of `/history`. */
function describeMessage(message: ChatMessage): string {
  switch (message.role) {
    case "user":
    case "system":
      return `${message.role}: ${firstLine(message.content, 200)}`;
    case "assistant": {
      const calls = (message.toolCalls ?? []).map((call) => `${call.name} ${firstLine(call.arguments, 80)}`);
      const text = message.content ? firstLine(message.content, 200) : "";
      return `assistant: ${[text, calls.length ? `→ ${calls.join(", ")}` : ""].filter(Boolean).join(" ")}`;
    }
    case "tool":
      // The anchor line ("[tool x → ok]") and the start of the result.
      return `tool: ${firstLine(message.content.replace("\n", " "), 200)}`;
  }
}
