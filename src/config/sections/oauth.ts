// A server's `oauth` key (OAuth 2.1 for a `url` server): the defaults of `switchyard login` and of the
// grants, the key as written, and `OAuthConfig`, the key resolved (resolve-server.ts checks each grant).

import { z } from "zod";
import { OAUTH_GRANTS, type OAuthGrant, quotedList } from "../vocabulary.js";
import { stringArray } from "./fields.js";

/** How long `switchyard login` waits for the browser's redirect with the authorization code. */
export const DEFAULT_LOGIN_TIMEOUT_MS = 300_000;
/** The path of the loopback redirect URI `switchyard login` listens on. */
export const DEFAULT_OAUTH_CALLBACK_PATH = "/callback";
/** How long a login's first question to the server (which scope its challenge asks for) may take. */
export const DEFAULT_OAUTH_PROBE_TIMEOUT_MS = 10_000;
/** The JWS algorithm of `oauth.privateKey` when `oauth.signingAlgorithm` names none. */
export const DEFAULT_OAUTH_SIGNING_ALGORITHM = "RS256";

/** A server's `oauth` key as written; {@link OAuthConfig} is what it resolves to. */
export const serverOAuthSchema = z.strictObject(
  {
    grant: z.enum(OAUTH_GRANTS, { error: `expected ${quotedList(OAUTH_GRANTS)}` }).optional(),
    clientId: z.string().min(1).optional(),
    clientSecret: z.string().min(1).optional(),
    scopes: stringArray.optional(),
    redirectPort: z.number().int().min(1).max(65535).optional(),
    issuer: z.string().url().optional(),
    clientMetadataUrl: z
      .string()
      .url()
      .refine((url) => /^https:\/\/[^/]+\/./i.test(url), {
        error: "expected the https URL of a client ID metadata document (with a path)",
      })
      .optional(),
    privateKey: z.string({ error: "expected a PEM private key (a string)" }).min(1).optional(),
    signingAlgorithm: z.string({ error: 'expected a JWS algorithm, such as "RS256" or "ES256"' }).optional(),
    idp: z
      .strictObject(
        {
          tokenEndpoint: z.string().url(),
          clientId: z.string().min(1),
          clientSecret: z.string().min(1).optional(),
          idToken: z.string().min(1),
        },
        {
          error:
            'expected { "tokenEndpoint": URL, "clientId", "clientSecret"?, "idToken" } (the enterprise identity provider)',
        },
      )
      .optional(),
  },
  {
    error:
      'expected { "clientId"?, "clientSecret"?, "scopes"?: [strings], "redirectPort"?: port, "issuer"?: URL, "grant"?: "authorization_code" | "client_credentials" | "cross_app_access", "clientMetadataUrl"?, "privateKey"?, "signingAlgorithm"?, "idp"? }',
  },
);

/** A server's `oauth` section: no `clientId` means dynamic client registration. */
export interface OAuthConfig {
  grant: OAuthGrant;
  clientId?: string;
  clientSecret?: string;
  scopes: string[];
  redirectPort?: number;
  /** The authorization server's issuer: the client credentials are sent to it only. */
  issuer?: string;
  /** The https URL of this client's client ID metadata document, used where the server supports it. */
  clientMetadataUrl?: string;
  /** `client_credentials` with `private_key_jwt`: the PEM key that signs the client assertion. */
  privateKey?: string;
  /** The JWS algorithm of `privateKey` (`DEFAULT_OAUTH_SIGNING_ALGORITHM`). */
  signingAlgorithm?: string;
  /** `cross_app_access`: the enterprise identity provider whose ID token is exchanged for a grant. */
  idp?: { tokenEndpoint: string; clientId: string; clientSecret?: string; idToken: string };
}
