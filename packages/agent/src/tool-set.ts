import type { ToolDefinition } from "@tapedeck/llm";
import { z } from "zod";
import type { AgentTool, AnyAgentTool } from "./tools/agent-tool";
import { editFileTool, listDirTool, readFileTool, writeFileTool } from "./tools/file-tools";
import { createRunCommandTool, type RunCommandOptions } from "./tools/run-command-tool";
import { searchFilesTool } from "./tools/search-tool";

/** The JSON-Schema definitions the model receives for a list of tools. */
export function toolDefinitions(tools: readonly AnyAgentTool[]): ToolDefinition[] {
  return tools.map((tool) => {
    if (tool.parameters !== undefined) {
      return { name: tool.name, description: tool.description, parameters: tool.parameters };
    }
    const schema = z.toJSONSchema(tool.argsSchema, {
      io: "input",
      unrepresentable: "any",
    }) as Record<string, unknown>;
    delete schema.$schema;
    return { name: tool.name, description: tool.description, parameters: schema };
  });
}

/** A tool defined elsewhere (such as `session_query`) with a JSON-Schema and an executor. */
export interface ExternalTool {
  name: string;
  description: string;
  parameters: Record<string, unknown>;
  execute(args: unknown): Promise<unknown>;
}

/**
 * Wraps an external read-only tool (`session_query` from `@tapedeck/session-query`) as an agent
 * tool. Its own executor validates the arguments; results that are not strings become JSON.
 */
export function wrapReadOnlyTool(external: ExternalTool): AgentTool<unknown> {
  return {
    name: external.name,
    description: external.description,
    access: "read",
    kind: "search",
    argsSchema: z.unknown(),
    parameters: external.parameters,
    title: () => `Query ${external.name.replace(/_/g, " ")}`,
    locations: () => [],
    async execute(args) {
      const result = await external.execute(args);
      return typeof result === "string" ? result : JSON.stringify(result, null, 2);
    },
  };
}

/** Options of {@link defaultTools}. */
export interface DefaultToolsOptions {
  runCommand?: RunCommandOptions;
  /** Extra tools appended to the built-ins (for example `session_query`). */
  extra?: readonly AnyAgentTool[];
}

/**
 * The built-in tools: `read_file`, `list_dir`, `search_files`, `write_file`, `edit_file`,
 * `run_command`, then any `extra` tools.
 */
export function defaultTools(options: DefaultToolsOptions = {}): AnyAgentTool[] {
  return [
    readFileTool,
    listDirTool,
    searchFilesTool,
    writeFileTool,
    editFileTool,
    createRunCommandTool(options.runCommand),
    ...(options.extra ?? []),
  ] as AnyAgentTool[];
}
