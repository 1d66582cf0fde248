export { AGENT_NAME, AGENT_VERSION } from "@tapedeck/host";
