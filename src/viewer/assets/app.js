// The viewer's page: plain DOM, no framework, no build step. Views by the URL's hash: #/runs (with
// filters in its query), #/run/<id>, #/servers, #/audit. Every text goes in as text (never as HTML);
// lists and the timeline listen once on their container (event delegation), whatever their size.

const TOKEN = new URLSearchParams(location.search).get("token") ?? "";
const view = document.getElementById("view");
const live = document.getElementById("live");

// --- helpers ----------------------------------------------------------------------------------------

/** An element: `h("a", { href: "#/x", class: "c" }, "text", child)`. Attributes with `null`/`false` are left out. */
function h(tag, attributes = {}, ...children) {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (value === null || value === undefined || value === false) continue;
    if (name === "style" && typeof value === "object") Object.assign(element.style, value);
    else element.setAttribute(name, value === true ? "" : String(value));
  }
  append(element, children);
  return element;
}

function append(element, children) {
  for (const child of children.flat(Infinity)) {
    if (child === null || child === undefined || child === false) continue;
    element.append(child instanceof Node ? child : String(child));
  }
  return element;
}

async function api(path, params = {}) {
  const query = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) if (value) query.set(key, value);
  query.set("token", TOKEN);
  const response = await fetch(`${path}?${query}`, { headers: { accept: "application/json" } });
  const body = await response.json().catch(() => ({ error: `${response.status} ${response.statusText}` }));
  if (!response.ok) throw new Error(body.error ?? `${response.status}`);
  return body;
}

function ms(value) {
  if (value === undefined || value === null) return "–";
  if (value < 1) return `${value.toFixed(2)} ms`;
  if (value < 1000) return `${Math.round(value)} ms`;
  if (value < 60_000) return `${(value / 1000).toFixed(2)} s`;
  return `${Math.floor(value / 60_000)} min ${Math.round((value % 60_000) / 1000)} s`;
}

function when(iso) {
  if (!iso) return "–";
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? iso : date.toLocaleString();
}

function tokens(usage) {
  return usage ? `${usage.input.toLocaleString()} in · ${usage.output.toLocaleString()} out` : "–";
}

function statusClass(outcome) {
  if (["answer", "ok", "ready"].includes(outcome)) return "good";
  if (["restarting", "connecting"].includes(outcome)) return "busy";
  if (["running"].includes(outcome)) return "busy";
  if (["cancelled", "max_steps", "interrupted", "unfinished", "medium", "low", "trusted"].includes(outcome))
    return "warn";
  return "bad";
}

function badge(outcome) {
  return h("span", { class: `badge ${statusClass(outcome)}`, "data-status": outcome }, outcome);
}

function pretty(text) {
  if (text === undefined || text === null) return "";
  if (typeof text !== "string") return JSON.stringify(text, null, 2);
  try {
    return JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    return text;
  }
}

/** Put a view's nodes in place (null and false ones left out). */
function show(...nodes) {
  view.replaceChildren(
    ...nodes.flat().filter((node) => node !== null && node !== undefined && node !== false),
  );
}

function say(text) {
  live.textContent = text;
}

function failure(error) {
  return h("p", { class: "error", role: "alert" }, `Could not load: ${error.message}`);
}

