import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { serverCacheDir } from "../../src/fleet/catalog-cache.js";
import { Switchyard } from "../../src/index.js";
import { NODE, ROOT, runCli } from "../helpers.js";

const KNEE_SERVER = `${ROOT}test/fixtures/knee-server.mjs`;

let dir: string;
let pidFile: string;
const opened: Switchyard[] = [];

beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), "switchyard-lazy-"));
  pidFile = path.join(dir, "started.pid");
  // The library's cache follows XDG_CACHE_HOME, read at each connect: this test's own folder.
  process.env.XDG_CACHE_HOME = path.join(dir, "cache");
});
afterEach(async () => {
  await Promise.all(opened.splice(0).map((yard) => yard.close()));
  delete process.env.XDG_CACHE_HOME;
  rmSync(dir, { recursive: true, force: true });
});

/** A lazy server that writes its pid to `pidFile` when it starts. */
const lazyServer = (...flags: string[]) => ({
  command: NODE,
  args: [KNEE_SERVER, "--base-ms", "1", "--pid-file", pidFile, ...flags],
  lazy: true,
});

async function connect(server: Record<string, unknown>) {
  const yard = await Switchyard.connect({ mcpServers: { k: server } });
  opened.push(yard);
  return yard;
}

/** Whether the process whose pid the server wrote is running. */
function started(): number | undefined {
  if (!existsSync(pidFile)) return undefined;
  const pid = Number(readFileSync(pidFile, "utf8"));
  try {
    process.kill(pid, 0);
    return pid;
  } catch {
    return undefined;
  }
}

describe("a lazy server", () => {
  it("is started by connect when nothing is cached, and its catalog is kept", async () => {
    const first = await connect(lazyServer());
    expect(first.servers()[0]).toMatchObject({ status: "ready", tools: 2 });
    expect(started()).toBeDefined();
    await first.close();
    expect(readdirSync(serverCacheDir())).toHaveLength(1);
  });

  it("is not started by connect once its catalog is cached: its tools come from the cache, the first call starts it", async () => {
    await (await connect(lazyServer())).close();
    rmSync(pidFile);

    const yard = await connect(lazyServer());
    expect(started()).toBeUndefined();
    expect(yard.servers()[0]).toMatchObject({
      status: "lazy",
      tools: 2,
      serverInfo: { name: "knee", version: "1.0.0" },
    });
    expect(
      yard
        .tools()
        .map((tool) => tool.name)
        .sort(),
    ).toEqual(["k_echo", "k_work"]);
    expect(yard.describeTool("k_echo")?.inputSchema).toMatchObject({ required: ["text"] });

    // Calls that arrive together share one start.
    const answers = await Promise.all(["a", "b", "c"].map((text) => yard.callTool("k_echo", { text })));
    expect(answers.map((answer) => answer.text)).toEqual(["a", "b", "c"]);
    const pid = started();
    expect(pid).toBeDefined();
    expect(yard.servers()[0]).toMatchObject({ status: "ready", pid, restarts: 0 });
    await yard.close();
    expect(started()).toBeUndefined(); // stopped with the rest
  });

  it("fails its first call with SERVER_UNAVAILABLE when it cannot start, and is failed from then on", async () => {
    await (await connect(lazyServer())).close();
    rmSync(pidFile);
    mkdirSync(pidFile); // the server cannot write its pid file now: it exits at start
    const yard = await connect(lazyServer());
    expect(yard.servers()[0]!.status).toBe("lazy");
    await expect(yard.callTool("k_echo", { text: "x" })).rejects.toMatchObject({
      code: "SERVER_UNAVAILABLE",
      message: expect.stringContaining("server k"),
    });
    expect(yard.servers()[0]!.status).toBe("failed");
    expect(yard.tools()).toEqual([]);
  });

  it("closes cleanly without ever starting", async () => {
    await (await connect(lazyServer())).close();
    rmSync(pidFile);
    const yard = await connect(lazyServer());
    await yard.close();
    expect(existsSync(pidFile)).toBe(false);
    expect(yard.servers()[0]!.status).toBe("closed");
  });

  it("is started at connect again when its command changed (the cache no longer fits)", async () => {
    await (await connect(lazyServer())).close();
    rmSync(pidFile);
    const changed = await connect(lazyServer("--version", "2.0.0"));
    expect(started()).toBeDefined();
    expect(changed.servers()[0]).toMatchObject({ status: "ready", serverInfo: { version: "2.0.0" } });
    await changed.close();
    rmSync(pidFile);
    // Each launch has its own entry: the first one is still cached, and fits its command.
    const again = await connect(lazyServer());
    expect(again.servers()[0]!.status).toBe("lazy");
    expect(started()).toBeUndefined();
  });

  it("is started at connect when its script file changed", async () => {
    const script = path.join(dir, "server.mjs");
    writeFileSync(script, `import ${JSON.stringify(KNEE_SERVER)};\n`);
    const server = { ...lazyServer(), args: [script, "--pid-file", pidFile] };
    await (await connect(server)).close();
    rmSync(pidFile);
    writeFileSync(script, `// changed\nimport ${JSON.stringify(KNEE_SERVER)};\n`);
    const yard = await connect(server);
    expect(yard.servers()[0]!.status).toBe("ready");
    expect(started()).toBeDefined();
  });

  it("shows as lazy in switchyard servers until used", async () => {
    const config = path.join(dir, "switchyard.config.json");
    writeFileSync(config, JSON.stringify({ mcpServers: { k: lazyServer() } }));
    const env = { XDG_CACHE_HOME: path.join(dir, "cache") };
    const first = await runCli(["--config", config, "--json", "servers"], { env });
    expect(JSON.parse(first.stdout)[0]).toMatchObject({ status: "ready", tools: 2 });
    rmSync(pidFile);
    const second = await runCli(["--config", config, "servers"], { env });
    expect(second.code).toBe(0);
    expect(second.stdout).toMatch(/^k\s+lazy\s+stdio\s+-\s+2\s/m);
    expect(existsSync(pidFile)).toBe(false);
  });
});
