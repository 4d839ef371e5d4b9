import { Match, type Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { contentSecurityPolicy } from '../../lib/security-headers.js';
import { runtimeConfigSchema } from '../../web/src/config/load-runtime-config.js';
import {
  type CfnJson,
  renderArn,
  type SynthesizedServiceDesk,
  synthesizeServiceDesk,
} from './synthesize.js';
import {
  allViewerExceptHostHeader,
  cachingDisabled,
  logicalIdOf,
  onlyResource,
  userPoolClientIdOf,
} from './template-queries.js';

// One concern of the default stack per file; each file synthesizes it once.
describe('ServiceDeskStack (default config): web hosting', () => {
  let synthesized: SynthesizedServiceDesk;
  let template: Template;

  beforeAll(() => {
    synthesized = synthesizeServiceDesk({});
    template = synthesized.template;
  });

  describe('CloudFront', () => {
    it('routes /api/* to the Function URL uncached, uncompressed, all methods, no Host header', () => {
      const [, distribution] = onlyResource(template, 'AWS::CloudFront::Distribution');
      const config = distribution.Properties.DistributionConfig;
      expect(config.CacheBehaviors).toHaveLength(1);
      const api = config.CacheBehaviors[0];
      expect(api).toMatchObject({
        PathPattern: '/api/*',
        CachePolicyId: cachingDisabled,
        OriginRequestPolicyId: allViewerExceptHostHeader,
        Compress: false,
        ViewerProtocolPolicy: 'https-only',
      });
      expect([...api.AllowedMethods].sort()).toEqual(
        ['DELETE', 'GET', 'HEAD', 'OPTIONS', 'PATCH', 'POST', 'PUT'].sort(),
      );
      const origin = config.Origins.find((o: CfnJson) => o.Id === api.TargetOriginId);
      expect(origin.CustomOriginConfig.OriginReadTimeout).toBeGreaterThanOrEqual(60);
      expect(origin.OriginAccessControlId).toBeDefined();
      expect(JSON.stringify(origin.DomainName)).toContain('FunctionUrl');
    });

    it('signs API origin requests with a Lambda origin access control (always SigV4)', () => {
      template.hasResourceProperties('AWS::CloudFront::OriginAccessControl', {
        OriginAccessControlConfig: {
          OriginAccessControlOriginType: 'lambda',
          SigningBehavior: 'always',
          SigningProtocol: 'sigv4',
        },
      });
    });

    it('grants CloudFront both lambda:InvokeFunctionUrl and lambda:InvokeFunction for this distribution', () => {
      const distributionId = logicalIdOf(template, 'AWS::CloudFront::Distribution');
      const sourceArn = {
        'Fn::Join': [
          '',
          [
            'arn:',
            { Ref: 'AWS::Partition' },
            ':cloudfront::',
            { Ref: 'AWS::AccountId' },
            ':distribution/',
            { Ref: distributionId },
          ],
        ],
      };
      const functionName = {
        'Fn::GetAtt': [logicalIdOf(template, 'AWS::Lambda::Url'), 'FunctionArn'],
      };
      const permissions = Object.values(
        template.findResources('AWS::Lambda::Permission', {
          Properties: { Principal: 'cloudfront.amazonaws.com' },
        }),
      ).map((permission) => permission.Properties);
      expect(permissions).toEqual(
        expect.arrayContaining([
          {
            Action: 'lambda:InvokeFunctionUrl',
            FunctionName: functionName,
            Principal: 'cloudfront.amazonaws.com',
            SourceArn: sourceArn,
          },
          {
            Action: 'lambda:InvokeFunction',
            FunctionName: functionName,
            InvokedViaFunctionUrl: true,
            Principal: 'cloudfront.amazonaws.com',
            SourceArn: sourceArn,
          },
        ]),
      );
      expect(permissions).toHaveLength(2);
    });

    it('serves client-side routes with a viewer-request function instead of error responses', () => {
      const [, distribution] = onlyResource(template, 'AWS::CloudFront::Distribution');
      const config = distribution.Properties.DistributionConfig;
      // Error responses would apply to /api/* too and turn API 403/404s into index.html.
      expect(config.CustomErrorResponses).toBeUndefined();
      expect(config.DefaultCacheBehavior.FunctionAssociations).toEqual([
        {
          EventType: 'viewer-request',
          FunctionARN: {
            'Fn::GetAtt': [logicalIdOf(template, 'AWS::CloudFront::Function'), 'FunctionARN'],
          },
        },
      ]);
      const [, fn] = onlyResource(template, 'AWS::CloudFront::Function');
      const rewrite = new Function(
        'event',
        `${fn.Properties.FunctionCode}\nreturn handler(event);`,
      ) as (event: unknown) => { uri: string };
      const uriFor = (uri: string) => rewrite({ request: { uri } }).uri;
      expect(uriFor('/conversations/01J0ABC')).toBe('/index.html');
      expect(uriFor('/')).toBe('/index.html');
      // The leads' insights page is a client-side route of the same app.
      expect(uriFor('/insights')).toBe('/index.html');
      expect(uriFor('/assets/index-3f2a.js')).toBe('/assets/index-3f2a.js');
      expect(uriFor('/config.json')).toBe('/config.json');
      expect(uriFor('/api/conversations')).toBe('/api/conversations');
    });

    it('sends CSP (allowing the Cognito domain), HSTS, frame DENY and nosniff', () => {
      const [, policy] = onlyResource(template, 'AWS::CloudFront::ResponseHeadersPolicy');
      const security = policy.Properties.ResponseHeadersPolicyConfig.SecurityHeadersConfig;
      expect(security.FrameOptions).toEqual({ FrameOption: 'DENY', Override: true });
      expect(security.ContentTypeOptions).toEqual({ Override: true });
      expect(security.StrictTransportSecurity).toMatchObject({
        AccessControlMaxAgeSec: 31_536_000,
        IncludeSubdomains: true,
      });
      const csp = renderArn(security.ContentSecurityPolicy.ContentSecurityPolicy);
      expect(csp).toContain("default-src 'self'");
      expect(csp).toContain("frame-ancestors 'none'");
      // Attachments are fetched with the token and shown as blob: URLs; nothing else is allowed.
      expect(csp).toContain("img-src 'self' data: blob:;");
      expect(csp).toMatch(
        /connect-src 'self' https:\/\/cognito-idp\.us-east-1\.amazonaws\.com https:\/\/servicedeskassistant-.*\.auth\.us-east-1\.amazoncognito\.com;/,
      );
      expect(csp).toMatch(
        /form-action 'self' https:\/\/servicedeskassistant-.*\.auth\.us-east-1\.amazoncognito\.com;/,
      ); // The one definition the local server also sends, with Cognito's origins added.
      const hostedDomain = /form-action 'self' (\S+);/.exec(csp)?.[1] ?? '';
      expect(csp).toBe(
        contentSecurityPolicy({
          connectSources: ['https://cognito-idp.us-east-1.amazonaws.com', hostedDomain],
          formActions: [hostedDomain],
        }),
      );
    });

    it('generates a config.json the web app accepts, with the site as redirect URI', () => {
      const config = runtimeConfigSchema.parse(synthesized.webConfig);
      expect(config).toMatchObject({
        apiBase: '/api',
        authMode: 'cognito',
        cognito: {
          authority: 'https://cognito-idp.us-east-1.amazonaws.com/x',
          clientId: 'x',
          redirectUri: 'https://x/',
          logoutUri: 'https://x/',
          domain: 'https://servicedeskassistant-x.auth.us-east-1.amazoncognito.com',
        },
      });
    });

    it('deploys the web app with a generated config.json and invalidates it', () => {
      const [, deployment] = Object.entries(
        template.findResources('Custom::CDKBucketDeployment', {
          Properties: { DestinationBucketName: { Ref: Match.stringLikeRegexp('^WebAssets') } },
        }),
      )[0] as [string, CfnJson];
      expect(deployment.Properties.SourceObjectKeys).toHaveLength(2);
      expect(deployment.Properties.DistributionPaths).toEqual(['/index.html', '/config.json']);
      // config.json is filled in at deploy time from these references.
      const markers = Object.values(deployment.Properties.SourceMarkers[1] as CfnJson);
      expect(markers).toEqual(
        expect.arrayContaining([
          { Ref: logicalIdOf(template, 'AWS::Cognito::UserPool') },
          { Ref: userPoolClientIdOf(template, 'web') },
          {
            'Fn::GetAtt': [logicalIdOf(template, 'AWS::CloudFront::Distribution'), 'DomainName'],
          },
        ]),
      );
    });
  });

  describe('S3', () => {
    it('keeps every bucket private, encrypted and SSL-only', () => {
      const buckets = template.findResources('AWS::S3::Bucket');
      // Web assets, ticket documents, access logs, attachments.
      expect(Object.keys(buckets)).toHaveLength(4);
      for (const bucket of Object.values(buckets)) {
        expect(bucket.Properties.PublicAccessBlockConfiguration).toEqual({
          BlockPublicAcls: true,
          BlockPublicPolicy: true,
          IgnorePublicAcls: true,
          RestrictPublicBuckets: true,
        });
        expect(bucket.Properties.BucketEncryption).toEqual({
          ServerSideEncryptionConfiguration: [
            { ServerSideEncryptionByDefault: { SSEAlgorithm: 'AES256' } },
          ],
        });
      }
      const policies = Object.values(template.findResources('AWS::S3::BucketPolicy'));
      expect(policies).toHaveLength(4);
      for (const policy of policies) {
        expect(policy.Properties.PolicyDocument.Statement).toEqual(
          expect.arrayContaining([
            expect.objectContaining({
              Effect: 'Deny',
              Action: 's3:*',
              Principal: { AWS: '*' },
              Condition: { Bool: { 'aws:SecureTransport': 'false' } },
            }),
          ]),
        );
      }
    });

    it('lets only this distribution read the web assets', () => {
      template.hasResourceProperties('AWS::S3::BucketPolicy', {
        Bucket: { Ref: Match.stringLikeRegexp('^WebAssets') },
        PolicyDocument: {
          Statement: Match.arrayWith([
            Match.objectLike({
              Action: 's3:GetObject',
              Principal: { Service: 'cloudfront.amazonaws.com' },
              Condition: {
                StringEquals: { 'AWS:SourceArn': Match.anyValue() },
              },
            }),
          ]),
        },
      });
    });
  });
});
