import { describe, expect, it } from "vitest";
import { knownSecrets, redactSecrets, toolEnvironment } from "../src/index";

const env = {
  PATH: "/usr/bin",
  HOME: "/home/me",
  OPENAI_API_KEY: "sk-live-0123456789",
  OPENAI_BASE_URL: "https://proxy-user:proxy-pass-123@proxy.example/v1",
  TAPEDECK_WEB_TOKEN: "web-token-abcdefgh",
  TAPEDECK_INDEX_URL: "postgres://tapedeck:pg-secret-99@db/tapedeck",
  GITHUB_TOKEN: "ghp_0123456789abcdef",
  AWS_SECRET_ACCESS_KEY: "aws-secret-0123456789",
  PGPASSWORD: "pgpass-0123456",
  SSH_AUTH_SOCK: "/tmp/ssh-agent.sock",
  NPM_TOKEN: "npm_0123456789",
  SHORT_TOKEN: "abc",
};

describe("tool environment (issue #11 item 5)", () => {
  it("withholds Tapedeck's credentials and credential-like variables, keeps the rest", () => {
    expect(toolEnvironment(env)).toEqual({
      PATH: "/usr/bin",
      HOME: "/home/me",
      SSH_AUTH_SOCK: "/tmp/ssh-agent.sock",
    });
  });

  it("passes a credential-like variable the user lists in TAPEDECK_TOOL_ENV_ALLOW, never Tapedeck's own", () => {
    const allowed = toolEnvironment({
      ...env,
      TAPEDECK_TOOL_ENV_ALLOW: "GITHUB_TOKEN, OPENAI_API_KEY",
    });
    expect(allowed.GITHUB_TOKEN).toBe("ghp_0123456789abcdef");
    expect(allowed.OPENAI_API_KEY).toBeUndefined();
  });
});

describe("redaction of tool outputs", () => {
  it("replaces every known secret, URL credentials included, and leaves short values alone", () => {
    const output = [
      "OPENAI_API_KEY=sk-live-0123456789",
      "url=https://proxy-user:proxy-pass-123@proxy.example/v1",
      "pg=pg-secret-99 token=web-token-abcdefgh gh=ghp_0123456789abcdef",
      "short=abc",
    ].join("\n");
    expect(redactSecrets(output, knownSecrets(env))).toBe(
      [
        "OPENAI_API_KEY=[redacted OPENAI_API_KEY]",
        "url=https://[redacted OPENAI_BASE_URL]@proxy.example/v1",
        "pg=[redacted TAPEDECK_INDEX_URL] token=[redacted TAPEDECK_WEB_TOKEN] gh=[redacted GITHUB_TOKEN]",
        "short=abc",
      ].join("\n"),
    );
  });
});
