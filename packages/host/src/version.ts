/** The agent's name and version, as written in session headers and ACP `agentInfo`. */
export const AGENT_NAME = "tapedeck";
/** Version of the `tapedeck` binary. */
export const AGENT_VERSION = "0.1.0";
