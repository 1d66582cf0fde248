/**
 * Reading checkpoints as trees: a full checkpoint's tree looked up in the store, a light one's
 * built from its base's tree and its chain's records, each remembered for the process (ids never
 * change meaning), and the changes or paths between two checkpoints.
 */
import { CheckpointError } from "./errors";
import { type GitPlace, runGit } from "./git";
import { buildTree, chainOf, foldChain } from "./light-checkpoints";
import { isLightId, type LightRecords, readLightRecords } from "./light-records";
import { type TreeChange, treeChanges } from "./tree-diff";

/** The trees of one store's checkpoints, memoized. */
export class CheckpointTrees {
  private readonly place: GitPlace;
  /** The store's folder (its light records). */
  private readonly dir: string;
  /** Trees of checkpoints this process took or looked up (ids never change meaning). */
  private readonly trees = new Map<string, string>();

  constructor(place: GitPlace, dir: string) {
    this.place = place;
    this.dir = dir;
  }

  /** Remembers the tree of a checkpoint just taken. */
  remember(id: string, tree: string): void {
    this.trees.set(id, tree);
  }

  /** The base (a commit) of light checkpoint `id`. */
  async baseOf(id: string): Promise<string> {
    return chainOf(id, await this.lightRecords(), this.dir).base;
  }

  /** The store's light records (read again when the file changed). */
  private async lightRecords(): Promise<LightRecords> {
    return readLightRecords(this.dir);
  }

  /** The tree of a checkpoint, or undefined when this store does not hold it. */
  async treeOf(id: string): Promise<string | undefined> {
    const cached = this.trees.get(id);
    if (cached !== undefined) return cached;
    if (isLightId(id)) return this.lightTree(id).catch(() => undefined);
    if (!/^[0-9a-f]{40,64}$/.test(id)) return undefined;
    const result = await runGit(this.place, ["rev-parse", "--verify", "--quiet", `${id}^{tree}`], {
      okCodes: [1, 128],
    });
    const tree = result.stdout.toString("utf8").trim();
    if (result.code !== 0 || tree === "") return undefined;
    this.trees.set(id, tree);
    return tree;
  }

  /**
   * Builds (once per process) the tree of light checkpoint `id` from its base's tree and the
   * records of its chain. Throws `CHECKPOINT_NOT_FOUND` naming a missing or damaged record.
   */
  private async lightTree(id: string): Promise<string> {
    const read = await this.lightRecords();
    const { records, base } = chainOf(id, read, this.dir);
    // From the nearest checkpoint of the chain whose tree this process built already (a rewind
    // to the checkpoint after an earlier target folds only the records since), else the base.
    const built = records.findIndex((record) => this.trees.has(record.id));
    const start =
      built >= 0 ? (this.trees.get(records[built]?.id ?? "") ?? "") : await this.requireTree(base);
    const tree = await buildTree(
      this.place,
      start,
      foldChain(built >= 0 ? records.slice(0, built) : records),
    );
    this.trees.set(id, tree);
    return tree;
  }

  /** The tree of a checkpoint; throws `CHECKPOINT_NOT_FOUND` when this store lacks it. */
  async requireTree(id: string): Promise<string> {
    if (isLightId(id) && !this.trees.has(id)) return this.lightTree(id);
    const tree = await this.treeOf(id);
    if (tree === undefined) {
      throw new CheckpointError(
        "CHECKPOINT_NOT_FOUND",
        `checkpoint ${id.slice(0, 12)} is not in this home's store for ${this.place.workTree}`,
      );
    }
    return tree;
  }

  /**
   * The paths that may differ between checkpoints `from` and `to` (a superset): for two light
   * checkpoints on one base, every path their records name, without building a tree; else the
   * changes between their trees.
   */
  async pathsBetween(from: string, to: string): Promise<{ path: string }[]> {
    if (isLightId(from) && isLightId(to)) {
      const read = await this.lightRecords();
      const one = chainOf(from, read, this.dir);
      const two = chainOf(to, read, this.dir);
      if (one.base === two.base) {
        const paths = new Set<string>();
        for (const record of [...one.records, ...two.records]) {
          for (const entry of record.entries) paths.add(entry.path);
        }
        return [...paths].map((file) => ({ path: file }));
      }
    }
    return this.changesBetween(from, to, false);
  }

  /** What changed from checkpoint `from` to checkpoint `to` (renames detected when asked). */
  async changesBetween(from: string, to: string, renames = true): Promise<TreeChange[]> {
    const [a, b] = await Promise.all([this.requireTree(from), this.requireTree(to)]);
    return treeChanges(this.place, a, b, renames);
  }
}
