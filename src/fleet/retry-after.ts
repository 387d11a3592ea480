// A server's "not now": HTTP 429, or 503 with `Retry-After`, to a request it did not process. Read once
// where the answer arrives (the HTTP transport's fetch), carried to the classification as the cause.

/**
 * Milliseconds until `value` (a `Retry-After` header: delta-seconds or an HTTP-date) comes, from `now`;
 * undefined when it is absent or unreadable. A date already past is 0.
 */
export function retryAfterMs(value: string | null | undefined, now = Date.now()): number | undefined {
  const text = value?.trim();
  if (!text) return undefined;
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  const at = Date.parse(text);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

/**
 * What the fetch of a request the server refused for now throws: the SDK would keep only the status,
 * and lose when to come back. `call-errors.ts` turns it into `RATE_LIMITED` (`delivery: "transient"`,
 * never a server fault); the guard waits and sends the request again while the deadline allows.
 */
export class RateLimitedAnswer extends Error {
  override readonly name = "RateLimitedAnswer";
  readonly status: number;
  /** When to try again, in ms from when the answer came; undefined when the server did not say. */
  readonly retryAfterMs: number | undefined;

  constructor(status: number, retryAfter: number | undefined) {
    super(
      `HTTP ${status}${retryAfter === undefined ? "" : ` (Retry-After: ${Math.ceil(retryAfter / 1000)} s)`}`,
    );
    this.status = status;
    this.retryAfterMs = retryAfter;
  }
}

/**
 * The refusal in `response` to throw, when it is one: a 429 (whether or not it says when), or a 503
 * that says when (one that does not is a server in trouble, a fault). Its body is discarded.
 */
export async function rateLimitOf(response: Response): Promise<RateLimitedAnswer | undefined> {
  if (response.status !== 429 && response.status !== 503) return undefined;
  const after = retryAfterMs(response.headers.get("retry-after"));
  if (response.status === 503 && after === undefined) return undefined;
  await response.body?.cancel().catch(() => {});
  return new RateLimitedAnswer(response.status, after);
}
