/** What the global setup hands the tests through `inject`. */
import "vitest";

declare module "vitest" {
  export interface ProvidedContext {
    /** URL of the run's PostgreSQL server, as the non-superuser test role. */
    postgresUrl: string;
    /** The same server as the superuser. */
    postgresAdminUrl: string;
  }
}
