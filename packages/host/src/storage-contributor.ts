/**
 * One kind of data that `tapedeck storage` accounts for and reclaims (plain logs, compressed
 * logs, blobs, checkpoints, the index, the trash). The package that owns the data implements
 * it; host lists every contributor, so the figures and the reclaim path are one for all kinds.
 */
export interface StorageContributor {
  /**
   * A short, stable name shown as the row's label (`plain logs`, `blobs`, `checkpoints`).
   * Unique among the contributors of one host.
   */
  readonly kind: string;

  /**
   * The bytes and files this kind holds in the home now (allocated file sizes as `stat` reports
   * `size`, not blocks). Reads only; never throws for a folder that does not exist (0, 0).
   */
  usage(): Promise<StorageUsage>;

  /**
   * Frees what no live session needs any more. `live` holds the ids of every session that
   * still exists outside the trash (forks' parents included); anything referenced by one of
   * them is kept. With `dryRun`, changes nothing and returns what would be freed. Idempotent;
   * crash-safe (a kill at any point leaves every live session readable). Returns the bytes
   * freed (or that would be).
   */
  reclaim(live: ReadonlySet<string>, options: ReclaimOptions): Promise<{ bytes: number }>;
}

/** What a {@link StorageContributor} holds. */
export interface StorageUsage {
  /** Total size in bytes. */
  bytes: number;
  /** Number of files. */
  files: number;
}

/** Options of {@link StorageContributor.reclaim}. */
export interface ReclaimOptions {
  /** Report what would be freed without changing anything. */
  dryRun: boolean;
}
