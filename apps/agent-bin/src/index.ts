export {
  type AcpAgentOptions,
  createAcpAgent,
  type ListedSession,
  SESSION_MODES,
} from "./acp/acp-agent";
export { toRequestError } from "./acp/errors";
export { serveAcp } from "./acp/serve";
export { CliUsageError, type Io } from "./cli/io";
export { main, processIo } from "./cli/main";
export { createHost, type Host, standardTools } from "./host";
export { AGENT_NAME, AGENT_VERSION } from "./version";
