import { Annotations, DefaultStackSynthesizer, type Stack, Token } from 'aws-cdk-lib';

/**
 * How a stack's synthesizer differs from the default CDK bootstrap (`cdk bootstrap` with no
 * options: qualifier `hnb659fds`, its deploy and CloudFormation execution roles), one line per
 * difference; empty when it does not. "Differs" means: another synthesizer class, another
 * qualifier (also through the `@aws-cdk/core:bootstrapQualifier` context), or a deploy or
 * execution role ARN other than the bootstrap's for this account and region.
 */
export function bootstrapDifferences(stack: Stack): string[] {
  const synthesizer = stack.synthesizer;
  if (!(synthesizer instanceof DefaultStackSynthesizer)) {
    return [`the stack uses ${synthesizer.constructor.name}, not the DefaultStackSynthesizer`];
  }
  const differences: string[] = [];
  const qualifier = synthesizer.bootstrapQualifier ?? DefaultStackSynthesizer.DEFAULT_QUALIFIER;
  if (qualifier !== DefaultStackSynthesizer.DEFAULT_QUALIFIER) {
    differences.push(
      `bootstrap qualifier ${qualifier} (default ${DefaultStackSynthesizer.DEFAULT_QUALIFIER})`,
    );
  }
  // CloudFormation placeholders in the synthesizer's templates, not JavaScript templates.
  const placeholder = (name: string) => `\${${name}}`;
  const expected = (template: string) => {
    let arn = template.replaceAll(placeholder('Qualifier'), qualifier);
    if (!Token.isUnresolved(stack.account))
      arn = arn.replaceAll(placeholder('AWS::AccountId'), stack.account);
    if (!Token.isUnresolved(stack.region))
      arn = arn.replaceAll(placeholder('AWS::Region'), stack.region);
    return arn;
  };
  const roles: [name: string, actual: string, template: string][] = [
    [
      'CloudFormation execution role',
      synthesizer.cloudFormationExecutionRoleArn,
      DefaultStackSynthesizer.DEFAULT_CLOUDFORMATION_ROLE_ARN,
    ],
    ['deploy role', synthesizer.deployRoleArn, DefaultStackSynthesizer.DEFAULT_DEPLOY_ROLE_ARN],
  ];
  for (const [name, actual, template] of roles) {
    if (actual !== expected(template)) differences.push(`${name} ${actual}`);
  }
  return differences;
}

/**
 * Adds a synthesis warning (`cdk synth`, `npm run synth` print it) to a stack whose synthesizer
 * differs from the default bootstrap: nothing in the stack names a bootstrap role any more (the
 * vector index is created by the stack's own function, ADR 0014), but a deploy then needs that
 * bootstrap in the target account, and operator roles for the collection must be listed in
 * `collectionAdminRoleArns`, since the deploying role is not one of them.
 */
export function warnOnNonDefaultBootstrap(stack: Stack): void {
  const differences = bootstrapDifferences(stack);
  if (differences.length === 0) return;
  Annotations.of(stack).addWarningV2(
    'service-desk:non-default-bootstrap',
    `Synthesized for a bootstrap other than the default: ${differences.join('; ')}. Deploy with ` +
      'that bootstrap in the account (cdk bootstrap --qualifier …). No data access policy names ' +
      'the deploying role: list roles that must inspect the vector index in collectionAdminRoleArns.',
  );
}
