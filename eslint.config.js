import js from "@eslint/js";
import { importX } from "eslint-plugin-import-x";
import reactHooks from "eslint-plugin-react-hooks";
import globals from "globals";
import tseslint from "typescript-eslint";

/** Each folder of app/ may import only from the folders below it, so no two folders form a cycle. */
const layers = [
  { target: "./app/content", from: ["./app/!(content)/**/*", "./app/*.{ts,tsx}"] },
  { target: "./app/utils", from: ["./app/!(content|utils)/**/*", "./app/*.{ts,tsx}"] },
  { target: "./app/forms", from: ["./app/!(content|forms)/**/*", "./app/!(context).{ts,tsx}"] },
  { target: "./app/calculator", from: ["./app/{contact,components,routes}/**/*", "./app/!(context).{ts,tsx}"] },
  { target: "./app/contact", from: ["./app/{calculator,components,routes}/**/*", "./app/!(context).{ts,tsx}"] },
  { target: "./app/components", from: ["./app/{calculator,contact,routes}/**/*", "./app/!(context).{ts,tsx}"] },
  // The Express server uses the app (site facts, the context contract); never the other way round.
  { target: "./app", from: "./server" },
];

export default tseslint.config(
  { ignores: ["build/", "public/build/", ".cache/", "node_modules/", "test-results/", "playwright-report/", "reports/"] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.browser, ...globals.node } },
    plugins: { "react-hooks": reactHooks },
    rules: {
      "react-hooks/rules-of-hooks": "error",
      "react-hooks/exhaustive-deps": "warn",
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_" }],
    },
  },
  {
    // A package's public entry points only: its build output (`/dist/…`) is no API, moves in any
    // release and would close the documented path to React Router 7 (decision 0021).
    rules: {
      "no-restricted-imports": [
        "error",
        { patterns: [{ group: ["**/dist", "**/dist/**"], message: "Import the package's public entry point, not its build output." }] },
      ],
    },
  },
  {
    files: ["app/**/*.{ts,tsx}", "server/**/*.ts"],
    plugins: { "import-x": importX },
    settings: importX.flatConfigs.typescript.settings,
    rules: {
      "import-x/no-cycle": "error",
      "import-x/no-restricted-paths": ["error", { zones: layers }],
    },
  },
  {
    // Server-only modules (*.server.ts) never reach the browser's bundle: only other server modules,
    // route modules and entry.server import them (a type-only import is erased and allowed).
    files: ["app/**/*.{ts,tsx}"],
    ignores: ["app/**/*.server.{ts,tsx}", "app/routes/**", "app/entry.server.tsx", "app/**/*.test.ts"],
    rules: {
      "@typescript-eslint/no-restricted-imports": [
        "error",
        {
          patterns: [
            {
              group: ["**/*.server", "*.server"],
              allowTypeImports: true,
              message: "Server-only code: import it from a *.server.ts module, a route or entry.server.",
            },
          ],
        },
      ],
    },
  },
  {
    // Playwright fixtures take an empty object pattern and call `use`, which is not React's hook.
    files: ["tests/**"],
    rules: { "no-empty-pattern": "off", "react-hooks/rules-of-hooks": "off" },
  },
  {
    // usePostgres() (tests/support/use-postgres.ts) registers vitest's hooks, not React's.
    files: ["server/**/*.test.ts"],
    rules: { "react-hooks/rules-of-hooks": "off" },
  },
);
