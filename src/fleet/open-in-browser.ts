import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import path from "node:path";

/**
 * Open `url` in the user's browser: `$BROWSER`, else `xdg-open` when it is on the PATH. Resolves with
 * whether one was started (it is not waited for).
 */
export function openInBrowser(url: string, env: NodeJS.ProcessEnv = process.env): boolean {
  const onPath = (name: string) =>
    (env.PATH ?? "")
      .split(path.delimiter)
      .some((folder) => folder !== "" && existsSync(path.join(folder, name)));
  const browser = env.BROWSER ? env.BROWSER : onPath("xdg-open") ? "xdg-open" : undefined;
  if (!browser) return false;
  try {
    const child = spawn(browser, [url], { detached: true, stdio: "ignore" });
    child.on("error", () => {});
    child.unref();
    return true;
  } catch {
    return false;
  }
}
