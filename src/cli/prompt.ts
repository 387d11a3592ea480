import { readSync, writeSync } from "node:fs";

/** What was typed ahead, beyond the answer that ended with Enter: the next question's answer begins with it. */
let typedAhead = "";

/**
 * Ask one question on the terminal and wait for the answer, synchronously (config loading is
 * synchronous): stdin in raw mode, the answer echoed — as `*` for a password — with backspace, Enter to
 * finish, Ctrl-C or Ctrl-D to give up (undefined). What is typed after Enter is kept for the next one.
 */
export function promptSync(question: string, options: { password?: boolean } = {}): string | undefined {
  const stdin = process.stdin;
  if (!stdin.isTTY) return undefined;
  // Raw mode before the question shows: whatever is typed from then on is never echoed by the terminal.
  // It is put back as it was after (chat's line editor keeps the terminal raw).
  const wasRaw = stdin.isRaw;
  stdin.setRawMode(true);
  writeSync(2, question);
  const chars: string[] = [];
  const buffer = Buffer.alloc(256);
  const decoder = new TextDecoder();
  const take = (text: string): string | null | undefined => {
    const typed = [...text];
    for (let at = 0; at < typed.length; at += 1) {
      const char = typed[at]!;
      if (char === "\r" || char === "\n") {
        typedAhead = typed.slice(at + (char === "\r" && typed[at + 1] === "\n" ? 2 : 1)).join("");
        return chars.join("");
      }
      if (char === "\u0003" || char === "\u0004") {
        typedAhead = "";
        return undefined;
      }
      if (char === "\u007f" || char === "\b") {
        if (chars.pop() !== undefined) writeSync(2, "\b \b");
      } else if (char >= " ") {
        chars.push(char);
        writeSync(2, options.password ? "*" : char);
      }
    }
    return null; // not finished yet
  };
  try {
    const ahead = typedAhead;
    typedAhead = "";
    const early = take(ahead);
    if (early !== null) return early;
    for (;;) {
      let read: number;
      try {
        read = readSync(0, buffer, 0, buffer.length, null);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === "EAGAIN") continue;
        return undefined;
      }
      if (read === 0) return undefined;
      const answer = take(decoder.decode(buffer.subarray(0, read), { stream: true }));
      if (answer !== null) return answer;
    }
  } finally {
    stdin.setRawMode(wasRaw);
    writeSync(2, "\n");
  }
}
