import { createHash } from 'node:crypto';
import { Aws, Stack, Token } from 'aws-cdk-lib';
import type { IConstruct } from 'constructs';

/** The longest region name (`ap-southeast-5`, `eusc-de-east-1`) plus a margin. */
const regionBudget = 16;

/**
 * A name for a resource whose names are unique per *account*, not per region — CloudFront
 * origin access controls and response headers policies: `<stack>-<region>-<what>`, at most
 * `maxLength` characters. The stack name alone collides when the same stack is deployed to two
 * regions of one account; a stack name too long for the budget is cut and suffixed with a hash
 * of the whole name.
 *
 * @example
 * accountGlobalName(this, 'web-oac'); // 'ServiceDeskAssistant-us-east-1-web-oac'
 */
export function accountGlobalName(scope: IConstruct, what: string, maxLength = 64): string {
  const stack = Stack.of(scope);
  const region = Token.isUnresolved(stack.region) ? Aws.REGION : stack.region;
  const budget = maxLength - regionBudget - what.length - 2;
  const stackName = stack.stackName;
  const prefix =
    stackName.length <= budget
      ? stackName
      : `${stackName.slice(0, budget - 7)}-${createHash('sha256').update(stackName).digest('hex').slice(0, 6)}`;
  return `${prefix}-${region}-${what}`;
}
