import { isAbsolute, parse, resolve } from "node:path";

/**
 * Why a session's recorded working directory may not be adopted from its log, or `undefined` when
 * it may. A log can come from elsewhere (an import, a team copy, a file a person was sent): a
 * relative path would be resolved against wherever the run or the import starts, and the
 * filesystem root would open the whole machine to the file tools. One rule for `tapedeck import`
 * and for resuming.
 */
export function unsafeCwdReason(cwd: string | undefined): string | undefined {
  if (cwd === undefined || cwd.trim() === "") return "which is empty";
  if (!isAbsolute(cwd)) return "which is a relative path";
  const resolved = resolve(cwd);
  if (resolved === parse(resolved).root) return "which is the filesystem root";
  return undefined;
}
