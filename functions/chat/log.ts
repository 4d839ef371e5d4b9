/**
 * Structured fields of a log line: ids, counts, an `error` (its stack is logged, never sent). Not
 * named like the line's own keys (`message`, `level`, `timestamp`, `service`): the function's
 * logger drops such a field and warns instead.
 */
export type LogFields = Readonly<Record<string, unknown>>;

/**
 * The core's logging port: what an operator should look at (a failed write it recovered from, a
 * bug, a grounding drop), as one structured line. The API passes one that writes Powertools
 * Logger JSON lines (`functions/observability/telemetry.ts`), so the core imports no AWS code.
 * Every function that reports takes one (tests pass `silentLog` from test/support).
 *
 * @example
 * dependencies.log?.error('could not renew the generation lease', { error });
 */
export interface Log {
  info(message: string, fields?: LogFields): void;
  warn(message: string, fields?: LogFields): void;
  error(message: string, fields?: LogFields): void;
}
