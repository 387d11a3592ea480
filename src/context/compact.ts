import type { ChatMessage, ModelProvider } from "../models/model.js";
import type { TokenCounter } from "./tokens.js";

/** The line that opens a summary of compacted rounds (in the system prompt, and in a continued history). */
export const SUMMARY_HEADING = "Summary of the earlier conversation (older messages were compacted into it):";

/** What the summarizing model is told (with `modelSummarizer`). */
export const SUMMARIZER_PROMPT =
  "You compact a conversation between a user and an assistant that calls tools, so that the assistant " +
  "can continue it without the original messages. Write a short summary in the conversation's language: " +
  "what the user asked and wants, the facts the tools returned (names, ids, numbers, dates exactly as " +
  "given), what the assistant answered or decided, and what is still open. Plain lines, no preamble.";

/** Characters of one message a summary line keeps (extractive summaries, the summarizer's transcript). */
const LINE_CHARS = 160;
/** Characters of one message the summarizing model is shown. */
const TRANSCRIPT_MESSAGE_CHARS = 600;

/** What the active context is built from: the working record, of which the first `upTo` messages are summarized. */
export interface Compaction {
  /** The summary of `record[0, upTo)`; absent when nothing is summarized. */
  summary?: string;
  /** Index in the working record of the first message kept whole. */
  upTo: number;
}

/** Summarizes messages (and the summary of what came before them) into at most `budgetTokens`. */
export type Summarizer = (request: {
  messages: readonly ChatMessage[];
  previous?: string;
  budgetTokens: number;
  counter: TokenCounter;
  signal?: AbortSignal;
}) => Promise<string>;

/**
 * Where rounds start, from `from` on: a round is one model turn (an assistant message and the tool
 * messages that answer it) with the user message just before it, if any. A cut at a round's start
 * never separates a tool message from the assistant message that asked for it.
 */
export function roundStarts(messages: readonly ChatMessage[], from = 0): number[] {
  const starts: number[] = [];
  for (let i = from; i < messages.length; i++) {
    const message = messages[i]!;
    if (message.role === "tool") continue;
    if (message.role === "assistant" && i > from && messages[i - 1]!.role === "user") continue;
    starts.push(i);
  }
  return starts;
}

/** The start of the `keep`-th last round (the first index to keep whole), or `from` when there are fewer. */
export function lastRoundsStart(messages: readonly ChatMessage[], keep: number, from = 0): number {
  const starts = roundStarts(messages, from);
  return starts.length > keep ? starts[starts.length - keep]! : from;
}

/** The summary as a message of a continued history (it opens the history; the agent folds it into the system prompt). */
export function summaryMessage(summary: string): ChatMessage {
  return { role: "system", content: `${SUMMARY_HEADING}\n${summary}` };
}

/**
 * The compaction a history starts with: a leading summary message ({@link summaryMessage}, from an
 * earlier run) is taken as what is summarized so far; any other history starts with nothing summarized.
 */
export function compactionOf(history: readonly ChatMessage[]): Compaction {
  const first = history[0];
  if (first?.role !== "system" || !first.content.startsWith(SUMMARY_HEADING)) return { upTo: 0 };
  return { summary: first.content.slice(SUMMARY_HEADING.length).trim(), upTo: 1 };
}

/**
 * A deterministic summary: one line per user message, tool call (with a key line of its result) and
 * answer, oldest dropped first when they do not fit in `budgetTokens` (a line says how many were).
 */
export const extractiveSummary: Summarizer = async ({ messages, previous, budgetTokens, counter }) =>
  fitLines([...(previous ? previous.split("\n") : []), ...summaryLines(messages)], budgetTokens, counter);

/**
 * A summarizer that asks `model` (without tools) to summarize; an answer over the budget is cut, and a
 * model that fails or answers nothing leaves the summary to {@link extractiveSummary}.
 */
