#!/usr/bin/env node
import { Command, CommanderError, Option } from "commander";
import { DEFAULT_CLI_CANCEL_WAIT_MS, DEFAULT_CLI_SHUTDOWN_LIMIT_MS, Redactor } from "../internal.js";
import { type AskFlags, askCommand } from "./commands/ask.js";
import { auditCheckpointCommand, auditTailCommand, auditVerifyCommand } from "./commands/audit.js";
import { callCommand } from "./commands/call.js";
import { chatCommand } from "./commands/chat.js";
import { demoCommand } from "./commands/demo.js";
import { type DescribeFlags, describeCommand } from "./commands/describe.js";
import { loginCommand, logoutCommand } from "./commands/login.js";
import { type PlanFlags, planCommand } from "./commands/plan.js";
import { registerRegistryCommands } from "./commands/registry.js";
import {
  promptCommand,
  promptsCommand,
  type ResourceFlags,
  readCommand,
  resourcesCommand,
} from "./commands/resources.js";
import { registerRouteCommands } from "./commands/route.js";
import { runCommand } from "./commands/run.js";
import { runShowCommand, runsCommand, sessionsCommand } from "./commands/runs.js";
import { type ScanFlags, scanCommand, type TrustFlags, trustCommand } from "./commands/scan.js";
import { type ServeFlags, serveCommand } from "./commands/serve.js";
import { type ServersFlags, serversCommand } from "./commands/servers.js";
import { type SkillsFlags, skillsCommand } from "./commands/skills.js";
import { type ToolsFlags, toolsCommand } from "./commands/tools.js";
import { type UiFlags, uiCommand } from "./commands/ui.js";
import { CommandContext, type GlobalOptions } from "./context.js";
import {
  CliError,
  EXIT_FAILED,
  EXIT_USAGE,
  errorCodeOf,
  exitCodeOf,
  FAILED_ERROR,
  messageOf,
  USAGE_ERROR,
} from "./exit-codes.js";
import { createOutput, errorJson } from "./output.js";
import { PACKAGE_VERSION } from "./version.js";

/** Exit codes for the signals the CLI stops on (128 + signal number); SIGHUP: the terminal closed. */
const SIGNAL_EXIT: Record<string, number> = { SIGHUP: 129, SIGINT: 130, SIGTERM: 143 };

let active: CommandContext | undefined;
/** The last command's context: the CLI's final error line is redacted with what it knew (its config). */
let last: CommandContext | undefined;
/** The command running, so that a signal can wait for its cancelled run to stop. */
let running: Promise<number> | undefined;
/** Set once a signal arrived: failures of calls cut short by the shutdown are not worth reporting. */
let stopping = false;

