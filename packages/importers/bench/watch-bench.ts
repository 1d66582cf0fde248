/**
 * `pnpm bench` for continuous import (`importChanged`, behind `tapedeck import --watch` and the
 * home's auto import):
 * - a look where nothing changed, over `WATCH_BENCH_SESSIONS` (2,000) Claude Code sessions in
 *   100 project folders, 1 % of them written in the last day (hot), the rest a month old. Goal
 *   ≤ 5 ms.
 * - the same look over as many opencode sessions in its pre-1.2 `storage/` folder (a file per
 *   session, message and part: 4 messages of 3 parts each), 1 % hot (written in the last day),
 *   two of them live (written now, as a session opencode is running). Goal ≤ 5 ms.
 * - a look after a `WATCH_BENCH_MB` (10) MB session grew by two lines, against importing that
 *   session whole into a fresh home (goal: the cost of the new lines, far below the whole).
 */
import { appendFileSync, mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type BenchRow, percentile, printTable, sample } from "@tapedeck/bench";
import { createSessionStore } from "@tapedeck/session-store";
import { importChanged, importSessions } from "../src/index";

const SESSIONS = Number(process.env.WATCH_BENCH_SESSIONS ?? 2000);
const MEGABYTES = Number(process.env.WATCH_BENCH_MB ?? 10);
const root = mkdtempSync(join(tmpdir(), "tapedeck-watch-bench-"));
const projects = join(root, "user", ".claude", "projects");

/** One Claude Code entry of the session `id`, `index`-th of its file. */
function entry(id: string, index: number, text: string): string {
  const user = index % 2 === 0;
  return `${JSON.stringify({
    type: user ? "user" : "assistant",
    uuid: `${id}-${index}`,
    parentUuid: index === 0 ? null : `${id}-${index - 1}`,
    sessionId: id,
    cwd: "/work",
    isSidechain: false,
    timestamp: new Date(Date.UTC(2026, 10, 1, 0, 0, index)).toISOString(),
    message: user
      ? { role: "user", content: text }
      : {
          id: `m${index}`,
          role: "assistant",
          model: "claude-x",
          content: [{ type: "text", text }],
        },
  })}\n`;
}

function sessionId(n: number): string {
  return `00000000-0000-4000-8000-${n.toString(16).padStart(12, "0")}`;
}

/** `count` small sessions in 100 folders; all but 1 % dated a month back. */
function writeSessions(count: number): void {
  const old = new Date(Date.now() - 30 * 24 * 60 * 60 * 1000);
  for (let n = 0; n < count; n += 1) {
    const folder = join(projects, `-work-${n % 100}`);
    mkdirSync(folder, { recursive: true });
    const id = sessionId(n);
    const file = join(folder, `${id}.jsonl`);
    writeFileSync(file, entry(id, 0, `question ${n}`) + entry(id, 1, `answer ${n}`));
    if (n % 100 !== 0) utimesSync(file, old, old);
  }
}

const rows: BenchRow[] = [];
const median = (values: number[]) =>
  percentile(
    [...values].sort((a, b) => a - b),
    50,
  );
writeSessions(SESSIONS);
const home = join(root, "home");
const look = () =>
  importChanged({
    store: createSessionStore({ home }),
    stateDir: join(home, "import"),
    env: { HOME: join(root, "user") },
  });
await look();
const idle = await sample(20, look);
rows.push({
  name: `watch: a look, nothing changed, ${SESSIONS} sessions`,
  value: median(idle),
  unit: "ms",
  better: "lower",
  goal: "≤ 5 ms",
});

/**
 * `count` opencode sessions in `storage/` (20 project folders), each 4 messages of 3 parts: all
 * but 1 % dated a month back (files and folders alike), the 1 % two hours back but for two
 * written now.
 */
