/**
 * Taking a checkpoint: light on a session's chain (a record of the changed files), a light
 * snapshot for a rewind's undo, or full (the index's tree written, a commit, the ref moved), with
 * the state that chooses between them (the chains, the last tree and checkpoint taken).
 */
import type { TakenCheckpoint } from "./checkpoint-store";
import type { CheckpointTrees } from "./checkpoint-trees";
import { CheckpointError } from "./errors";
import { type GitPlace, runGit } from "./git";
import { keepBorrowedObjects } from "./keep-borrowed";
import {
  changesOf,
  cumulativeOf,
  entriesOf,
  type LightChain,
  stepsBetween,
} from "./light-checkpoints";
import { appendLightRecord, encodeLightRecord, isLightId } from "./light-records";
import { pointHead } from "./list-changed";
import { checkpointCommitBody, setRef, writeLooseObject } from "./loose-objects";
import { packLooseObjects, tooManyLooseObjects } from "./pack-objects";
import { type PrivateIndex, pathsToRepair } from "./private-index";
import { indexChanges, type TreeChange } from "./tree-diff";
import type { CheckpointWorkspace } from "./workspace";

/** Takes one store's checkpoints (its caller serializes the calls: one index). */
export class CheckpointTaker {
  private readonly workspace: CheckpointWorkspace;
  private readonly dir: string;
  private readonly place: GitPlace;
  /** The private index, with the size limits. */
  private readonly index: PrivateIndex;
  /** The checkpoints' trees, memoized for the process. */
  private readonly trees: CheckpointTrees;
  /** The tree the last checkpoint of this store object wrote (what the index holds since). */
  private lastTree: string | undefined;
  /** The last checkpoint this store object took (full or light). */
  private lastTaken: string | undefined;
  /** Whether checkpoints after a session's first are light. */
  private readonly light: boolean;
  /** Each session's chain of light checkpoints, by ref. */
  private readonly chains = new Map<string, LightChain>();

  constructor(store: {
    workspace: CheckpointWorkspace;
    dir: string;
    place: GitPlace;
    index: PrivateIndex;
    trees: CheckpointTrees;
    light: boolean;
  }) {
    this.workspace = store.workspace;
    this.dir = store.dir;
    this.place = store.place;
    this.index = store.index;
    this.trees = store.trees;
    this.light = store.light;
  }

  /**
   * Takes a checkpoint of `only` (the monitor's list; undefined: every file, as `git status`
   * sees them; `exact`: no watched folder moved or deleted): light on the session's chain, a
   * light snapshot when compared with other checkpoints, else full.
   */
  async takeListed(
    options: { ref: string; previous?: string },
    compare: readonly { tree: string; reverse: boolean }[],
    only: readonly string[] | undefined,
    exact = false,
  ): Promise<{ taken: TakenCheckpoint; compared: TreeChange[][] }> {
    const chain = this.chains.get(options.ref);
    let repair: string[] = [];
    if (this.light && compare.length > 0 && options.previous === undefined) {
      const snapshot = await this.takeSnapshot(options.ref, compare, only, exact);
      if ("taken" in snapshot) return snapshot;
      repair = snapshot.repair;
    } else if (chain !== undefined && compare.length === 0 && options.previous === chain.last) {
      const light = await this.takeLight(options.ref, chain, only, exact);
      if ("taken" in light) return { taken: light.taken, compared: [] };
      // a file changed while it was read: a full checkpoint records it again
      repair = light.repair;
    }
    return this.takeFull(options, compare, only, exact, repair);
  }

