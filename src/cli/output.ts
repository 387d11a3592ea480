/** Where a command writes: results to stdout, everything else to stderr. */
export interface Output {
  json: boolean;
  /** A result line (stdout). */
  result(text: string): void;
  /** A machine-readable result (stdout), pretty-printed JSON. */
  data(value: unknown): void;
  /** A note for the person (stderr). */
  note(text: string): void;
}

export function createOutput(json: boolean): Output {
  return {
    json,
    result: (text) => process.stdout.write(`${text}\n`),
    data: (value) => process.stdout.write(`${JSON.stringify(value, null, 2)}\n`),
    note: (text) => process.stderr.write(`${text}\n`),
  };
}
