// Records which files under a folder a process opens or reads, and which folders under it it
// lists: one line each (`open <path>`, `list <path>`) appended to a log. Preloaded (--require)
// into a spawned binary with TAPEDECK_TEST_READS_DIR (the folder) and TAPEDECK_TEST_READS_LOG
// (the log, outside the folder). Listing is not reading; a test that says "nothing was read"
// counts the `open` lines.
const fs = require("node:fs");
const { syncBuiltinESMExports } = require("node:module");
const path = require("node:path");

const dir = process.env.TAPEDECK_TEST_READS_DIR;
const log = process.env.TAPEDECK_TEST_READS_LOG;

if (dir !== undefined && log !== undefined) {
  const { appendFileSync } = fs;
  const under = (file) => {
    if (typeof file !== "string" && !(file instanceof URL) && !Buffer.isBuffer(file)) return;
    const text = path.resolve(file instanceof URL ? file.pathname : String(file));
    return text === dir || text.startsWith(dir + path.sep) ? text : undefined;
  };
  const wrap = (target, name, kind) => {
    const original = target[name];
    if (typeof original !== "function") return;
    target[name] = function (file, ...rest) {
      const seen = under(file);
      if (seen !== undefined) appendFileSync(log, `${kind} ${seen}\n`);
      return original.call(this, file, ...rest);
    };
  };
  for (const name of ["openSync", "open", "readFileSync", "readFile", "createReadStream"]) {
    wrap(fs, name, "open");
  }
  for (const name of ["open", "readFile"]) wrap(fs.promises, name, "open");
  for (const name of ["readdirSync", "readdir", "opendirSync", "opendir"]) wrap(fs, name, "list");
  for (const name of ["readdir", "opendir"]) wrap(fs.promises, name, "list");
  syncBuiltinESMExports();
}