function program(): Command {
  const cli = new Command("switchyard")
    .description("One LLM agent, many MCP servers.")
    .version(PACKAGE_VERSION, "-V, --version", "print the version")
    .option(
      "--config <file>",
      "config file (default: $SWITCHYARD_CONFIG, then ./switchyard.config.{json,yaml,yml})",
    )
    .option("--json", "machine-readable output on stdout")
    .option(
      "--trace-wire <file|->",
      "append every raw JSON-RPC message of every server to a file (- for stdout)",
    )
    .addOption(
      new Option("--log-level <level>", "log level on stderr").choices([
        "trace",
        "debug",
        "info",
        "warn",
        "error",
        "silent",
      ]),
    )
    .addOption(new Option("--log-format <format>", "log format on stderr").choices(["pretty", "json"]))
    .option(
      "--user <id>",
      "who the listings and calls are for (default: the config's identity, else the OS user)",
    )
    .option("--role <role>", "a role of that user, for the policy (repeat for more)", collect)
    .exitOverride()
    .configureOutput({ writeErr: (text) => process.stderr.write(text) });

  const run =
    <A extends unknown[]>(command: (ctx: CommandContext, ...args: A) => Promise<number>) =>
    async (...args: A) => {
      const ctx = new CommandContext(cli.opts<GlobalOptions>());
      active = ctx;
      last = ctx;
      try {
        running = command(ctx, ...args);
        const code = await running;
        if (!stopping) process.exitCode = code; // else the signal's code
      } finally {
        await ctx.close();
        active = undefined;
      }
    };

  cli
    .command("login <server>")
    .description("log in to a remote server with OAuth: print the authorization URL, wait for the redirect")
    .action(run((ctx, server: string) => loginCommand(ctx, server)));
  cli
    .command("logout <server>")
    .description("delete the stored OAuth tokens of a remote server")
    .action(run((ctx, server: string) => logoutCommand(ctx, server)));
  cli
    .command("servers")
    .description("connect to every server and show its state")
    .option("--server <name>", "only this server (repeat, or a,b, for more)", collect)
    .option("--wide", "every column, the restarts, health, breaker and call counters included")
    .action(run((ctx, flags: ServersFlags) => serversCommand(ctx, flags)));
  cli
    .command("scan")
    .description(
      "scan the servers' tools for poisoned text, look-alike names and changes since pinned; exit 1 on a high finding",
    )
    .option("--server <name>", "only this server (repeat, or a,b, for more)", collect)
    .option(
      "--tools <file>",
      "scan a tools file (routing data format) instead of the fleet; nothing is started",
    )
    .action(run((ctx, flags: ScanFlags) => scanCommand(ctx, flags)));
  cli
    .command("trust <server>")
    .description(
      "accept a server's tools as it lists them now: pin them again, releasing what drift quarantined",
    )
    .option("--tool <name>", "only this tool (its own name on the server)")
    .action(run((ctx, server: string, flags: TrustFlags) => trustCommand(ctx, server, flags)));
  cli
    .command("tools")
    .description("list every tool in the catalog (cached until a server's config or script changes)")
    .option("--server <name>", "only this server's tools (repeat, or a,b, for more)", collect)
    .option("--refresh", "ask the servers again, ignoring the cached catalog")
    .action(run((ctx, flags: ToolsFlags) => toolsCommand(ctx, flags)));
  cli
    .command("describe <tool>")
    .description("show one tool in full: server, annotations, parameters, output schema")
    .option("--refresh", "ask the servers again, ignoring the cached catalog")
    .action(run((ctx, tool: string, flags: DescribeFlags) => describeCommand(ctx, tool, flags)));
  cli
    .command("call <name> [json-args]")
    .description("call one tool with JSON arguments")
    .action(run((ctx, name: string, args: string | undefined) => callCommand(ctx, name, args)));
  cli
    .command("resources")
    .description("list every resource and resource template of the fleet, with its server")
    .option("--server <name>", "only this server's resources (repeat, or a,b, for more)", collect)
    .action(run((ctx, flags: ResourceFlags) => resourcesCommand(ctx, flags)));
  cli
    .command("read <uri>")
    .description("read one resource: its text on stdout (--json: the contents, blobs in base64)")
    .option("--server <name>", "the server to read it from (needed when several list the URI)", collect)
    .action(run((ctx, uri: string, flags: ResourceFlags) => readCommand(ctx, uri, flags)));
  cli
    .command("skills")
    .description(
      "list the skills the servers serve (the Skills extension), each checked; exit 1 if one is refused",
    )
    .option("--server <name>", "only this server's skills (repeat, or a,b, for more)", collect)
    .action(run((ctx, flags: SkillsFlags) => skillsCommand(ctx, flags)));
  cli
    .command("prompts")
    .description("list every prompt of the fleet, with its server and arguments")
    .action(run((ctx) => promptsCommand(ctx)));
  cli
    .command("prompt <name> [json-args]")
    .description("get one prompt's messages, with JSON arguments")
    .action(run((ctx, name: string, args: string | undefined) => promptCommand(ctx, name, args)));
  cli
    .command("ask <question>")
    .description("answer a question with the agent: the model calls the fleet's tools")
    .option(
      "--attach <uri>",
      "read this resource and give it to the model with the question (repeat for more)",
      collect,
    )
    .option("--max-steps <n>", "model turns before giving up (default 8, or agent.maxSteps)")
    .option("--model <name>", "the model's name (overrides the config and SWITCHYARD_MODEL)")
    .option("--stream", "stream the model's answers")
    .option(
      "--system <text>",
      "the system prompt, or @file to read it from a file (default: agent.systemPrompt)",
    )
    .action(run((ctx, question: string, flags: AskFlags) => askCommand(ctx, question, flags)));
  cli
    .command("chat")
    .description("a conversation with the agent on stdin; the history carries across questions")
    .option("--max-steps <n>", "model turns per question before giving up")
    .option("--model <name>", "the model's name")
    .option("--stream", "stream the model's answers")
    .option("--system <text>", "the system prompt, or @file to read it from a file")
    .option("--session <id>", "resume a recorded chat session (a new chat prints its id)")
    .action(run((ctx, flags: AskFlags) => chatCommand(ctx, flags)));
  cli
    .command("plan <question>")
    .description("ask the configured model for a plan over the catalog, check it and print it")
    .option("--run", "run the plan once it checks out")
    .option("--input <key=value...>", "a plan input the model may read and the run is given; repeat for more")
    .option("--model <name>", "the model's name (overrides the config and SWITCHYARD_MODEL)")
    .action(run((ctx, question: string, flags: PlanFlags) => planCommand(ctx, question, flags)));
  cli
    .command("run <plan>")
    .description("run a declared plan (a graph of tool calls) over the configured fleet")
    .option("--input <key=value...>", "a plan input; repeat for more")
    .option("--resume <runId>", "continue a failed run of this plan after its last completed step")
    .action(
      run((ctx, plan: string, flags: { input?: string[]; resume?: string }) => runCommand(ctx, plan, flags)),
    );
  cli
    .command("demo [scenario]")
    .description(
      "start a bundled example fleet and run a seed scenario: after-sales (the default), outdoor-run, pipeline, pipeline-failure, two-servers (the agent if a model is set)",
    )
    .option("--model <name>", "the model's name, when a model is configured in the environment")
    .option("--list", "list the scenarios")
    .action(
      run((ctx, scenario: string | undefined, flags: { model?: string; list?: boolean }) =>
        demoCommand(ctx, scenario, flags),
      ),
    );
  const runs = cli
    .command("runs")
    .description("list the recorded runs (agent, plan and plain calls), newest first")
    .option("--limit <n>", "how many (default 20)")
    .action(run((ctx, flags: { limit?: string }) => runsCommand(ctx, flags)));
  runs
    .command("show <id>")
    .description("one recorded run as a timeline: steps, model turns, offered tools, calls")
    .action(run((ctx, id: string) => runShowCommand(ctx, id)));
  cli
    .command("sessions")
    .description("list the recorded chat sessions (resume one with chat --session <id>)")
    .option("--limit <n>", "how many (default 20)")
    .action(run((ctx, flags: { limit?: string }) => sessionsCommand(ctx, flags)));
  const audit = cli
    .command("audit")
    .description("the audit log: verify its hash chain, take a signed checkpoint of it, or tail it");
  audit
    .command("verify")
    .description(
      "check every row of the audit log's hash chain (and signature, with audit.key); exit 1 naming each problem",
    )
    .option(
      "--checkpoint <file>",
      "also check that the log still holds this checkpoint (audit checkpoint --out)",
    )
    .action(run((ctx, flags: { checkpoint?: string }) => auditVerifyCommand(ctx, flags)));
  audit
    .command("checkpoint")
    .description(
      "print where the audit log's chain stands, signed with audit.key, to keep outside the database",
    )
    .option("--out <file>", "write the checkpoint to this file instead of printing it")
    .action(run((ctx, flags: { out?: string }) => auditCheckpointCommand(ctx, flags)));
  audit
    .command("tail")
    .description("print the last rows of the audit log; --follow prints new rows as they come")
    .option("-n, --lines <n>", "how many rows (default 20)")
    .option("--follow", "keep printing rows as they are appended, until interrupted")
    .action(run((ctx, flags: { lines?: string; follow?: boolean }) => auditTailCommand(ctx, flags)));
  cli
    .command("ui")
    .description("the trace viewer: a local web page over the recorded runs, servers and audit log, live")
    .option("--port <n>", "the port to listen on (default 0: any free one)")
    .option("--host <address>", "the address to listen on (default 127.0.0.1: this machine only)")
    .option("--store <file|url>", "read this SQLite file or postgres:// URL (default: the config's store)")
    .option("--trace <file>", "a --trace-wire file to show the calls' wire messages from")
    .option("--fleet", "connect the config's servers too, for their live status, health and breaker")
    .action(run((ctx, flags: UiFlags) => uiCommand(ctx, flags)));
  cli
    .command("serve")
    .description(
      "serve the whole fleet as one MCP server: --stdio for a host that starts it, or --http <port>",
    )
    .option("--stdio", "speak MCP on stdin/stdout (Claude Desktop, Cursor, VS Code start it so)")
    .option("--http <port>", "serve Streamable HTTP on this port (0: any free one)")
    .option("--host <address>", "the address --http listens on (default 127.0.0.1: this machine only)")
    .addOption(
      new Option(
        "--mode <mode>",
        "all tools, or search_tools + call_tool (default: the config's gateway.mode, else all)",
      ).choices(["all", "search"]),
    )
    .option("--print-config", "print the hosts' config snippets for this gateway and exit")
    .option(
      "--allow-unauthenticated",
      "serve a non-loopback --host without gateway.auth (refused otherwise): when a proxy decides who gets in",
    )
    .action(
      run((ctx, flags: ServeFlags) => {
        const { traceWire } = cli.opts<GlobalOptions>();
        return serveCommand(ctx, traceWire === undefined ? flags : { ...flags, traceWire });
      }),
    );
  registerRouteCommands(cli, run);
  registerRegistryCommands(cli, run);
  oneLineErrors(cli);
  return cli;
}

