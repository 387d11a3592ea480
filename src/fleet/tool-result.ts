import type { CallToolResult, StandardSchemaV1, Tool } from "@modelcontextprotocol/client";

/**
 * The check of a `tools/call` result on Switchyard's call path, in place of the SDK's `callTool`: the
 * same shape the SDK's `CallToolResultSchema` asks for (an object; `content` an array of text, image,
 * audio, resource or resource_link blocks with their required fields, `[]` when absent; `isError` a
 * boolean), checked by hand in one pass instead of by zod, which also built a failed parse on every
 * call to probe its own registry. Unknown keys are kept, not stripped. The tool's output schema is
 * checked by the call pipeline (`calls/validate.ts`), with the one Ajv it checks arguments with.
 *
 * A result that fails is refused as the SDK refuses one (`SdkError` `InvalidResult`, "Invalid result
 * for tools/call: …"), so it is classified as before.
 */
export const CALL_TOOL_RESULT: StandardSchemaV1<unknown, CallToolResult> = {
  "~standard": {
    version: 1,
    vendor: "switchyard",
    validate(value) {
      const problem = resultProblem(value);
      if (problem !== undefined) return { issues: [{ message: problem }] };
      const result = value as CallToolResult;
      if (result.content === undefined) return { value: { ...result, content: [] } };
      return { value: result };
    },
  },
};

function resultProblem(value: unknown): string | undefined {
  if (!isObject(value)) return `the result is ${kindOf(value)}, not an object`;
  const { content, isError, _meta: meta } = value;
  if (isError !== undefined && typeof isError !== "boolean")
    return `isError is ${kindOf(isError)}, not a boolean`;
  if (meta !== undefined && !isObject(meta)) return `_meta is ${kindOf(meta)}, not an object`;
  if (content === undefined) return undefined;
  if (!Array.isArray(content)) return `content is ${kindOf(content)}, not an array`;
  for (let index = 0; index < content.length; index += 1) {
    const problem = blockProblem(content[index]);
    if (problem !== undefined) return `content[${index}] ${problem}`;
  }
  return undefined;
}

/** What is wrong with one content block, by the fields its type requires. */
function blockProblem(block: unknown): string | undefined {
  if (!isObject(block)) return `is ${kindOf(block)}, not a content block`;
  switch (block.type) {
    case "text":
      return strings(block, "text");
    case "image":
    case "audio":
      return strings(block, "data", "mimeType");
    case "resource_link":
      return strings(block, "uri", "name");
    case "resource": {
      const resource = block.resource;
      if (!isObject(resource)) return "(resource) has no resource object";
      const missing = strings(resource, "uri");
      if (missing !== undefined) return `(resource) ${missing}`;
      return typeof resource.text === "string" || typeof resource.blob === "string"
        ? undefined
        : "(resource) has neither a text nor a blob string";
    }
    default:
      return `has type ${JSON.stringify(block.type)}, not text, image, audio, resource or resource_link`;
  }
}

function strings(value: Record<string, unknown>, ...keys: string[]): string | undefined {
  const missing = keys.find((key) => typeof value[key] !== "string");
  return missing === undefined ? undefined : `(${String(value.type)}) has no ${missing} string`;
}

/**
 * Whether a tool's input schema declares `x-mcp-header` anywhere: on a 2026-07-28 HTTP session the
 * SDK's `callTool` mirrors those arguments into `Mcp-Param-*` headers (SEP-2243), so such a tool is
 * called through it.
 */
export function declaresHeaders(tool: Tool): boolean {
  return JSON.stringify(tool.inputSchema ?? {}).includes('"x-mcp-header"');
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function kindOf(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  return typeof value === "object" ? "an object" : `a ${typeof value}`;
}
