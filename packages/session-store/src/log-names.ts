/** How the store names its logs: `<session id>.jsonl` in the sessions folder. */
const logFilePattern = /^([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\.jsonl$/;

/** The session id a log file name stands for, or `undefined` for any other name. */
export function sessionIdOfFileName(name: string): string | undefined {
  return logFilePattern.exec(name)?.[1];
}