/** `--server a --server b,c` → every value given. */
function collect(value: string, previous: string[] = []): string[] {
  return [...previous, value];
}

/**
 * Usage errors as one line on stderr, as the README promises, in the form
 * `switchyard: unknown command "toosl" (did you mean tools?); run switchyard --help`. Commander's error
 * becomes a {@link CliError} that `main` reports as it reports every failure (with `--json`, on stdout too).
 */
function oneLineErrors(command: Command): void {
  const path: string[] = [];
  for (let at: Command | null = command; at; at = at.parent) path.unshift(at.name());
  command.configureOutput({ outputError: () => {} });
  command.exitOverride((error) => {
    // --help and --version end here too (exit 0), and `switchyard` alone, which printed the help.
    if (error.exitCode === 0 || error.code === "commander.help") throw error;
    const message = error.message
      .trim()
      .replace(/^error: /, "")
      .replace(/\n\(Did you mean (.*)\?\)$/s, " (did you mean $1?)")
      .replace(/'([^']*)'/g, '"$1"')
      .replace(/\.$/, "")
      .replace(/\s*\n\s*/g, " ");
    throw new CliError(`${message}; run ${path.join(" ")} --help`, EXIT_USAGE);
  });
  for (const sub of command.commands) oneLineErrors(sub);
}

