import {
  type CallToolResult,
  type ClientCapabilities,
  inputRequired,
  Server,
  type ServerContext,
  type Tool,
} from "@modelcontextprotocol/server";
import type { ToolResult } from "../calls/normalize.js";
import { SwitchyardError } from "../errors.js";
import { SKILLS_EXTENSION, TASKS_EXTENSION } from "../fleet/extensions.js";
import type { Switchyard } from "../switchyard.js";
import type { Identity } from "../telemetry/audit.js";
import { callFailure, protocolError, toolErrorResult } from "./errors.js";
import { declaresTasks, HostTasks, serveHostTasks, type TaskOwner } from "./host-tasks.js";
import { servedMeta, serverMeta } from "./meta.js";
import type { GatewayMetrics } from "./metrics.js";
import { timedHandlers } from "./operation-timing.js";
import { priorityOf } from "./priority.js";
import { askable, envelopeCapabilities, inputRequestsOf } from "./questions.js";
import type { ClientRelay, GatewayCall } from "./relay.js";
import { CALL_TOOL_NAME, type ToolSearch } from "./search.js";
import { checkSkillRead, serveSkills } from "./skills.js";
import { ClientSubscriptions } from "./subscriptions.js";
import { TaskBridge } from "./task-bridge.js";
import {
  asAsked,
  servedResources,
  servedTemplates,
  servedToolMeta,
  servedUiUri,
  unservedUiUri,
} from "./uris.js";

/** What every server instance of one gateway shares. */
export interface GatewayParts {
  yard: Switchyard;
  /** The gateway's identity: stdio clients', and requests `authenticate` said nothing about. */
  identity: Identity;
  relay: ClientRelay;
  /** Search mode: `search_tools` and `call_tool` instead of the catalog. */
  search?: ToolSearch;
  info: { name: string; version: string };
  /** Where each answered request's duration goes (`/metrics`). */
  metrics?: GatewayMetrics;
  /** The tasks passed through to hosts that speak the tasks extension ({@link gatewayTasks}). */
  tasks?: HostTasks;
}

/**
 * One MCP server instance over the gateway's Switchyard: one per stdio connection or 2025 HTTP session,
 * one per request for 2026-07-28 HTTP requests. It holds nothing of its own: every answer comes from
 * the Switchyard (and, for a call that asked its client something, the relay).
 */
