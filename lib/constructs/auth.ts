import { Duration, Fn, RemovalPolicy, Stack, Validations } from 'aws-cdk-lib';
import * as cognito from 'aws-cdk-lib/aws-cognito';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as logs from 'aws-cdk-lib/aws-logs';
import * as cr from 'aws-cdk-lib/custom-resources';
import { Construct } from 'constructs';
import { acknowledgeAwsCustomResourceProvider } from '../nag-acknowledgements.js';

/**
 * The Cognito group whose members may publish solved inquiries as Knowledge Base tickets; the
 * API function reads it from the access token's `cognito:groups` claim (KNOWLEDGE_EDITOR_GROUP).
 */
export const knowledgeEditorGroupName = 'knowledge-editors';

/**
 * The Cognito group whose members may read the insights page (`/insights`, issue #28); the API
 * function reads it from the same claim (SERVICE_DESK_LEAD_GROUP).
 */
export const serviceDeskLeadGroupName = 'service-desk-leads';

export interface AuthProps {
  /**
   * Prefix of the hosted sign-in domain `https://<prefix>.auth.<region>.amazoncognito.com`,
   * unique per region across all accounts.
   * @default `<stack name>-<last 12 hex digits of the stack id>`, unique per stack
   */
  readonly domainPrefix?: string;
  /**
   * Lower-case e-mail domains staff accounts may have. Enforced by a pre sign-up trigger, which
   * Cognito also runs for `AdminCreateUser` (trigger source `PreSignUp_AdminCreateUser`).
   * @default [] (any domain)
   */
  readonly allowedEmailDomains?: readonly string[];
  /** @default RemovalPolicy.RETAIN */
  readonly removalPolicy?: RemovalPolicy;
  /** Retention of the pre sign-up trigger's logs. @default logs.RetentionDays.ONE_MONTH */
  readonly logRetention?: logs.RetentionDays;
  /**
   * Log group of the AwsCustomResource provider function.
   * @default a CDK-managed `/aws/lambda/<function>` group
   */
  readonly providerLogGroup?: logs.ILogGroup;
}

/**
 * Staff sign-in: a Cognito user pool without self sign-up (administrators create accounts), a
 * hosted sign-in domain, a public SPA client (authorization code + PKCE, no secret), the
 * knowledge editors' group and the service-desk leads' group.
 *
 * The client's callback URL is the CloudFront URL, but the API function needs the client id and
 * CloudFront needs the function URL: declaring the callback on the client would be a cycle
 * (client → distribution → function URL → function → client). So the client is created with a
 * localhost callback, and {@link Auth.allowSignInFrom} sets the real one with
 * `UpdateUserPoolClient` once the distribution exists.
 */
export class Auth extends Construct {
  readonly userPool: cognito.UserPool;
  readonly client: cognito.CfnUserPoolClient;
  readonly domain: cognito.UserPoolDomain;
  /** `https://<prefix>.auth.<region>.amazoncognito.com` */
  readonly domainUrl: string;
  /** OIDC issuer: `https://cognito-idp.<region>.amazonaws.com/<pool id>` */
  readonly authority: string;
  readonly userPoolClientId: string;
  /**
   * The acceptance suite's client (test/integ/aws-target.ts): ADMIN_USER_PASSWORD_AUTH only,
   * which needs IAM credentials with cognito-idp:AdminInitiateAuth, no hosted UI, no OAuth. The
   * staff's web client offers SRP and the hosted UI alone.
   */
  readonly acceptanceTestClientId: string;
  /** {@link knowledgeEditorGroupName}: administrators add staff who may publish knowledge. */
  readonly knowledgeEditorGroup: cognito.CfnUserPoolGroup;
  /** {@link serviceDeskLeadGroupName}: administrators add the leads who may see insights. */
  readonly serviceDeskLeadGroup: cognito.CfnUserPoolGroup;
  private readonly providerLogGroup?: logs.ILogGroup;

