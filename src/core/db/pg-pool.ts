/**
 * `pg` pools for Prisma's adapter and the wasm schema engine.
 *
 * The schema engine's describer reads catalog columns of PostgreSQL's internal `"char"` type (OID 18), which
 * @prisma/adapter-pg refuses to deserialize ("Column type 'char' could not be deserialized"). Its values are
 * plain one-letter strings, so the client below reports them as `text` (OID 25).
 */
import pg from 'pg';

const CHAR_OID = 18;
const TEXT_OID = 25;

function relabelCharColumns<T>(result: T): T {
  const results = Array.isArray(result) ? result : [result];
  for (const one of results as { fields?: { dataTypeID: number }[] }[]) {
    for (const field of one?.fields ?? []) if (field.dataTypeID === CHAR_OID) field.dataTypeID = TEXT_OID;
  }
  return result;
}

export class CharAsTextClient extends pg.Client {
  // pg.Client#query has many overloads (promise and callback forms; the pool uses the callback one).
  override query(...args: any[]): any {
    const last = args[args.length - 1];
    if (typeof last === 'function') {
      args[args.length - 1] = (error: unknown, result: unknown) => last(error, error ? result : relabelCharColumns(result));
      return (super.query as (...a: unknown[]) => unknown)(...args);
    }
    const returned = (super.query as (...a: unknown[]) => unknown)(...args) as Promise<unknown> | undefined;
    return returned && typeof returned.then === 'function' ? returned.then(relabelCharColumns) : returned;
  }
}

export function createPool(
  connectionString: string,
  options: { max?: number; forSchemaEngine?: boolean; onIdleError?: (error: Error) => void } = {},
): pg.Pool {
  const pool = new pg.Pool({
    connectionString,
    max: options.max ?? 10,
    allowExitOnIdle: true,
    ...(options.forSchemaEngine ? { Client: CharAsTextClient } : {}),
  });
  // An idle connection the server closes (restart, failover, a dropped database) is an 'error' event on the pool;
  // unheard, it would end the process. The pool replaces the connection on the next checkout.
  pool.on('error', (error) => options.onIdleError?.(error));
  return pool;
}

/** Same server, another database: `withDatabase('postgres://h/app', 'x')` → `postgres://h/x`. */
export function withDatabase(connectionString: string, database: string): string {
  const url = new URL(connectionString);
  url.pathname = `/${database}`;
  return url.toString();
}
