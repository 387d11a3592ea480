import type { LocalCall } from "../calls/request.js";
import type { JsonSchema } from "../calls/validate.js";
import {
  type PageLimits,
  READ_RESULT_TOOL,
  type ReadResultArgs,
  type ResultHandles,
} from "../context/handles.js";
import { messageOf, SwitchyardError } from "../errors.js";
import type { ModelTool } from "../models/model.js";
import type { Identity } from "../telemetry/audit.js";
import type { RunState } from "./guards.js";

/** The `server` that records and events of local tools' calls name (no configured server is called). */
export const LOCAL_TOOL_SERVER = "switchyard";

/** What a local tool sees of its run: the guards' {@link RunState}, the run's id and its stored results. */
export interface LocalToolState extends RunState {
  readonly runId: string;
  /** The conversation's stored results (result handles); `read_result` reads them. */
  readonly handles: ResultHandles;
  /** Who the run is for. */
  readonly identity?: Identity;
  /** Whether the run may be offered a catalog tool (its identity may call it): what `search_tools` may name. */
  readonly offerable?: (name: string) => boolean;
}

/** A tool the agent answers itself (read_result, search_tools): offered beside the catalog's, never sent to a server. */
export interface LocalTool {
  /** Name, description and JSON Schema parameters, as the model is offered them. */
  readonly tool: ModelTool;
  /** Offered at this step? (e.g. read_result only once a handle exists) */
  offered(state: LocalToolState): boolean;
  /**
   * Answer a call: the text is the tool message's body (the anchor line goes before it). The arguments
   * were checked against `tool.parameters` first. A throw is the model's to act on: `INVALID_ARGUMENTS`
   * is reported as bad arguments, anything else as the tool's error (its message is what the model reads).
   */
  run(args: unknown, state: LocalToolState): string | Promise<string>;
}

/**
 * Check the local tools an agent is given: each must have a model-safe name (`^[a-zA-Z0-9_-]{1,64}$`),
 * unique among them.
 * @throws SwitchyardError `INVALID_INPUT` naming the tool that breaks the rule.
 */
export function checkLocalTools(tools: readonly LocalTool[]): void {
  const seen = new Set<string>();
  for (const local of tools) {
    const name = local.tool?.name;
    if (typeof name !== "string" || !/^[a-zA-Z0-9_-]{1,64}$/.test(name)) {
      throw new SwitchyardError(
        "INVALID_INPUT",
        `localTools: the tool name ${JSON.stringify(name)} is not model-safe; use 1-64 letters, digits, "_" or "-"`,
      );
    }
    if (seen.has(name)) {
      throw new SwitchyardError(
        "INVALID_INPUT",
        `localTools: two local tools are named "${name}"; rename one`,
      );
    }
    seen.add(name);
  }
}

/**
 * A run's local tools: which to offer at a step, and each as the pipeline runs it (its arguments
 * checked against its schema first, then `run`). A local tool's name hides a catalog tool of the same
 * name (the agent does not offer that one), so every call by that name is the local tool's.
 */
export class LocalTools {
  readonly #tools: ReadonlyMap<string, LocalTool>;
  readonly #state: LocalToolState;

  constructor(tools: readonly LocalTool[], state: LocalToolState) {
    this.#tools = new Map(tools.map((local) => [local.tool.name, local]));
    this.#state = state;
  }

  /** True when `name` is a local tool's. */
  isLocal(name: string): boolean {
    return this.#tools.has(name);
  }

  /** The local tools to offer at this step, in the order the agent was given them. */
  offered(): ModelTool[] {
    return [...this.#tools.values()].filter((local) => local.offered(this.#state)).map((local) => local.tool);
  }

  /** A local tool as the pipeline calls it; undefined for any other name. */
  readonly call = (name: string): LocalCall | undefined => {
    const local = this.#tools.get(name);
    if (!local) return undefined;
    return {
      server: LOCAL_TOOL_SERVER,
      description: local.tool.description,
      inputSchema: local.tool.parameters as JsonSchema,
      run: async (args) => {
        try {
          const text = await local.run(args, this.#state);
          return { isError: false, content: [{ type: "text", text }], text };
        } catch (error) {
          if (error instanceof SwitchyardError && error.code === "INVALID_ARGUMENTS") throw error;
          const text = messageOf(error);
          return { isError: true, content: [{ type: "text", text }], text };
        }
      },
    };
  };
}

/**
 * The built-in `read_result` tool: offered once the conversation has a stored result, it pages through
 * one (`offset`, `limit` in characters; a page at most `limits`: `DEFAULT_READ_RESULT_CHARS` characters,
 * and the tokens of a result's share when the agent gives them) or picks a JSON path in it.
 */
export function readResultTool(limits: PageLimits = {}): LocalTool {
  return {
    tool: READ_RESULT_TOOL,
    offered: (state) => state.handles.size > 0,
    run: (args, state) => state.handles.read(args as ReadResultArgs, limits),
  };
}
