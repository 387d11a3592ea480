import { writeSync } from "node:fs";
import {
  type ApprovalAnswer,
  type ApprovalRequest,
  type ElicitationAnswer,
  type ElicitationRequest,
  type JsonSchema,
  type SamplingRequest,
  validateArguments,
} from "../internal.js";
import { promptSync } from "./prompt.js";

/** A field of an elicitation form, as its schema describes it. */
interface Field {
  type?: string;
  title?: string;
  description?: string;
  enum?: unknown[];
  oneOf?: Array<{ const?: unknown; title?: string }>;
  default?: unknown;
  format?: string;
  writeOnly?: boolean;
  items?: { enum?: unknown[]; anyOf?: Array<{ const?: unknown }> };
}

const say = (text: string) => writeSync(2, `${text}\n`);

/**
 * Answer a server's elicitation on the terminal: the message, then one prompt per field (its type,
 * choices and default shown; each answer checked against the field's schema), then send or decline;
 * URL mode shows the URL and waits for Enter. Ctrl-C cancels. Without a terminal: declined, said on stderr.
 */
export async function askUser(request: ElicitationRequest): Promise<ElicitationAnswer> {
  if (!process.stdin.isTTY) {
    say(
      `server ${request.server} asks: ${request.message} — declined: no terminal to ask on (stdin is not a TTY)`,
    );
    return { action: "decline" };
  }
  say(`server ${request.server} asks: ${request.message}`);
  if (request.mode === "url") {
    say(`  open ${request.url}`);
    const done = promptSync("  press Enter when done (Ctrl-C to cancel) ");
    return { action: done === undefined ? "cancel" : "accept" };
  }
  const schema = request.requestedSchema ?? {};
  const properties = (schema.properties ?? {}) as Record<string, Field>;
  const required = new Set(Array.isArray(schema.required) ? (schema.required as string[]) : []);
  const content: Record<string, unknown> = {};
  for (const [name, field] of Object.entries(properties)) {
    const value = askField(name, field, required.has(name));
    if (value === CANCELLED) return { action: "cancel" };
    if (value !== undefined) content[name] = value;
  }
  const send = promptSync("  send these answers? [Y/n] ");
  if (send === undefined) return { action: "cancel" };
  if (/^n(o)?$/i.test(send.trim())) return { action: "decline" };
  return { action: "accept", content };
}

const CANCELLED = Symbol("cancelled");

/** Ask for one field until its answer fits; undefined: left out (optional, or its default applies). */
function askField(name: string, field: Field, required: boolean): unknown {
  const choices = choicesOf(field);
  const hints = [
    choices ? choices.map(String).join(" | ") : field.type === "boolean" ? "y/n" : (field.type ?? "text"),
    ...(field.default !== undefined ? [`default ${String(field.default)}`] : []),
    ...(required && field.default === undefined ? ["required"] : []),
  ];
  const label = field.title ?? name;
  const about = field.description && field.description !== label ? ` — ${field.description}` : "";
  const password = field.format === "password" || field.writeOnly === true;
  const schema: JsonSchema = { type: "object", properties: { [name]: field }, required: [name] };
  for (;;) {
    const typed = promptSync(`  ${label}${about} (${hints.join(", ")}): `, { password });
    if (typed === undefined) return CANCELLED;
    const text = typed.trim();
    if (text === "") {
      if (field.default !== undefined || !required) return undefined;
      say(`    ${label} is required`);
      continue;
    }
    const value = parseAnswer(text, field, choices);
    const checked = validateArguments(schema, { [name]: value });
    if (checked.ok) return checked.value[name];
    say(`    ${checked.problems.join("; ")}`);
  }
}

/** The values a field may take, when it lists them (`enum`, `oneOf` of consts, an array's items). */
function choicesOf(field: Field): unknown[] | undefined {
  if (Array.isArray(field.enum)) return field.enum;
  if (Array.isArray(field.oneOf)) return field.oneOf.map((option) => option.const);
  const items = field.items;
  if (items?.enum) return items.enum;
  if (items?.anyOf) return items.anyOf.map((option) => option.const);
  return undefined;
}

/** The typed text as the field's type: y/n for booleans, a choice's number for its value, a list for arrays. */
function parseAnswer(text: string, field: Field, choices: unknown[] | undefined): unknown {
  if (field.type === "boolean") {
    if (/^(y|yes|true)$/i.test(text)) return true;
    if (/^(n|no|false)$/i.test(text)) return false;
    return text;
  }
  const choice = (part: string) => {
    const index = Number(part);
    return choices &&
      Number.isInteger(index) &&
      index >= 1 &&
      index <= choices.length &&
      !choices.includes(part)
      ? choices[index - 1]
      : part;
  };
  if (field.type === "array") return text.split(",").map((part) => choice(part.trim()));
  return choice(text);
}

/**
 * Approve a call the policy holds for approval (`effect: "approve"`) on the terminal (y/N), showing who
 * calls what with which arguments; without a terminal it is refused, and the refusal says why.
 */
export function approveCall(request: ApprovalRequest): ApprovalAnswer {
  const args = JSON.stringify(request.arguments);
  const shown = args.length > 300 ? `${args.slice(0, 300)}…` : args;
  const why = `${request.rule ? `rule ${request.rule}` : "the policy"}${request.reason ? `: ${request.reason}` : ""}`;
  if (!process.stdin.isTTY) {
    say(
      `${request.name} (${request.tool} on server ${request.server}) needs approval (${why}) — refused: no terminal to ask on (stdin is not a TTY)`,
    );
    return { approved: false, reason: "no terminal to ask on (stdin is not a TTY)" };
  }
  say(
    `user ${request.identity.user} wants to call ${request.name} (${request.tool} on server ${request.server}): ${shown}`,
  );
  say(`  approval is required by ${why}`);
  const answer = promptSync("  approve? [y/N] ");
  const approved = answer !== undefined && /^y(es)?$/i.test(answer.trim());
  return approved ? { approved } : { approved, reason: "refused at the terminal" };
}

/**
 * Approve a server's sampling request on the terminal (y/N); without a terminal it is refused, and
 * stderr says so.
 */
export function approveSampling(request: SamplingRequest): boolean {
  const last = request.messages.at(-1)?.text ?? "";
  const shown = last.length > 200 ? `${last.slice(0, 200)}…` : last;
  if (!process.stdin.isTTY) {
    say(
      `server ${request.server} asks the model: ${shown} — declined: no terminal to ask on (stdin is not a TTY)`,
    );
    return false;
  }
  say(`server ${request.server} asks the model (up to ${request.maxTokens} tokens): ${shown}`);
  const answer = promptSync("  allow? [y/N] ");
  return answer !== undefined && /^y(es)?$/i.test(answer.trim());
}