/** The hash as a route: `{ name, id, params }`. */
function route() {
  const [path, query = ""] = location.hash.replace(/^#/, "").split("?");
  const parts = (path || "/runs").split("/").filter(Boolean);
  return {
    name: parts[0] ?? "runs",
    id: parts[1] ? decodeURIComponent(parts[1]) : undefined,
    params: new URLSearchParams(query),
  };
}

// --- runs ---------------------------------------------------------------------------------------------

const FILTERS = [
  ["since", "Since", "datetime-local"],
  ["until", "Until", "datetime-local"],
  ["status", "Status", "select"],
  ["user", "User", "text"],
  ["tool", "Tool", "text"],
  ["server", "Server", "text"],
  ["q", "Text", "search"],
];

function localToIso(value) {
  if (!value) return "";
  const date = new Date(value);
  return Number.isNaN(date.getTime()) ? value : date.toISOString();
}

async function renderRuns(params) {
  const filter = Object.fromEntries(FILTERS.map(([name]) => [name, params.get(name) ?? ""]));
  const data = await api("/api/runs", {
    ...filter,
    since: localToIso(filter.since),
    until: localToIso(filter.until),
  });
  const form = h("form", { class: "filters", role: "search", "aria-label": "Filter runs" });
  for (const [name, label, type] of FILTERS) {
    let input;
    if (type === "select") {
      input = h("select", { name, id: `f-${name}` }, h("option", { value: "" }, "any"));
      for (const status of data.statuses) {
        input.append(h("option", { value: status, selected: status === filter.status }, status));
      }
    } else {
      input = h("input", { name, id: `f-${name}`, type, value: filter[name] });
    }
    form.append(h("label", { for: `f-${name}` }, h("span", {}, label), input));
  }
  form.append(
    h(
      "div",
      { class: "filter-actions" },
      h("button", { type: "submit" }, "Filter"),
      h("a", { href: "#/runs", class: "button quiet" }, "Clear"),
    ),
  );
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    const query = new URLSearchParams();
    for (const [key, value] of new FormData(form)) if (value) query.set(key, String(value));
    location.hash = `#/runs${query.size ? `?${query}` : ""}`;
  });

  const rows = data.runs.map((run) =>
    h(
      "tr",
      { "data-run": run.id },
      h(
        "td",
        {},
        h("a", { href: `#/run/${encodeURIComponent(run.id)}`, class: "row-link" }, when(run.startedAt)),
      ),
      h("td", {}, badge(run.outcome)),
      h("td", { class: "text" }, h("span", { class: "clamp" }, run.input ?? "")),
      h("td", {}, run.kind),
      h("td", {}, run.user ?? "–"),
      h("td", { class: "num" }, run.stepCount),
      h("td", { class: "num" }, run.callCount),
      h("td", { class: "num" }, tokens(run.tokens)),
      h("td", { class: "num" }, ms(run.ms)),
    ),
  );
  const table = h(
    "table",
    { class: "runs", "aria-label": "Runs" },
    h(
      "thead",
      {},
      h(
        "tr",
        {},
        ["Started", "Status", "Question / input", "Kind", "User", "Steps", "Calls", "Tokens", "Duration"].map(
          (title) => h("th", { scope: "col" }, title),
        ),
      ),
    ),
    h("tbody", {}, rows),
  );
  show(
    h("h1", {}, "Runs"),
    form,
    h(
      "p",
      { class: "muted" },
      `${data.runs.length} of the newest ${data.scanned} runs in the store · j/k or ↑/↓ to move, Enter to open`,
    ),
    data.runs.length ? table : h("p", { class: "empty" }, "No runs match."),
  );
}

// --- one run ------------------------------------------------------------------------------------------

let current; // the run shown, for the copy button and live updates

/** Intervals packed into rows so that overlapping ones sit one above the other. */
function pack(items) {
  const rowEnds = [];
  for (const item of items.sort((a, b) => a.start - b.start)) {
    let row = rowEnds.findIndex((end) => end <= item.start);
    if (row === -1) {
      row = rowEnds.length;
      rowEnds.push(0);
    }
    rowEnds[row] = item.end;
    item.row = row;
  }
  return Math.max(1, rowEnds.length);
}

