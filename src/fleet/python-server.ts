// Python servers: told apart by their command's name, started unbuffered, and given a hint when their
// handshake times out (a buffered stdout holds the answer back; a print to stdout corrupts it).
import { basename } from "node:path";

/**
 * Commands that run Python, by the command's base name (a `.exe` suffix ignored, any case): `python`,
 * `python3`, `python3.12`, `pythonw`, `python3w`…, the Windows launcher `py`, and `uv`, `uvx`, `pipx`.
 */
const PYTHON_COMMAND = /^(?:python(?:\d+(?:\.\d+)?)?w?|py|uv|uvx|pipx)(?:\.exe)?$/i;

/** Whether a server's command runs Python (see {@link PYTHON_COMMAND}). */
export function isPythonCommand(command: string): boolean {
  return PYTHON_COMMAND.test(basename(command.replaceAll("\\", "/")));
}

/**
 * Variables a Python server starts with, under its entry's `env`: `PYTHONUNBUFFERED=1`, so that what it
 * writes reaches us at once rather than when a buffer fills. Empty for any other command.
 */
export function pythonDefaults(command: string): Record<string, string> {
  return isPythonCommand(command) ? { PYTHONUNBUFFERED: "1" } : {};
}

/** What to check when a Python server's handshake got no answer in time. */
export const PYTHON_TIMEOUT_HINT =
  "a Python server: check that its output is not buffered (run it with `python -u` or set PYTHONUNBUFFERED=1, which Switchyard sets unless its env says otherwise) and that it prints nothing but protocol messages to stdout (print diagnostics to stderr: print(..., file=sys.stderr))";
