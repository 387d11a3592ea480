import { defineConfig } from "vitest/config";

// Every test file gets its own HOME and XDG folders in a temp folder of the run, removed at its end:
// tests leave the user's own data, state, cache and config folders alone (test/setup/).
const shared = {
  testTimeout: 30_000,
  hookTimeout: 30_000,
  pool: "forks" as const,
  maxWorkers: 2,
  setupFiles: ["test/setup/user-folders.ts"],
};

export default defineConfig({
  test: {
    globalSetup: ["test/setup/run-folder.ts"],
    projects: [
      { test: { ...shared, name: "suite", include: ["test/**/*.test.ts"], exclude: ["test/faults/**"] } },
      // The fault suite loads both cores on its own: it runs after everything else, alone.
      {
        test: {
          ...shared,
          name: "faults",
          include: ["test/faults/**/*.test.ts"],
          sequence: { groupOrder: 1 },
        },
      },
    ],
  },
});