function timeline(run) {
  const t0 = Date.parse(run.startedAt);
  const items = [];
  for (const step of run.steps) {
    const start = Date.parse(step.startedAt) - t0;
    items.push({
      lane: "model",
      kind: "model",
      id: `step-${step.step}`,
      label: `step ${step.step}`,
      start,
      end: start + (step.modelMs ?? 0),
      open: step.modelMs === undefined,
      title: `step ${step.step}: model ${ms(step.modelMs)}${step.tokens ? `, ${tokens(step.tokens)}` : ""}`,
    });
  }
  for (const call of run.calls) {
    if (!call.startedAt) continue;
    const start = Date.parse(call.startedAt) - t0;
    items.push({
      lane: call.server ?? "(local)",
      kind: "call",
      id: call.id,
      label: call.tool ?? call.name,
      start,
      end: start + (call.ms ?? 0),
      open: call.ok === undefined,
      failed: call.ok === false,
      code: call.error?.code,
      title: `${call.name} on ${call.server ?? "(local)"}${call.servedBy ? ` (served by ${call.servedBy})` : ""}: ${call.ok === undefined ? "running" : call.ok ? "ok" : call.error?.code} ${ms(call.ms)}${call.wire?.attempts > 1 ? `, ${call.wire.attempts} attempts` : ""}`,
    });
  }
  const now = Date.now() - t0;
  const lastEnd = Math.max(1, run.ms ?? 0, ...items.map((item) => item.end), run.finished ? 0 : now);
  for (const item of items) if (item.open) item.end = run.finished ? lastEnd : now;
  const lanes = [];
  for (const item of items) if (!lanes.includes(item.lane)) lanes.push(item.lane);
  lanes.sort((a, b) => (a === "model" ? -1 : b === "model" ? 1 : 0));
  const pct = (value) => `${((100 * Math.max(0, value)) / lastEnd).toFixed(3)}%`;
  const laneNodes = lanes.map((lane) => {
    const own = items.filter((item) => item.lane === lane);
    const rows = pack(own);
    const bars = own.map((item) =>
      h(
        "button",
        {
          type: "button",
          class: `bar ${item.kind}${item.failed ? " failed" : ""}${item.open ? " open" : ""}`,
          "data-id": item.id,
          "data-kind": item.kind,
          "data-start": item.start.toFixed(2),
          "data-end": item.end.toFixed(2),
          title: item.title,
          "aria-label": item.title,
          style: {
            left: pct(item.start),
            width: `max(${pct(item.end - item.start)}, 3px)`,
            top: `calc(${item.row} * var(--bar-row))`,
          },
        },
        h(
          "span",
          { class: "bar-label" },
          item.label,
          item.code ? h("b", { class: "code" }, ` ${item.code}`) : null,
        ),
      ),
    );
    return h(
      "div",
      { class: "lane", "data-lane": lane, role: "group", "aria-label": `lane ${lane}` },
      h("div", { class: "lane-name" }, lane),
      h("div", { class: "lane-track", style: { height: `calc(${rows} * var(--bar-row))` } }, bars),
    );
  });
  const ticks = [0, 0.25, 0.5, 0.75, 1].map((f) =>
    h("span", { class: "tick", style: { left: `${f * 100}%` } }, ms(f * lastEnd)),
  );
  return h(
    "section",
    { class: "timeline", "aria-label": "Timeline" },
    h("h2", {}, "Timeline"),
    h(
      "p",
      { class: "muted" },
      "Model turns and tool calls, one lane per server; calls that overlap in time are stacked in their lane. Select a bar for its call.",
    ),
    h(
      "div",
      { class: "lanes", id: "lanes" },
      h("div", { class: "axis" }, h("div", { class: "lane-name" }), h("div", { class: "ticks" }, ticks)),
      laneNodes,
    ),
  );
}

function offeredOf(step) {
  if (!Array.isArray(step.offered)) return [];
  return step.offered.map((tool) =>
    typeof tool === "string"
      ? { name: tool }
      : { name: tool.name ?? tool.id ?? "?", score: tool.score, reason: tool.reason },
  );
}