export function buildGatewayServer(parts: GatewayParts): Server {
  const { yard, relay, search } = parts;
  const server = new Server(parts.info, {
    capabilities: {
      tools: { listChanged: true },
      resources: { listChanged: true, subscribe: true },
      prompts: { listChanged: true },
      completions: {},
      logging: {},
      extensions: { [SKILLS_EXTENSION]: {}, ...(parts.tasks ? { [TASKS_EXTENSION]: {} } : {}) },
    },
  });
  const identityOf = (ctx: ServerContext): Identity =>
    (ctx.http?.authInfo?.extra?.identity as Identity | undefined) ?? parts.identity;
  const ownerOf = (ctx: ServerContext): TaskOwner => ({
    user: identityOf(ctx).user,
    authenticated: ctx.http?.authInfo?.extra?.identity !== undefined,
  });
  const on = timedHandlers(server, parts);

  on("tools/list", (_request, ctx) => ({
    tools: search
      ? search.tools()
      : yard.tools({ identity: identityOf(ctx) }).map((tool) => listedTool(yard, tool.name)),
  }));

  on("tools/call", async (request, ctx) => {
    const identity = identityOf(ctx);
    let { name } = request.params;
    let args: unknown = request.params.arguments ?? {};
    if (search) {
      try {
        if (name === search.searchName) return await search.search(args, identity);
        if (name !== CALL_TOOL_NAME) unknownTool(name, search);
        ({ name, args } = search.target(args));
      } catch (error) {
        return callFailure(error, yard.redactor.text);
      }
    }
    return callRound({
      yard,
      relay,
      server,
      ctx,
      identity,
      name,
      args,
      request,
      tasks: parts.tasks,
      ownerOf,
    });
  });
  if (parts.tasks) serveHostTasks(server, parts.tasks, ownerOf, yard.redactor.text);

  serveSkills(server, yard, identityOf);
  on("resources/list", (_request, ctx) => ({
    resources: servedResources(yard.resources({ identity: identityOf(ctx) })).map(
      ({ server: from, ...resource }) => ({
        ...resource,
        _meta: meta(from),
      }),
    ),
  }));
  on("resources/templates/list", (_request, ctx) => ({
    resourceTemplates: servedTemplates(yard.resourceTemplates({ identity: identityOf(ctx) })).map(
      ({ server: from, ...template }) => ({ ...template, _meta: meta(from) }),
    ),
  }));
  on("resources/read", async (request, ctx) => {
    const { uri } = request.params;
    // An app's view, `ui://<server>/<rest>`: read from that server as `ui://<rest>`.
    const ui = uri.startsWith("ui://")
      ? unservedUiUri(uri, new Set(yard.servers().map((info) => info.name)))
      : undefined;
    try {
      const read = await yard.readResource(ui?.uri ?? uri, {
        signal: ctx.mcpReq.signal,
        identity: identityOf(ctx),
        ...(ui ? { server: ui.server } : {}),
      });
      if (ui)
        return {
          contents: read.contents.map((content) => ({
            ...content,
            uri: servedUiUri(ui.server, content.uri),
          })),
        };
      checkSkillRead(yard, uri, read);
      return { contents: asAsked(uri, read.contents) };
    } catch (error) {
      throw protocolError(error, yard.redactor.text);
    }
  });
  // One client's subscriptions: the identity of the connection that made them (stdio, a 2025 session).
  let subscriptions: ClientSubscriptions | undefined;
  const subscriptionsOf = (ctx: ServerContext) =>
    (subscriptions ??= new ClientSubscriptions(
      yard,
      identityOf(ctx),
      (uri) => void server.sendResourceUpdated({ uri }).catch(() => {}),
    ));
  server.onclose = () => void subscriptions?.close();
  on("resources/subscribe", async (request, ctx) => {
    try {
      await subscriptionsOf(ctx).subscribe(request.params.uri);
      return {};
    } catch (error) {
      throw protocolError(error, yard.redactor.text);
    }
  });
  on("resources/unsubscribe", async (request, ctx) => {
    await subscriptionsOf(ctx).unsubscribe(request.params.uri);
    return {};
  });
  on("prompts/list", (_request, ctx) => ({
    prompts: yard.prompts({ identity: identityOf(ctx) }).map((prompt) => ({
      name: prompt.name,
      ...(prompt.title !== undefined ? { title: prompt.title } : {}),
      description: prompt.description,
      arguments: prompt.arguments,
      _meta: meta(prompt.server),
    })),
  }));
  on("prompts/get", async (request, ctx) => {
    try {
      const got = await yard.getPrompt(request.params.name, request.params.arguments ?? {}, {
        signal: ctx.mcpReq.signal,
        identity: identityOf(ctx),
      });
      return {
        ...(got.description !== undefined ? { description: got.description } : {}),
        messages: got.messages,
      };
    } catch (error) {
      throw protocolError(error, yard.redactor.text);
    }
  });
  on("completion/complete", async (request, ctx) => {
    const { ref, argument, context } = request.params;
    try {
      const completed = await yard.complete(
        ref.type === "ref/prompt"
          ? { type: "ref/prompt", name: ref.name }
          : { type: "ref/resource", uri: ref.uri },
        argument,
        {
          signal: ctx.mcpReq.signal,
          identity: identityOf(ctx),
          ...(context?.arguments ? { context: { arguments: context.arguments } } : {}),
        },
      );
      return {
        completion: {
          values: completed.values,
          ...(completed.total !== undefined ? { total: completed.total } : {}),
          ...(completed.hasMore !== undefined ? { hasMore: completed.hasMore } : {}),
        },
      };
    } catch (error) {
      // Hosts ask for completions as the user types, of any prompt or template: one whose server does
      // not serve completions simply has none to offer.
      if (error instanceof SwitchyardError && error.code === "CAPABILITY_MISSING")
        return { completion: { values: [] } };
      throw protocolError(error, yard.redactor.text);
    }
  });
  return server;
}