  constructor(scope: Construct, id: string, props: AuthProps = {}) {
    super(scope, id);
    this.providerLogGroup = props.providerLogGroup;
    const stack = Stack.of(this);
    const removalPolicy = props.removalPolicy ?? RemovalPolicy.RETAIN;
    const allowedEmailDomains = props.allowedEmailDomains ?? [];

    this.userPool = new cognito.UserPool(this, 'UserPool', {
      // Staff accounts only: an administrator creates each user (see docs/deploy.md).
      selfSignUpEnabled: false,
      signInAliases: { email: true },
      autoVerify: { email: true },
      standardAttributes: { email: { required: true, mutable: true } },
      passwordPolicy: {
        minLength: 12,
        requireLowercase: true,
        requireUppercase: true,
        requireDigits: true,
        requireSymbols: true,
        tempPasswordValidity: Duration.days(3),
      },
      mfa: cognito.Mfa.OPTIONAL,
      mfaSecondFactor: { otp: true, sms: false },
      accountRecovery: cognito.AccountRecovery.EMAIL_ONLY,
      featurePlan: cognito.FeaturePlan.ESSENTIALS,
      removalPolicy,
      deletionProtection: removalPolicy === RemovalPolicy.RETAIN,
    });
    Validations.of(this.userPool).acknowledge(
      {
        id: 'AwsSolutions-COG2',
        reason:
          'MFA is optional (TOTP) by product decision: staff sign in from managed devices; ' +
          'administrators can require it later without replacing the pool.',
      },
      {
        id: 'AwsSolutions-COG8',
        reason:
          'Threat protection needs the Plus feature plan (per-MAU cost). Self sign-up is off, ' +
          'accounts are admin-created, and the password policy is strong.',
      },
    );
    if (allowedEmailDomains.length > 0) {
      this.userPool.addTrigger(
        cognito.UserPoolOperation.PRE_SIGN_UP,
        this.createDomainCheck(allowedEmailDomains, props.logRetention, removalPolicy),
      );
    }

    // AWS::StackId ends in a UUID: its last group makes the prefix unique per stack, so two
    // accounts deploying this repository do not collide on the (global per region) prefix.
    const stackSuffix = Fn.select(4, Fn.split('-', Fn.select(2, Fn.split('/', stack.stackId))));
    const domainPrefix = props.domainPrefix ?? `${cognitoSafeName(stack.stackName)}-${stackSuffix}`;
    this.domain = this.userPool.addDomain('HostedDomain', { cognitoDomain: { domainPrefix } });
    this.domainUrl = `https://${domainPrefix}.auth.${stack.region}.amazoncognito.com`;
    this.authority = `https://cognito-idp.${stack.region}.amazonaws.com/${this.userPool.userPoolId}`;

    const settings = webClientSettings;
    this.client = new cognito.CfnUserPoolClient(this, 'WebClient', {
      userPoolId: this.userPool.userPoolId,
      clientName: settings.ClientName,
      // A browser cannot keep a secret; PKCE protects the code exchange instead.
      generateSecret: false,
      explicitAuthFlows: [...settings.ExplicitAuthFlows],
      supportedIdentityProviders: [...settings.SupportedIdentityProviders],
      allowedOAuthFlowsUserPoolClient: settings.AllowedOAuthFlowsUserPoolClient,
      allowedOAuthFlows: [...settings.AllowedOAuthFlows],
      allowedOAuthScopes: [...settings.AllowedOAuthScopes],
      // Replaced by allowSignInFrom(); Cognito requires a callback URL for the code flow.
      callbackUrLs: [localCallbackUrl],
      logoutUrLs: [localCallbackUrl],
      preventUserExistenceErrors: settings.PreventUserExistenceErrors,
      enableTokenRevocation: settings.EnableTokenRevocation,
      accessTokenValidity: settings.AccessTokenValidity,
      idTokenValidity: settings.IdTokenValidity,
      refreshTokenValidity: settings.RefreshTokenValidity,
      tokenValidityUnits: {
        accessToken: settings.TokenValidityUnits.AccessToken,
        idToken: settings.TokenValidityUnits.IdToken,
        refreshToken: settings.TokenValidityUnits.RefreshToken,
      },
      authSessionValidity: settings.AuthSessionValidity,
    });
    this.userPoolClientId = this.client.ref;
    this.acceptanceTestClientId = new cognito.CfnUserPoolClient(this, 'AcceptanceTestClient', {
      userPoolId: this.userPool.userPoolId,
      clientName: 'acceptance-tests',
      generateSecret: false,
      explicitAuthFlows: ['ALLOW_ADMIN_USER_PASSWORD_AUTH', 'ALLOW_REFRESH_TOKEN_AUTH'],
      supportedIdentityProviders: ['COGNITO'],
      allowedOAuthFlowsUserPoolClient: false,
      preventUserExistenceErrors: 'ENABLED',
      enableTokenRevocation: true,
      accessTokenValidity: 60,
      idTokenValidity: 60,
      refreshTokenValidity: 1,
      tokenValidityUnits: { accessToken: 'minutes', idToken: 'minutes', refreshToken: 'hours' },
    }).ref;

    // Membership is managed by administrators (docs/deploy.md, "Knowledge capture"); a user gets
    // the claim with the next tokens, i.e. after signing in again.
    this.knowledgeEditorGroup = new cognito.CfnUserPoolGroup(this, 'KnowledgeEditors', {
      userPoolId: this.userPool.userPoolId,
      groupName: knowledgeEditorGroupName,
      description:
        'Staff who may publish solved inquiries as Knowledge Base tickets (knowledge capture)',
    });
    this.serviceDeskLeadGroup = new cognito.CfnUserPoolGroup(this, 'ServiceDeskLeads', {
      userPoolId: this.userPool.userPoolId,
      groupName: serviceDeskLeadGroupName,
      description:
        'Service-desk leads who may see the insights page (knowledge gaps, activity, what helped)',
    });
  }

