export {
  git,
  gitRepo,
  type TempWorkspace,
  tempWorkspace,
  testTempDir,
  testWorkspace,
  withRunTmpdir,
} from "@tapedeck/test-temp";
export { agentScript, writeFileScript } from "./agent-script";
export {
  type BinaryLaunch,
  repositoryRoot,
  TAPEDECK_BINARY_ENV,
  tapedeckBinary,
  tapedeckCommand,
  tapedeckLauncher,
} from "./binary";
export {
  type CliContext,
  type CliContextOptions,
  cliContext,
  type ScriptedInput,
} from "./cli-context";
export { type BinaryEnvOptions, binaryEnv, NO_MODEL_SERVER } from "./model-env";
export { type ReadLog, readLog } from "./read-log";
export { type ReadOnlyDir, readOnlyDir } from "./read-only-dir";
export { type CliResult, type RunCliOptions, runCli } from "./run-cli";
export { type HomeLogs, homeLogs, jsonLines } from "./session-logs";
export { type ListedSession, listSessions } from "./sessions-list";
export { type SmallDisk, smallDisk } from "./small-disk";
export {
  type PermissionAnswer,
  type SpawnedAgent,
  spawnAcp,
  updatesOf,
  waitFor,
} from "./spawn-acp";
export { readSseEvents, type SseEvent } from "./sse";
export { type RunningViewer, startViewer, TAPEDECK_VIEWER_ENV } from "./viewer";