/** Where an entry comes from, on tools, resources, templates and prompts the gateway lists. */
const meta = serverMeta;

/** A catalog tool as `tools/list` gives it: the catalog name, and the server's schemas and annotations. */
function listedTool(yard: Switchyard, name: string): Tool {
  const entry = yard.describeTool(name)!;
  return {
    name: entry.name,
    ...(entry.title !== undefined ? { title: entry.title } : {}),
    description: entry.description,
    inputSchema: entry.inputSchema,
    ...(entry.outputSchema !== undefined ? { outputSchema: entry.outputSchema } : {}),
    ...(entry.annotations !== undefined ? { annotations: entry.annotations } : {}),
    // The server's own `_meta` (an MCP App's view among it, its URI as the gateway serves it), and ours.
    _meta: { ...(entry._meta ? servedToolMeta(entry.server, entry._meta) : {}), ...meta(entry.server) },
  };
}

/** An unknown tool in search mode (`callFailure` answers it as a JSON-RPC Invalid params). */
function unknownTool(name: string, search: ToolSearch): never {
  throw new SwitchyardError(
    "TOOL_NOT_FOUND",
    `Unknown tool: ${name}; this gateway (search mode) offers ${search.searchName} and ${CALL_TOOL_NAME}`,
  );
}

interface CallRoundParts {
  yard: Switchyard;
  relay: ClientRelay;
  server: Server;
  ctx: ServerContext;
  identity: Identity;
  name: string;
  args: unknown;
  request: { params: { _meta?: Record<string, unknown> | undefined } };
  tasks: HostTasks | undefined;
  ownerOf: (ctx: ServerContext) => TaskOwner;
}

/**
 * One round of a tool call: the first starts the call (`yard.callTool`), a retried request (its
 * `requestState` names the call) hands over the client's answers. The round ends when the call does
 * (its result) or when the call's server asks the client something (an `input_required` result).
 */
