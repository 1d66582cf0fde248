/**
 * `@tapedeck/host/query`: the reading half of the host (store, search index, session ids). On its
 * own subpath so that reading commands (`tapedeck sessions`, `tapedeck mcp`) import neither the
 * agent loop nor the model clients: bundled, an import of the package's index reaches every
 * module it re-exports.
 */

export { importStateDir, isAutoImportOn, setAutoImport } from "./auto-import-setting";
export { indexPath } from "./index-path";
export { createQueryHost, type QueryHost, type QueryHostOptions } from "./query-host";
export type { Warn } from "./query-index";
export { sessionIdsOnDisk, shortIds } from "./session-ids";
export type { TeamIndex } from "./team-index";
