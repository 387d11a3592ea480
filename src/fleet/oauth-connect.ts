// The OAuth provider a session hands its HTTP transport: the SDK's machine-to-machine providers for the
// `client_credentials` and `cross_app_access` grants (no user, no login, no token file), else ours.
import {
  ClientCredentialsProvider,
  CrossAppAccessProvider,
  computeScopeUnion,
  PrivateKeyJwtProvider,
  requestJwtAuthorizationGrant,
} from "@modelcontextprotocol/client";
import { DEFAULT_OAUTH_SIGNING_ALGORITHM } from "../config/defaults.js";
import type { ServerConfig } from "../config/schema.js";
import { FileOAuthProvider } from "./oauth-provider.js";
import { redirectUrlFor } from "./oauth-redirect.js";
import { oauthStorePath } from "./oauth-token-file.js";

/** A provider of a machine grant: no user, no login, no token file. */
type MachineProvider = ClientCredentialsProvider | PrivateKeyJwtProvider | CrossAppAccessProvider;

/**
 * The provider a session hands its HTTP transport for `config`, or undefined when the server has no
 * `oauth` section: the SDK's machine-to-machine providers for `client_credentials` (a secret:
 * ClientCredentialsProvider; a private key: PrivateKeyJwtProvider) and `cross_app_access`
 * (CrossAppAccessProvider, the identity provider's ID token exchanged for a JWT authorization grant);
 * else ours, in connect mode (a flow that needs the user only marks the provider `needsLogin`).
 */
export function connectAuthProvider(
  config: ServerConfig,
  serverUrl: string,
): FileOAuthProvider | MachineProvider | undefined {
  const oauth = config.oauth;
  if (!oauth) return undefined;
  const common = {
    clientId: oauth.clientId!,
    clientName: "Switchyard",
    ...(oauth.issuer ? { expectedIssuer: oauth.issuer } : {}),
  };
  const scope = oauth.scopes.length ? { scope: oauth.scopes.join(" ") } : {};
  if (oauth.grant === "client_credentials") {
    return oauth.privateKey
      ? new PrivateKeyJwtProvider({
          ...common,
          ...scope,
          privateKey: oauth.privateKey,
          algorithm: oauth.signingAlgorithm ?? DEFAULT_OAUTH_SIGNING_ALGORITHM,
        })
      : new ClientCredentialsProvider({ ...common, ...scope, clientSecret: oauth.clientSecret! });
  }
  if (oauth.grant === "cross_app_access") {
    const idp = oauth.idp!;
    return new CrossAppAccessProvider({
      ...common,
      clientSecret: oauth.clientSecret!,
      assertion: async (target) => {
        const wanted = computeScopeUnion(target.scope, oauth.scopes.join(" ") || undefined);
        const grant = await requestJwtAuthorizationGrant({
          tokenEndpoint: idp.tokenEndpoint,
          audience: target.authorizationServerUrl,
          resource: target.resourceUrl,
          idToken: idp.idToken,
          clientId: idp.clientId,
          ...(idp.clientSecret ? { clientSecret: idp.clientSecret } : {}),
          ...(wanted ? { scope: wanted } : {}),
          fetchFn: target.fetchFn,
        });
        return grant.jwtAuthGrant;
      },
    });
  }
  // Without a configured port the redirect URI is only known at login; a placeholder serves here.
  return new FileOAuthProvider(config, oauthStorePath(serverUrl), {
    redirectUrl: redirectUrlFor(oauth.redirectPort ?? 0),
  });
}
