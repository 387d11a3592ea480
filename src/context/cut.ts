// Cutting text and JSON to a number of characters, with markers that say what was left out: the
// pieces shapeToolResult (shape-result.ts) puts together.

/** Characters held back for the note that says what was left out of a JSON value. */
const NOTE_CHARS = 400;

/** `4,950`: numbers as the markers write them. */
export const number = (value: number): string => value.toLocaleString("en-US");
/** `1 item`, `4,950 items`. */
const count = (value: number, noun: string): string => `${number(value)} ${noun}${value === 1 ? "" : "s"}`;

/** `JSON.stringify`, or undefined for a value nested too deep to serialize (a RangeError). */
export function serialize(value: unknown): string | undefined {
  try {
    return JSON.stringify(value);
  } catch {
    return undefined;
  }
}

/** Where to cut at or before `index` without splitting a surrogate pair. */
function safeEnd(text: string, index: number): number {
  const code = text.charCodeAt(index - 1);
  return index > 0 && code >= 0xd800 && code <= 0xdbff ? index - 1 : index;
}

/** Where to start at or after `index` without splitting a surrogate pair. */
function safeStart(text: string, index: number): number {
  const code = text.charCodeAt(index);
  return code >= 0xdc00 && code <= 0xdfff ? index + 1 : index;
}

// --- Text: head and tail -----------------------------------------------------------------------

/**
 * `text` in about `chars` characters: two thirds of the room for its head, one for its tail (each ended
 * at a line's end when one is near), around a marker of the characters left out and `more`.
 */
export function cutText(text: string, chars: number, more: string): string {
  const marker = (left: number) =>
    `\n[… ${number(left)} of ${number(text.length)} characters left out here; ${more}]\n`;
  const room = Math.max(0, chars - marker(text.length).length);
  let head = safeEnd(text, Math.ceil((room * 2) / 3));
  const newline = text.lastIndexOf("\n", head);
  if (newline > head * 0.8) head = newline; // end the head at a line's end when one is near
  let tail = safeStart(text, text.length - (room - head));
  const tailNewline = text.indexOf("\n", tail);
  if (tailNewline !== -1 && tailNewline - tail < (text.length - tail) * 0.2) tail = tailNewline + 1;
  if (tail < head) tail = head;
  return `${text.slice(0, head)}${marker(tail - head)}${text.slice(tail)}`;
}

// --- JSON: valid, pruned -----------------------------------------------------------------------

interface Limits {
  items: number;
  keys: number;
  stringChars: number;
  depth: number;
}

interface PruneStats {
  arrays: number;
  items: number;
  objects: number;
  keys: number;
  strings: number;
  chars: number;
  deep: number;
}

/** Limits for a scale from 0 (the tightest) to 1 (generous): bigger scale, bigger output. */
function limitsAt(scale: number): Limits {
  const items = Math.max(1, Math.floor(2 ** (scale * 10)));
  return {
    items,
    keys: Math.max(8, items * 2),
    stringChars: Math.floor(16 * 2 ** (scale * 9)),
    depth: 1 + Math.floor(scale * 15),
  };
}

const TOO_BIG = Symbol("too big");

function summary(value: object): string {
  return Array.isArray(value)
    ? `… [an array of ${count(value.length, "item")}]`
    : `… {an object of ${count(Object.keys(value).length, "key")}}`;
}

/**
 * A copy of `value` within `limits`, with a marker for each cut; throws {@link TOO_BIG} once its
 * serialized size passes `maxChars`, so a too-generous try costs no more than the budget.
 */
