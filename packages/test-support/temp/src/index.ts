export { withRunTmpdir } from "./child-env";
export { git, gitRepo } from "./git";
export { leftovers, leftoversMessage, removeStaleRunDirs, TMP_GUARD_ENV } from "./global-setup";
export { processExists } from "./process";
export { type TempWorkspace, tempWorkspace } from "./temp-workspace";
export { testTempDir, testWorkspace } from "./test-temp";
