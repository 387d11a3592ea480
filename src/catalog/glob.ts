/** Compile shell-style globs (`*` any run, `?` one character) into one matcher; no globs match nothing. */
export function globMatcher(globs: readonly string[]): (name: string) => boolean {
  if (globs.length === 0) return () => false;
  const patterns = globs.map(
    (glob) =>
      new RegExp(
        `^${glob
          .split("")
          .map((char) =>
            char === "*" ? ".*" : char === "?" ? "." : char.replace(/[.+^${}()|[\]\\]/g, "\\$&"),
          )
          .join("")}$`,
      ),
  );
  return (name) => patterns.some((pattern) => pattern.test(name));
}