function stepsSection(run) {
  const window = run.contextWindow;
  const steps = run.steps.map((step) => {
    const picked = new Set(run.calls.filter((call) => call.step === step.step).map((call) => call.name));
    const offered = offeredOf(step);
    const used = step.tokens?.input;
    const meter =
      used !== undefined && window
        ? h(
            "div",
            { class: "window" },
            h("meter", { min: 0, max: window, value: used, "aria-label": `tokens in against the window` }),
            h(
              "span",
              {},
              `${used.toLocaleString()} of ${window.toLocaleString()} tokens (${((100 * used) / window).toFixed(1)}%)`,
            ),
          )
        : null;
    return h(
      "li",
      { class: "step", "data-step": step.step },
      h(
        "h3",
        {},
        `Step ${step.step}`,
        h(
          "span",
          { class: "muted" },
          ` · model ${ms(step.modelMs)} · ${tokens(step.tokens)} · ${step.toolCalls ?? 0} tool call${step.toolCalls === 1 ? "" : "s"}`,
        ),
      ),
      meter,
      h(
        "div",
        { class: "offered" },
        h("span", { class: "muted" }, `${step.tools} offered: `),
        offered.length
          ? h(
              "ul",
              { class: "chips", "aria-label": `tools offered at step ${step.step}` },
              offered.map((tool) =>
                h(
                  "li",
                  { class: `chip${picked.has(tool.name) ? " picked" : ""}`, "data-tool": tool.name },
                  tool.name,
                  tool.score !== undefined
                    ? h("span", { class: "score" }, ` ${Number(tool.score).toFixed(2)}`)
                    : null,
                  tool.reason && tool.reason !== "ranked"
                    ? h("span", { class: "reason" }, ` ${tool.reason}`)
                    : null,
                  picked.has(tool.name) ? h("span", { class: "sr" }, " (picked)") : null,
                ),
              ),
            )
          : h("span", {}, step.tools ? "(names not recorded)" : "none"),
      ),
      step.text ? h("p", { class: "said text" }, step.text) : null,
    );
  });
  return h(
    "section",
    { "aria-label": "Steps" },
    h("h2", {}, "Steps"),
    steps.length
      ? h("ol", { class: "steps" }, steps)
      : h("p", { class: "empty" }, "No model turns (not an agent run)."),
  );
}

function callsSection(run) {
  const rows = run.calls.map((call) =>
    h(
      "tr",
      { "data-call": call.id, id: `call-${call.id}` },
      h(
        "td",
        {},
        h(
          "button",
          { type: "button", class: "link", "data-open": call.id, "aria-expanded": "false" },
          call.name,
        ),
      ),
      h(
        "td",
        {},
        call.server ?? "(local)",
        call.servedBy ? h("span", { class: "served-by" }, ` → served by ${call.servedBy}`) : null,
      ),
      h("td", { class: "num" }, call.step ?? "–"),
      h(
        "td",
        {},
        call.ok === undefined
          ? badge("running")
          : call.ok
            ? badge("ok")
            : h("span", { class: "badge bad code" }, call.error?.code ?? "failed"),
      ),
      h("td", { class: "num" }, ms(call.ms)),
      h("td", { class: "num" }, call.wire ? call.wire.attempts : "–"),
      h("td", { class: "num" }, call.wire ? ms(call.wire.queueMs) : "–"),
      h("td", { class: "num" }, call.wire?.retryMs !== undefined ? ms(call.wire.retryMs) : "–"),
    ),
  );
  const table = h(
    "table",
    { class: "calls", "aria-label": "Calls" },
    h(
      "thead",
      {},
      h(
        "tr",
        {},
        ["Call", "Server", "Step", "Outcome", "Time", "Attempts", "Queue", "Retry"].map((title) =>
          h("th", { scope: "col" }, title),
        ),
      ),
    ),
    h("tbody", { id: "call-rows" }, rows),
  );
  return h(
    "section",
    { "aria-label": "Calls" },
    h("h2", {}, "Calls"),
    h("p", { class: "muted" }, `Wire messages: ${run.wireSource}. Shaped results: ${run.shapedSource}.`),
    run.calls.length ? h("div", { class: "calls-wrap" }, table) : h("p", { class: "empty" }, "No calls."),
  );
}

