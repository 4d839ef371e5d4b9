/**
 * Puts the answer's keys in the order of the tool's JSON Schema `properties`, as Claude tends to
 * emit them (AWS_NOTES §3.3), and drops keys the schema forbids (`additionalProperties: false`).
 * Without usable `properties` the answer is returned as is.
 */
export function orderByInputSchema(
  answer: Readonly<Record<string, unknown>>,
  inputSchema: unknown,
): Record<string, unknown> {
  const schema = inputSchema as { properties?: unknown; additionalProperties?: unknown } | null;
  if (typeof schema?.properties !== 'object' || schema.properties === null) return { ...answer };
  const declared = Object.keys(schema.properties);
  const extra = Object.keys(answer).filter((key) => !declared.includes(key));
  const keys = [...declared, ...(schema.additionalProperties === false ? [] : extra)];
  return Object.fromEntries(
    keys.filter((key) => answer[key] !== undefined).map((key) => [key, answer[key]]),
  );
}
