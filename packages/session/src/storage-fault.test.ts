import { describe, expect, it } from "vitest";
import { StorageFaultError, storageFaultKind, toStorageFault } from "./storage-fault";

const where = { path: "/home/me/.tapedeck/index.sqlite", home: "/home/me/.tapedeck" };
const fault = (code: string) => toStorageFault(Object.assign(new Error(code), { code }), where);

describe("storage faults", () => {
  it("says disk full for the codes a full disk gives, SQLite's shared-memory growth included", () => {
    for (const code of ["ENOSPC", "SQLITE_FULL", "SQLITE_IOERR_SHMSIZE"]) {
      expect(storageFaultKind(code)).toBe("disk-full");
    }
    expect(fault("SQLITE_IOERR_SHMSIZE")?.message).toBe(
      "disk full (SQLITE_IOERR_SHMSIZE) writing /home/me/.tapedeck/index.sqlite",
    );
  });

  it("says input/output error for other I/O failures, and names the home when it is read-only", () => {
    expect(storageFaultKind("SQLITE_IOERR_WRITE")).toBe("io");
    expect(storageFaultKind("EIO")).toBe("io");
    expect(fault("EROFS")?.message).toBe("the Tapedeck home /home/me/.tapedeck is read-only");
    expect(StorageFaultError.isInstance(fault("EDQUOT"))).toBe(true);
    expect(fault("ENOENT")).toBeUndefined();
  });
});
