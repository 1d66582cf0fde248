import { TapedeckError } from "./errors";

/** An error class with the marker pattern's `isInstance`. */
export interface MarkedErrorClass {
  readonly name: string;
  isInstance(error: unknown): boolean;
}

/** One error class to check: how to build an instance from a module copy, and its code. */
export interface MarkedErrorCase<Module> {
  /** The export name of the class in the module. */
  name: string & keyof Module;
  code: string;
  make(module: Module): Error;
}

/**
 * What breaks the marker pattern between two copies of one module (`vi.resetModules()` and two
 * dynamic imports give two copies, as two bundles would): for each case, an error built by the
 * first copy must not be an `instanceof` the second copy's class (else the copies are one) yet
 * satisfy its `isInstance`, be a `TapedeckError`, carry the expected code, and satisfy no other
 * case's `isInstance`. Returns the problems as sentences; `[]` when there are none.
 */
export function markerProblems<Module>(
  first: Module,
  second: Module,
  cases: readonly MarkedErrorCase<Module>[],
): string[] {
  const problems: string[] = [];
  const classOf = (module: Module, name: string) =>
    (module as Record<string, unknown>)[name] as MarkedErrorClass &
      (abstract new (
        ...args: never[]
      ) => unknown);
  for (const { name, code, make } of cases) {
    const error = make(first);
    const other = classOf(second, name);
    if (error instanceof other) problems.push(`${name}: the two module copies are one`);
    if (!other.isInstance(error)) problems.push(`${name}: not recognised by the other copy`);
    if (!TapedeckError.isInstance(error)) problems.push(`${name}: not a TapedeckError`);
    const actual = (error as { code?: unknown }).code;
    if (actual !== code) problems.push(`${name}: code ${String(actual)}, expected ${code}`);
    for (const rival of cases) {
      if (rival.name !== name && classOf(second, rival.name).isInstance(error)) {
        problems.push(`${name}: also recognised as ${rival.name}`);
      }
    }
  }
  return problems;
}
