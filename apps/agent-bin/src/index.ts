export { createHost, type Host, standardTools } from "@tapedeck/host";
export { type AcpAgentOptions, createAcpAgent, SESSION_MODES } from "./acp/acp-agent";
export { toRequestError } from "./acp/errors";
export { serveAcp } from "./acp/serve";
export { CliUsageError, type Io } from "./cli/io";
export { main, processIo } from "./cli/main";
export { AGENT_NAME, AGENT_VERSION } from "./version";
