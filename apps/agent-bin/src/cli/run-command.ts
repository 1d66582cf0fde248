import { createInterface } from "node:readline/promises";
import { parseArgs } from "node:util";
import { type ApprovalRequest, initializeRun, type RunEvent, runTurn } from "@tapedeck/agent";
import { createHost } from "@tapedeck/host";
import type { ApprovalDecision, ApprovalPolicy } from "@tapedeck/session";
import { CliUsageError, type Io } from "./io";
import { parseForkSpec, resolveSessionId } from "./session-id";

export const RUN_USAGE = `Usage: tapedeck run [-c | -r ID | --fork ID[@SEQ]] [--model M] [--approve | --deny] [--json] "prompt"

  -c, --continue     continue the most recent session in this directory
  -r, --resume ID    continue session ID (a unique prefix of 6+ characters is enough)
  --fork ID[@SEQ]    branch session ID (at SEQ, default its end) into a new session
  --model M          model id, e.g. openai:gpt-4.1-mini or openai-chat:qwen2.5-coder (env TAPEDECK_MODEL)
  --approve          run writes and commands without asking
  --deny             read only: refuse writes and commands
  --json             print run events as JSON lines instead of text`;

/** Exit code of a run the model refused (its words are printed like an answer). */
export const EXIT_REFUSED = 3;

/**
 * `tapedeck run`: one turn in a terminal. Returns the exit code: 0 answered, 1 failed, 3 the model
 * refused ({@link EXIT_REFUSED}), 130 cancelled.
 */
export async function runCommand(argv: string[], io: Io): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    strict: true,
    options: {
      continue: { type: "boolean", short: "c" },
      resume: { type: "string", short: "r" },
      fork: { type: "string" },
      model: { type: "string" },
      approve: { type: "boolean" },
      deny: { type: "boolean" },
      json: { type: "boolean" },
      help: { type: "boolean", short: "h" },
    },
  });
  if (values.help) {
    io.stdout.write(`${RUN_USAGE}\n`);
    return 0;
  }
  const input = positionals.join(" ").trim();
  if (input === "") throw new CliUsageError(`a prompt is required.\n\n${RUN_USAGE}`);
  const chosen = [values.continue, values.resume !== undefined, values.fork !== undefined].filter(
    Boolean,
  );
  if (chosen.length > 1) throw new CliUsageError("use only one of -c, -r and --fork.");
  if (values.approve && values.deny)
    throw new CliUsageError("use only one of --approve and --deny.");
  const host = createHost(io.env, values.model === undefined ? {} : { model: values.model });
  const { store } = host;
  const policy: ApprovalPolicy = {
    approval: values.approve ? "auto" : values.deny ? "deny" : "ask",
  };
  const cwd = io.cwd;

  let sessionId: string | undefined;
  let forkFrom: { sessionId: string; seq?: number } | undefined;
  if (values.continue) {
    const here = (await store.list())
      .filter((listing) => listing.header.cwd === cwd)
      .sort((a, b) => b.modifiedAt.getTime() - a.modifiedAt.getTime());
    sessionId = here[0]?.sessionId;
    if (sessionId === undefined) {
      io.stderr.write("No earlier session in this directory; starting a new one.\n");
    }
  } else if (values.resume !== undefined) {
    sessionId = await resolveSessionId(store, values.resume);
  } else if (values.fork !== undefined) {
    const spec = parseForkSpec(values.fork);
    forkFrom = {
      sessionId: await resolveSessionId(store, spec.id),
      ...(spec.seq === undefined ? {} : { seq: spec.seq }),
    };
  }

  const compactOnly = input === "/compact";
  if (compactOnly && sessionId === undefined && forkFrom === undefined) {
    // Without this, a new session is created whose only content is "/compact".
    throw new CliUsageError(
      "/compact summarizes an earlier session: use it with -c, -r ID or --fork ID.",
    );
  }

  const provider = host.providerFor(host.config.model);
  const controller = new AbortController();
  let interrupts = 0;
  const onSigint = () => {
    interrupts += 1;
    if (interrupts === 1) {
      io.stderr.write("\nCancelling… (press Ctrl-C again to quit at once)\n");
      controller.abort();
    } else {
      io.exit(130);
    }
  };
  io.onInterrupt(onSigint);
  const json = values.json === true;
  let atLineStart = true;
  const onEvent = (event: RunEvent) => {
    if (json) {
      io.stdout.write(`${JSON.stringify(event)}\n`);
      return;
    }
    switch (event.type) {
      case "text_delta":
        io.stdout.write(event.text);
        atLineStart = event.text.endsWith("\n");
        break;
      case "tool_call":
        if (!atLineStart) {
          io.stdout.write("\n");
          atLineStart = true;
        }
        io.stderr.write(`● ${event.title}\n`);
        break;
      case "tool_result": {
        const first = event.output.split("\n").find((line) => line.trim() !== "") ?? "";
        io.stderr.write(`  ${event.isError ? "✗" : "✓"} ${first.slice(0, 160)}\n`);
        break;
      }
      case "compaction":
        io.stderr.write(`(compacted ${event.replaces.length} earlier items)\n`);
        break;
      case "error":
        io.stderr.write(`Error [${event.code}]: ${event.message}\n`);
        break;
      default:
        break;
    }
  };
  const approve = async (request: ApprovalRequest): Promise<ApprovalDecision> => {
    if (!io.interactive) {
      io.stderr.write(
        `  ✗ ${request.title}: needs approval, but there is no terminal to ask; rejected. Use --approve to allow writes and commands.\n`,
      );
      return "reject";
    }
    let answer: string;
    try {
      answer = (
        await io.ask(`Allow ${request.title}? [y]es / [a]lways for ${request.name} / [N]o: `)
      )
        .trim()
        .toLowerCase();
    } catch (error) {
      // Ctrl-C at the prompt: readline takes the key, so no SIGINT reaches the process and the
      // question rejects instead. It means the same as Ctrl-C anywhere else: cancel the run.
      const { name, code } = error as { name?: unknown; code?: unknown };
      if (name !== "AbortError" && code !== "ABORT_ERR") throw error;
      onSigint();
      return "cancelled";
    }
    if (answer === "y" || answer === "yes") return "allow_once";
    if (answer === "a" || answer === "always") return "allow_always";
    return "reject";
  };

  const run = await initializeRun({
    store,
    ...(sessionId === undefined ? {} : { sessionId }),
    ...(forkFrom === undefined ? {} : { forkFrom }),
    input,
    cwd,
    policy,
    model: host.config.model,
  });
  const result = await runTurn({
    run,
    provider,
    model: host.config.model,
    tools: host.toolsFor(cwd, run.sessionId),
    policy,
    cwd,
    signal: controller.signal,
    onEvent,
    approve,
    ...(compactOnly ? { compactNow: true, compactOnly: true } : {}),
  });
  if (!json) {
    if (!atLineStart) io.stdout.write("\n");
    const refused = result.stopReason === "refusal" ? " (the model refused)" : "";
    io.stderr.write(`session ${result.sessionId} · ${result.status}${refused}\n`);
  }
  if (result.status === "cancelled") return 130;
  if (result.stopReason === "refusal") return EXIT_REFUSED;
  return result.status === "failed" ? 1 : 0;
}

/** Reads one line from the terminal. */
export async function askOnTerminal(question: string): Promise<string> {
  const readline = createInterface({ input: process.stdin, output: process.stderr });
  try {
    return await readline.question(question);
  } finally {
    readline.close();
  }
}
