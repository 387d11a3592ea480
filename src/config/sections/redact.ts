// The `redact` section: what is redacted (telemetry/redact.ts) besides the defaults kept here.

import { z } from "zod";
import { regExpList, stringArray } from "./fields.js";

/**
 * Names whose values are secrets wherever they appear in arguments, records and log fields (besides
 * `redact.keys`), matched case-insensitively and across `-`, `_` and camelCase (`apiKey` is also
 * `api_key`, `X-API-Key`, `OPENAI_API_KEY`); also how environment variables with secret values are known.
 */
export const DEFAULT_REDACT_KEYS: readonly string[] = Object.freeze([
  "password",
  "passwd",
  "passphrase",
  "secret",
  "token",
  "apiKey",
  "accessKey",
  "privateKey",
  "authorization",
  "cookie",
  "credential",
  "credentials",
  "jwt",
]);
/**
 * Secret values (from the config or the environment) shorter than this are not searched for: that
 * short a value would match ordinary words, and is no credential worth the name.
 */
export const DEFAULT_REDACT_MIN_SECRET_CHARS = 8;

/** What is redacted besides the defaults (telemetry/redact.ts): more key names and regular expressions. */
export const redactSchema = z.strictObject(
  {
    keys: stringArray.optional(),
    patterns: regExpList.optional(),
  },
  { error: 'expected { "keys"?: [names], "patterns"?: [regular expressions] }' },
);
