import { RemovalPolicy, Stack, Validations } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as logs from 'aws-cdk-lib/aws-logs';
import * as cr from 'aws-cdk-lib/custom-resources';
import { Construct } from 'constructs';
import { acknowledgeAwsCustomResourceProvider } from '../nag-acknowledgements.js';

export interface ModelInvocationLoggingProps {
  /** @default logs.RetentionDays.ONE_MONTH */
  readonly logRetention?: logs.RetentionDays;
  /** @default RemovalPolicy.RETAIN */
  readonly logRemovalPolicy?: RemovalPolicy;
}

/**
 * Bedrock model invocation logging to a log group of this stack:
 * PutModelInvocationLoggingConfiguration through a role Bedrock assumes, and
 * DeleteModelInvocationLoggingConfiguration on delete. The setting is per account and region,
 * not per model or stack (docs/deploy.md, Monitoring).
 */
export class ModelInvocationLogging extends Construct {
  readonly logGroup: logs.LogGroup;

  constructor(scope: Construct, id: string, props: ModelInvocationLoggingProps = {}) {
    super(scope, id);
    const stack = Stack.of(this);
    this.logGroup = new logs.LogGroup(this, 'Logs', {
      retention: props.logRetention ?? logs.RetentionDays.ONE_MONTH,
      removalPolicy: props.logRemovalPolicy ?? RemovalPolicy.RETAIN,
    });
    // The confused-deputy conditions from the Bedrock model invocation logging guide.
    const role = new iam.Role(this, 'LoggingRole', {
      assumedBy: new iam.ServicePrincipal('bedrock.amazonaws.com', {
        conditions: {
          StringEquals: { 'aws:SourceAccount': stack.account },
          ArnLike: {
            'aws:SourceArn': stack.formatArn({ service: 'bedrock', resource: '*' }),
          },
        },
      }),
      description: 'Lets Bedrock write model invocation logs to one log group',
    });
    this.logGroup.grantWrite(role);

    const loggingConfig = {
      cloudWatchConfig: { logGroupName: this.logGroup.logGroupName, roleArn: role.roleArn },
      textDataDeliveryEnabled: true,
      imageDataDeliveryEnabled: false,
      embeddingDataDeliveryEnabled: false,
    };
    const call: cr.AwsSdkCall = {
      service: 'Bedrock',
      action: 'PutModelInvocationLoggingConfiguration',
      parameters: { loggingConfig },
      physicalResourceId: cr.PhysicalResourceId.of(`${stack.stackName}-model-invocation-logging`),
    };
    const configuration = new cr.AwsCustomResource(this, 'Logging', {
      onCreate: call,
      onUpdate: call,
      onDelete: { service: 'Bedrock', action: 'DeleteModelInvocationLoggingConfiguration' },
      policy: cr.AwsCustomResourcePolicy.fromStatements([
        new iam.PolicyStatement({
          actions: [
            'bedrock:PutModelInvocationLoggingConfiguration',
            'bedrock:DeleteModelInvocationLoggingConfiguration',
          ],
          // These actions have no resource type (Service Authorization Reference).
          resources: ['*'],
        }),
        new iam.PolicyStatement({ actions: ['iam:PassRole'], resources: [role.roleArn] }),
      ]),
      installLatestAwsSdk: false,
    });
    configuration.node.addDependency(role);
    acknowledgeAwsCustomResourceProvider(this);
    Validations.of(configuration).acknowledge({
      id: 'AwsSolutions-IAM5[Resource::*]',
      reason:
        'bedrock:Put/DeleteModelInvocationLoggingConfiguration take no resource: the setting ' +
        'is per account and region.',
    });
  }
}