function callDetail(call) {
  const block = (title, text, attrs = {}) =>
    h("div", { class: "block" }, h("h4", {}, title), h("pre", attrs, text || "–"));
  return h(
    "tr",
    { class: "detail", "data-detail": call.id },
    h(
      "td",
      { colspan: 8 },
      call.error
        ? h("p", { class: "error" }, h("b", { class: "code" }, call.error.code), ` ${call.error.message}`)
        : null,
      h(
        "div",
        { class: "blocks" },
        block("Arguments (redacted)", pretty(call.arguments)),
        block("Result given to the model (shaped)", call.shaped ?? "not recorded", {
          "data-block": "shaped",
        }),
        call.wire?.result !== undefined
          ? block("Full result (from the wire)", pretty(call.wire.result), { "data-block": "result" })
          : block("Result (as recorded, redacted)", call.result ?? "not recorded", {
              "data-block": "result",
            }),
      ),
      call.wire
        ? h(
            "details",
            { class: "wire" },
            h("summary", {}, `Wire messages (${call.wire.messages.length})`),
            h(
              "ol",
              { class: "messages" },
              call.wire.messages.map((record) =>
                h(
                  "li",
                  { class: record.direction },
                  h(
                    "span",
                    { class: "muted" },
                    `${record.direction === "to-server" ? "→" : "←"} ${record.server} ${record.time}`,
                  ),
                  h("pre", {}, JSON.stringify(record.message, null, 2)),
                ),
              ),
            ),
          )
        : null,
    ),
  );
}

function toggleCall(id, force) {
  const row = document.getElementById(`call-${id}`);
  if (!row || !current) return;
  const button = row.querySelector("[data-open]");
  const next = row.nextElementSibling;
  const isOpen = next?.dataset.detail === id;
  const open = force ?? !isOpen;
  if (isOpen && !open) next.remove();
  if (!isOpen && open) {
    const call = current.calls.find((one) => one.id === id);
    if (call) row.after(callDetail(call));
  }
  button.setAttribute("aria-expanded", String(open));
}

async function renderRun(id) {
  const open = new Set([...view.querySelectorAll("[data-detail]")].map((row) => row.dataset.detail));
  const focused = document.activeElement?.dataset?.id ?? document.activeElement?.dataset?.open;
  const run = await api(`/api/runs/${encodeURIComponent(id)}`);
  current = run;
  const facts = [
    [run.finished ? (run.kind === "agent" ? "Stop reason" : "Outcome") : "Status", badge(run.outcome)],
    ["Kind", run.kind],
    ["User", run.user ?? "–"],
    ["Started", when(run.startedAt)],
    ["Duration", ms(run.ms)],
    ["Steps", run.steps.length],
    ["Calls", run.calls.length],
    ["Tokens", tokens(run.tokens)],
  ];
  if (run.error)
    facts.push(["Error", h("span", {}, h("b", { class: "code" }, run.error.code), ` ${run.error.message}`)]);
  show(
    h("p", {}, h("a", { href: "#/runs" }, "← Runs")),
    h(
      "div",
      { class: "run-head" },
      h("h1", {}, "Run ", h("code", {}, run.id)),
      h("button", { type: "button", id: "copy-json" }, "Copy run as JSON"),
    ),
    h(
      "dl",
      { class: "facts" },
      facts.map(([name, value]) => [h("dt", {}, name), h("dd", {}, value)]),
    ),
    run.input !== undefined
      ? h(
          "section",
          { class: "qa" },
          h("h2", {}, run.kind === "agent" ? "Question" : "Input"),
          h("p", { class: "text" }, run.input),
        )
      : null,
    run.answer !== undefined
      ? h("section", { class: "qa" }, h("h2", {}, "Answer"), h("p", { class: "text answer" }, run.answer))
      : null,
    run.finished
      ? null
      : h(
          "p",
          { class: "notice" },
          run.outcome === "running"
            ? "This run is still going: the page follows it."
            : `This run did not finish (${run.outcome}).`,
        ),
    timeline(run),
    stepsSection(run),
    callsSection(run),
  );
  for (const callId of open) toggleCall(callId, true);
  if (focused)
    view.querySelector(`[data-id="${CSS.escape(focused)}"], [data-open="${CSS.escape(focused)}"]`)?.focus();
}

