/**
 * What a person is asked to approve, the same on every surface (a terminal prompt, an ACP
 * permission request, the viewer's card live or reloaded from the log): the tool's title, a note
 * when the call writes inside `.git/`, and the change a write makes (an edit's old and new text,
 * a write's content), hidden characters made visible.
 */
import { GIT_METADATA_NOTE, isGitMetadataPath } from "./sensitive-paths";
import type { AnyAgentTool } from "./tools/agent-tool";
import { type ToolTitle, toolTitle } from "./tools/tool-title";

/**
 * The approval title of a call of `tool` with parsed arguments `input` that touches `locations`
 * (absolute paths).
 */
export function approvalTitle(
  tool: AnyAgentTool,
  input: unknown,
  locations: readonly string[],
): ToolTitle {
  const sensitive = locations.some(isGitMetadataPath);
  const change = tool.describeChange?.(input);
  return toolTitle(
    `${tool.title(input)}${sensitive ? ` (${GIT_METADATA_NOTE})` : ""}${change === undefined ? "" : `: ${change}`}`,
  );
}
