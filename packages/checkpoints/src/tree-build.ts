import type { GitPlace } from "./git";
import { writeLooseObjectSync } from "./loose-objects";
import { openObjectReader } from "./read-blobs";

/** One entry of a git tree object. */
interface TreeEntry {
  mode: string;
  name: string;
  oid: string;
}

/** A path's new state: its mode and blob id, or `000000`: gone. */
export interface PathState {
  mode: string;
  oid: string;
}

const TREE_MODE = "40000";

/** Parses a tree object's body (`mode name\0<raw id>` entries). */
function parseTree(body: Buffer, idBytes: number): TreeEntry[] {
  const entries: TreeEntry[] = [];
  let offset = 0;
  while (offset < body.length) {
    const space = body.indexOf(0x20, offset);
    const nul = body.indexOf(0, space);
    entries.push({
      mode: body.subarray(offset, space).toString("latin1"),
      name: body.subarray(space + 1, nul).toString("utf8"),
      oid: body.subarray(nul + 1, nul + 1 + idBytes).toString("hex"),
    });
    offset = nul + 1 + idBytes;
  }
  return entries;
}

/** Git's order of tree entries: by name, a folder's name compared as if it ended with `/`. */
function sortKey(entry: TreeEntry): Buffer {
  return Buffer.from(entry.mode === TREE_MODE ? `${entry.name}/` : entry.name, "utf8");
}

function serializeTree(entries: readonly TreeEntry[]): Buffer {
  const sorted = [...entries].sort((a, b) => Buffer.compare(sortKey(a), sortKey(b)));
  return Buffer.concat(
    sorted.flatMap((entry) => [
      Buffer.from(`${entry.mode} ${entry.name}\0`, "utf8"),
      Buffer.from(entry.oid, "hex"),
    ]),
  );
}

function parentOf(folder: string): string {
  const slash = folder.lastIndexOf("/");
  return slash < 0 ? "" : folder.slice(0, slash);
}

function depthOf(folder: string): number {
  return folder === "" ? 0 : folder.split("/").length;
}

function nameOf(file: string): string {
  return file.slice(file.lastIndexOf("/") + 1);
}

/**
 * The tree of `baseTree` with `changes` applied (each path set to a mode and blob, or removed),
 * built in-process: only the folders on the changed paths are read (one `cat-file --batch` per
 * depth) and written again (loose objects), not the whole tree in an index. Folders left empty
 * are removed, as git does not record them.
 */
export async function applyToTree(
  place: GitPlace,
  baseTree: string,
  changes: ReadonlyMap<string, PathState>,
): Promise<string> {
  const idBytes = baseTree.length / 2;
  // every folder on a changed path, by depth
  const folders = new Set<string>([""]);
  for (const file of changes.keys()) {
    for (let folder = parentOf(file); folder !== ""; folder = parentOf(folder)) folders.add(folder);
  }
  const byDepth = new Map<number, string[]>();
  for (const folder of folders) {
    const depth = depthOf(folder);
    byDepth.set(depth, [...(byDepth.get(depth) ?? []), folder]);
  }
  const maxDepth = Math.max(...byDepth.keys());
  // the base's entries of each of those folders, read a depth at a time
  const contents = new Map<string, TreeEntry[]>();
  const ids = new Map<string, string>([["", baseTree]]);
  const reader = openObjectReader(place);
  try {
    for (let depth = 0; depth <= maxDepth; depth += 1) {
      const wanted = (byDepth.get(depth) ?? []).filter((folder) => ids.has(folder));
      const read = await reader.read(wanted.map((folder) => ids.get(folder) ?? ""));
      for (const folder of wanted) {
        const entries = parseTree(read.get(ids.get(folder) ?? "") ?? Buffer.alloc(0), idBytes);
        contents.set(folder, entries);
        for (const entry of entries) {
          const child = folder === "" ? entry.name : `${folder}/${entry.name}`;
          if (entry.mode === TREE_MODE && folders.has(child)) ids.set(child, entry.oid);
        }
      }
    }
  } finally {
    reader.close();
  }
  // the changed files set in their folders
  const edited = new Map<string, Map<string, TreeEntry | undefined>>();
  const edit = (folder: string, name: string, entry: TreeEntry | undefined) => {
    const map = edited.get(folder) ?? new Map<string, TreeEntry | undefined>();
    map.set(name, entry);
    edited.set(folder, map);
  };
  for (const [file, state] of changes) {
    const name = nameOf(file);
    edit(parentOf(file), name, state.mode === "000000" ? undefined : { ...state, name });
  }
  // deepest folders first (a depth's folders side by side): each written, then set (or removed
  // when empty) in its parent
  let root = baseTree;
  for (let depth = maxDepth; depth >= 0; depth -= 1) {
    const written = await Promise.all(
      (byDepth.get(depth) ?? []).map(async (folder) => {
        const entries = new Map<string, TreeEntry>();
        for (const entry of contents.get(folder) ?? []) entries.set(entry.name, entry);
        for (const [name, entry] of edited.get(folder) ?? []) {
          if (entry === undefined) entries.delete(name);
          else entries.set(name, entry);
        }
        if (entries.size === 0 && folder !== "") return { folder, oid: undefined };
        const body = serializeTree([...entries.values()]);
        return { folder, oid: writeLooseObjectSync(place.gitDir, "tree", body, baseTree.length) };
      }),
    );
    for (const { folder, oid } of written) {
      if (folder === "") {
        root = oid ?? root;
        continue;
      }
      const parent = parentOf(folder);
      const name = nameOf(folder);
      if (oid !== undefined) {
        edit(parent, name, { mode: TREE_MODE, name, oid });
        continue;
      }
      // gone, unless a file now has the folder's name
      const replacing = edited.get(parent)?.get(name);
      if (replacing === undefined || replacing.mode === TREE_MODE) edit(parent, name, undefined);
    }
  }
  return root;
}