  /**
   * A light checkpoint: git records the listed files in the index without writing objects
   * (`--info-only`), `diff-index --cached` against the chain's base tree gives the state now, and
   * the paths that differ from the chain's last checkpoint are appended as one record with their
   * contents. `repair` instead when a file's bytes no longer match what git hashed.
   */
  private async takeLight(
    ref: string,
    chain: LightChain,
    only: readonly string[] | undefined,
    exact: boolean,
  ): Promise<{ taken: TakenCheckpoint } | { repair: string[] }> {
    if (only?.length === 0 && this.lastTaken === chain.last) {
      return { taken: { id: chain.last, changes: [], omitted: [] } };
    }
    const recorded =
      exact && only !== undefined && only.length > 0
        ? await this.index.updateTracked(only, true)
        : false;
    const omitted = recorded ? [] : await this.index.listAndRecord(only, [], true);
    const cumulative = cumulativeOf(await indexChanges(this.place, chain.baseTree, false));
    const steps = stepsBetween(chain.cumulative, cumulative);
    this.lastTree = undefined;
    if (steps.length === 0) {
      chain.cumulative = cumulative;
      this.lastTaken = chain.last;
      return { taken: { id: chain.last, changes: [], omitted } };
    }
    const read = await entriesOf(this.place.gitDir, this.workspace.root, steps);
    if ("mismatched" in read) {
      return { repair: [...new Set([...read.mismatched, ...cumulative.keys()])] };
    }
    const { id, frame } = encodeLightRecord({
      parent: chain.last,
      base: chain.base,
      ref,
      entries: read.entries,
    });
    await appendLightRecord(this.dir, frame);
    chain.last = id;
    chain.cumulative = cumulative;
    this.lastTaken = id;
    return { taken: { id, changes: changesOf(steps), omitted } };
  }

  /**
   * A light checkpoint outside the session chains (a rewind's undo, compared with other
   * checkpoints), on the store's `HEAD` (its last full checkpoint) as base: a branch off this
   * process's chain on that base (what differs from its last checkpoint), else one record of
   * every path that differs from the base; the ref pointed at the base. `repair` (or nothing: no base) when a full one is needed.
   */
  private async takeSnapshot(
    ref: string,
    compare: readonly { tree: string; reverse: boolean }[],
    only: readonly string[] | undefined,
    exact: boolean,
  ): Promise<{ taken: TakenCheckpoint; compared: TreeChange[][] } | { repair: string[] }> {
    const [head, recorded] = await Promise.all([
      runGit(this.place, ["rev-parse", "--quiet", "HEAD", "HEAD^{tree}"], {
        okCodes: [1, 128],
        bare: true,
      }),
      exact && only !== undefined && only.length > 0 ? this.index.updateTracked(only, true) : false,
    ]);
    const [base = "", baseTree = ""] = head.stdout.toString("utf8").trim().split("\n");
    if (head.code !== 0 || !/^[0-9a-f]{40,64}$/.test(base) || baseTree === "") {
      return { repair: [] };
    }
    const omitted = recorded ? [] : await this.index.listAndRecord(only, [], true);
    const [against, ...compared] = await Promise.all([
      indexChanges(this.place, baseTree, false),
      ...compare.map((entry) => indexChanges(this.place, entry.tree, false, entry.reverse)),
    ]);
    this.lastTree = undefined;
    const cumulative = cumulativeOf(against);
    // On a chain of this process with the same base (the last one taken, preferably), the record
    // holds only what differs from that chain's last checkpoint; else everything since the base.
    const chains = [...this.chains.values()].filter((chain) => chain.base === base);
    const chain = chains.find((entry) => entry.last === this.lastTaken) ?? chains[0];
    const read = await entriesOf(
      this.place.gitDir,
      this.workspace.root,
      stepsBetween(chain?.cumulative ?? new Map(), cumulative),
    );
    if ("mismatched" in read) return { repair: [...cumulative.keys()] };
    const { id, frame } = encodeLightRecord({
      parent: chain?.last ?? base,
      base,
      ref,
      entries: read.entries,
    });
    await appendLightRecord(this.dir, frame);
    await setRef(this.place, ref, base);
    this.lastTaken = id;
    return { taken: { id, changes: [], omitted }, compared };
  }

