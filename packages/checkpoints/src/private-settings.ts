/**
 * The private store's settings kept in step with the user's repository: its alternates (the
 * user's objects, borrowed read-only) and its `info/exclude` (the user's, then the home).
 */
import { mkdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import type { CheckpointStore } from "./checkpoint-store";
import type { CheckpointWorkspace } from "./workspace";

/** The lines of the private `info/exclude`. */
function excludeLines(workspace: CheckpointWorkspace, home: string, userExclude: string): string {
  const lines = ["# written by tapedeck: the user's info/exclude, then the home", userExclude];
  const relativeHome = path.relative(workspace.root, home);
  if (relativeHome !== "" && !relativeHome.startsWith("..") && !path.isAbsolute(relativeHome)) {
    lines.push(`/${relativeHome.split(path.sep).join("/")}/`);
  }
  lines.push("*.tapedeck-restore.tmp");
  return `${lines.join("\n")}\n`;
}

/**
 * Keeps the private alternates and exclude file in step with the user's repository; true when
 * the exclude file changed.
 */
export async function syncPrivateSettings(
  store: Pick<CheckpointStore, "workspace" | "place">,
  home: string,
): Promise<boolean> {
  const { workspace } = store;
  const gitDir = store.place.gitDir;
  const alternates = path.join(gitDir, "objects", "info", "alternates");
  const wanted = workspace.userObjects === undefined ? "" : `${workspace.userObjects}\n`;
  const current = await readFile(alternates, "utf8").catch(() => "");
  if (current !== wanted) {
    await mkdir(path.dirname(alternates), { recursive: true });
    await writeFile(alternates, wanted);
  }
  const userExclude =
    workspace.userExclude === undefined
      ? ""
      : await readFile(workspace.userExclude, "utf8").catch(() => "");
  const exclude = path.join(gitDir, "info", "exclude");
  const lines = excludeLines(workspace, home, userExclude);
  if ((await readFile(exclude, "utf8").catch(() => "")) === lines) return false;
  await mkdir(path.dirname(exclude), { recursive: true });
  await writeFile(exclude, lines);
  return true;
}
