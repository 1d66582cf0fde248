export {
  type ApprovalBroker,
  createApprovalBroker,
  type PendingApproval,
} from "./approval-broker";
export {
  describeApproval,
  describeToolCall,
  type ToolCallDescription,
} from "./call-description";
export { EmptySummaryError } from "./compact-turn";
export { COMPACTION_INSTRUCTIONS, estimateTokens, selectCompaction } from "./compaction";
export {
  type AgentConfig,
  type ConfigFlags,
  DEFAULT_MODEL,
  resolveConfig,
} from "./config";
export {
  type InitializedRun,
  type InitializeRunOptions,
  initializeRun,
} from "./initialize-run";
export type { LiveNotice } from "./live-notices";
export { endOrphanGroup, type OrphanOutcome } from "./orphan-group";
export { describeProcessGroup, processStartTime } from "./process-group";
export { repairInterruptedRun } from "./repair-run";
export { type RunAgentOptions, runAgent } from "./run-agent";
export {
  latestCheckpointId,
  RunCheckpoints,
  type WorkspaceCheckpointer,
} from "./run-checkpoints";
export {
  type ApprovalRequest,
  type Approver,
  DEFAULT_COMPACT_AT,
  DEFAULT_KEEP_LAST_ITEMS,
  DEFAULT_MAX_MODEL_CALLS,
  type RunResult,
  type RunTurnOptions,
  runTurn,
  type StopReason,
} from "./run-turn";
export {
  isWithheldVariable,
  type KnownSecret,
  knownSecrets,
  redactSecrets,
  toolEnvironment,
  WITHHELD_NAME_PATTERN,
  WITHHELD_VARIABLES,
} from "./secrets";
export { DEFAULT_SYSTEM_PROMPT } from "./system-prompt";
export {
  type DefaultToolsOptions,
  defaultTools,
  type ExternalTool,
  toolDefinitions,
  wrapReadOnlyTool,
} from "./tool-set";
export {
  type AgentTool,
  type AnyAgentTool,
  capOutput,
  DEFAULT_OUTPUT_CAP,
  type LeftRunningProcess,
  type ToolAccess,
  type ToolContext,
  ToolError,
  type ToolKind,
} from "./tools/agent-tool";
export { editFileTool, listDirTool, readFileTool, writeFileTool } from "./tools/file-tools";
export { createRunCommandTool, type RunCommandOptions } from "./tools/run-command-tool";
export { searchFilesTool } from "./tools/search-tool";
export { type ToolTitle, toolTitle } from "./tools/tool-title";
export { addUsage, RunCancelled } from "./turn-context";
export {
  localWorkspaceFs,
  PathOutsideWorkspaceError,
  resolveInWorkspace,
  type WorkspaceFs,
} from "./workspace-fs";
