/**
 * `@tapedeck/host/mcp`: MCP both ways. On its own subpath so that commands which do not speak
 * MCP never load the MCP SDK (it is a third of the bundle).
 */
export {
  createQueryServer,
  type QueryServerOptions,
  serveQueryServerOnStdio,
} from "./query-server";
