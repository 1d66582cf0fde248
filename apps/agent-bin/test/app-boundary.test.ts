/**
 * No app imports the other (issue #32): neither `apps/agent-bin` nor `apps/web` declares the
 * other as a dependency or imports it from its sources, tests, benches or configs. Tests that need
 * both start the other as a process (`startViewer`, the built binary).
 */
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const apps = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");

function manifest(app: string): { name: string } & Record<string, unknown> {
  return JSON.parse(readFileSync(path.join(apps, app, "package.json"), "utf8"));
}

/** The app's own code: every .ts/.tsx/.mjs file outside node_modules and build output. */
function codeFiles(app: string): string[] {
  return readdirSync(path.join(apps, app), { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && /\.(?:tsx?|mjs|cjs)$/.test(entry.name))
    .map((entry) => path.join(entry.parentPath, entry.name))
    .filter((file) => !/[\\/](?:node_modules|dist)[\\/]/.test(path.relative(apps, file)));
}

describe("app boundaries", () => {
  const names = ["agent-bin", "web"] as const;
  for (const app of names) {
    const other = manifest(names.find((name) => name !== app)!).name;
    it(`${app} neither depends on nor imports ${other}`, () => {
      const own = manifest(app);
      for (const field of ["dependencies", "devDependencies", "peerDependencies"]) {
        expect(Object.keys((own[field] as Record<string, string>) ?? {})).not.toContain(other);
      }
      const importing = codeFiles(app).filter((file) =>
        new RegExp(`(?:from|import\\(|require\\()\\s*["']${other}(?:/|["'])`).test(
          readFileSync(file, "utf8"),
        ),
      );
      expect(importing).toEqual([]);
    });
  }
});