function prune(value: unknown, limits: Limits, maxChars: number, stats: PruneStats): unknown {
  let size = 0;
  const grow = (chars: number) => {
    size += chars;
    if (size > maxChars) throw TOO_BIG;
  };
  const walk = (node: unknown, depth: number): unknown => {
    if (typeof node === "string") {
      if (node.length <= limits.stringChars) {
        grow(node.length + 2);
        return node;
      }
      const end = safeEnd(node, limits.stringChars);
      stats.strings++;
      stats.chars += node.length - end;
      const cut = `${node.slice(0, end)}… [+${number(node.length - end)} characters]`;
      grow(cut.length + 2);
      return cut;
    }
    if (node === null || typeof node !== "object") {
      grow(String(node).length + 1);
      return node;
    }
    if (depth >= limits.depth) {
      stats.deep++;
      const marker = summary(node);
      grow(marker.length + 2);
      return marker;
    }
    if (Array.isArray(node)) {
      const kept = node.slice(0, limits.items).map((item) => {
        grow(1);
        return walk(item, depth + 1);
      });
      if (node.length > kept.length) {
        stats.arrays++;
        stats.items += node.length - kept.length;
        const marker = `… ${number(node.length - kept.length)} more ${node.length - kept.length === 1 ? "item" : "items"} (${number(node.length)} in all)`;
        grow(marker.length + 3);
        kept.push(marker);
      }
      return kept;
    }
    const keys = Object.keys(node);
    // No prototype: a "__proto__" key stays a key.
    const copy: Record<string, unknown> = Object.create(null);
    for (const key of keys.slice(0, limits.keys)) {
      grow(key.length + 4);
      copy[key] = walk((node as Record<string, unknown>)[key], depth + 1);
    }
    if (keys.length > limits.keys) {
      stats.objects++;
      stats.keys += keys.length - limits.keys;
      const marker = `${number(keys.length - limits.keys)} more ${keys.length - limits.keys === 1 ? "key" : "keys"} (${number(keys.length)} in all)`;
      grow(marker.length + 8);
      copy["…" in copy ? "… more" : "…"] = marker;
    }
    return copy;
  };
  return walk(value, 0);
}

function noteOf(stats: PruneStats, limits: Limits, source: string, tokens: number, more: string): string {
  const cuts: string[] = [];
  if (stats.arrays)
    cuts.push(
      `long arrays keep their first ${count(limits.items, "item")} (${count(stats.items, "item")} left out)`,
    );
  if (stats.objects)
    cuts.push(
      `big objects keep their first ${count(limits.keys, "key")} (${count(stats.keys, "key")} left out)`,
    );
  if (stats.strings)
    cuts.push(
      `${count(stats.strings, "long string")} cut to ${count(limits.stringChars, "character")} (${count(stats.chars, "character")} left out)`,
    );
  if (stats.deep)
    cuts.push(`${count(stats.deep, "value")} nested deeper than ${count(limits.depth, "level")} summarized`);
  const what = cuts.length ? cuts.join("; ") : "the value summarized";
  return `[JSON shaped to fit: ${what}; the whole is ${number(source.length)} characters, ~${number(tokens)} tokens; ${more}]`;
}

/**
 * A JSON value in `chars` characters, valid JSON: compact when that fits, else a note line of what was
 * left out (with `tokens`, the whole's, and `more`) and the largest pruning that fits, found by bisecting
 * the limits' scale; `cut` is false when nothing was left out.
 */
export function cutJson(
  part: { value: unknown; source: string },
  chars: number,
  tokens: number,
  more: string,
): { text: string; cut: boolean } {
  if (part.source.length <= chars * 4) {
    // Pretty-printed JSON may fit once compact: reformatting is not cutting.
    const compact = serialize(part.value);
    if (compact !== undefined && compact.length <= chars) return { text: compact, cut: false };
  }
  const room = Math.max(0, chars - NOTE_CHARS);
  let best: { json: string; stats: PruneStats; limits: Limits } | undefined;
  let low = 0;
  let high = 1;
  for (let step = 0; step < 10; step++) {
    const scale = step === 0 ? 0 : (low + high) / 2;
    const limits = limitsAt(scale);
    const stats: PruneStats = { arrays: 0, items: 0, objects: 0, keys: 0, strings: 0, chars: 0, deep: 0 };
    let json: string | undefined;
    try {
      json = JSON.stringify(prune(part.value, limits, room, stats));
    } catch (error) {
      if (error !== TOO_BIG) throw error;
    }
    if (json !== undefined && json.length <= room) {
      best = { json, stats, limits };
      low = scale;
    } else if (step === 0) {
      break; // even the tightest pruning is too big
    } else {
      high = scale;
    }
  }
  if (!best) {
    const marker = JSON.stringify(summary(part.value as object));
    const note = `[JSON shaped to fit: only its outline is shown; the whole is ${number(part.source.length)} characters, ~${number(tokens)} tokens; ${more}]`;
    return { text: `${note}\n${marker}`, cut: true };
  }
  return { text: `${noteOf(best.stats, best.limits, part.source, tokens, more)}\n${best.json}`, cut: true };
}
