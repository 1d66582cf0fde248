import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { eventLogBuilder } from "@tapedeck/session/testing";

/** Ids and texts of the sessions {@link seedHome} writes. */
export interface SeededHome {
  home: string;
  /** English session: tool call + output, a compaction, model request, usage. */
  english: string;
  /** Chinese session. */
  chinese: string;
  /** Fork of `english` at seq 5. */
  fork: string;
  /** Line 4 is not JSON. */
  damaged: string;
  /** `<script>`, `<img onerror>`, a 1 MB line, bidi overrides, ANSI and control characters. */
  hostile: string;
  /** Markdown, a code block, edit_file/write_file diffs, long ANSI output, cached tokens, a goal. */
  rich: string;
  /** The workspace of every seeded session but the Chinese one. */
  workspace: string;
  /** The recorded cwd of every seeded session: a directory outside the home for the agent's tools. */
  work: string;
}

const start = (minutes: number) => new Date(Date.UTC(2026, 0, 1, 10, minutes));

/** The 1 MB line of the hostile session. */
export const HUGE_OUTPUT = `BEGIN-HUGE ${"x".repeat(1024 * 1024)} END-HUGE`;
/** Hostile markup that must render as text. */
export const SCRIPT_TEXT = `<script>window.__pwned = "script"</script>`;
export const IMG_TEXT = `<img src=x onerror="window.__pwned='img'">`;
/** A command that reads differently when its bidi override is obeyed. */
export const BIDI_COMMAND = "echo safe \u202E; 00 peels #\u202C";
/** Tool output with ANSI colours, a screen clear, a bell and a NUL. */
export const ANSI_OUTPUT =
  "\u001b[31mFAIL\u001b[0m kettle.test.ts\u001b[2J\n\u001b[1;32mPASS\u001b[0m teapot.test.ts\u0007\u0000 done";

/** Writes a temp home with a handful of valid, damaged and hostile logs. */
export function seedHome(): SeededHome {
  const home = mkdtempSync(path.join(tmpdir(), "tapedeck-web-"));
  const work = path.join(home, "..", `${path.basename(home)}-work`);
  mkdirSync(work);
  const sessions = path.join(home, "sessions");
  mkdirSync(sessions, { recursive: true });
  const workspace = "/work/demo-project";
  const write = (builder: ReturnType<typeof eventLogBuilder>) => {
    writeFileSync(path.join(sessions, `${builder.header.sessionId}.jsonl`), builder.jsonl());
    return builder.header.sessionId;
  };

  const english = eventLogBuilder({ cwd: work, workspaceId: workspace, start: start(0) });
  english.system("You are a careful coding agent.");
  english
    .turn({ model: "openai:gpt-4.1-mini" })
    .user("Please read the README of the kettle project");
  const runId = english.events.at(-1)?.runId ?? "";
  english.push({
    type: "model/request",
    runId,
    requestId: "req-1",
    provider: "openai",
    model: "gpt-4.1-mini",
    inputDigest: "sha256:aaaa",
    toolsDigest: "sha256:bbbb",
    inputItems: [1, 3],
  });
  english.push({
    type: "model/response",
    runId,
    requestId: "req-1",
    finishReason: "tool_calls",
    usage: { inputTokens: 120, outputTokens: 8 },
  });
  english.call("read_file", { path: "README.md" }, "call_readme");
  english.output("# Kettle\nA tiny teapot simulator.\n".repeat(3));
  english.assistant("The README describes Kettle, a tiny teapot simulator.");
  english.end("completed");
  english.turn({ resumed: true }).user("Summarise our conversation so far");
  english.compact(
    "The user asked about the kettle README; it describes a teapot simulator.",
    [3, 6, 7, 8],
  );
  english.assistant("Done: the kettle README was summarised.");
  english.end("completed");
  const englishId = write(english);

  const fork = eventLogBuilder({
    cwd: work,
    workspaceId: workspace,
    parent: { sessionId: englishId, seq: 9 },
    start: start(5),
  });
  fork.turn({ resumed: true }).user("Now check the teapot tests instead");
  fork.assistant("The teapot tests pass.");
  fork.end("completed");
  const forkId = write(fork);

  const chinese = eventLogBuilder({
    cwd: work,
    workspaceId: "/work/茶壶",
    start: start(10),
  });
  chinese.system("你是一个编程助手。");
  chinese.turn().user("请解释茶壶模拟器的设计");
  chinese.assistant("茶壶模拟器由三个模块组成：加热、计时和鸣笛。");
  chinese.end("completed");
  const chineseId = write(chinese);

  const damaged = eventLogBuilder({ cwd: work, workspaceId: workspace, start: start(20) });
  damaged.system("seed");
  damaged.turn().user("this log is damaged on line 4");
  damaged.assistant("never shown");
  damaged.end();
  const damagedLines = damaged.jsonl().split("\n");
  damagedLines[3] = '{"seq":3,"ts":"2026-01-01T10:20:00.003Z","type":"message",';
  writeFileSync(path.join(sessions, `${damaged.header.sessionId}.jsonl`), damagedLines.join("\n"));
  const damagedId = damaged.header.sessionId;

  const hostile = eventLogBuilder({ cwd: work, workspaceId: workspace, start: start(30) });
  hostile.system("seed");
  hostile.turn().user(`Hostile input ${SCRIPT_TEXT} and ${IMG_TEXT}`);
  hostile.call("run_command", { command: `echo '${IMG_TEXT}'` }, "call_hostile");
  hostile.output(HUGE_OUTPUT);
  hostile.call("run_command", { command: BIDI_COMMAND }, "call_bidi");
  hostile.output(ANSI_OUTPUT);
  hostile.assistant(`Here is markup: ${SCRIPT_TEXT}`);
  hostile.end();
  const hostileId = write(hostile);

  const richId = write(richSession(work));

  return {
    home,
    rich: richId,
    work,
    english: englishId,
    chinese: chineseId,
    fork: forkId,
    damaged: damagedId,
    hostile: hostileId,
    workspace,
  };
}

