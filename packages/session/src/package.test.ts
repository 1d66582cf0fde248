import { readdirSync, readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { sessionLogJsonSchema } from "./json-schema";

const src = new URL("./", import.meta.url);

describe("package contract", () => {
  it("architecture/session-log.schema.json matches the zod schemas (run `pnpm --filter @tapedeck/session schema`)", () => {
    const committed = readFileSync(
      new URL("../../../architecture/session-log.schema.json", import.meta.url),
      "utf8",
    );
    expect(JSON.parse(committed)).toEqual(sessionLogJsonSchema());
  });

  it("imports nothing Node-only outside tests, so the browser bundle can use it", () => {
    const sources = readdirSync(src).filter(
      (name) => name.endsWith(".ts") && !name.endsWith(".test.ts"),
    );
    expect(sources.length).toBeGreaterThan(5);
    for (const name of sources) {
      const text = readFileSync(new URL(name, src), "utf8");
      expect(text, name).not.toMatch(/from\s+["'](node:|fs|path|os|crypto)["']/);
    }
  });
});
