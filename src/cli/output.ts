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

export function createOutput(json: boolean): Output {
  const data = (value: unknown) => process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
  return {
    json,
    result: (text) => process.stdout.write(`${text}\n`),
    data,
    note: (text) => process.stderr.write(`${text}\n`),
    failed: (code, message) => {
      process.stderr.write(`switchyard: ${message}\n`);
      if (json) data(errorJson(code, message));
    },
  };
}
