/**
 * What tools may see of the agent's environment, and which secret values never leave a tool call.
 * The threat: a model steered by a repository file or web page runs `env`, `cat /proc/$PPID/environ`
 * or a script that prints credentials; the output would land in the log, the index and the next
 * model request. See `architecture/security.md`.
 */

/** Variables never passed to a tool's process: Tapedeck's own credentials and settings that hold them. */
export const WITHHELD_VARIABLES = [
  "OPENAI_API_KEY",
  "OPENAI_BASE_URL",
  "TAPEDECK_WEB_TOKEN",
  "TAPEDECK_INDEX_URL",
] as const;

/**
 * Names that look like credentials (`GITHUB_TOKEN`, `AWS_SECRET_ACCESS_KEY`, `PGPASSWORD`,
 * `NPM_AUTH_TOKEN`, `*_API_KEY`…): withheld too, unless named in `TAPEDECK_TOOL_ENV_ALLOW`.
 */
export const WITHHELD_NAME_PATTERN =
  /(^|_)(API_?KEY|ACCESS_?KEY|SECRET|TOKEN|PASSWORD|PASSWD|PASS|CREDENTIALS?|PRIVATE_?KEY|SESSION_?KEY)($|_)|PASSWORD$/i;

/** Secrets shorter than this are not redacted (a 3-character "key" would blank ordinary text). */
const MIN_SECRET_LENGTH = 8;

type Environment = Record<string, string | undefined>;

function allowed(env: Environment): Set<string> {
  return new Set(
    (env.TAPEDECK_TOOL_ENV_ALLOW ?? "")
      .split(",")
      .map((name) => name.trim())
      .filter((name) => name !== ""),
  );
}

/** True when `name` is withheld from tools (and its value redacted from their outputs). */
export function isWithheldVariable(name: string, env: Environment = process.env): boolean {
  if ((WITHHELD_VARIABLES as readonly string[]).includes(name)) return true;
  return WITHHELD_NAME_PATTERN.test(name) && !allowed(env).has(name);
}

/**
 * The environment of a tool's process: the agent's, minus every withheld variable (Tapedeck's
 * own credentials always; other credential-like names unless listed in `TAPEDECK_TOOL_ENV_ALLOW`,
 * comma-separated), plus `extra`.
 */
export function toolEnvironment(
  env: Environment = process.env,
  extra: Record<string, string> = {},
): Record<string, string> {
  const result: Record<string, string> = {};
  for (const [name, value] of Object.entries(env)) {
    if (value !== undefined && !isWithheldVariable(name, env)) result[name] = value;
  }
  return { ...result, ...extra };
}

/** Credentials written in a URL (`https://user:pass@host/`): the password and `user:pass`. */
function urlCredentials(value: string | undefined): string[] {
  if (value === undefined) return [];
  try {
    const url = new URL(value);
    const found: string[] = [];
    if (url.password !== "") {
      found.push(decodeURIComponent(url.password), url.password);
      found.push(`${url.username}:${url.password}`);
    } else if (url.username !== "") found.push(url.username);
    return found;
  } catch {
    return [];
  }
}

/** One secret value and the name it is replaced with. */
export interface KnownSecret {
  name: string;
  value: string;
}

/**
 * The secret values of the environment: the API key, the web token, credentials in
 * `OPENAI_BASE_URL` / `TAPEDECK_INDEX_URL`, and the value of every other withheld variable
 * (8 characters or more). Longest first, so a secret containing another is replaced whole.
 */
export function knownSecrets(env: Environment = process.env): KnownSecret[] {
  const secrets: KnownSecret[] = [];
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined || !isWithheldVariable(name, env)) continue;
    if (name === "OPENAI_BASE_URL" || name === "TAPEDECK_INDEX_URL") {
      for (const credential of urlCredentials(value)) secrets.push({ name, value: credential });
      continue;
    }
    secrets.push({ name, value });
  }
  return secrets
    .filter((secret) => secret.value.length >= MIN_SECRET_LENGTH)
    .sort((a, b) => b.value.length - a.value.length);
}

/** `text` with every occurrence of a known secret replaced by `[redacted NAME]`. */
export function redactSecrets(text: string, secrets: readonly KnownSecret[]): string {
  let result = text;
  for (const secret of secrets) {
    if (result.includes(secret.value)) {
      result = result.split(secret.value).join(`[redacted ${secret.name}]`);
    }
  }
  return result;
}
