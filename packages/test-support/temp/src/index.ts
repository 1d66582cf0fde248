export { leftovers, leftoversMessage, TMP_GUARD_ENV } from "./global-setup";
export { type TempWorkspace, tempWorkspace } from "./temp-workspace";
export { testTempDir, testWorkspace } from "./test-temp";
