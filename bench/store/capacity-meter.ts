import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';

const readCommands = new Set(['GetItem', 'Query', 'Scan', 'BatchGetItem', 'TransactGetItems']);

export interface CapacityReading {
  readonly requests: number;
  readonly readRequests: number;
  readonly readCapacity: number;
  readonly writeCapacity: number;
}

/**
 * Counts requests sent through `client` and sums the capacity DynamoDB reports for them: adds
 * `ReturnConsumedCapacity: 'TOTAL'` to every request (both the store's document client and
 * LangChain's plain client go through this middleware stack).
 */
export function meterCapacity(client: DynamoDBClient) {
  let reading = { requests: 0, readRequests: 0, readCapacity: 0, writeCapacity: 0 };
  client.middlewareStack.add(
    (next, context) => async (args) => {
      const command = String(context.commandName).replace(/Command$/, '');
      (args.input as { ReturnConsumedCapacity?: string }).ReturnConsumedCapacity = 'TOTAL';
      const isRead = readCommands.has(command);
      reading.requests++;
      if (isRead) reading.readRequests++;
      const result = await next(args);
      const consumed = (result.output as { ConsumedCapacity?: unknown }).ConsumedCapacity;
      const units = [consumed ?? []]
        .flat()
        .reduce(
          (sum: number, entry) => sum + ((entry as { CapacityUnits?: number }).CapacityUnits ?? 0),
          0,
        );
      if (isRead) reading.readCapacity += units;
      else reading.writeCapacity += units;
      return result;
    },
    { step: 'initialize', name: 'meterCapacity' },
  );
  return {
    /** Runs `work` and returns what it cost. */
    async measure(work: () => Promise<unknown>): Promise<CapacityReading> {
      reading = { requests: 0, readRequests: 0, readCapacity: 0, writeCapacity: 0 };
      await work();
      return reading;
    },
  };
}
