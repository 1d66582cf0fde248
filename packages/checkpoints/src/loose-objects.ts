import { createHash, randomBytes } from "node:crypto";
import { existsSync, mkdirSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { mkdir, rename, rm, stat, writeFile } from "node:fs/promises";
import path from "node:path";
import { deflateSync } from "node:zlib";
import { type GitPlace, runGit } from "./git";

/** Ref names this module writes itself; any other goes through `git update-ref`. */
const PLAIN_REF = /^refs\/tapedeck\/(?:sessions|undo)\/[A-Za-z0-9_-][A-Za-z0-9._-]{0,127}$/;

/** Writes `content` to `file` through a temp file and a rename (readers see old or new). */
async function replaceFile(file: string, content: Buffer | string, mode: number): Promise<void> {
  const temp = path.join(path.dirname(file), `tmp_${randomBytes(6).toString("hex")}`);
  try {
    // the folder is made only when missing (one call less per object written)
    await writeFile(temp, content, { mode, flag: "wx" }).catch(async (error: unknown) => {
      if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
      await mkdir(path.dirname(file), { recursive: true });
      await writeFile(temp, content, { mode, flag: "wx" });
    });
    await rename(temp, file);
  } catch (error) {
    await rm(temp, { force: true });
    throw error;
  }
}

/** The id git gives a blob of `content` (sha1, or sha256 when `idLength` is 64). */
export function blobId(content: Buffer, idLength: number): string {
  return createHash(idLength === 64 ? "sha256" : "sha1")
    .update(`blob ${content.length}\0`)
    .update(content)
    .digest("hex");
}

/**
 * Writes a loose object into the private store the way git does (zlib of `type size\0body`,
 * named by its hash) and returns its id: what `git commit-tree` would write, without a process.
 * `idLength` (40 or 64, from a tree id) picks sha1 or sha256.
 */
export async function writeLooseObject(
  gitDir: string,
  type: "commit" | "blob" | "tree",
  body: string | Buffer,
  idLength: number,
): Promise<string> {
  const content = typeof body === "string" ? Buffer.from(body, "utf8") : body;
  const whole = Buffer.concat([Buffer.from(`${type} ${content.length}\0`), content]);
  const id = createHash(idLength === 64 ? "sha256" : "sha1")
    .update(whole)
    .digest("hex");
  const file = path.join(gitDir, "objects", id.slice(0, 2), id.slice(2));
  const present = await stat(file).then(
    () => true,
    () => false,
  );
  if (!present) await replaceFile(file, deflateSync(whole), 0o444);
  return id;
}

/**
 * {@link writeLooseObject} with synchronous calls, for the many small objects of a built tree:
 * a few hundred writes through the thread pool wait behind every other queued call on a busy
 * machine; these take microseconds each. Returns the id.
 */
export function writeLooseObjectSync(
  gitDir: string,
  type: "blob" | "tree",
  content: Buffer,
  idLength: number,
): string {
  const whole = Buffer.concat([Buffer.from(`${type} ${content.length}\0`), content]);
  const id = createHash(idLength === 64 ? "sha256" : "sha1")
    .update(whole)
    .digest("hex");
  const file = path.join(gitDir, "objects", id.slice(0, 2), id.slice(2));
  if (existsSync(file)) return id;
  const temp = path.join(path.dirname(file), `tmp_${randomBytes(6).toString("hex")}`);
  const body = deflateSync(whole);
  try {
    try {
      writeFileSync(temp, body, { mode: 0o444, flag: "wx" });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
      mkdirSync(path.dirname(file), { recursive: true });
      writeFileSync(temp, body, { mode: 0o444, flag: "wx" });
    }
    renameSync(temp, file);
  } catch (error) {
    rmSync(temp, { force: true });
    throw error;
  }
  return id;
}

/** The body of a checkpoint commit of `tree` (parent `parent`), as `git commit-tree` writes it. */
export function checkpointCommitBody(tree: string, parent: string | undefined, now: Date): string {
  const who = `tapedeck <checkpoints@tapedeck.invalid> ${Math.floor(now.getTime() / 1000)} +0000`;
  const lines = [`tree ${tree}`];
  if (parent !== undefined) lines.push(`parent ${parent}`);
  lines.push(`author ${who}`, `committer ${who}`, "", "tapedeck checkpoint", "");
  return lines.join("\n");
}

/**
 * Points `ref` at `id`: a loose ref file written by temp + rename for the plain names this
 * package uses (what `git update-ref` writes in a bare store without reflogs), else
 * `git update-ref`.
 */
export async function setRef(place: GitPlace, ref: string, id: string): Promise<void> {
  if (!PLAIN_REF.test(ref) || ref.includes("..") || ref.endsWith(".lock")) {
    await runGit(place, ["update-ref", ref, id]);
    return;
  }
  await replaceFile(path.join(place.gitDir, ...ref.split("/")), `${id}\n`, 0o644);
}
