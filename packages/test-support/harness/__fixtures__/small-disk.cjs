// A full disk where the test cannot mount a small tmpfs: every write to a file opened under `dir`
// counts against `bytes` and fails with ENOSPC past it, as a full disk does (the part that fits
// is written first). Preloaded (--require) into a spawned binary with TAPEDECK_TEST_DISK_DIR and
// TAPEDECK_TEST_DISK_BYTES, or installed in the test's own process with `install(dir, bytes)`.
const fs = require("node:fs");
const { syncBuiltinESMExports } = require("node:module");

function install(dir, bytes) {
  let room = bytes;
  const watched = new Set();
  const { openSync, closeSync, writeSync } = fs;
  fs.openSync = (file, ...rest) => {
    const fd = openSync(file, ...rest);
    if (typeof file === "string" && file.startsWith(dir)) watched.add(fd);
    return fd;
  };
  fs.closeSync = (fd) => {
    watched.delete(fd);
    return closeSync(fd);
  };
  fs.writeSync = (fd, data, offset, length, position) => {
    if (!watched.has(fd) || typeof data === "string") {
      return writeSync(fd, data, offset, length, position);
    }
    const wanted = length ?? data.length - (offset ?? 0);
    if (wanted <= room) {
      room -= wanted;
      return writeSync(fd, data, offset, length, position);
    }
    if (room > 0) {
      const written = writeSync(fd, data, offset ?? 0, room, position);
      room -= written;
      return written;
    }
    throw Object.assign(new Error("ENOSPC: no space left on device, write"), {
      code: "ENOSPC",
      errno: -28,
      syscall: "write",
    });
  };
  syncBuiltinESMExports();
  return () => {
    Object.assign(fs, { openSync, closeSync, writeSync });
    syncBuiltinESMExports();
  };
}

if (process.env.TAPEDECK_TEST_DISK_DIR !== undefined) {
  install(process.env.TAPEDECK_TEST_DISK_DIR, Number(process.env.TAPEDECK_TEST_DISK_BYTES));
}

module.exports = { install };
