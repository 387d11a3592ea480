import { isSwitchyardError, SwitchyardError } from "../errors.js";
import type { ServerAnswers } from "../fleet/requests.js";
import { withoutHidden } from "../trust/clean.js";
import { scanResult } from "../trust/scan.js";
import { normalizeResult, renderContent, type ToolResult } from "./normalize.js";
import type { CompletionResult, PromptResult, ResourceContents } from "./request.js";
import type { Resolved } from "./resolve.js";
import { outputProblems } from "./validate.js";

// What a server answered, as the caller gets it: checked once (a tool's structured content against its
// output schema) and normalized, with the text its record keeps.

/**
 * A tool call's answer as Switchyard returns it.
 * @throws SwitchyardError `INVALID_RESULT` when its structured content breaks the tool's output schema.
 */
export function toolResult(resolved: Resolved, answer: ServerAnswers["tools/call"]): ToolResult {
  const broken = outputProblems(resolved.entry?.outputSchema, answer);
  if (broken) {
    throw new SwitchyardError(
      "INVALID_RESULT",
      `server ${resolved.server} answered the call to ${resolved.tool} with a result that breaks the tool's own output schema: ${broken.join("; ")}. The tool misbehaved; the arguments were not the problem`,
      { server: resolved.server, tool: resolved.tool, delivery: "final", serverFault: false },
    );
  }
  // Hidden and control characters never reach a model; what the text says is scanned, not obeyed.
  const clean = withoutHidden(answer);
  const result = normalizeResult(clean);
  const said = clean === answer ? result.text : normalizeResult(answer).text;
  const findings = scanResult(resolved.server, resolved.tool, said);
  if (findings.length) result.findings = findings;
  return result;
}

export function resourceResult(
  resolved: Resolved,
  answer: ServerAnswers["resources/read"],
): ResourceContents {
  return { server: resolved.server, uri: resolved.uri!, contents: withoutHidden(answer.contents) };
}

export function promptResult(resolved: Resolved, answer: ServerAnswers["prompts/get"]): PromptResult {
  const prompt = resolved.prompt!;
  return {
    name: prompt.name,
    server: prompt.server,
    prompt: prompt.prompt,
    ...(answer.description !== undefined ? { description: answer.description } : {}),
    messages: withoutHidden(answer.messages),
  };
}

export function completionResult(
  resolved: Resolved,
  answer: ServerAnswers["completion/complete"],
): CompletionResult {
  return {
    server: resolved.server,
    values: answer.values,
    ...(answer.total !== undefined ? { total: answer.total } : {}),
    ...(answer.hasMore !== undefined ? { hasMore: answer.hasMore } : {}),
  };
}

/** The text a request's record keeps of its result. */
export function resultText(result: unknown): string | undefined {
  if (result === undefined || result === null || typeof result !== "object") return undefined;
  if ("text" in result && typeof result.text === "string") return result.text;
  if ("contents" in result)
    return renderContent(
      (result as ResourceContents).contents.map((resource) => ({ type: "resource", resource })),
    );
  if ("messages" in result)
    return (result as PromptResult).messages
      .map((message) => `${message.role}: ${renderContent([message.content as never])}`)
      .join("\n");
  if ("values" in result) return (result as CompletionResult).values.join("\n");
  return undefined;
}

/** JSON-RPC codes a server answers `resources/read` with for a URI it does not know. */
const RESOURCE_UNKNOWN_RPC = new Set([-32002, -32602]);

/**
 * The server's own "no such resource" (-32002, or -32602 as SDK servers say it) is a URI it does not
 * know, like one no server lists: `RESOURCE_NOT_FOUND`. Any other failure as it is.
 */
export function readFailure(resolved: Resolved, error: unknown): unknown {
  if (!isSwitchyardError(error) || error.rpcCode === undefined || !RESOURCE_UNKNOWN_RPC.has(error.rpcCode))
    return error;
  const { cause: _cause, ...details } = error.details();
  return new SwitchyardError(
    "RESOURCE_NOT_FOUND",
    `server ${resolved.server} has no resource ${resolved.uri}: ${error.message.replace(/^.*?\(JSON-RPC -?\d+\): /, "")}`,
    { ...details, cause: error },
  );
}
