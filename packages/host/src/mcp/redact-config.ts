/**
 * What of an MCP configuration may enter a log (`x-mcp/servers`), which is searched, exported,
 * pushed to a team index and printed on resume: names, not secrets. URLs lose their userinfo, the
 * values of their query parameters and token-shaped path segments; token-shaped arguments, and the
 * value after a secret-named flag (`--token X`, `--api-key=X`), become `[redacted]`.
 */

/** What stands in for a removed secret. */
export const REDACTED = "[redacted]";

const knownPrefix =
  /^(sk|pk|rk|ghp|gho|ghu|ghs|ghr|github_pat|glpat|xox[abprs]|AKIA|ASIA|AIza|ya29)[-_.A-Za-z0-9]{8,}$/;
const secretFlag =
  /^--?[A-Za-z0-9_-]*(token|secret|password|passwd|api[-_]?key|access[-_]?key|auth|credentials?|private[-_]?key)$/i;

/** True for a value that looks like a credential (a known key prefix, or long mixed random text). */
export function looksLikeToken(value: string): boolean {
  if (knownPrefix.test(value)) return true;
  return (
    value.length >= 24 &&
    /^[A-Za-z0-9_\-+=.]+$/.test(value) &&
    /[0-9]/.test(value) &&
    /[A-Za-z]/.test(value)
  );
}

/** `args` as they may be recorded. */
export function redactArgs(args: readonly string[]): string[] {
  return args.map((arg, index) => {
    const previous = args[index - 1];
    if (previous !== undefined && secretFlag.test(previous)) return REDACTED;
    const equals = arg.indexOf("=");
    if (arg.startsWith("-") && equals > 0 && secretFlag.test(arg.slice(0, equals))) {
      return `${arg.slice(0, equals + 1)}${REDACTED}`;
    }
    return looksLikeToken(arg) ? REDACTED : arg;
  });
}

/** `url` as it may be recorded (unchanged when it does not parse). */
export function redactUrl(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return url;
  }
  parsed.username = "";
  parsed.password = "";
  for (const name of [...new Set(parsed.searchParams.keys())])
    parsed.searchParams.set(name, REDACTED);
  parsed.pathname = parsed.pathname
    .split("/")
    .map((segment) => (looksLikeToken(decodeURIComponent(segment)) ? REDACTED : segment))
    .join("/");
  return decodeURI(parsed.toString());
}

/** True when a recorded value had a secret taken out (the server cannot be rebuilt from it). */
export function wasRedacted(values: readonly string[]): boolean {
  return values.some((value) => value.includes(REDACTED));
}
