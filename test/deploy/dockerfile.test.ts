// The Dockerfile, checked with no Docker daemon: dockerfile-utils' validator (what an editor's Docker
// language server reports: unknown instructions, bad flags, durations, ports, JSON in single quotes), then
// the rules docs/deploy.md claims for the image — multi-stage, a Debian slim Node base, the final stage
// with no build tools and no package installs, run as a non-root user, a HEALTHCHECK on /healthz of the
// port it serves — and a .dockerignore that lets in only what the build copies.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { validate } from "dockerfile-utils";
import { describe, expect, it } from "vitest";
import { ROOT } from "../helpers.js";

const DOCKERFILE = readFileSync(join(ROOT, "Dockerfile"), "utf8");
const DOCKERIGNORE = readFileSync(join(ROOT, ".dockerignore"), "utf8");

interface Instruction {
  keyword: string;
  args: string;
}

/** The Dockerfile's instructions (continuation lines joined, comments and the parser directive left out). */
function instructions(text: string): Instruction[] {
  return text
    .replace(/\\\n/g, " ")
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => line && !line.startsWith("#"))
    .map((line) => {
      const [keyword = "", ...rest] = line.split(/\s+/);
      return { keyword: keyword.toUpperCase(), args: rest.join(" ") };
    });
}

/** The build stages, each from its FROM; `args` are the ARGs before the first FROM (the bases' defaults). */
function stages(text: string) {
  const all = instructions(text);
  const first = all.findIndex((instruction) => instruction.keyword === "FROM");
  const args = Object.fromEntries(
    all.slice(0, first).map((instruction) => instruction.args.split("=") as [string, string]),
  );
  const result: Instruction[][] = [];
  for (const instruction of all.slice(first)) {
    if (instruction.keyword === "FROM") result.push([]);
    result.at(-1)!.push(instruction);
  }
  return { args, stages: result };
}

const { args, stages: built } = stages(DOCKERFILE);
const final = built.at(-1)!;
const finalOf = (keyword: string) => final.filter((instruction) => instruction.keyword === keyword);

describe("Dockerfile", () => {
  it("has nothing dockerfile-utils' validator reports", () => {
    const problems = validate(DOCKERFILE).map(
      (problem) => `line ${problem.range.start.line + 1}: ${problem.message}`,
    );
    expect(problems).toEqual([]);
  });

  it("the validator catches a broken Dockerfile (it is not a no-op)", () => {
    const broken = DOCKERFILE.replace("--interval=30s", "--interval=often");
    expect(validate(broken).map((problem) => problem.message)).toEqual([
      expect.stringMatching(/invalid duration/),
    ]);
  });

  it("builds in stages, each from a Debian slim Node image", () => {
    expect(built.length).toBeGreaterThanOrEqual(2);
    for (const stage of built) {
      const base = stage[0]!.args
        .split(/\s+/)[0]!
        .replace(/^\$\{(\w+)\}$/, (_, name: string) => args[name] ?? "");
      expect(base).toMatch(/^node:\d+(\.\d+)*-(bookworm|trixie)-slim$/);
    }
  });

  it("the final stage installs nothing and builds nothing: it copies the built package and its dependencies", () => {
    for (const run of finalOf("RUN"))
      expect(run.args).not.toMatch(/apt-get|apk |npm (ci|install|i )|g\+\+|gcc|make|python|build-essential/);
    const copied = finalOf("COPY").map((copy) => copy.args);
    expect(copied.filter((copy) => !copy.includes("--from="))).toEqual([
      expect.stringMatching(/^--chown=\S+ package\.json/),
    ]);
    expect(copied.join("\n")).toMatch(/--from=build .*\/dist /);
    expect(copied.join("\n")).toMatch(/--from=deps .*\/node_modules /);
    expect(finalOf("ENV").map((env) => env.args)).toContain("NODE_ENV=production");
  });

  it("runs as a non-root user, set before what it runs", () => {
    const users = finalOf("USER");
    expect(users.length).toBeGreaterThan(0);
    const user = users.at(-1)!.args;
    expect(user).not.toMatch(/^(root|0)(:|$)/);
    const position = final.lastIndexOf(users.at(-1)!);
    expect(final.findIndex((instruction) => instruction.keyword === "ENTRYPOINT")).toBeGreaterThan(position);
  });

  it("serves on the port it exposes, with a HEALTHCHECK of /healthz there", () => {
    const cmd = JSON.parse(finalOf("CMD").at(-1)!.args) as string[];
    const entrypoint = JSON.parse(finalOf("ENTRYPOINT").at(-1)!.args) as string[];
    expect(entrypoint).toEqual(["node", "/app/dist/cli/main.js"]);
    const port = cmd[cmd.indexOf("--http") + 1];
    expect(cmd).toEqual(expect.arrayContaining(["serve", "--http", "--host", "0.0.0.0"]));
    expect(finalOf("EXPOSE").map((expose) => expose.args)).toEqual([port]);
    const [healthcheck] = finalOf("HEALTHCHECK");
    expect(healthcheck?.args).toContain(`http://127.0.0.1:${port}/healthz`);
  });

  it(".dockerignore lets in only what the build copies from the context", () => {
    const lines = DOCKERIGNORE.split("\n")
      .map((line) => line.trim())
      .filter((line) => line && !line.startsWith("#"));
    expect(lines[0]).toBe("*");
    const allowed = lines.slice(1).map((line) => line.replace(/^!/, "").replace(/\/$/, ""));
    const fromContext = built
      .flat()
      .filter((instruction) => instruction.keyword === "COPY" && !instruction.args.includes("--from="))
      .flatMap((copy) =>
        copy.args
          .split(/\s+/)
          .filter((word) => !word.startsWith("--"))
          .slice(0, -1),
      )
      .map((source) => source.replace(/\/$/, ""));
    expect(new Set(allowed)).toEqual(new Set(fromContext));
  });
});
