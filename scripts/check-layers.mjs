#!/usr/bin/env node
// The layer rules of ../shared/docs/ARCHITECTURE.md ("Imports that must never exist"), checked over
// every import in src/. Run by `npm run lint:layers` (part of `npm test`).
//
//   node scripts/check-layers.mjs [--root <dir>] [--json]
//
// Exit 0: no import breaks a rule; 1: some do (each printed with the rule and the file:line); 2: bad use.
//
// Why not dependency-cruiser: it reads TypeScript through TypeScript's JavaScript compiler API
// (17.x accepts typescript >=2 <7; 18.x needs Node 22). typescript@7, which this project builds with, no
// longer ships that API, and a second TypeScript installed beside it takes over the `tsc` command. Its
// other parser (swc) cannot tell `import type` from a value import, which the SDK rule needs. So the
// imports are read here with TypeScript 7's own scanner (`typescript/unstable/ast/scanner`): a real
// tokenizer, so comments, strings, template literals and regular expressions never look like imports.

import { readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";

/** The layers, top first: one folder each under src/. */
export const LAYERS = [
  "cli",
  "viewer",
  "gateway",
  "adapters",
  "agent",
  "plan",
  "models",
  "routing",
  "context",
  "calls",
  "catalog",
  "fleet",
  "trust",
  "store",
  "telemetry",
  "config",
  "testing",
];

/** Files at the root of src/ that every layer may use: no layer of their own, no imports upward. */
const SHARED_ROOT_FILES = [
  "src/errors.ts",
  "src/abort.ts",
  "src/lazy-require.ts",
  "src/package-root.ts",
  "src/escape-regexp.ts",
  "src/lru-map.ts",
];
/** Where the package's own files are (package.json, examples/, the viewer's page): not API, so cli/ may too. */
const PACKAGE_ROOT = "src/package-root.ts";
/** What cli/ may import from the rest of src/: the package's public entry points. */
const PUBLIC_ENTRY_POINTS = [
  "src/index.ts",
  "src/internal.ts",
  "src/routing/index.ts",
  "src/plan/index.ts",
  "src/trust/index.ts",
  "src/testing/index.ts",
  "src/gateway/index.ts",
  "src/viewer/index.ts",
];
const LOWER_LAYERS = ["fleet", "catalog", "calls", "models", "routing", "context", "trust"];
const UPPER_LAYERS = ["agent", "plan", "gateway", "adapters", "viewer", "cli", "store"];
const MCP_SDK = /^@modelcontextprotocol\//;
const CHILD_PROCESS = /^(node:)?child_process$/;

/**
 * The rules. `from`: the layers whose files are checked; `forbidden(target)`: true for an import the
 * rule refuses. A target is `{ file, layer, module, kind }`: `file`/`layer` for a file of src/ (layer
 * "root" for the files at its root), `module` for a package or builtin; `kind` is `value` (the module
 * is loaded at run time), `type` (`import type` / `export type`: erased) or `inline-type` (only
 * `{ type A }` specifiers: no value, but `verbatimModuleSyntax` keeps `import {} from` and so loads it).
 */
export const RULES = [
  {
    name: "config-is-the-bottom",
    why: "config/ imports no other layer (only src/errors.ts and src/lazy-require.ts); others read their numbers from it",
    from: ["config"],
    forbidden: (t) => t.file !== undefined && t.layer !== "config" && !SHARED_ROOT_FILES.includes(t.file),
  },
  {
    name: "lower-layers-look-down",
    why: `${LOWER_LAYERS.join("/, ")}/ never import ${UPPER_LAYERS.join("/, ")}/ or the facade (the files at the root of src/ but the shared ones: src/switchyard*.ts, src/index.ts, src/internal.ts, …)`,
    from: LOWER_LAYERS,
    forbidden: (t) =>
      UPPER_LAYERS.includes(t.layer) || (t.layer === "root" && !SHARED_ROOT_FILES.includes(t.file)),
  },
  {
    name: "sdk-types-only",
    why: "calls/, catalog/, agent/ and plan/ use the MCP SDK's types only (`import type`); fleet/ talks to it at run time",
    from: ["calls", "catalog", "agent", "plan"],
    forbidden: (t) => t.module !== undefined && MCP_SDK.test(t.module) && t.kind !== "type",
  },
  {
    name: "child-processes-in-fleet",
    why: "child processes belong to fleet/ alone",
    from: LAYERS.filter((layer) => layer !== "fleet").concat("root"),
    forbidden: (t) => t.module !== undefined && CHILD_PROCESS.test(t.module),
  },
  {
    name: "models-below-calls-and-routing",
    why: "models/ never imports calls/ or routing/",
    from: ["models"],
    forbidden: (t) => t.layer === "calls" || t.layer === "routing",
  },
  {
    name: "telemetry-reads-only-config",
    why: "telemetry/ imports no layer but config/ (and src/errors.ts, src/lazy-require.ts)",
    from: ["telemetry"],
    forbidden: (t) =>
      t.file !== undefined &&
      !["telemetry", "config"].includes(t.layer) &&
      !SHARED_ROOT_FILES.includes(t.file),
  },
  {
    name: "trust-judges-text",
    why: "trust/ imports no layer but config/ and telemetry/ (and the shared root files): it judges text, the others ask it",
    from: ["trust"],
    forbidden: (t) =>
      t.file !== undefined &&
      !["trust", "config", "telemetry"].includes(t.layer) &&
      !SHARED_ROOT_FILES.includes(t.file),
  },
  {
    name: "store-records-telemetry",
    why: "store/ never imports agent/ or plan/: it records telemetry/ records only",
    from: ["store"],
    forbidden: (t) => t.layer === "agent" || t.layer === "plan",
  },
  {
    name: "viewer-reads-records",
    why: "viewer/ reads the store's and telemetry/'s records only (and config/): never agent/, plan/, gateway/, cli/ or the facade",
    from: ["viewer"],
    forbidden: (t) =>
      t.file !== undefined &&
      !["viewer", "store", "telemetry", "config"].includes(t.layer) &&
      !SHARED_ROOT_FILES.includes(t.file),
  },
  {
    name: "adapters-over-the-facade",
    why: "adapters/ reach servers only through the facade's callTool (the call pipeline): never fleet/, store/, gateway/ or cli/",
    from: ["adapters"],
    forbidden: (t) => ["fleet", "store", "gateway", "cli"].includes(t.layer),
  },
  {
    name: "gateway-not-agent",
    why: "gateway/ never imports agent/",
    from: ["gateway"],
    forbidden: (t) => t.layer === "agent",
  },
  {
    name: "cli-public-api-only",
    why: `cli/ uses only the public entry points (${PUBLIC_ENTRY_POINTS.join(", ")}), and ${PACKAGE_ROOT} to find the package's own files`,
    from: ["cli"],
    forbidden: (t) =>
      t.file !== undefined && t.layer !== "cli" && !PUBLIC_ENTRY_POINTS.includes(t.file) && t.file !== PACKAGE_ROOT,
  },
  {
    name: "nothing-imports-testing",
    why: "nothing in src/ imports src/testing/ (cli/ may use its public entry, src/testing/index.ts)",
    from: LAYERS.filter((layer) => layer !== "testing").concat("root"),
    forbidden: (t, source) =>
      t.layer === "testing" && !(source.layer === "cli" && t.file === "src/testing/index.ts"),
  },
];

/**
 * Rules on calls rather than imports: `member` called on anything (`x.member(…)`) anywhere in src/ but
 * the `allowed` files.
 */
export const CALL_RULES = [
  {
    name: "one-way-to-a-server",
    why: "a server is asked anything only through the request pipeline: ServerConnection.attempt is called by the server guard (src/calls/server-guard.ts) alone",
    member: "attempt",
    allowed: ["src/calls/server-guard.ts"],
  },
];

/** The layer of a path relative to the root (`src/…`), or undefined outside src/. */
export function layerOf(file) {
  const parts = file.split("/");
  if (parts[0] !== "src") return undefined;
  if (parts.length === 2) return "root";
  // The plan layer's old home, while it still exists, counts as plan/.
  if (parts[1] === "agent" && parts[2] === "plan" && parts.length > 3) return "plan";
  return parts[1];
}

/**
 * Check every `.ts` file under `<root>/src`.
 * @returns {Promise<{ files: number, violations: Array<{ rule: string, why: string, file: string, line: number, target: string, kind: string }> }>}
 */
export async function checkLayers(root) {
  const scanImports = await importScanner();
  const files = listFiles(path.join(root, "src")).map((file) =>
    path.relative(root, file).split(path.sep).join("/"),
  );
  const violations = [];
  for (const file of files) {
    const source = { file, layer: layerOf(file) };
    const text = readFileSync(path.join(root, file), "utf8");
    for (const rule of CALL_RULES) {
      if (rule.allowed.includes(file)) continue;
      for (const call of scanImports.memberCalls(text)) {
        if (call.name === rule.member)
          violations.push({ rule: rule.name, why: rule.why, file, line: call.line, target: `.${call.name}(`, kind: "call" });
      }
    }
    const rules = RULES.filter((rule) => rule.from.includes(source.layer));
    if (rules.length === 0) continue;
    for (const found of scanImports(text)) {
      const target = resolveTarget(root, file, found);
      for (const rule of rules) {
        if (!rule.forbidden(target, source)) continue;
        violations.push({
          rule: rule.name,
          why: rule.why,
          file,
          line: found.line,
          target: target.file ?? target.module,
          kind: found.kind,
        });
      }
    }
  }
  return { files: files.length, violations };
}

/** The imports of one TypeScript source: `{ specifier, kind, line }` each. */
export async function importsOf(text) {
  return (await importScanner())(text);
}

function listFiles(folder) {
  let entries;
  try {
    entries = readdirSync(folder, { withFileTypes: true });
  } catch {
    return [];
  }
  return entries
    .sort((a, b) => a.name.localeCompare(b.name))
    .flatMap((entry) => {
      const full = path.join(folder, entry.name);
      if (entry.isDirectory()) return listFiles(full);
      return /\.(c|m)?ts$/.test(entry.name) && !/\.d\.(c|m)?ts$/.test(entry.name) ? [full] : [];
    });
}

/** A specifier as a file of the tree (`src/…`, `.js` read as `.ts`) or as a module name. */
function resolveTarget(root, file, { specifier, kind }) {
  if (!specifier.startsWith(".")) return { module: specifier, kind };
  const base = path.resolve(root, path.dirname(file), specifier);
  const candidates = [
    base
      .replace(/\.js$/, ".ts")
      .replace(/\.mjs$/, ".mts")
      .replace(/\.cjs$/, ".cts"),
    base,
    `${base}.ts`,
    path.join(base, "index.ts"),
  ];
  const found = candidates.find((candidate) => isFile(candidate)) ?? candidates[0];
  const relative = path.relative(root, found).split(path.sep).join("/");
  return { file: relative, layer: layerOf(relative), kind };
}

function isFile(file) {
  try {
    return statSync(file).isFile();
  } catch {
    return false;
  }
}

/** A function from TypeScript source to its imports: `{ specifier, kind, line }`. */
async function importScanner() {
  let ts;
  try {
    const [{ createScanner, computeLineStarts }, { SyntaxKind }] = await Promise.all([
      import("typescript/unstable/ast/scanner"),
      import("typescript/unstable/ast"),
    ]);
    ts = { createScanner, computeLineStarts, SyntaxKind };
  } catch (error) {
    throw new Error(
      `cannot load TypeScript's scanner (typescript/unstable/ast/scanner, typescript@7): ${error.message}`,
    );
  }
  const K = ts.SyntaxKind;
  const endsExpression = new Set([
    K.Identifier,
    K.PrivateIdentifier,
    K.ThisKeyword,
    K.SuperKeyword,
    K.TrueKeyword,
    K.FalseKeyword,
    K.NullKeyword,
    K.NumericLiteral,
    K.BigIntLiteral,
    K.StringLiteral,
    K.NoSubstitutionTemplateLiteral,
    K.TemplateTail,
    K.RegularExpressionLiteral,
    K.CloseParenToken,
    K.CloseBracketToken,
    K.CloseBraceToken,
  ]);
  const isString = (token) =>
    token?.kind === K.StringLiteral || token?.kind === K.NoSubstitutionTemplateLiteral;
  const typeContext = new Set([K.TypeOfKeyword, K.ColonToken, K.LessThanToken, K.BarToken, K.AmpersandToken]);

  /** Tokens without trivia; regular expressions and template literals scanned as the parser would. */
  function tokenize(text) {
    const scanner = ts.createScanner(true);
    scanner.setText(text);
    const lineStarts = ts.computeLineStarts(text);
    const lineOf = (pos) => {
      let low = 0;
      let high = lineStarts.length - 1;
      while (low < high) {
        const mid = (low + high + 1) >> 1;
        if (lineStarts[mid] <= pos) low = mid;
        else high = mid - 1;
      }
      return low + 1;
    };
    const tokens = [];
    const templateDepths = [];
    let depth = 0;
    let previous;
    for (;;) {
      let kind = scanner.scan();
      if (kind === K.EndOfFile) break;
      if ((kind === K.SlashToken || kind === K.SlashEqualsToken) && !endsExpression.has(previous)) {
        kind = scanner.reScanSlashToken();
      } else if (kind === K.OpenBraceToken) {
        depth += 1;
      } else if (kind === K.CloseBraceToken) {
        if (templateDepths.at(-1) === depth) {
          kind = scanner.reScanTemplateToken(false);
          if (kind === K.TemplateTail) templateDepths.pop();
        } else {
          depth -= 1;
        }
      } else if (kind === K.TemplateHead) {
        templateDepths.push(depth);
      }
      tokens.push({ kind, value: scanner.getTokenValue(), start: scanner.getTokenStart() });
      previous = kind;
    }
    return { tokens, lineOf };
  }

  /** How an import clause (the tokens between `import` and `from`) binds: `type`, `inline-type` or `value`. */
  function clauseKind(clause) {
    if (clause[0]?.kind === K.TypeKeyword && clause.length > 1 && clause[1].kind !== K.CommaToken)
      return "type";
    const open = clause.findIndex((token) => token.kind === K.OpenBraceToken);
    if (open !== 0) return "value"; // a default or namespace binding (or `{}` missing): a value
    const close = clause.findIndex((token) => token.kind === K.CloseBraceToken);
    const specifiers = [];
    let current = [];
    for (const token of clause.slice(1, close)) {
      if (token.kind === K.CommaToken) {
        specifiers.push(current);
        current = [];
      } else current.push(token);
    }
    specifiers.push(current);
    const named = specifiers.filter((specifier) => specifier.length > 0);
    if (named.length === 0) return "value"; // `import {} from`: loaded for its side effects
    const allTypes = named.every((specifier) => specifier[0].kind === K.TypeKeyword && specifier.length > 1);
    return allTypes ? "inline-type" : "value";
  }

  /** Calls of a member, `x.name(…)` or `x.name<T>(…)`: `{ name, line }` each. */
  function memberCalls(text) {
    const { tokens, lineOf } = tokenize(text);
    const found = [];
    for (let i = 1; i + 1 < tokens.length; i += 1) {
      const token = tokens[i];
      const next = tokens[i + 1].kind;
      if (
        token.kind === K.Identifier &&
        tokens[i - 1].kind === K.DotToken &&
        (next === K.OpenParenToken || next === K.LessThanToken)
      )
        found.push({ name: token.value, line: lineOf(token.start) });
    }
    return found;
  }

  return Object.assign(scanImports, { memberCalls });

  function scanImports(text) {
    const { tokens, lineOf } = tokenize(text);
    const found = [];
    const add = (token, kind) => found.push({ specifier: token.value, kind, line: lineOf(token.start) });
    for (let i = 0; i < tokens.length; i += 1) {
      const token = tokens[i];
      const next = tokens[i + 1];
      if (token.kind === K.ImportKeyword && next?.kind === K.OpenParenToken) {
        // import("x"): a value, unless it stands in a type (`typeof import("x")`, `: import("x").T`).
        if (isString(tokens[i + 2]))
          add(tokens[i + 2], typeContext.has(tokens[i - 1]?.kind) ? "type" : "value");
      } else if (token.kind === K.ImportKeyword && next?.kind !== K.DotToken) {
        if (isString(next)) {
          add(next, "value"); // import "x"
          continue;
        }
        const clause = [];
        let j = i + 1;
        while (j < tokens.length && tokens[j].kind !== K.FromKeyword && tokens[j].kind !== K.SemicolonToken) {
          if (tokens[j].kind === K.EqualsToken) break; // import x = require("y"): read as a require below
          clause.push(tokens[j]);
          j += 1;
        }
        if (tokens[j]?.kind === K.FromKeyword && isString(tokens[j + 1]))
          add(tokens[j + 1], clauseKind(clause));
      } else if (token.kind === K.ExportKeyword) {
        // Re-exports: export * from "x", export [type] { … } from "x", export type * from "x".
        let j = i + 1;
        const typeOnly = tokens[j]?.kind === K.TypeKeyword;
        if (typeOnly) j += 1;
        if (tokens[j]?.kind === K.AsteriskToken) {
          while (j < tokens.length && tokens[j].kind !== K.FromKeyword && tokens[j].kind !== K.SemicolonToken)
            j += 1;
          if (tokens[j]?.kind === K.FromKeyword && isString(tokens[j + 1]))
            add(tokens[j + 1], typeOnly ? "type" : "value");
        } else if (tokens[j]?.kind === K.OpenBraceToken) {
          const clause = [];
          while (j < tokens.length && tokens[j].kind !== K.CloseBraceToken) clause.push(tokens[j++]);
          clause.push(tokens[j]);
          if (tokens[j + 1]?.kind === K.FromKeyword && isString(tokens[j + 2])) {
            add(tokens[j + 2], typeOnly ? "type" : clauseKind(clause));
          }
        }
      } else if (
        token.kind === K.RequireKeyword ||
        (token.kind === K.Identifier && token.value === "lazyRequire")
      ) {
        // require("x"), lazyRequire("x"), lazyRequire<T>("x"): loaded at run time.
        if (tokens[i - 1]?.kind === K.DotToken || tokens[i - 1]?.kind === K.FunctionKeyword) continue;
        let j = i + 1;
        if (tokens[j]?.kind === K.LessThanToken) {
          let angle = 0;
          for (; j < tokens.length; j += 1) {
            if (tokens[j].kind === K.LessThanToken) angle += 1;
            else if (tokens[j].kind === K.GreaterThanToken) angle -= 1;
            if (angle === 0) break;
          }
          j += 1;
        }
        if (tokens[j]?.kind === K.OpenParenToken && isString(tokens[j + 1])) add(tokens[j + 1], "value");
      }
    }
    return found;
  }
}

async function main(argv) {
  let root = process.cwd();
  let json = false;
  for (let i = 0; i < argv.length; i += 1) {
    if (argv[i] === "--root" && argv[i + 1]) root = path.resolve(argv[++i]);
    else if (argv[i] === "--json") json = true;
    else {
      process.stderr.write(
        `usage: node scripts/check-layers.mjs [--root <dir>] [--json] (got "${argv[i]}")\n`,
      );
      return 2;
    }
  }
  const { files, violations } = await checkLayers(root);
  if (json) {
    process.stdout.write(`${JSON.stringify(violations, null, 2)}\n`);
    return violations.length > 0 ? 1 : 0;
  }
  for (const v of violations) {
    const note =
      v.kind === "inline-type" ? " (only `{ type … }` specifiers: write `import type` to erase it)" : "";
    process.stdout.write(`  error ${v.rule}: ${v.file}:${v.line} → ${v.target}${note}\n`);
  }
  const rulesBroken = [...new Set(violations.map((v) => v.rule))];
  for (const name of rulesBroken) {
    process.stdout.write(`\n  ${name}: ${RULES.find((rule) => rule.name === name).why}`);
  }
  process.stdout.write(
    violations.length === 0
      ? `✔ layers: no import breaks a rule (${files} files, ${RULES.length + CALL_RULES.length} rules)\n`
      : `\n\n✘ layers: ${violations.length} import(s) break ${rulesBroken.length} rule(s) (${files} files checked)\n`,
  );
  return violations.length > 0 ? 1 : 0;
}

if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) {
  main(process.argv.slice(2)).then(
    (code) => {
      process.exitCode = code;
    },
    (error) => {
      process.stderr.write(`check-layers: ${error.stack ?? error}\n`);
      process.exitCode = 2;
    },
  );
}