/**
 * A signal: the command may take it (chat: Ctrl-C cancels the question); otherwise its run is cancelled
 * first — no further model request, calls in flight sent `notifications/cancelled` — then, once it has
 * stopped (or after DEFAULT_CLI_CANCEL_WAIT_MS), the servers are closed and the process exits with
 * 128 + the signal's number. A second signal exits at once (the servers are still killed on exit).
 */
function onSignal(signal: NodeJS.Signals): void {
  const code = SIGNAL_EXIT[signal] ?? EXIT_FAILED;
  if (stopping) process.exit(code);
  if (active?.interrupt(signal)) return;
  stopping = true;
  process.exitCode = code;
  process.stderr.write(`switchyard: interrupted (${signal})\n`);
  const limit = setTimeout(() => process.exit(code), DEFAULT_CLI_SHUTDOWN_LIMIT_MS);
  limit.unref();
  const ctx = active;
  // Nothing to wait for when nothing ran yet (still connecting) or the command's work does not stop by itself.
  const stopped = new Promise((resolve) => {
    setTimeout(resolve, DEFAULT_CLI_CANCEL_WAIT_MS).unref();
    if (running && ctx?.waitsForCancel) running.then(resolve, resolve);
    else resolve(undefined);
  });
  void stopped.then(() => ctx?.close()).finally(() => process.exit(code));
}

async function main(argv: string[]): Promise<void> {
  const cli = program();
  // Known once commander has read the options, which it does before it finds any usage error.
  // Its failures redacted as the command's own output is; before any command, the environment's secrets.
  const output = () =>
    createOutput(cli.opts<GlobalOptions>().json === true, last?.redact ?? new Redactor().text);
  process.on("SIGHUP", onSignal);
  process.on("SIGINT", onSignal);
  process.on("SIGTERM", onSignal);
  process.on("uncaughtException", (error) => {
    output().failed(FAILED_ERROR, `internal error: ${error.stack ?? messageOf(error)}`);
    process.exit(EXIT_FAILED);
  });
  try {
    await cli.parseAsync(argv);
  } catch (error) {
    if (error instanceof CommanderError) {
      // --help or --version; or no command at all: the help, on stderr, said what there is.
      process.exitCode = error.exitCode === 0 ? 0 : EXIT_USAGE;
      const out = output();
      if (error.exitCode !== 0 && out.json)
        out.data(errorJson(USAGE_ERROR, "a command is needed; run switchyard --help"));
      return;
    }
    if (stopping) return;
    output().failed(errorCodeOf(error), messageOf(error));
    process.exitCode = exitCodeOf(error);
  }
}

await main(process.argv);
