import type { ApprovalRequest } from "@tapedeck/agent";
import { RECORDED_MCP_SERVERS_APPROVAL, type RunEvent } from "@tapedeck/host";
import { type ApprovalDecision, toVisibleText } from "@tapedeck/session";
import type { Io } from "./io";

/** Prints run events: JSON lines with `--json`, else the answer on stdout and progress on stderr. */
export function runPrinter(io: Io, json: boolean) {
  let atLineStart = true;
  const endAnswerLine = () => {
    if (!atLineStart) io.stdout.write("\n");
    atLineStart = true;
  };
  const onEvent = (event: RunEvent) => {
    if (json) {
      io.stdout.write(`${JSON.stringify(event)}\n`);
      return;
    }
    switch (event.type) {
      case "text_delta":
        // The model's words are untrusted: an escape sequence could hide or rewrite what the
        // terminal shows next (an approval prompt included).
        io.stdout.write(toVisibleText(event.text, { keepLineBreaks: true }).text);
        atLineStart = event.text.endsWith("\n");
        break;
      case "tool_call":
        endAnswerLine();
        io.stderr.write(`● ${event.title}\n`);
        break;
      case "tool_result": {
        const first = event.output.split("\n").find((line) => line.trim() !== "") ?? "";
        const shown = toVisibleText(first.slice(0, 160)).text;
        io.stderr.write(`  ${event.isError ? "✗" : "✓"} ${shown}\n`);
        break;
      }
      case "compaction":
        io.stderr.write(`(compacted ${event.replaces.length} earlier items)\n`);
        break;
      case "error":
        // A partial answer ends its line first: the error is never glued to the model's words.
        endAnswerLine();
        io.stderr.write(`Error [${event.code}]: ${event.message}\n`);
        break;
      default:
        break;
    }
  };
  return {
    onEvent,
    /** Ends the answer's line. */
    finish: () => {
      if (!json && !atLineStart) io.stdout.write("\n");
      atLineStart = true;
    },
  };
}

/**
 * Asks on the terminal for a tool call that needs approval; without a terminal it rejects and says
 * how to allow. Ctrl-C at the prompt calls `onInterrupt` (readline takes the key, so no SIGINT).
 */
export function terminalApprover(io: Io, onInterrupt: () => void) {
  return async (request: ApprovalRequest): Promise<ApprovalDecision> => {
    const recorded = request.name === RECORDED_MCP_SERVERS_APPROVAL;
    if (!io.interactive && recorded) {
      io.stderr.write(
        `  ✗ ${request.title}: needs approval, but there is no terminal to ask; not started. Give them with --mcp-config FILE to use them.\n`,
      );
      return "reject";
    }
    if (!io.interactive) {
      io.stderr.write(
        `  ✗ ${request.title}: needs approval, but there is no terminal to ask; rejected. Use --approve to allow writes and commands.\n`,
      );
      return "reject";
    }
    if (request.hiddenCharacters) {
      io.stderr.write(
        "  ! This call contains hidden characters (control, escape, bidi or zero-width); each is shown as an escape such as \\e, \\r or \\u{202E}.\n",
      );
    }
    let answer: string;
    try {
      answer = (
        await io.ask(
          recorded
            ? `Allow ${request.title}? [y]es / [N]o: `
            : `Allow ${request.title}? [y]es / [a]lways for ${request.name} / [N]o: `,
        )
      )
        .trim()
        .toLowerCase();
    } catch (error) {
      const { name, code } = error as { name?: unknown; code?: unknown };
      if (name !== "AbortError" && code !== "ABORT_ERR") throw error;
      onInterrupt();
      return "cancelled";
    }
    if (answer === "y" || answer === "yes") return "allow_once";
    if (answer === "a" || answer === "always") return "allow_always";
    return "reject";
  };
}
