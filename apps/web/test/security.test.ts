import { spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { createSessionStore } from "@tapedeck/session-store";
import { withRunTmpdir } from "@tapedeck/test-harness";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { tokensEqual } from "../src/server/http-guard";
import { createApp, createMemoryIndex, type WebApp } from "../src/server/index";

let root: string;
let web: WebApp | undefined;

beforeEach(() => {
  root = mkdtempSync(path.join(os.tmpdir(), "tapedeck-web-security-"));
});
afterEach(() => {
  web?.close();
  web = undefined;
  rmSync(root, { recursive: true, force: true });
});

function makeApp(token?: string) {
  const store = createSessionStore({ home: path.join(root, "home") });
  const clientDir = path.join(root, "client");
  mkdirSync(clientDir, { recursive: true });
  writeFileSync(path.join(clientDir, "index.html"), "<html><head></head><body>shell</body></html>");
  web = createApp({
    store,
    index: createMemoryIndex(store),
    agent: { model: "openai:gpt-4.1-mini", cwd: root },
    clientDir,
    ...(token === undefined ? {} : { token }),
  });
  return web.app;
}

describe("viewer HTTP rules (issue #11 item 9, #16)", () => {
  it("serves nothing, not even the page shell, to a Host that is not allowed", async () => {
    const app = makeApp();
    const rebound = await app.request("http://evil.example:4848/", {
      headers: { host: "evil.example:4848" },
    });
    expect(rebound.status).toBe(403);
    expect(await rebound.text()).not.toContain("shell");
    const local = await app.request("http://127.0.0.1:4848/", {
      headers: { host: "127.0.0.1:4848" },
    });
    expect(await local.text()).toContain("shell");
  });

  it("accepts the bearer scheme in any case and refuses a wrong token", async () => {
    const app = makeApp("s3cret-token");
    for (const scheme of ["Bearer", "bearer", "BEARER"]) {
      const response = await app.request("/api/health", {
        headers: { authorization: `${scheme} s3cret-token` },
      });
      expect(response.status).toBe(200);
    }
    for (const wrong of ["s3cret-tokeN", "s3cret-token-and-more", "s3cret", ""]) {
      const response = await app.request("/api/health", {
        headers: { authorization: `Bearer ${wrong}` },
      });
      expect(response.status).toBe(401);
    }
  });

  it("guards every API route, streams included: no token → 401; without one, a foreign Host → 403", async () => {
    const sessionId = "0193b6e2-7c1a-7d3e-9f00-00000000000a";
    const apiRoutes = (app: ReturnType<typeof makeApp>) =>
      app.routes.filter(
        (route) =>
          route.method !== "ALL" && route.path.startsWith("/api/") && !route.path.includes("*"),
      );
    const statusOf = async (app: ReturnType<typeof makeApp>, host: string) => {
      const answers: string[] = [];
      for (const route of apiRoutes(app)) {
        const path = route.path.replace(/:[a-zA-Z]+/g, sessionId);
        const response = await app.request(`http://${host}${path}`, {
          method: route.method,
          headers: { host },
        });
        answers.push(`${route.method} ${route.path} ${response.status}`);
        await response.body?.cancel();
      }
      return answers;
    };
    const guarded = makeApp("s3cret-token");
    // The route table is read (the check works): the session stream is among them.
    expect(apiRoutes(guarded).map((route) => route.path)).toContain("/api/sessions/:id/stream");
    const anonymous = await statusOf(guarded, "127.0.0.1:4848");
    expect(anonymous).toEqual(anonymous.map((answer) => answer.replace(/\d+$/, "401")));
    web?.close();
    const open = makeApp();
    const rebound = await statusOf(open, "evil.example:4848");
    expect(rebound).toEqual(rebound.map((answer) => answer.replace(/\d+$/, "403")));
  });

  it("compares tokens by value in constant time (same answer for every length)", () => {
    expect(tokensEqual("abc", "abc")).toBe(true);
    expect(tokensEqual("abd", "abc")).toBe(false);
    expect(tokensEqual("ab", "abc")).toBe(false);
    expect(tokensEqual("abcd", "abc")).toBe(false);
    expect(tokensEqual("", "abc")).toBe(false);
  });

  it("refuses a request body over the limit with 413, before reading it", async () => {
    const app = makeApp();
    const big = JSON.stringify({ input: "x".repeat(3 * 1024 * 1024) });
    const response = await app.request("http://127.0.0.1:4848/api/agent/stream", {
      method: "POST",
      headers: {
        host: "127.0.0.1:4848",
        "content-type": "application/json",
        "content-length": String(big.length),
      },
      body: big,
    });
    expect(response.status).toBe(413);
    expect(await response.json()).toMatchObject({ error: { code: "PAYLOAD_TOO_LARGE" } });
  });
});

const main = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../src/server/main.ts");
const tsx = createRequire(import.meta.url).resolve("tsx/cli");

describe("pnpm start with HOST=0.0.0.0", () => {
  it("without a token is refused before anything is created (no home, no index)", async () => {
    const home = path.join(root, "fresh-home");
    const result = await new Promise<{ code: number | null; stderr: string }>((resolve) => {
      const child = spawn(process.execPath, [tsx, main], {
        env: withRunTmpdir({
          PATH: process.env.PATH ?? "",
          TAPEDECK_HOME: home,
          HOST: "0.0.0.0",
          PORT: "0",
        }),
        stdio: ["ignore", "ignore", "pipe"],
        detached: true,
      });
      const timer = setTimeout(() => {
        if (child.pid !== undefined) process.kill(-child.pid, "SIGKILL");
      }, 15_000);
      let stderr = "";
      child.stderr.on("data", (chunk: Buffer) => {
        stderr += chunk.toString();
      });
      child.on("exit", (code) => {
        clearTimeout(timer);
        resolve({ code, stderr });
      });
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("Refusing to listen on 0.0.0.0 without a token");
    expect(existsSync(home)).toBe(false);
  });
});

describe("a private home", () => {
  it("creates the home, sessions/ and logs readable by their owner only", async () => {
    const store = createSessionStore({ home: path.join(root, "private-home") });
    const { sessionId } = await store.create({ cwd: root });
    const mode = (file: string) => statSync(file).mode & 0o777;
    expect(mode(store.home)).toBe(0o700);
    expect(mode(store.sessionsDir)).toBe(0o700);
    expect(mode(store.pathOf(sessionId))).toBe(0o600);
  });
});
