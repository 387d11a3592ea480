// What the model is shown of a server's text: every string with its hidden and control characters
// removed (trust/hidden-text.ts), however deep in a schema it sits. The same object back when nothing
// was hidden, so a clean catalog costs one scan of its strings and no copies.
import { stripHidden } from "./hidden-text.js";

/** `value` with every string in it stripped of hidden text; the same value when none had any. */
export function withoutHidden<T>(value: T): T {
  if (typeof value === "string") return stripHidden(value) as T;
  if (Array.isArray(value)) {
    let copy: unknown[] | undefined;
    value.forEach((item, index) => {
      const clean = withoutHidden(item);
      if (clean === item) return;
      copy ??= [...value];
      copy[index] = clean;
    });
    return (copy ?? value) as T;
  }
  if (typeof value === "object" && value !== null) {
    let copy: Record<string, unknown> | undefined;
    // Keys stay as they are: a parameter's name is what the server expects back.
    for (const [key, item] of Object.entries(value)) {
      const clean = withoutHidden(item);
      if (clean === item) continue;
      copy ??= { ...(value as Record<string, unknown>) };
      copy[key] = clean;
    }
    return (copy ?? value) as T;
  }
  return value;
}
