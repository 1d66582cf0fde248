/**
 * `@tapedeck/session-store/folder`: the store's read side that loads neither the log's schemas
 * nor the writers (the home, its folder and change journal, reading lines by position, the
 * workspace id). A command that must start fast (`tapedeck sessions search`, issue #12) imports
 * these from here: the package root's index reaches the whole store.
 */
export { makeDirectories } from "./fs-util";
export { defaultHome, type JournalChanges, LogFolder } from "./log-folder";
export { unsafeCwdReason } from "./session-cwd";
export { defaultWorkspaceId } from "./workspace";
