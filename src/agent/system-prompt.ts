import { DEFAULT_SYSTEM_PROMPT } from "../config/defaults.js";
import { type InstructionsEntry, instructionsBlock } from "../context/instructions.js";
import type { TokenCounter } from "../context/tokens.js";
import type { Identity } from "../telemetry/audit.js";

/** What a host may tell the agent of its servers: their instructions, for the run's identity. */
export interface InstructionsSource {
  instructions?(options?: { identity?: Identity }): InstructionsEntry[];
}

/**
 * A run's system prompt: the agent's own (or the default), then the instructions of the servers whose
 * tools the run's identity may be offered, labelled and capped. Made once per run, so that every
 * request of the run starts with the same text.
 */
export function systemPromptOf(
  prompt: string | undefined,
  host: InstructionsSource,
  counter: TokenCounter,
  identity?: Identity,
): string {
  const own = prompt ?? DEFAULT_SYSTEM_PROMPT;
  const block = instructionsBlock(host.instructions?.(identity ? { identity } : {}) ?? [], counter);
  return block ? `${own}\n\n${block}` : own;
}