  /**
   * Makes `siteUrl` (e.g. `https://d123.cloudfront.net/`) the client's only callback and logout
   * URL. Every client setting is sent again (UpdateUserPoolClient resets what it is not given),
   * so any change to the client also changes this resource and re-applies the URLs after it.
   */
  allowSignInFrom(siteUrl: string): cr.AwsCustomResource {
    const update: cr.AwsSdkCall = {
      service: 'CognitoIdentityServiceProvider',
      action: 'updateUserPoolClient',
      parameters: {
        ...webClientSettings,
        UserPoolId: this.userPool.userPoolId,
        ClientId: this.userPoolClientId,
        CallbackURLs: [siteUrl],
        LogoutURLs: [siteUrl],
      },
      physicalResourceId: cr.PhysicalResourceId.of(`${this.node.path}/WebClientUrls`),
      // The response echoes the client configuration; nothing secret, but nothing useful either.
      logging: cr.Logging.withDataHidden(),
    };
    const resource = new cr.AwsCustomResource(this, 'WebClientUrls', {
      onCreate: update,
      onUpdate: update,
      policy: cr.AwsCustomResourcePolicy.fromSdkCalls({ resources: [this.userPool.userPoolArn] }),
      installLatestAwsSdk: false,
      logGroup: this.providerLogGroup,
    });
    resource.node.addDependency(this.client);
    acknowledgeAwsCustomResourceProvider(this);
    return resource;
  }

  private createDomainCheck(
    domains: readonly string[],
    logRetention: logs.RetentionDays | undefined,
    removalPolicy: RemovalPolicy,
  ): lambda.IFunction {
    const logGroup = new logs.LogGroup(this, 'EmailDomainCheckLogs', {
      retention: logRetention ?? logs.RetentionDays.ONE_MONTH,
      removalPolicy,
    });
    const role = new iam.Role(this, 'EmailDomainCheckRole', {
      assumedBy: new iam.ServicePrincipal('lambda.amazonaws.com'),
    });
    logGroup.grantWrite(role);
    // Inline and dependency-free: it runs on every account creation, so it stays tiny.
    return new lambda.Function(this, 'EmailDomainCheck', {
      // Plain inline JavaScript, no bundle to keep in step with: the latest runtime.
      runtime: lambda.Runtime.NODEJS_24_X,
      architecture: lambda.Architecture.ARM_64,
      handler: 'index.handler',
      role,
      logGroup,
      timeout: Duration.seconds(5),
      environment: { ALLOWED_EMAIL_DOMAINS: domains.join(',') },
      code: lambda.Code.fromInline(
        [
          'exports.handler = async (event) => {',
          "  const allowed = (process.env.ALLOWED_EMAIL_DOMAINS || '').split(',');",
          "  const email = String((event.request.userAttributes || {}).email || '').toLowerCase();",
          "  const domain = email.slice(email.lastIndexOf('@') + 1);",
          "  if (!email.includes('@') || !allowed.includes(domain)) {",
          "    throw new Error('This e-mail domain is not allowed for staff accounts.');",
          '  }',
          '  return event;',
          '};',
        ].join('\n'),
      ),
    });
  }
}

/**
 * The SPA client's settings in `UpdateUserPoolClient` form: one source for the CloudFormation
 * resource and for the update that sets the URLs.
 */
const webClientSettings = {
  ClientName: 'web',
  // SRP for the hosted UI; the acceptance suite signs in through a client of its own.
  ExplicitAuthFlows: ['ALLOW_USER_SRP_AUTH', 'ALLOW_REFRESH_TOKEN_AUTH'],
  SupportedIdentityProviders: ['COGNITO'],
  AllowedOAuthFlowsUserPoolClient: true,
  AllowedOAuthFlows: ['code'],
  AllowedOAuthScopes: ['openid', 'email', 'profile'],
  PreventUserExistenceErrors: 'ENABLED',
  EnableTokenRevocation: true,
  AccessTokenValidity: 60,
  IdTokenValidity: 60,
  // Staff re-authenticate once per working day.
  RefreshTokenValidity: 12,
  TokenValidityUnits: { AccessToken: 'minutes', IdToken: 'minutes', RefreshToken: 'hours' },
  AuthSessionValidity: 3,
} as const;

/** The callback the client is created with; the local stack (`npm start`) serves this origin. */
const localCallbackUrl = 'http://localhost:3000/';

/** A stack name as a domain prefix part: lower case, no words Cognito reserves. */
function cognitoSafeName(stackName: string): string {
  const safe = stackName
    .toLowerCase()
    .replace(/aws|amazon|cognito/g, '')
    .replace(/[^a-z0-9-]/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 40);
  return safe || 'service-desk';
}