export function modelSummarizer(model: ModelProvider): Summarizer {
  return async (request) => {
    const { messages, previous, budgetTokens, counter, signal } = request;
    try {
      const transcript = fitLines(
        [
          ...(previous ? ["Summary so far:", previous, "", "Messages since:"] : []),
          ...messages.map((message) => transcriptLine(message)),
        ],
        // The transcript of what is compacted: a few summaries' worth, bounded so the request fits.
        budgetTokens * 8,
        counter,
      );
      const response = await model.complete({
        messages: [
          { role: "system", content: SUMMARIZER_PROMPT },
          { role: "user", content: `${transcript}\n\nWrite the summary in at most ${budgetTokens} tokens.` },
        ],
        tools: [],
        ...(signal ? { signal } : {}),
      });
      const text = response.content?.trim();
      if (text) return cutToTokens(text, budgetTokens, counter);
    } catch (error) {
      if (signal?.aborted) throw error;
    }
    return extractiveSummary(request);
  };
}

/** The extractive summary's lines for `messages`. */
function summaryLines(messages: readonly ChatMessage[]): string[] {
  const toolNames = new Map<string, string>();
  const lines: string[] = [];
  for (const message of messages) {
    switch (message.role) {
      case "system":
        lines.push(oneLine(message.content));
        break;
      case "user":
        lines.push(`- user: ${oneLine(message.content)}`);
        break;
      case "assistant":
        for (const call of message.toolCalls ?? []) {
          toolNames.set(call.id, call.name);
          lines.push(`- called ${call.name} ${oneLine(call.arguments, 80)}`);
        }
        if (message.content?.trim())
          lines.push(
            `- ${message.toolCalls?.length ? "assistant" : "answered"}: ${oneLine(message.content)}`,
          );
        break;
      case "tool":
        lines.push(`  → ${toolNames.get(message.toolCallId) ?? "tool"}: ${keyLine(message.content)}`);
        break;
    }
  }
  return lines;
}

/**
 * A result's key line: its first lines after the anchor line and any note of what shaping left out, with
 * the handle of the whole result when the note names one.
 */
function keyLine(content: string): string {
  const lines = content.split("\n").filter((line) => line.trim() !== "");
  let body = lines.length > 1 && /^\[.*\]$/.test(lines[0]!.trim()) ? lines.slice(1) : lines;
  const handle = /stored as handle "([^"]+)"/.exec(content)?.[1];
  if (body.length > 1 && /^\[.*\]$/.test(body[0]!.trim())) body = body.slice(1);
  return `${oneLine(body.join(" "), 120)}${handle ? ` (whole result: handle ${handle})` : ""}`;
}

function transcriptLine(message: ChatMessage): string {
  const text = (message.content ?? "").replace(/\s+/g, " ").trim();
  const cut = text.length > TRANSCRIPT_MESSAGE_CHARS ? `${text.slice(0, TRANSCRIPT_MESSAGE_CHARS)} …` : text;
  if (message.role === "assistant" && message.toolCalls?.length) {
    const calls = message.toolCalls.map((call) => `${call.name} ${oneLine(call.arguments, 200)}`).join("; ");
    return `assistant (calls ${calls})${cut ? `: ${cut}` : ""}`;
  }
  return `${message.role}: ${cut}`;
}

function oneLine(text: string | null, chars = LINE_CHARS): string {
  const line = (text ?? "").replace(/\s+/g, " ").trim();
  return line.length > chars ? `${line.slice(0, chars)}…` : line;
}

/** The newest lines that fit in `budgetTokens`, after a line saying how many older ones were left out. */
function fitLines(lines: readonly string[], budgetTokens: number, counter: TokenCounter): string {
  const kept: string[] = [];
  let used = 0;
  for (let i = lines.length - 1; i >= 0; i--) {
    const cost = counter.count(lines[i]!) + 1;
    if (used + cost > budgetTokens - 16) {
      return [`(${i + 1} older lines left out)`, ...kept.reverse()].join("\n");
    }
    used += cost;
    kept.push(lines[i]!);
  }
  return kept.reverse().join("\n");
}

/** `text` cut at the end to at most `budgetTokens`. */
export function cutToTokens(text: string, budgetTokens: number, counter: TokenCounter): string {
  if (counter.countUpTo(text, budgetTokens) <= budgetTokens) return text;
  let chars = text.length;
  let cut = text;
  while (chars > 0 && counter.countUpTo(cut, budgetTokens) > budgetTokens) {
    chars = Math.floor(chars * 0.8);
    cut = `${text.slice(0, chars)} …`;
  }
  return cut;
}
