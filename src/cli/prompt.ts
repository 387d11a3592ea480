import { readSync, writeSync } from "node:fs";

/**
 * Ask one question on the terminal and wait for the answer, synchronously (config loading is
 * synchronous): stdin in raw mode, the answer echoed — as `*` for a password — with backspace, Enter to
 * finish, Ctrl-C or Ctrl-D to give up (undefined).
 */
export function promptSync(question: string, options: { password?: boolean } = {}): string | undefined {
  const stdin = process.stdin;
  if (!stdin.isTTY) return undefined;
  // Raw mode before the question shows: whatever is typed from then on is never echoed by the terminal.
  stdin.setRawMode(true);
  writeSync(2, question);
  const chars: string[] = [];
  const buffer = Buffer.alloc(256);
  const decoder = new TextDecoder();
  try {
    for (;;) {
      let read: number;
      try {
        read = readSync(0, buffer, 0, buffer.length, null);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === "EAGAIN") continue;
        return undefined;
      }
      if (read === 0) return undefined;
      for (const char of decoder.decode(buffer.subarray(0, read), { stream: true })) {
        if (char === "\r" || char === "\n") return chars.join("");
        if (char === "\u0003" || char === "\u0004") return undefined;
        if (char === "\u007f" || char === "\b") {
          if (chars.pop() !== undefined) writeSync(2, "\b \b");
        } else if (char >= " ") {
          chars.push(char);
          writeSync(2, options.password ? "*" : char);
        }
      }
    }
  } finally {
    stdin.setRawMode(false);
    writeSync(2, "\n");
  }
}