async function callRound(parts: CallRoundParts): Promise<CallToolResult> {
  const { yard, relay, ctx, identity } = parts;
  const state = ctx.mcpReq.requestState<unknown>();
  let call: GatewayCall;
  // A host that speaks tasks is answered with a task once the call's server makes it one.
  let taskMade: Promise<string> | undefined;
  // This round's bridge, when it started the call: handed over when the host takes the call as a task.
  let bridge: TaskBridge | undefined;
  if (typeof state === "string") {
    try {
      call = relay.resume(state, identity.user);
    } catch (error) {
      throw protocolError(error, yard.redactor.text);
    }
    call.answer(ctx.mcpReq.inputResponses);
  } else {
    const entry = yard.describeTool(parts.name);
    const priority = priorityOf(ctx, parts.request.params._meta);
    let onTask: ((taskId: string) => void) | undefined;
    if (parts.tasks && declaresTasks(envelopeCapabilities(ctx)))
      taskMade = new Promise((resolve) => (onTask = resolve));
    call = relay.start(entry?.server ?? "", identity.user, (started) => {
      // A call its server runs as a task reaches a host that cannot follow tasks as a plain call, kept
      // alive by progress until the task ends; the host's cancellation aborts the call, which cancels
      // the task (tasks/cancel).
      const kept = new TaskBridge((progress) => started.progress?.(progress));
      bridge = kept;
      return yard
        .callTool(parts.name, parts.args, {
          identity,
          ...(priority !== undefined ? { priority } : {}),
          signal: started.abort.signal,
          onProgress: (progress) => kept.progress(progress),
          onTask: (taskId) => {
            kept.started(taskId);
            onTask?.(taskId);
          },
        })
        .finally(() => kept.stop());
    });
  }
  const token = parts.request.params._meta?.progressToken;
  call.progress =
    token === undefined
      ? undefined
      : (progress) =>
          void ctx.mcpReq
            .notify({
              method: "notifications/progress",
              params: { progressToken: token as string, ...progress },
            })
            .catch(() => {});
  // The server's log messages that belong to this call go on this round's request (the session's
  // `logging/setLevel`, or a 2026-07-28 request's log level, decides which are sent).
  call.log = (log) => void ctx.mcpReq.log(log.level, log.data, log.logger).catch(() => {});
  // The client cancels this round (notifications/cancelled, or it went away): the call ends.
  const cancel = () => call.abort.abort(ctx.mcpReq.signal.reason);
  if (ctx.mcpReq.signal.aborted) cancel();
  ctx.mcpReq.signal.addEventListener("abort", cancel, { once: true });
  let handedOver = false;
  try {
    for (;;) {
      const next = call.next();
      const round = taskMade ? await Promise.race([next, taskMade.then(() => "task" as const)]) : await next;
      if (round === "task") {
        taskMade = undefined;
        const task = parts.tasks?.create(call, parts.ownerOf(ctx), clientCapabilities(parts));
        handedOver = task !== undefined;
        // The table is full of running tasks: the host gets the call bridged, as one without tasks.
        if (task) {
          bridge?.handOver();
          return task as unknown as CallToolResult;
        }
        continue;
      }
      if (round.done) break;
      const asked = askable(round.questions, clientCapabilities(parts));
      if (asked.length)
        return inputRequired({
          inputRequests: inputRequestsOf(asked),
          requestState: call.id,
        }) as unknown as CallToolResult;
    }
  } finally {
    ctx.mcpReq.signal.removeEventListener("abort", cancel);
    // A call handed over to a task keeps the progress hook its task set (its status messages).
    if (!handedOver) {
      call.progress = undefined;
      call.log = undefined;
    }
  }
  relay.forget(call);
  try {
    return wireResult((await call.result) as ToolResult, yard.redactor.text);
  } catch (error) {
    return callFailure(error, yard.redactor.text);
  }
}

/**
 * A Switchyard result as MCP sends it (without our `text` rendering), with how it was served in `_meta`
 * (a fallback, the cache; see meta.ts); a tool's error redacted.
 */
function wireResult(result: ToolResult, redact: (text: string) => string): CallToolResult {
  const served = servedMeta(result);
  const wire: CallToolResult = {
    content: result.content,
    ...(result.structuredContent !== undefined ? { structuredContent: result.structuredContent } : {}),
    ...(result.isError ? { isError: true } : {}),
    ...(served ? { _meta: served } : {}),
  };
  return result.isError ? toolErrorResult(wire, redact) : wire;
}

/** What the client declared: on its request (2026-07-28, the `_meta` envelope) or in its handshake (2025). */
function clientCapabilities(parts: CallRoundParts): ClientCapabilities {
  return envelopeCapabilities(parts.ctx) ?? parts.server.getClientCapabilities() ?? {};
}

/**
 * The table of tasks a gateway passes through to hosts that declare the tasks extension: a task's end
 * told as a call's result is (redacted, with how it was served), its questions as `inputRequests`.
 */
export function gatewayTasks(yard: Switchyard): HostTasks {
  const redact = yard.redactor.text;
  return new HostTasks({
    end: async (result) => {
      try {
        return { status: "completed", result: wireResult((await result) as ToolResult, redact) };
      } catch (error) {
        if (error instanceof SwitchyardError && error.code === "CANCELLED") return { status: "cancelled" };
        try {
          return { status: "completed", result: callFailure(error, redact) };
        } catch (failure) {
          const { code, message } = failure as { code: number; message: string };
          return { status: "failed", error: { code, message } };
        }
      }
    },
  });
}
