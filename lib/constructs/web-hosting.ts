import { createHash } from 'node:crypto';
import { Aws, Duration, RemovalPolicy, Stack, Token, Validations } from 'aws-cdk-lib';
import * as acm from 'aws-cdk-lib/aws-certificatemanager';
import * as cloudfront from 'aws-cdk-lib/aws-cloudfront';
import * as origins from 'aws-cdk-lib/aws-cloudfront-origins';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import type * as logs from 'aws-cdk-lib/aws-logs';
import * as s3 from 'aws-cdk-lib/aws-s3';
import * as s3deploy from 'aws-cdk-lib/aws-s3-deployment';
import type { IConstruct } from 'constructs';
import { Construct } from 'constructs';
import { acknowledgeBucketDeploymentProvider } from '../nag-acknowledgements.js';
import {
  contentSecurityPolicy as buildContentSecurityPolicy,
  FRAME_OPTIONS,
  REFERRER_POLICY,
  STRICT_TRANSPORT_SECURITY,
} from '../security-headers.js';
import { type AccessLogBucket, accessLogPrefixes } from './access-log-bucket.js';

/** How the web app signs in, written to its `/config.json`. */
export type WebAuthSettings = CognitoSignIn | IssuerSignIn;

/** The stack's Cognito pool (its hosted UI, or the SAML provider it federates). */
export interface CognitoSignIn {
  readonly kind: 'cognito';
  /** OIDC issuer, `https://cognito-idp.<region>.amazonaws.com/<pool id>`. */
  readonly authority: string;
  readonly clientId: string;
  /** Hosted sign-in domain, `https://<prefix>.auth.<region>.amazoncognito.com`. */
  readonly domainUrl: string;
  readonly userPoolId: string;
  /** A federated provider the hosted UI goes straight to (`identity_provider`). */
  readonly identityProviderName?: string;
}

/** The company's OpenID Connect issuer, directly (ADR 0028). */
export interface IssuerSignIn {
  readonly kind: 'oidc';
  readonly issuer: string;
  readonly clientId: string;
  readonly scope: string;
  /** Origins besides the issuer's the sign-in fetches from. */
  readonly extraOrigins: readonly string[];
}

export interface WebHostingProps {
  /** The web app's files (`index.html` at the root): {@link webAppSource}. */
  readonly webApp: s3deploy.ISource;
  /** The API function's URL (AWS_IAM auth, RESPONSE_STREAM), served at `/api/*`. */
  readonly functionUrl: lambda.IFunctionUrl;
  readonly auth: WebAuthSettings;
  /**
   * How long CloudFront waits for the first byte and between chunks of the SSE stream. The
   * function sends a heartbeat at least every 10 s. Above 60 s needs a CloudFront quota increase.
   * @default Duration.seconds(60)
   */
  readonly apiReadTimeout?: Duration;
  /**
   * ARN of a CLOUDFRONT-scope WAF web ACL (us-east-1) to attach.
   * @default no WAF
   */
  readonly webAclArn?: string;
  /**
   * The site's own name and its ACM certificate (us-east-1), served with TLSv1.2_2021 as the
   * minimum protocol.
   * @default the distribution's `*.cloudfront.net` name
   */
  readonly customDomain?: { readonly domainName: string; readonly certificateArn: string };
  /**
   * Where CloudFront standard logs and the assets bucket's server access logs go.
   * @default no access logs
   */
  readonly accessLogs?: AccessLogBucket;
  /** @default RemovalPolicy.RETAIN */
  readonly removalPolicy?: RemovalPolicy;
  /**
   * Log group of the BucketDeployment provider function.
   * @default a CDK-managed `/aws/lambda/<function>` group
   */
  readonly providerLogGroup?: logs.ILogGroup;
}

/**
 * One CloudFront origin for the web app and its API, so the browser never needs CORS:
 * - `/*` → private S3 bucket through origin access control, security headers, SPA routing;
 * - `/api/*` → the Function URL through origin access control (SigV4), uncached, uncompressed,
 *   every method, every viewer header except Host (so `x-auth-token` and
 *   `x-amz-content-sha256` reach the function).
 *
 * CloudFront's signature replaces the viewer's `Authorization` header, which is why the web app
 * sends its Cognito access token in `x-auth-token`.
 */
export class WebHosting extends Construct {
  readonly bucket: s3.Bucket;
  readonly distribution: cloudfront.Distribution;
  /** `https://<distribution domain>/` */
  readonly siteUrl: string;