function writeStorageSessions(storage: string, count: number): void {
  const old = new Date(Date.now() - 30 * 24 * 60 * 60 * 1000);
  const hot = new Date(Date.now() - 2 * 60 * 60 * 1000);
  const write = (path: string, value: unknown) => {
    writeFileSync(path, JSON.stringify(value, null, 2));
    return path;
  };
  for (let n = 0; n < count; n += 1) {
    const id = `ses_${n.toString().padStart(8, "0")}`;
    const project = join(storage, "session", `prj_${n % 20}`);
    const messages = join(storage, "message", id);
    mkdirSync(project, { recursive: true });
    mkdirSync(messages, { recursive: true });
    const written = [
      write(join(project, `${id}.json`), {
        id,
        directory: "/work",
        title: `session ${n}`,
        time: { created: 1_780_000_000_000 + n, updated: 1_780_000_000_000 + n },
      }),
    ];
    for (let m = 0; m < 4; m += 1) {
      const messageId = `msg_${n.toString().padStart(8, "0")}_${m}`;
      const role = m % 2 === 0 ? "user" : "assistant";
      written.push(
        write(join(messages, `${messageId}.json`), {
          id: messageId,
          sessionID: id,
          role,
          time: { created: 1_780_000_000_000 + n + m },
        }),
      );
      const parts = join(storage, "part", messageId);
      mkdirSync(parts, { recursive: true });
      for (let p = 0; p < 3; p += 1) {
        written.push(
          write(join(parts, `prt_${n.toString().padStart(8, "0")}_${m}_${p}.json`), {
            id: `prt_${n}_${m}_${p}`,
            messageID: messageId,
            sessionID: id,
            type: "text",
            text: `${role} text ${n} ${m} ${p}`,
          }),
        );
      }
      written.push(parts);
    }
    written.push(messages);
    const when = n % 100 !== 0 ? old : n >= 200 ? hot : undefined;
    if (when !== undefined) for (const path of written) utimesSync(path, when, when);
  }
}

const xdg = join(root, "xdg");
writeStorageSessions(join(xdg, "opencode", "storage"), SESSIONS);
const storageHome = join(root, "storage-home");
const lookAtStorage = () =>
  importChanged({
    store: createSessionStore({ home: storageHome }),
    stateDir: join(storageHome, "import"),
    env: { HOME: join(root, "user"), XDG_DATA_HOME: xdg },
    sources: ["opencode"],
  });
await lookAtStorage();
const storageIdle = await sample(20, lookAtStorage);
rows.push({
  name: `watch: a look, nothing changed, ${SESSIONS} opencode storage/ sessions`,
  value: median(storageIdle),
  unit: "ms",
  better: "lower",
  goal: "≤ 5 ms",
});

// One big session, imported, then grown by two lines.
const bigId = sessionId(SESSIONS + 1);
const bigFolder = join(projects, "-work-big");
mkdirSync(bigFolder, { recursive: true });
const big = join(bigFolder, `${bigId}.jsonl`);
const paragraph = "word ".repeat(200);
let bytes = 0;
let lines = 0;
while (bytes < MEGABYTES * 1024 * 1024) {
  const line = entry(bigId, lines, paragraph);
  appendFileSync(big, line);
  bytes += line.length;
  lines += 1;
}
await look();
const grown = await sample(5, async () => {
  appendFileSync(big, entry(bigId, lines, "one more") + entry(bigId, lines + 1, "and its answer"));
  lines += 2;
  return look();
});
const whole = await sample(3, async () => {
  const fresh = join(root, `fresh-${Math.random()}`);
  await importSessions({
    store: createSessionStore({ home: fresh }),
    source: "claude-code",
    paths: [big],
  });
  // Retried: spare log files the store makes ahead may still be landing in the fresh home.
  rmSync(fresh, { recursive: true, force: true, maxRetries: 5 });
});
rows.push({
  name: `watch: a look after a ${MEGABYTES} MB session grew by 2 lines`,
  value: median(grown),
  unit: "ms",
  baseline: median(whole),
  baselineName: "importing it whole",
  better: "lower",
  goal: "O(new lines)",
});
printTable("tapedeck import --watch (median)", rows);
rmSync(root, { recursive: true, force: true });
