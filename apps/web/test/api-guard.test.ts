/**
 * Who may call the API: the token rule, and the Host and Origin checks against DNS rebinding and
 * other sites.
 */
import { describe, expect, it } from "vitest";
import { startServer } from "../src/server/index";
import { setupApiHome } from "./api-home";

const api = setupApiHome();
const { makeApp } = api;

describe("token rule", () => {
  it("requires the token on every API request when one is set", async () => {
    const { app } = makeApp([], { token: "s3cret" });
    expect((await app.request("/api/sessions")).status).toBe(401);
    expect((await app.request("/api/sessions?token=wrong")).status).toBe(401);
    const ok = await app.request("/api/sessions", { headers: { authorization: "Bearer s3cret" } });
    expect(ok.status).toBe(200);
  });

  it("refuses to listen on a non-loopback host without a token", async () => {
    const { app } = makeApp();
    await expect(startServer(app, { host: "0.0.0.0", port: 0 })).rejects.toThrow(
      /TAPEDECK_WEB_TOKEN/,
    );
    const server = await startServer(app, { host: "127.0.0.1", port: 0 });
    try {
      const response = await fetch(`${server.url}/api/health`);
      expect(response.status).toBe(200);
    } finally {
      await server.close();
    }
  });
});

describe("host and origin rule", () => {
  it("refuses a non-loopback Host without a token (DNS rebinding)", async () => {
    const { app } = makeApp();
    const rebound = await app.request("http://evil.example:4848/api/sessions", {
      headers: { host: "evil.example:4848" },
    });
    expect(rebound.status).toBe(403);
    const local = await app.request("http://127.0.0.1:4848/api/sessions", {
      headers: { host: "127.0.0.1:4848" },
    });
    expect(local.status).toBe(200);
  });

  it("refuses cross-origin requests", async () => {
    const { app } = makeApp();
    const response = await app.request("http://127.0.0.1:4848/api/sessions", {
      headers: { origin: "http://evil.example", host: "127.0.0.1:4848" },
    });
    expect(response.status).toBe(403);
  });
});
