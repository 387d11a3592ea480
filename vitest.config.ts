import { defineConfig } from "vitest/config";

const shared = { testTimeout: 30_000, hookTimeout: 30_000, pool: "forks" as const, maxWorkers: 2 };

export default defineConfig({
  test: {
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
