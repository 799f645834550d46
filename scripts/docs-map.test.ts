import { existsSync, readFileSync } from "node:fs";
import { expect, it } from "vitest";

const root = new URL("../", import.meta.url);

// docs/testing.md maps each promise to the tests that prove it: specs named from tests/, the rest from the root.
it("every test file and tests/ path docs/testing.md names exists", () => {
  const text = readFileSync(new URL("docs/testing.md", root), "utf8");
  const named = new Set(text.match(/(?<![\w./*-])(?:tests\/[\w./-]*\w|[\w-][\w./-]*\.(?:test|spec)\.tsx?)/g));
  expect(named.size).toBeGreaterThan(50);
  const missing = [...named].filter((path) => !existsSync(new URL(path, root)) && !existsSync(new URL(`tests/${path}`, root)));
  expect(missing).toEqual([]);
});
