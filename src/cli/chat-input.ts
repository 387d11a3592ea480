import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import path from "node:path";
import { createInterface, type Interface } from "node:readline";
import { DEFAULT_CHAT_HISTORY_LINES } from "../internal.js";

// What `switchyard chat` reads: lines from stdin — on a terminal with line editing and a history of
// lines kept in a file — each a question for the model or one of chat's own commands.

/**
 * Where a terminal chat keeps its lines: `$SWITCHYARD_CHAT_HISTORY` (empty: nowhere), else
 * `$XDG_STATE_HOME/switchyard/chat_history`, else `~/.local/state/switchyard/chat_history`.
 */
export function chatHistoryFile(env: NodeJS.ProcessEnv = process.env): string | undefined {
  const chosen = env.SWITCHYARD_CHAT_HISTORY;
  if (chosen !== undefined) return chosen === "" ? undefined : path.resolve(chosen);
  const xdg = env.XDG_STATE_HOME;
  // The XDG spec: a relative path is invalid and must be ignored.
  const state = xdg && path.isAbsolute(xdg) ? xdg : path.join(homedir(), ".local", "state");
  return path.join(state, "switchyard", "chat_history");
}

/** The lines of a history file, newest first (readline's order); none when there is no file yet. */
export function readChatHistory(file: string): string[] {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return [];
    throw error;
  }
  return text
    .split("\n")
    .filter((line) => line.trim() !== "")
    .reverse()
    .slice(0, DEFAULT_CHAT_HISTORY_LINES);
}

/** Write readline's history (newest first) as a file of lines, oldest first, readable by its owner only. */
export function writeChatHistory(file: string, history: readonly string[]): void {
  mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  const lines = history.slice(0, DEFAULT_CHAT_HISTORY_LINES).reverse();
  writeFileSync(file, lines.length ? `${lines.join("\n")}\n` : "", { mode: 0o600 });
}

/** What the user's line asks for: a question for the model, or one of chat's own commands. */
type ChatLine =
  | { kind: "empty" }
  | { kind: "question"; text: string }
  | { kind: "command"; name: string; rest: string };

/** `//text` is the question `/text`; `/name rest` is a command; anything else a question. */
export function parseChatLine(line: string): ChatLine {
  const text = line.trim();
  if (text === "") return { kind: "empty" };
  if (text.startsWith("//")) return { kind: "question", text: text.slice(1) };
  if (!text.startsWith("/")) return { kind: "question", text };
  const space = text.search(/\s/);
  return space < 0
    ? { kind: "command", name: text, rest: "" }
    : { kind: "command", name: text.slice(0, space), rest: text.slice(space).trim() };
}

/**
 * Lines from stdin, one at a time. On a terminal: line editing, the arrow keys' history (kept in a
 * file), and Ctrl-C reported to `onCtrlC` (readline's raw mode turns it into a key, not a signal).
 */
export class ChatInput {
  readonly terminal: boolean;
  readonly #lines: Interface;
  readonly #queue: string[] = [];
  #waiting: ((line: string | undefined) => void) | undefined;
  #ended = false;

  constructor(options: { history: string[]; onHistory: (history: string[]) => void; onCtrlC: () => void }) {
    this.terminal = process.stdin.isTTY === true && process.stderr.isTTY === true;
    this.#lines = createInterface({
      input: process.stdin,
      ...(this.terminal
        ? {
            output: process.stderr,
            terminal: true,
            prompt: "> ",
            history: options.history,
            historySize: DEFAULT_CHAT_HISTORY_LINES,
            removeHistoryDuplicates: true,
          }
        : { terminal: false }),
    });
    this.#lines.on("line", (line) => {
      const waiting = this.#waiting;
      this.#waiting = undefined;
      if (waiting) waiting(line);
      else this.#queue.push(line); // typed (or piped) while a question runs
    });
    this.#lines.on("close", () => {
      this.#ended = true;
      this.#waiting?.(undefined);
      this.#waiting = undefined;
    });
    if (this.terminal) {
      this.#lines.on("history", options.onHistory);
      this.#lines.on("SIGINT", options.onCtrlC);
    }
  }

  /** The next line (prompting for it on a terminal), or undefined at the end of input. */
  next(): Promise<string | undefined> {
    const queued = this.#queue.shift();
    if (queued !== undefined) return Promise.resolve(queued);
    if (this.#ended) return Promise.resolve(undefined);
    if (this.terminal) this.#lines.prompt();
    return new Promise((resolve) => {
      this.#waiting = resolve;
    });
  }

  /** What has been typed at the prompt and not yet entered. */
  get pending(): string {
    return this.#lines.line;
  }

  /** Drop what has been typed at the prompt, and prompt again (Ctrl-C on a line, as shells do). */
  discardLine(): void {
    process.stderr.write("^C\n");
    this.#lines.write(null, { ctrl: true, name: "e" });
    this.#lines.write(null, { ctrl: true, name: "u" });
    this.#lines.prompt();
  }

  /** Stop reading: the interface closes and stdin is let go of, so the process need not wait for EOF. */
  close(): void {
    this.#lines.close();
    process.stdin.destroy();
  }
}
