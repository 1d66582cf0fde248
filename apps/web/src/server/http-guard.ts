import { timingSafeEqual } from "node:crypto";
import type { Context, MiddlewareHandler } from "hono";
import { bodyLimit } from "hono/body-limit";

/** Largest request body the API reads (a prompt is at most 200,000 characters). */
export const MAX_BODY_BYTES = 2 * 1024 * 1024;

/** `127.0.0.1`, `localhost` or `[::1]`, with any port. */
export function isLoopbackHost(host: string): boolean {
  const name = host.startsWith("[") ? host.slice(0, host.indexOf("]") + 1) : host.split(":")[0];
  return name === "127.0.0.1" || name === "localhost" || name === "[::1]";
}

const loopbackAddresses = new Set(["127.0.0.1", "::1", "localhost"]);

/**
 * The reason a listen address may not be used, or `undefined`: a non-loopback address without a
 * token. Checked first thing at start, before the home or the index is touched.
 */
export function listenRefusal(host: string, token: string | undefined): string | undefined {
  if (loopbackAddresses.has(host) || (token !== undefined && token !== "")) return undefined;
  return `Refusing to listen on ${host} without a token: set TAPEDECK_WEB_TOKEN (and send it as "Authorization: Bearer <token>" or ?token=), or use 127.0.0.1.`;
}

/** Compares two tokens in time that does not depend on where they differ. */
export function tokensEqual(given: string, expected: string): boolean {
  const a = Buffer.from(given, "utf8");
  const b = Buffer.from(expected, "utf8");
  // Equal lengths for timingSafeEqual; the length check itself leaks only the length.
  const padded = Buffer.alloc(b.length);
  a.copy(padded, 0, 0, Math.min(a.length, b.length));
  return timingSafeEqual(padded, b) && a.length === b.length;
}

/** The token of a request: `Authorization: Bearer …` (scheme in any case) or `?token=`. */
export function requestToken(c: Context): string | undefined {
  const header = c.req.header("authorization");
  const match = header === undefined ? null : /^bearer\s+(.+)$/i.exec(header.trim());
  return match?.[1] ?? c.req.query("token");
}

/**
 * Every request, the page shell included: without a token only loopback Host names are served
 * (a page on another name that resolves to 127.0.0.1, DNS rebinding, gets nothing at all).
 */
export function hostGuard(token: string | undefined): MiddlewareHandler {
  return async (c, next) => {
    const host = c.req.header("host") ?? new URL(c.req.url).host;
    if (token === undefined && !isLoopbackHost(host)) {
      return c.json(
        {
          error: { code: "FORBIDDEN_HOST", message: `Host ${host} is not served without a token.` },
        },
        403,
      );
    }
    await next();
  };
}

/** API requests: same-origin only, the token (constant-time) when one is set, bodies capped. */
export function apiGuard(token: string | undefined): MiddlewareHandler[] {
  const access: MiddlewareHandler = async (c, next) => {
    const origin = c.req.header("origin");
    if (origin !== undefined) {
      let sameHost = false;
      try {
        sameHost = new URL(origin).host === c.req.header("host");
      } catch {
        sameHost = false;
      }
      if (!sameHost) {
        return c.json(
          { error: { code: "FORBIDDEN_ORIGIN", message: "Cross-origin requests are refused." } },
          403,
        );
      }
    }
    if (token !== undefined) {
      const given = requestToken(c);
      if (given === undefined || !tokensEqual(given, token)) {
        return c.json(
          { error: { code: "UNAUTHORIZED", message: "A valid TAPEDECK_WEB_TOKEN is required." } },
          401,
        );
      }
    }
    await next();
  };
  const limit = bodyLimit({
    maxSize: MAX_BODY_BYTES,
    onError: (c) =>
      c.json(
        {
          error: {
            code: "PAYLOAD_TOO_LARGE",
            message: `The request body is larger than ${MAX_BODY_BYTES} bytes.`,
          },
        },
        413,
      ),
  });
  return [access, limit];
}
