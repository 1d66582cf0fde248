import type { AddressInfo } from "node:net";
import { serve } from "@hono/node-server";
import type { Hono } from "hono";
import { listenRefusal } from "./http-guard";

/** Options of {@link startServer}. */
export interface ServeOptions {
  /** Default `127.0.0.1`. Any other host requires `token`. */
  host?: string;
  /** Default 4848; 0 picks a free port. */
  port?: number;
  /** `TAPEDECK_WEB_TOKEN`; the app must have been created with the same token. */
  token?: string;
}

/** A listening server. */
export interface RunningServer {
  url: string;
  port: number;
  close(): Promise<void>;
}

/**
 * Listens on `host:port`. Refuses (throws before listening) a non-loopback host without a token:
 * session logs hold whatever the agent read and wrote, so they are not served to a network by
 * accident.
 */
export async function startServer(app: Hono, options: ServeOptions = {}): Promise<RunningServer> {
  const host = options.host ?? "127.0.0.1";
  const refusal = listenRefusal(host, options.token);
  if (refusal !== undefined) throw new Error(refusal);
  return new Promise((resolve, reject) => {
    const server = serve(
      { fetch: app.fetch, hostname: host, port: options.port ?? 4848 },
      (info: AddressInfo) => {
        const shownHost = info.family === "IPv6" ? `[${info.address}]` : info.address;
        resolve({
          url: `http://${shownHost}:${info.port}`,
          port: info.port,
          close: () =>
            new Promise<void>((done) => {
              server.close(() => done());
              // SSE streams keep connections open; end them so close() returns.
              if ("closeAllConnections" in server) server.closeAllConnections();
            }),
        });
      },
    );
    server.once("error", reject);
  });
}
