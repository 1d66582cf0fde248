// The subpath, not the package root: the CLI's entry must not load the whole runtime to print it.
export { AGENT_NAME, AGENT_VERSION } from "@tapedeck/host/version";
