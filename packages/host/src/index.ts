export { createHost, type Host, standardTools } from "./create-host";
export { indexPath, openIndex, syncedEngine, type Warn } from "./query-index";
export { AGENT_NAME, AGENT_VERSION } from "./version";
