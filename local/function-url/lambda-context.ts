import type { Context } from 'aws-lambda';

/** A Lambda context whose remaining time counts down from `timeoutMs`, as the runtime's does. */
export function createLambdaContext(options: {
  functionName: string;
  timeoutMs: number;
  requestId: string;
}): Context {
  const deadline = Date.now() + options.timeoutMs;
  return {
    callbackWaitsForEmptyEventLoop: true,
    functionName: options.functionName,
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:local:000000000000:function:${options.functionName}`,
    memoryLimitInMB: '1024',
    awsRequestId: options.requestId,
    logGroupName: `/aws/lambda/${options.functionName}`,
    logStreamName: 'local',
    getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
    done: () => undefined,
    fail: () => undefined,
    succeed: () => undefined,
  };
}