// --- servers ------------------------------------------------------------------------------------------

function statsCells(stats) {
  const errors = Object.entries(stats.errors)
    .map(([code, count]) => `${code} ×${count}`)
    .join(", ");
  return [
    h("td", { class: "num" }, stats.calls),
    h("td", { class: "num" }, stats.ok),
    h("td", { class: "num" }, stats.failed),
    h("td", { class: "codes" }, errors || "–"),
    h("td", { class: "num" }, ms(stats.p50)),
    h("td", { class: "num" }, ms(stats.p95)),
    h("td", { class: "num" }, ms(stats.p99)),
    h("td", {}, when(stats.lastAt)),
  ];
}

async function renderServers() {
  const data = await api("/api/servers");
  const head = ["Server / tool", "Calls", "Ok", "Failed", "Errors", "p50", "p95", "p99", "Last call"];
  const rows = data.servers.flatMap((server) => [
    h(
      "tr",
      { class: "server", "data-server": server.name },
      h("th", { scope: "row" }, server.name),
      statsCells(server),
    ),
    ...server.tools.map((tool) =>
      h(
        "tr",
        { class: "tool", "data-tool": `${server.name}/${tool.name}` },
        h("td", { class: "indent" }, tool.name),
        statsCells(tool),
      ),
    ),
  ]);
  const liveSection = data.live
    ? h(
        "section",
        { "aria-label": "Live fleet" },
        h("h2", {}, "Live fleet"),
        h("p", { class: "muted" }, "As this viewer's own connection to the config's servers sees them now."),
        h(
          "table",
          { class: "live-fleet" },
          h(
            "thead",
            {},
            h(
              "tr",
              {},
              [
                "Server",
                "Status",
                "Health",
                "Breaker",
                "Restarts",
                "In flight",
                "Queued",
                "Tools",
                "Error",
              ].map((title) => h("th", { scope: "col" }, title)),
            ),
          ),
          h(
            "tbody",
            {},
            data.live.map((server) =>
              h(
                "tr",
                { "data-live": server.name },
                h("th", { scope: "row" }, server.name),
                h("td", {}, badge(String(server.status))),
                h(
                  "td",
                  {},
                  typeof server.health === "object"
                    ? JSON.stringify(server.health)
                    : String(server.health ?? "–"),
                ),
                h(
                  "td",
                  {},
                  typeof server.breaker === "object"
                    ? (server.breaker?.state ?? JSON.stringify(server.breaker))
                    : String(server.breaker ?? "–"),
                ),
                h("td", { class: "num" }, server.restarts ?? "–"),
                h("td", { class: "num" }, server.inFlight ?? "–"),
                h("td", { class: "num" }, server.queued ?? "–"),
                h("td", { class: "num" }, server.tools ?? "–"),
                h("td", { class: "text" }, server.error ?? ""),
              ),
            ),
          ),
        ),
      )
    : h(
        "p",
        { class: "notice" },
        "Status, health, breaker and restarts are not recorded in the store: start the viewer with --fleet to see its own live connection to the config's servers (or run switchyard servers).",
      );
  show(
    h("h1", {}, "Servers"),
    liveSection,
    findingsSection(data.findings ?? []),
    h("h2", {}, "From the records"),
    h(
      "p",
      { class: "muted" },
      `Calls recorded in the newest ${data.runsScanned === 1 ? "run" : `${data.runsScanned} runs`}, per server and per tool; latency percentiles over the calls that finished.`,
    ),
    rows.length
      ? h(
          "table",
          { class: "servers" },
          h(
            "thead",
            {},
            h(
              "tr",
              {},
              head.map((title) => h("th", { scope: "col" }, title)),
            ),
          ),
          h("tbody", {}, rows),
        )
      : h("p", { class: "empty" }, "No calls recorded yet."),
  );
}