/** Markdown that must render safely. */
export const RICH_MARKDOWN = [
  "Look at **this** [the docs](https://example.com/docs) and [a trap](javascript:alert(1)).",
  "",
  "![logo](https://example.com/logo.png) <b>raw html</b>",
  "",
  "```ts",
  "const answer: number = 42;",
  "```",
].join("\n");

/** 120 numbered output lines. */
export const LONG_OUTPUT = Array.from(
  { length: 120 },
  (_, index) => `output line ${index + 1}`,
).join("\n");

function richSession(work: string) {
  const rich = eventLogBuilder({ cwd: work, workspaceId: "/work/rich", start: start(40) });
  rich.system("seed");
  rich.push({
    type: "goal/set",
    runId: rich.events[0]?.runId ?? "",
    goal: "Make the kettle boil at 100",
  });
  rich.turn().user(RICH_MARKDOWN);
  const runId = rich.events.at(-1)?.runId ?? "";
  for (const [index, usage] of [
    { inputTokens: 1000, outputTokens: 50, cachedInputTokens: 800 },
    { inputTokens: 1200, outputTokens: 30, cachedInputTokens: 1000 },
  ].entries()) {
    rich.push({
      type: "model/request",
      runId,
      requestId: `rich-${index}`,
      provider: "openai",
      model: "gpt-4.1-mini",
      inputDigest: "sha256:aaaa",
      toolsDigest: "sha256:bbbb",
      inputItems: [1, 4],
    });
    rich.push({
      type: "model/response",
      runId,
      requestId: `rich-${index}`,
      finishReason: "tool_calls",
      usage,
    });
  }
  rich.call("edit_file", {
    path: "src/kettle.ts",
    oldText: "const boil = 90;\nexport { boil };",
    newText: "const boil = 100;\nexport { boil };",
  });
  rich.output("Edited src/kettle.ts: replaced 2 line(s).");
  rich.call("write_file", { path: "notes.md", content: "first note\nsecond note\n" });
  rich.output("Wrote notes.md");
  rich.call("run_command", { command: "seq 120" });
  rich.output(LONG_OUTPUT);
  rich.assistant("The kettle now boils at **100**.");
  rich.end();
  const turnStart = rich.events.find((event) => event.type === "turn/start");
  const turnEnd = rich.events.at(-1);
  if (turnStart !== undefined && turnEnd !== undefined) {
    turnEnd.ts = new Date(Date.parse(turnStart.ts) + 12_400).toISOString();
  }
  rich.turn().user("And the whistle?");
  rich.assistant("It whistles.");
  rich.end();
  return rich;
}
