import type { CallToolResult, ContentBlock } from "@modelcontextprotocol/client";
import type { Finding } from "../telemetry/findings.js";

/** A tool call's result as Switchyard returns it: the server's content plus a plain-text rendering. */
export interface ToolResult {
  /** True when the tool reported an error (the call itself worked). */
  isError: boolean;
  content: ContentBlock[];
  structuredContent?: Record<string, unknown>;
  /** Every content block as text: text as is, other kinds described in brackets. */
  text: string;
  /**
   * What a scan found in the result (text aimed at the model, hidden characters, which are removed):
   * the result is never blocked for it, but whoever shows it to a model should say it is data.
   */
  findings?: Finding[];
  /** Served from the server's result cache (its config's `cache`): this call sent nothing to the server. */
  cached?: true;
  /**
   * The server that answered, when it is not the one the tool belongs to: its `fallback`, which served
   * the call while that server was down. Absent: the tool's own server answered.
   */
  servedBy?: string;
}

/** Normalize an MCP `CallToolResult` (text, structured content, images, audio, resources, links). */
export function normalizeResult(result: CallToolResult): ToolResult {
  const content = (result.content ?? []) as ContentBlock[];
  const normalized: ToolResult = { isError: result.isError === true, content, text: renderContent(content) };
  if (result.structuredContent !== undefined) {
    normalized.structuredContent = result.structuredContent as Record<string, unknown>;
    if (normalized.text === "") normalized.text = JSON.stringify(result.structuredContent);
  }
  return normalized;
}

/** Render content blocks as text, one block per line group. */
export function renderContent(content: readonly ContentBlock[]): string {
  return content.map(renderBlock).join("\n");
}

function renderBlock(block: ContentBlock): string {
  switch (block.type) {
    case "text":
      return block.text;
    case "image":
    case "audio":
      return `[${block.type} ${block.mimeType}, ${base64Bytes(block.data)} bytes]`;
    case "resource": {
      const resource = block.resource;
      if ("text" in resource && typeof resource.text === "string") return resource.text;
      return `[resource ${resource.uri}${resource.mimeType ? ` (${resource.mimeType})` : ""}]`;
    }
    case "resource_link":
      return `[link ${block.name}: ${block.uri}]`;
    default:
      return `[${(block as { type: string }).type} content]`;
  }
}

function base64Bytes(data: string): number {
  const padding = data.endsWith("==") ? 2 : data.endsWith("=") ? 1 : 0;
  return Math.max(0, Math.floor((data.length * 3) / 4) - padding);
}