  /** A full checkpoint: the index's tree written, a commit, the session's ref moved. */
  private async takeFull(
    options: { ref: string; previous?: string },
    compare: readonly { tree: string; reverse: boolean }[],
    only: readonly string[] | undefined,
    exact: boolean,
    extraRepair: readonly string[],
  ): Promise<{ taken: TakenCheckpoint; compared: TreeChange[][] }> {
    // Objects for what light checkpoints recorded --info-only; git does not hash again an entry
    // whose stat data still matches, so the package writes them (no process).
    if (this.light) {
      await this.index.writeBlobsOf(
        await pathsToRepair(this.chains.values(), options.previous, this.dir),
      );
    }
    // The parent's tree is looked up while git records the listed files.
    const [recorded, previousTree] = await Promise.all([
      extraRepair.length === 0 && exact && only !== undefined && only.length > 0
        ? this.index.updateTracked(only)
        : false,
      options.previous === undefined ? undefined : this.trees.treeOf(options.previous),
    ]);
    const previous = previousTree === undefined ? undefined : options.previous;
    // The monitor saw nothing change and the index is as our last checkpoint left it (another
    // writer makes its list untrusted): the tree is the last one written. Same as the parent's,
    // the parent is the checkpoint, with no git process at all.
    if (
      only?.length === 0 &&
      extraRepair.length === 0 &&
      compare.length === 0 &&
      previous !== undefined &&
      previousTree !== undefined &&
      previousTree === this.lastTree
    ) {
      await Promise.all([
        setRef(this.place, options.ref, previous),
        pointHead(this.place.gitDir, previous),
      ]);
      this.lastTaken = previous;
      return {
        taken: { id: previous, tree: previousTree, changes: [], omitted: [] },
        compared: [],
      };
    }
    const omitted = recorded ? [] : await this.index.listAndRecord(only, extraRepair);
    // The tree and the changes against the parent's tree are both read from the new index.
    const readIndex = () =>
      Promise.all([
        runGit(this.place, ["write-tree"]),
        previousTree === undefined ? [] : indexChanges(this.place, previousTree, true),
        ...compare.map((entry) => indexChanges(this.place, entry.tree, false, entry.reverse)),
      ]);
    const [written, changes, ...compared] = await readIndex().catch(async (error: unknown) => {
      // An entry whose object is missing (recorded --info-only by a light checkpoint this process
      // does not know of): every such path is recorded again, then the index read again.
      if (!this.light || !CheckpointError.isInstance(error) || error.code !== "GIT_FAILED") {
        throw error;
      }
      await this.index.repairIndex();
      return readIndex();
    });
    const tree = written.stdout.toString("utf8").trim();
    // A full checkpoint's parent is a commit: a light previous's base.
    const parent =
      previous !== undefined && isLightId(previous) ? await this.trees.baseOf(previous) : previous;
    let id: string;
    if (previous !== undefined && previousTree === tree && !isLightId(previous)) {
      id = previous;
    } else {
      const body = checkpointCommitBody(tree, parent, new Date());
      id = await writeLooseObject(this.place.gitDir, "commit", body, tree.length);
    }
    const [, , crowded] = await Promise.all([
      setRef(this.place, options.ref, id),
      this.workspace.userObjects !== undefined && changes.length > 0
        ? keepBorrowedObjects(this.place.gitDir, this.workspace.userObjects, changes)
        : undefined,
      tooManyLooseObjects(this.place.gitDir),
      pointHead(this.place.gitDir, id),
    ]);
    if (crowded) await packLooseObjects(this.place);
    this.trees.remember(id, tree);
    this.lastTree = tree;
    this.lastTaken = id;
    if (this.light) {
      this.chains.set(options.ref, { base: id, baseTree: tree, last: id, cumulative: new Map() });
    }
    return { taken: { id, tree, changes, omitted }, compared };
  }
}
