import { oneLine } from "../internal.js";

/** Where a command writes: results to stdout, everything else to stderr. */
export interface Output {
  json: boolean;
  /** A result line (stdout). */
  result(text: string): void;
  /** A machine-readable result (stdout), pretty-printed JSON. */
  data(value: unknown): void;
  /** A note for the person (stderr). */
  note(text: string): void;
  /**
   * Why the command failed: one line on stderr, and with `--json` also `{ "error": { code, message } }`
   * on stdout, so that a script reading stdout learns it too.
   */
  failed(code: string, message: string): void;
}

/** A failure as `--json` prints it on stdout (docs/contract.md). */
export function errorJson(code: string, message: string): { error: { code: string; message: string } } {
  return { error: { code, message } };
}

// Control characters a terminal acts on: C0 but tab and newline (ESC starts CSI and OSC sequences — a
// clipboard write, a new title, a cleared screen; CR rewrites the line), DEL, C1, and the bidi controls
// that reorder what is shown. Servers' text reaches the terminal through results, tables and errors.
// biome-ignore lint/suspicious/noControlCharactersInRegex: these are the characters it escapes
const TERMINAL_CONTROLS = /[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]/g;

/**
 * Text as a terminal may print it: every control character it would act on written out as an escape
 * (`\x1b`, `\u202e`), so what a server said is seen, never obeyed. JSON output needs none of it.
 */
export function terminalSafe(text: string): string {
  return text.replace(TERMINAL_CONTROLS, (char) => {
    const code = char.charCodeAt(0);
    return code <= 0xff ? `\\x${code.toString(16).padStart(2, "0")}` : `\\u${code.toString(16)}`;
  });
}

/**
 * Output on the process's stdout and stderr. Notes and failures go through `redact` first (a server's
 * error may quote the secrets it was started with); results and data are what was asked for, whole.
 */
export function createOutput(json: boolean, redact: (text: string) => string = (text) => text): Output {
  const data = (value: unknown) => process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
  return {
    json,
    result: (text) => process.stdout.write(`${terminalSafe(text)}\n`),
    data,
    note: (text) => process.stderr.write(`${terminalSafe(redact(text))}\n`),
    failed: (code, reason) => {
      const message = redact(reason);
      // One line, whatever the message holds (a parser's quote of a file, a server's text).
      process.stderr.write(`switchyard: ${terminalSafe(oneLine(message))}\n`);
      if (json) data(errorJson(code, message));
    },
  };
}