  constructor(scope: Construct, id: string, props: WebHostingProps) {
    super(scope, id);
    const stack = Stack.of(this);
    const removalPolicy = props.removalPolicy ?? RemovalPolicy.RETAIN;

    this.bucket = new s3.Bucket(this, 'Assets', {
      blockPublicAccess: s3.BlockPublicAccess.BLOCK_ALL,
      encryption: s3.BucketEncryption.S3_MANAGED,
      enforceSSL: true,
      objectOwnership: s3.ObjectOwnership.BUCKET_OWNER_ENFORCED,
      removalPolicy,
      autoDeleteObjects: removalPolicy === RemovalPolicy.DESTROY,
      ...props.accessLogs?.forBucket('web-assets'),
    });

    // The same headers the local server sends (lib/security-headers.ts), plus the origins the
    // sign-in fetches from: `cdk synth` has no network, so they come from the settings.
    const contentSecurityPolicy = buildContentSecurityPolicy(
      signInOrigins(props.auth, stack.region),
    );
    const securityHeaders = new cloudfront.ResponseHeadersPolicy(this, 'SecurityHeaders', {
      responseHeadersPolicyName: accountGlobalName(this, 'security-headers'),
      comment: 'Service desk: CSP, HSTS, no framing, no sniffing',
      securityHeadersBehavior: {
        contentSecurityPolicy: { contentSecurityPolicy, override: true },
        strictTransportSecurity: {
          accessControlMaxAge: Duration.seconds(STRICT_TRANSPORT_SECURITY.maxAgeSeconds),
          includeSubdomains: STRICT_TRANSPORT_SECURITY.includeSubdomains,
          override: true,
        },
        frameOptions: { frameOption: cloudfront.HeadersFrameOption[FRAME_OPTIONS], override: true },
        contentTypeOptions: { override: true },
        referrerPolicy: {
          // The CDK enum's values are the header values themselves.
          referrerPolicy: REFERRER_POLICY as cloudfront.HeadersReferrerPolicy,
          override: true,
        },
      },
    });

    // SPA routing without errorResponses: custom error responses apply to the whole
    // distribution, so an API 404 ("not yours") or 403 (a signing problem) would turn into
    // index.html with 200. This function runs only on the default (S3) behaviour and rewrites
    // extension-less paths (client-side routes) to /index.html; /api/* never sees it.
    const spaRouting = new cloudfront.Function(this, 'SpaRouting', {
      runtime: cloudfront.FunctionRuntime.JS_2_0,
      comment: 'Serve index.html for client-side routes',
      code: cloudfront.FunctionCode.fromInline(
        [
          'function handler(event) {',
          '  var request = event.request;',
          '  var lastSegment = request.uri.substring(request.uri.lastIndexOf("/") + 1);',
          '  if (lastSegment.indexOf(".") === -1 && request.uri.indexOf("/api/") !== 0) {',
          '    request.uri = "/index.html";',
          '  }',
          '  return request;',
          '}',
        ].join('\n'),
      ),
    });

    this.distribution = new cloudfront.Distribution(this, 'Distribution', {
      comment: `${stack.stackName} web app and API`,
      defaultRootObject: 'index.html',
      httpVersion: cloudfront.HttpVersion.HTTP2_AND_3,
      webAclId: props.webAclArn,
      ...(props.customDomain
        ? {
            domainNames: [props.customDomain.domainName],
            certificate: acm.Certificate.fromCertificateArn(
              this,
              'Certificate',
              props.customDomain.certificateArn,
            ),
            minimumProtocolVersion: cloudfront.SecurityPolicyProtocol.TLS_V1_2_2021,
          }
        : {}),
      ...(props.accessLogs
        ? {
            enableLogging: true,
            logBucket: props.accessLogs.bucket,
            logFilePrefix: accessLogPrefixes.cloudFront,
          }
        : {}),
      defaultBehavior: {
        origin: origins.S3BucketOrigin.withOriginAccessControl(this.bucket, {
          originAccessControl: new cloudfront.S3OriginAccessControl(this, 'WebOriginAccess', {
            originAccessControlName: accountGlobalName(this, 'web-oac'),
          }),
        }),
        viewerProtocolPolicy: cloudfront.ViewerProtocolPolicy.REDIRECT_TO_HTTPS,
        cachePolicy: cloudfront.CachePolicy.CACHING_OPTIMIZED,
        responseHeadersPolicy: securityHeaders,
        functionAssociations: [
          { function: spaRouting, eventType: cloudfront.FunctionEventType.VIEWER_REQUEST },
        ],
      },
      additionalBehaviors: {
        '/api/*': {
          origin: origins.FunctionUrlOrigin.withOriginAccessControl(props.functionUrl, {
            readTimeout: props.apiReadTimeout ?? Duration.seconds(60),
            originAccessControl: new cloudfront.FunctionUrlOriginAccessControl(
              this,
              'ApiOriginAccess',
              { originAccessControlName: accountGlobalName(this, 'api-oac') },
            ),
          }),
          // A redirect would turn a POST into a GET.
          viewerProtocolPolicy: cloudfront.ViewerProtocolPolicy.HTTPS_ONLY,
          allowedMethods: cloudfront.AllowedMethods.ALLOW_ALL,
          cachePolicy: cloudfront.CachePolicy.CACHING_DISABLED,
          // Host must not be forwarded: the Function URL (and the SigV4 signature) expect their
          // own host name.
          originRequestPolicy: cloudfront.OriginRequestPolicy.ALL_VIEWER_EXCEPT_HOST_HEADER,
          // Compression buffers the stream, and streamed Content-Encoding breaks Function URLs.
          compress: false,
          responseHeadersPolicy: securityHeaders,
        },
      },
    });
    // CDK 2.276 grants CloudFront both lambda:InvokeFunctionUrl and lambda:InvokeFunction
    // (invokedViaFunctionUrl) for the origin; function URLs created since October 2025 need both.
    // test/cdk asserts the two permissions, so an upgrade that drops one fails the build.
    this.siteUrl = `https://${props.customDomain?.domainName ?? this.distribution.distributionDomainName}/`;

    new s3deploy.BucketDeployment(this, 'Deploy', {
      sources: [
        props.webApp,
        // Last, so it replaces the local-mode config.json of the build (later sources win).
        // Read by web/src/config/load-runtime-config.ts.
        s3deploy.Source.jsonData(
          'config.json',
          webConfigOf(props.auth, this.siteUrl, stack.region),
        ),
      ],
      destinationBucket: this.bucket,
      prune: true,
      logGroup: props.providerLogGroup,
      // index.html and config.json change on every deploy; hashed assets never do.
      distribution: this.distribution,
      distributionPaths: ['/index.html', '/config.json'],
    });
    acknowledgeBucketDeploymentProvider(this, this.bucket);

    if (!props.accessLogs) {
      Validations.of(this.bucket).acknowledge({
        id: 'AwsSolutions-S1',
        reason:
          'accessLogs is off for this deployment. The bucket holds only the public build of the ' +
          'web app, read by CloudFront alone.',
      });
    }
    Validations.of(this.distribution).acknowledge(
      ...[
        {
          id: 'AwsSolutions-CFR1',
          reason:
            'Staff work from several countries; a corporate network restriction is the WAF ' +
            'allow list (wafAllowedIpRanges), which works on addresses rather than countries.',
        },
        ...(props.webAclArn
          ? []
          : [
              {
                id: 'AwsSolutions-CFR2',
                reason:
                  'enableWaf is off for this deployment (it is on by default); every API call still ' +
                  'needs a valid Cognito token and an IAM-signed origin request.',
              },
            ]),
        ...(props.accessLogs
          ? []
          : [
              {
                id: 'AwsSolutions-CFR3',
                reason:
                  'accessLogs is off for this deployment (it is on by default); the function ' +
                  'still logs every API call to CloudWatch.',
              },
            ]),
        ...(props.customDomain
          ? []
          : [
              {
                id: 'AwsSolutions-CFR4',
                reason:
                  'No custom domain: the default *.cloudfront.net certificate cannot pin a minimum ' +
                  'TLS version. Set domainName and certificateArn for TLSv1.2_2021.',
              },
            ]),
      ],
    );
  }
}

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
function accountGlobalName(scope: IConstruct, what: string, maxLength = 64): string {
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

/** The CSP's extra origins for sign-in: Cognito's two, or the issuer's and the extra ones. */
function signInOrigins(
  auth: WebAuthSettings,
  region: string,
): { connectSources: string[]; formActions: string[] } {
  if (auth.kind === 'cognito')
    return {
      connectSources: [`https://cognito-idp.${region}.amazonaws.com`, auth.domainUrl],
      formActions: [auth.domainUrl],
    };
  return {
    connectSources: [
      new URL(auth.issuer).origin,
      ...auth.extraOrigins.map((o) => new URL(o).origin),
    ],
    formActions: [],
  };
}

/** The web app's `/config.json`. */
function webConfigOf(auth: WebAuthSettings, siteUrl: string, region: string) {
  if (auth.kind === 'oidc')
    return {
      apiBase: '/api',
      authMode: 'oidc',
      oidc: {
        authority: auth.issuer,
        clientId: auth.clientId,
        redirectUri: siteUrl,
        logoutUri: siteUrl,
        scope: auth.scope,
      },
    };
  if (auth.identityProviderName)
    return {
      apiBase: '/api',
      authMode: 'oidc',
      oidc: {
        authority: auth.authority,
        clientId: auth.clientId,
        redirectUri: siteUrl,
        logoutUri: siteUrl,
        scope: 'openid email profile',
        extraQueryParams: { identity_provider: auth.identityProviderName },
        cognitoDomain: auth.domainUrl,
      },
    };
  return {
    apiBase: '/api',
    authMode: 'cognito',
    cognito: {
      authority: auth.authority,
      clientId: auth.clientId,
      redirectUri: siteUrl,
      logoutUri: siteUrl,
      domain: auth.domainUrl,
      userPoolId: auth.userPoolId,
      region,
    },
  };
}