/** What the latest scan of each server found: quarantined tools first, then by severity. */
function findingsSection(findings) {
  const order = { high: 0, medium: 1, low: 2 };
  const sorted = [...findings].sort(
    (a, b) => Number(b.quarantined) - Number(a.quarantined) || order[a.severity] - order[b.severity],
  );
  const held = findings.filter((finding) => finding.quarantined).length;
  return h(
    "section",
    { "aria-label": "Findings" },
    h("h2", {}, "Findings"),
    h(
      "p",
      { class: "muted" },
      sorted.length
        ? `What the latest scan of each server found in its tools and instructions${held ? `; ${held} ${held === 1 ? "finding holds its tool" : "findings hold their tools"} in quarantine (switchyard trust <server> accepts them)` : ""}.`
        : "Nothing found in the servers' tools and instructions by the latest scans.",
    ),
    sorted.length
      ? h(
          "table",
          { class: "findings" },
          h(
            "thead",
            {},
            h(
              "tr",
              {},
              ["Severity", "Kind", "Server", "Tool", "Where", "Detail", "Found"].map((title) =>
                h("th", { scope: "col" }, title),
              ),
            ),
          ),
          h(
            "tbody",
            {},
            sorted.map((finding) =>
              h(
                "tr",
                { "data-finding": `${finding.server}/${finding.tool ?? ""}/${finding.kind}` },
                h(
                  "td",
                  {},
                  badge(
                    finding.quarantined ? "quarantined" : finding.accepted ? "trusted" : finding.severity,
                  ),
                  finding.quarantined ? ` ${finding.severity}` : "",
                ),
                h("td", {}, finding.kind),
                h("td", {}, finding.server),
                h("td", {}, finding.tool ?? "–"),
                h("td", {}, finding.where ?? ""),
                h("td", { class: "text" }, finding.detail),
                h("td", {}, finding.foundAt),
              ),
            ),
          ),
        )
      : null,
  );
}

// --- audit --------------------------------------------------------------------------------------------

async function renderAudit() {
  const data = await api("/api/audit");
  const v = data.verification;
  const status = v.ok
    ? h(
        "p",
        { class: "verify good", "data-verified": "ok", role: "status" },
        `✔ Chain verified: ${v.rows} rows, head ${v.head.hash.slice(0, 16)}… (row ${v.head.seq})`,
      )
    : h(
        "div",
        { class: "verify bad", "data-verified": "tampered", role: "alert" },
        h(
          "p",
          {},
          `✘ Tampered: ${v.problems.length} problem${v.problems.length === 1 ? "" : "s"} in ${v.rows} rows`,
        ),
        h(
          "ul",
          {},
          v.problems.map((problem) => h("li", {}, `${problem.kind}: ${problem.message}`)),
        ),
      );
  const rows = [...data.rows].reverse().map((row) =>
    h(
      "tr",
      { "data-seq": row.seq },
      h("td", { class: "num" }, row.seq),
      h("td", {}, when(row.time)),
      h("td", {}, row.kind),
      h("td", {}, row.identity?.user ?? "–"),
      h("td", {}, [row.server, row.tool].filter(Boolean).join(" / ") || row.name || "–"),
      h(
        "td",
        {},
        h(
          "span",
          {
            class: `badge ${row.outcome === "ok" || row.outcome === "allow" || row.outcome === "approved" ? "good" : "bad"}`,
          },
          row.outcome,
        ),
      ),
      h("td", {}, row.runId ? h("a", { href: `#/run/${encodeURIComponent(row.runId)}` }, row.runId) : "–"),
      h("td", { class: "num" }, ms(row.ms)),
      h("td", {}, h("code", { title: row.hash }, row.hash.slice(0, 12))),
    ),
  );
  show(
    h("h1", {}, "Audit log"),
    status,
    h("p", { class: "muted" }, `${data.store} · the newest ${data.rows.length} rows, newest first`),
    rows.length
      ? h(
          "table",
          { class: "audit" },
          h(
            "thead",
            {},
            h(
              "tr",
              {},
              ["Row", "Time", "Kind", "User", "Server / tool", "Outcome", "Run", "Time taken", "Hash"].map(
                (title) => h("th", { scope: "col" }, title),
              ),
            ),
          ),
          h("tbody", {}, rows),
        )
      : h("p", { class: "empty" }, "No audit rows yet."),
  );
}

