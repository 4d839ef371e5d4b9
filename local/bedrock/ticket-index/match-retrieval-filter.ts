/** A metadata value as stored from a `.metadata.json` sidecar. */
export type MetadataValue = string | number | boolean | readonly string[];
export type TicketMetadata = Readonly<Record<string, MetadataValue>>;

/** The filter is not a valid `RetrievalFilter`; the endpoint answers 400 ValidationException. */
export class InvalidRetrievalFilterError extends Error {
  override readonly name = 'InvalidRetrievalFilterError';
}

type Comparison = (actual: MetadataValue | undefined, expected: unknown) => boolean;

// A string field matches a number of the same digits: OpenSearch coerces term queries on
// keyword fields, so `{ equals: { key: 'issue_id', value: 1234 } }` finds "1234" on Bedrock too.
const same = (actual: MetadataValue | undefined, expected: unknown): boolean => {
  if (actual === undefined || Array.isArray(actual)) return false;
  if (typeof actual === typeof expected) return actual === expected;
  const numberAndString =
    (typeof actual === 'string' && typeof expected === 'number') ||
    (typeof actual === 'number' && typeof expected === 'string');
  return numberAndString && String(actual) === String(expected);
};

const order = (actual: MetadataValue | undefined, expected: unknown): number | undefined => {
  if (typeof actual === 'number' && typeof expected === 'number') return actual - expected;
  // ISO-8601 dates compare correctly as strings (e.g. created_at).
  if (typeof actual === 'string' && typeof expected === 'string') {
    return actual < expected ? -1 : actual > expected ? 1 : 0;
  }
  return undefined;
};

const compare =
  (test: (difference: number) => boolean): Comparison =>
  (actual, expected) => {
    const difference = order(actual, expected);
    return difference !== undefined && test(difference);
  };

const list = (expected: unknown): unknown[] => {
  if (!Array.isArray(expected)) throw new InvalidRetrievalFilterError('in/notIn need a list');
  return expected;
};

const COMPARISONS: Readonly<Record<string, Comparison>> = {
  equals: same,
  // A missing key is "not equal", as a must_not term query behaves.
  notEquals: (actual, expected) => !same(actual, expected),
  greaterThan: compare((d) => d > 0),
  greaterThanOrEquals: compare((d) => d >= 0),
  lessThan: compare((d) => d < 0),
  lessThanOrEquals: compare((d) => d <= 0),
  in: (actual, expected) => list(expected).some((value) => same(actual, value)),
  notIn: (actual, expected) => !list(expected).some((value) => same(actual, value)),
  startsWith: (actual, expected) =>
    typeof actual === 'string' && typeof expected === 'string' && actual.startsWith(expected),
  stringContains: (actual, expected) =>
    typeof expected === 'string' &&
    (typeof actual === 'string'
      ? actual.includes(expected)
      : Array.isArray(actual) && actual.some((item) => item.includes(expected))),
  listContains: (actual, expected) => Array.isArray(actual) && actual.includes(expected as string),
};

/**
 * Evaluates a Bedrock Knowledge Base `RetrievalFilter` (the wire JSON) against one chunk's
 * metadata: `equals`, `notEquals`, `greaterThan(OrEquals)`, `lessThan(OrEquals)`, `in`, `notIn`,
 * `startsWith`, `stringContains`, `listContains`, `andAll`, `orAll`.
 * @see https://docs.aws.amazon.com/bedrock/latest/APIReference/API_agent-runtime_RetrievalFilter.html
 * @throws InvalidRetrievalFilterError for an unknown operator or a malformed operand
 */
export function matchRetrievalFilter(filter: unknown, metadata: TicketMetadata): boolean {
  if (typeof filter !== 'object' || filter === null) {
    throw new InvalidRetrievalFilterError('A filter must be an object');
  }
  const entries = Object.entries(filter);
  if (entries.length !== 1) {
    throw new InvalidRetrievalFilterError('A filter must have exactly one operator');
  }
  const [operator, operand] = entries[0] as [string, unknown];
  if (operator === 'andAll' || operator === 'orAll') {
    if (!Array.isArray(operand) || operand.length < 2) {
      throw new InvalidRetrievalFilterError(`${operator} needs at least two filters`);
    }
    const results = operand.map((inner) => matchRetrievalFilter(inner, metadata));
    return operator === 'andAll' ? results.every(Boolean) : results.some(Boolean);
  }
  const comparison = COMPARISONS[operator];
  if (comparison === undefined) {
    throw new InvalidRetrievalFilterError(`Unknown filter operator: ${operator}`);
  }
  const { key, value } = (operand ?? {}) as { key?: unknown; value?: unknown };
  if (typeof key !== 'string') throw new InvalidRetrievalFilterError(`${operator} needs a key`);
  return comparison(metadata[key], value);
}
