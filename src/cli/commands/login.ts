import path from "node:path";
import type { ServerConfig } from "../../internal.js";
import { authorizeServer, didYouMean, forgetAuthorization, openInBrowser } from "../../internal.js";
import type { CommandContext } from "../context.js";
import { CliError, EXIT_OK, EXIT_USAGE } from "../exit-codes.js";

/** The `url` server of the config named `name`; a usage error otherwise. */
function remoteServer(ctx: CommandContext, name: string): ServerConfig {
  const config = ctx.loadConfig();
  const server = config.servers.find((entry) => entry.name === name);
  if (!server) {
    const known = config.servers.map((entry) => entry.name);
    const hint = didYouMean(name, known);
    throw new CliError(
      `no server named "${name}" in ${path.basename(ctx.configFile())}${hint ? ` (${hint})` : ""}`,
      EXIT_USAGE,
    );
  }
  if (!server.url || server.command) {
    throw new CliError(
      `server ${name} is not a remote (url) server: there is nothing to log in to`,
      EXIT_USAGE,
    );
  }
  return server;
}

/**
 * `switchyard login <server>`: the OAuth authorization-code flow; prints the authorization URL (and
 * opens a browser on a terminal), waits for the redirect, saves the tokens.
 */
export async function loginCommand(ctx: CommandContext, name: string): Promise<number> {
  const server = remoteServer(ctx, name);
  const result = await authorizeServer(server, {
    onAuthorizationUrl: (url) => {
      ctx.out.note(`open this URL to log in to ${name}:`);
      ctx.out.result(url.href);
      if (process.stdout.isTTY && openInBrowser(url.href)) ctx.out.note("(opened in your browser)");
    },
  });
  if (ctx.out.json) ctx.out.data({ server: name, loggedIn: true, store: result.store });
  else ctx.out.result(`logged in to ${name}`);
  return EXIT_OK;
}

/** `switchyard logout <server>`: delete the server's stored tokens. */
export async function logoutCommand(ctx: CommandContext, name: string): Promise<number> {
  const removed = forgetAuthorization(remoteServer(ctx, name));
  if (ctx.out.json) ctx.out.data({ server: name, loggedOut: removed });
  else ctx.out.result(removed ? `logged out of ${name}` : `no stored login for ${name}`);
  return EXIT_OK;
}
