import { CfnResource, type IAspect } from 'aws-cdk-lib';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import type * as logs from 'aws-cdk-lib/aws-logs';
import type { IConstruct } from 'constructs';

/**
 * Sends every Lambda function of a stack that has no log group of its own to `logGroup`: the
 * functions CDK adds itself (custom-resource providers such as `Custom::S3AutoDeleteObjects`,
 * whose L1 has no log settings), so their logs expire like the app's instead of never.
 * The singleton L2 providers (BucketDeployment, AwsCustomResource) are given the same group
 * through their `logGroup` prop; without it `@aws-cdk/aws-lambda:useCdkManagedLogGroup` names a
 * group `/aws/lambda/<function>`, which collides with the one Lambda created on a stack that has
 * already run the function.
 *
 * @example
 * Aspects.of(stack).add(new ProviderFunctionLogs(providerLogGroup));
 */
export class ProviderFunctionLogs implements IAspect {
  constructor(private readonly logGroup: logs.ILogGroup) {}

  visit(node: IConstruct): void {
    if (!(node instanceof CfnResource) || node.cfnResourceType !== 'AWS::Lambda::Function') return;
    if (node instanceof lambda.CfnFunction) {
      const config = node.loggingConfig as lambda.CfnFunction.LoggingConfigProperty | undefined;
      if (!config?.logGroup)
        node.loggingConfig = { ...config, logGroup: this.logGroup.logGroupName };
      return;
    }
    // CustomResourceProvider functions are plain CfnResources with a Basic execution role
    // (logs:* on any group), so pointing them at the group is all they need.
    node.addPropertyOverride('LoggingConfig.LogGroup', this.logGroup.logGroupName);
  }
}
