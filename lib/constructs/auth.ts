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
  /**
   * Federate a SAML identity provider: staff sign in there (the web client offers no other
   * provider), its e-mail, display name and groups attributes are mapped, and its groups become
   * the access token's `cognito:groups` (ADR 0028).
   * @default none: the pool's own accounts
   */
  readonly saml?: SamlFederation;
}

/** A SAML identity provider the pool federates. */
export interface SamlFederation {
  /** The provider's metadata document URL (https). */
  readonly metadataUrl: string;
  /** Its name in the pool, and the hosted UI's `identity_provider` parameter. */
  readonly providerName: string;
  /** The SAML attribute carrying the user's groups. */
  readonly groupsAttribute: string;
}

/** The pool's custom attribute holding the SAML groups, as Cognito names it in tokens. */
const SAML_GROUPS_ATTRIBUTE = 'saml_groups';

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
  /**
   * The SAML provider's name when the pool federates one: the web app sends it as
   * `identity_provider`, so the hosted UI goes straight to the company's sign-in.
   */
  readonly identityProviderName?: string;
  private readonly providerLogGroup?: logs.ILogGroup;
  private readonly webClientSettings: ReturnType<typeof webClientSettingsFor>;

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
      // Custom attributes can be added to a pool but never removed: only with SAML.
      ...(props.saml && {
        customAttributes: {
          [SAML_GROUPS_ATTRIBUTE]: new cognito.StringAttribute({ mutable: true, maxLen: 2048 }),
        },
      }),
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

    const samlProvider =
      props.saml && this.federateSaml(props.saml, logRetentionOf(props), removalPolicy);
    // The plain name, not the provider's Ref: config.json and the client name it as the setting
    // says, and the client depends on the provider below.
    this.identityProviderName = props.saml?.providerName;
    const settings = webClientSettingsFor(this.identityProviderName);
    this.webClientSettings = settings;
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
    if (samlProvider) this.client.node.addDependency(samlProvider);
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
        ...this.webClientSettings,
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

  /**
   * The SAML provider with its attribute mapping, and the pre-token-generation trigger (V2: it
   * may change the access token) that turns the mapped groups into `cognito:groups`, where the
   * API reads roles: Cognito writes a multi-valued SAML attribute as `[a, b]` text.
   */
  private federateSaml(
    saml: SamlFederation,
    logRetention: logs.RetentionDays,
    removalPolicy: RemovalPolicy,
  ): cognito.UserPoolIdentityProviderSaml {
    const provider = new cognito.UserPoolIdentityProviderSaml(this, 'Saml', {
      userPool: this.userPool,
      name: saml.providerName,
      metadata: cognito.UserPoolIdentityProviderSamlMetadata.url(saml.metadataUrl),
      idpSignout: true,
      attributeMapping: {
        email: cognito.ProviderAttribute.other(
          'http://schemas.xmlsoap.org/ws/2005/05/identity/claims/emailaddress',
        ),
        fullname: cognito.ProviderAttribute.other(
          'http://schemas.microsoft.com/identity/claims/displayname',
        ),
        // CDK writes custom keys as given; the pool names its custom attributes `custom:<name>`.
        custom: {
          [`custom:${SAML_GROUPS_ATTRIBUTE}`]: cognito.ProviderAttribute.other(
            saml.groupsAttribute,
          ),
        },
      },
    });
    const logGroup = new logs.LogGroup(this, 'SamlGroupsLogs', {
      retention: logRetention,
      removalPolicy,
    });
    const role = new iam.Role(this, 'SamlGroupsRole', {
      assumedBy: new iam.ServicePrincipal('lambda.amazonaws.com'),
    });
    logGroup.grantWrite(role);
    const trigger = new lambda.Function(this, 'SamlGroups', {
      runtime: lambda.Runtime.NODEJS_24_X,
      architecture: lambda.Architecture.ARM_64,
      handler: 'index.handler',
      role,
      logGroup,
      timeout: Duration.seconds(5),
      code: lambda.Code.fromInline(
        [
          'exports.handler = async (event) => {',
          `  const text = String((event.request.userAttributes || {})['custom:${SAML_GROUPS_ATTRIBUTE}'] || '');`,
          "  const saml = text.replace(/^\\[|\\]$/g, '').split(',').map((g) => g.trim()).filter(Boolean);",
          '  const own = (event.request.groupConfiguration || {}).groupsToOverride || [];',
          '  event.response = { claimsAndScopeOverrideDetails: {',
          '    groupOverrideDetails: { groupsToOverride: [...new Set([...own, ...saml])] } } };',
          '  return event;',
          '};',
        ].join('\n'),
      ),
    });
    this.userPool.addTrigger(
      cognito.UserPoolOperation.PRE_TOKEN_GENERATION_CONFIG,
      trigger,
      cognito.LambdaVersion.V2_0,
    );
    return provider;
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

const logRetentionOf = (props: AuthProps) => props.logRetention ?? logs.RetentionDays.ONE_MONTH;

/**
 * The SPA client's settings in `UpdateUserPoolClient` form: one source for the CloudFormation
 * resource and for the update that sets the URLs. With a SAML provider, it is the client's only
 * one: staff sign in at the company's identity provider, never with a pool password.
 */
const webClientSettingsFor = (identityProviderName: string | undefined) =>
  identityProviderName
    ? { ...webClientSettings, SupportedIdentityProviders: [identityProviderName] }
    : webClientSettings;

const webClientSettings = {
  ClientName: 'web',
  // SRP for the hosted UI; the acceptance suite signs in through a client of its own.
  ExplicitAuthFlows: ['ALLOW_USER_SRP_AUTH', 'ALLOW_REFRESH_TOKEN_AUTH'],
  SupportedIdentityProviders: ['COGNITO'] as readonly string[],
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