// --- the router, live updates, keys ---------------------------------------------------------------

let rendering = Promise.resolve();
let again = false;

function render(reason) {
  // One render at a time; a request while one runs makes one more after it.
  again = true;
  rendering = rendering.then(async () => {
    if (!again) return;
    again = false;
    const { name, id, params } = route();
    for (const link of document.querySelectorAll("[data-nav]")) {
      if (link.dataset.nav === (name === "run" ? "runs" : name)) link.setAttribute("aria-current", "page");
      else link.removeAttribute("aria-current");
    }
    try {
      if (name === "run" && id) await renderRun(id);
      else if (name === "servers") await renderServers();
      else if (name === "audit") await renderAudit();
      else await renderRuns(params);
      view.dataset.view = name;
      view.dataset.rendered = String(Date.now());
      // For measuring (the bench): when each view was last on screen, since the page began loading.
      performance.mark(`switchyard:${name}`);
      requestAnimationFrame(() => setTimeout(() => performance.mark(`switchyard:${name}:painted`)));
      if (reason === "navigate") {
        document.title = `${name === "run" ? `Run ${id}` : name[0].toUpperCase() + name.slice(1)} · Switchyard`;
        view.focus({ preventScroll: true });
      }
    } catch (error) {
      show(failure(error));
    }
  });
  return rendering;
}

window.addEventListener("hashchange", () => render("navigate"));

// Event delegation: one listener each for the whole page, however many rows and bars.
view.addEventListener("click", (event) => {
  const target = event.target instanceof Element ? event.target : null;
  const bar = target?.closest(".bar");
  if (bar) {
    const id = bar.dataset.id;
    if (bar.dataset.kind === "call") {
      toggleCall(id, true);
      document.getElementById(`call-${id}`)?.scrollIntoView({ block: "nearest" });
    } else {
      view
        .querySelector(`[data-step="${CSS.escape(id.replace("step-", ""))}"]`)
        ?.scrollIntoView({ block: "nearest" });
    }
    return;
  }
  const opener = target?.closest("[data-open]");
  if (opener) return toggleCall(opener.dataset.open);
  if (target?.closest("#copy-json") && current) {
    const text = JSON.stringify(current, null, 2);
    navigator.clipboard?.writeText(text).then(
      () => say("run copied as JSON"),
      () => say("the browser refused the clipboard"),
    );
  }
});

document.addEventListener("keydown", (event) => {
  if (event.altKey || event.ctrlKey || event.metaKey) return;
  const target = event.target;
  if (target instanceof HTMLElement && target.closest("input, select, textarea")) return;
  const keys = { j: 1, k: -1, ArrowDown: 1, ArrowUp: -1 };
  const move = keys[event.key];
  if (!move) return;
  const links = [...view.querySelectorAll("a.row-link, .bar, [data-open]")];
  if (!links.length) return;
  const at = links.indexOf(document.activeElement);
  if (event.key.startsWith("Arrow") && at === -1) return; // arrows scroll unless a row has focus
  event.preventDefault();
  links[Math.min(links.length - 1, Math.max(0, at === -1 ? 0 : at + move))].focus();
});

function listen() {
  const events = new EventSource(`/events?token=${encodeURIComponent(TOKEN)}`);
  events.addEventListener("open", () => say("live"));
  events.addEventListener("error", () => say("reconnecting…"));
  events.addEventListener("runs", (event) => {
    const { changed } = JSON.parse(event.data);
    const { name, id } = route();
    if (name === "runs" || name === "servers" || (name === "run" && changed.includes(id))) {
      render("live");
      say(`live · updated ${new Date().toLocaleTimeString()}`);
    }
  });
  events.addEventListener("audit", () => {
    if (route().name === "audit") render("live");
  });
}

render("navigate");
listen();
