import { Match, type Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  conversationsTable,
  turnsTable,
} from '../../functions/adapters/dynamodb/table-definitions.js';
import { embeddingDimension } from '../../lib/config.js';
import { hashTicketDocuments } from '../../lib/constructs/hash-ticket-documents.js';
import { stackOutputNames } from '../../lib/service-desk-stack.js';
import { runtimeConfigSchema } from '../../web/src/config/load-runtime-config.js';
import {
  type CfnJson,
  fixturePaths,
  maskAssetHashes,
  renderArn,
  type SynthesizedServiceDesk,
  synthesizeServiceDesk,
  wildcardResources,
} from './synthesize.js';

// CloudFront managed policy ids (documented constants).
const cachingDisabled = '4135ea2d-6df8-44a3-9df3-4b5a84be39ad';
const allViewerExceptHostHeader = 'b689b0a8-53d0-40ab-baf2-68738e2966ac';

/** The one resource of a type, with its logical id. */
function onlyResource(template: Template, type: string): [string, CfnJson] {
  const resources = Object.entries(template.findResources(type));
  expect(resources, type).toHaveLength(1);
  return resources[0] as [string, CfnJson];
}

/** The AwsCustomResource whose create call is `action` (its JSON holds tokens, so render it). */
function sdkCallResource(template: Template, action: string): CfnJson {
  const matches = Object.values(template.findResources('Custom::AWS')).filter(
    (resource) => JSON.parse(renderArn(resource.Properties.Create)).action === action,
  );
  expect(matches, action).toHaveLength(1);
  return matches[0] as CfnJson;
}

function logicalIdOf(template: Template, type: string): string {
  return onlyResource(template, type)[0];
}

describe('ServiceDeskStack, provisioning its own Knowledge Base (default config)', () => {
  let synthesized: SynthesizedServiceDesk;
  let template: Template;

  beforeAll(() => {
    synthesized = synthesizeServiceDesk({});
    template = synthesized.template;
  });

  it('passes cdk-nag AwsSolutions with every finding acknowledged on its resource', () => {
    expect(synthesized.nagFindings).toEqual([]);
  });

  describe('API function', () => {
    it('is exposed through a streaming, IAM-authenticated Function URL', () => {
      template.hasResourceProperties('AWS::Lambda::Url', {
        AuthType: 'AWS_IAM',
        InvokeMode: 'RESPONSE_STREAM',
      });
    });

    it('runs Node 22 on arm64 with 1024 MB, a 5-minute timeout and its own log group', () => {
      const functions = Object.values(
        template.findResources('AWS::Lambda::Function', {
          Properties: { Environment: { Variables: { AUTH_MODE: 'cognito' } } },
        }),
      );
      expect(functions).toHaveLength(1);
      expect(functions[0]?.Properties).toMatchObject({
        Runtime: 'nodejs22.x',
        Architectures: ['arm64'],
        MemorySize: 1024,
        Timeout: 300,
        Handler: 'index.handler',
      });
      const logGroupId = functions[0]?.Properties.LoggingConfig.LogGroup.Ref;
      expect(template.toJSON().Resources[logGroupId]).toMatchObject({
        Type: 'AWS::Logs::LogGroup',
        Properties: { RetentionInDays: 30 },
        DeletionPolicy: 'Retain',
      });
    });

    it('gets the tables, Knowledge Base, model and Cognito ids from its environment', () => {
      template.hasResourceProperties('AWS::Lambda::Function', {
        Environment: {
          Variables: {
            CONVERSATIONS_TABLE: {
              Ref: Match.stringLikeRegexp('^ConversationTablesConversations'),
            },
            TURNS_TABLE: { Ref: Match.stringLikeRegexp('^ConversationTablesTurns') },
            KNOWLEDGE_BASE_ID: {
              'Fn::GetAtt': [
                logicalIdOf(template, 'AWS::Bedrock::KnowledgeBase'),
                'KnowledgeBaseId',
              ],
            },
            MODEL_ID: synthesized.config.modelId,
            AUTH_MODE: 'cognito',
            COGNITO_USER_POOL_ID: { Ref: logicalIdOf(template, 'AWS::Cognito::UserPool') },
            COGNITO_CLIENT_ID: { Ref: logicalIdOf(template, 'AWS::Cognito::UserPoolClient') },
            RETENTION_DAYS: '90',
            NUMBER_OF_RESULTS: '8',
            NODE_OPTIONS: '--enable-source-maps',
          },
        },
      });
    });

    it('may touch only the two tables, the Conversations index, the KB and the model', () => {
      const [, policy] = Object.entries(template.findResources('AWS::IAM::Policy')).find(([id]) =>
        id.startsWith('ApiRoleDefaultPolicy'),
      ) as [string, CfnJson];
      const statements = (policy.Properties.PolicyDocument.Statement as CfnJson[]).map(
        (statement) => ({
          actions: [statement.Action].flat(),
          resources: [statement.Resource].flat().map(renderArn),
          condition: statement.Condition,
        }),
      );
      const profileArn =
        'arn:<AWS::Partition>:bedrock:us-east-1:123456789012:inference-profile/global.anthropic.claude-sonnet-4-5-20250929-v1:0';
      expect(statements).toEqual([
        {
          actions: ['logs:CreateLogStream', 'logs:PutLogEvents'],
          resources: ['<ApiLogs.Arn>'],
          condition: undefined,
        },
        {
          actions: [
            'dynamodb:GetItem',
            'dynamodb:BatchGetItem',
            'dynamodb:Query',
            'dynamodb:PutItem',
            'dynamodb:UpdateItem',
            'dynamodb:DeleteItem',
            'dynamodb:BatchWriteItem',
            'dynamodb:ConditionCheckItem',
          ],
          resources: [
            '<ConversationTablesConversations.Arn>',
            '<ConversationTablesTurns.Arn>',
            `<ConversationTablesConversations.Arn>/index/${conversationsTable.localSecondaryIndexes[0].indexName}`,
          ],
          condition: undefined,
        },
        {
          actions: ['bedrock:Retrieve'],
          resources: ['<KnowledgeBase.KnowledgeBaseArn>'],
          condition: undefined,
        },
        {
          actions: ['bedrock:InvokeModelWithResponseStream'],
          resources: [profileArn],
          condition: undefined,
        },
        {
          actions: ['bedrock:InvokeModelWithResponseStream'],
          resources: [
            'arn:<AWS::Partition>:bedrock:*::foundation-model/anthropic.claude-sonnet-4-5-20250929-v1:0',
          ],
          condition: { ArnLike: { 'bedrock:InferenceProfileArn': expect.anything() } },
        },
      ]);
      expect(renderArn(statements[4]?.condition.ArnLike['bedrock:InferenceProfileArn'])).toBe(
        profileArn,
      );
    });
  });

  describe('IAM', () => {
    it('uses wildcard resources only where justified', () => {
      expect(wildcardResources(template)).toEqual({
        // Region wildcard for cross-Region inference, conditioned on the inference profile.
        ApiRoleDefaultPolicy: [
          'arn:<AWS::Partition>:bedrock:*::foundation-model/anthropic.claude-sonnet-4-5-20250929-v1:0',
        ],
        // Bedrock reads every ticket document (object names unknown at synth time).
        KnowledgeBaseServiceRolePolicy: ['<KnowledgeBaseDocuments.Arn>/tickets/*'],
        // CDK's BucketDeployment provider: objects of the asset and target buckets; CloudFront
        // invalidation on * (not configurable in CDK).
        CustomCDKBucketDeployment8693BB64968944B69AAFB0CC9EB8756CServiceRoleDefaultPolicy: [
          '*',
          '<KnowledgeBaseDocuments.Arn>/*',
          '<WebAssets.Arn>/*',
          'arn:<AWS::Partition>:s3:::cdk-hnb659fds-assets-123456789012-us-east-1/*',
        ],
      });
    });

    it('lets the ingestion custom resource start jobs on this Knowledge Base only', () => {
      template.hasResourceProperties('AWS::IAM::Policy', {
        PolicyDocument: {
          Statement: [
            {
              Action: 'bedrock:StartIngestionJob',
              Effect: 'Allow',
              Resource: {
                'Fn::GetAtt': [
                  logicalIdOf(template, 'AWS::Bedrock::KnowledgeBase'),
                  'KnowledgeBaseArn',
                ],
              },
            },
          ],
        },
      });
    });
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
      expect(csp).toMatch(
        /connect-src 'self' https:\/\/cognito-idp\.us-east-1\.amazonaws\.com https:\/\/servicedeskassistant-.*\.auth\.us-east-1\.amazoncognito\.com;/,
      );
      expect(csp).toMatch(
        /form-action 'self' https:\/\/servicedeskassistant-.*\.auth\.us-east-1\.amazoncognito\.com;/,
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
          { Ref: logicalIdOf(template, 'AWS::Cognito::UserPoolClient') },
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
      expect(Object.keys(buckets)).toHaveLength(2);
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
      expect(policies).toHaveLength(2);
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

  describe('DynamoDB', () => {
    it.each([conversationsTable, turnsTable])(
      'builds $baseName from the shared definition',
      (definition) => {
        const key = (name: string, type: string) => ({ AttributeName: name, KeyType: type });
        const tables = template.findResources('AWS::DynamoDB::Table', {
          Properties: {
            KeySchema: [
              key(definition.partitionKey.name, 'HASH'),
              key(definition.sortKey.name, 'RANGE'),
            ],
          },
        });
        const [, table] = Object.entries(tables)[0] as [string, CfnJson];
        expect(Object.keys(tables)).toHaveLength(1);
        expect(table.DeletionPolicy).toBe('Retain');
        expect(table.Properties).toMatchObject({
          BillingMode: 'PAY_PER_REQUEST',
          PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
          SSESpecification: { SSEEnabled: true },
          TimeToLiveSpecification: { AttributeName: definition.timeToLiveAttribute, Enabled: true },
          DeletionProtectionEnabled: true,
        });
        expect(table.Properties.LocalSecondaryIndexes ?? []).toEqual(
          definition.localSecondaryIndexes.map((index) => ({
            IndexName: index.indexName,
            KeySchema: [key(index.partitionKey.name, 'HASH'), key(index.sortKey.name, 'RANGE')],
            Projection: { ProjectionType: 'ALL' },
          })),
        );
        expect(table.Properties.GlobalSecondaryIndexes).toBeUndefined();
        const attributes = [
          definition.partitionKey,
          definition.sortKey,
          ...definition.localSecondaryIndexes.map((index) => index.sortKey),
        ];
        expect(table.Properties.AttributeDefinitions).toEqual(
          attributes.map((attribute) => ({
            AttributeName: attribute.name,
            AttributeType: attribute.type,
          })),
        );
      },
    );
  });

  describe('Knowledge Base', () => {
    it('creates a vector collection without standby replicas after its policies', () => {
      const [, collection] = onlyResource(template, 'AWS::OpenSearchServerless::Collection');
      expect(collection.Properties).toMatchObject({
        Type: 'VECTORSEARCH',
        StandbyReplicas: 'DISABLED',
      });
      const policies = Object.keys(
        template.findResources('AWS::OpenSearchServerless::SecurityPolicy'),
      );
      expect(policies).toHaveLength(2);
      expect([...collection.DependsOn].sort()).toEqual(
        [...policies, logicalIdOf(template, 'AWS::OpenSearchServerless::AccessPolicy')].sort(),
      );
      template.hasResourceProperties('AWS::OpenSearchServerless::SecurityPolicy', {
        Type: 'encryption',
        Policy: Match.serializedJson({
          Rules: [
            { ResourceType: 'collection', Resource: [`collection/${collection.Properties.Name}`] },
          ],
          AWSOwnedKey: true,
        }),
      });
    });

    it('creates the vector index with the embedding model dimension and Bedrock fields', () => {
      const [, index] = onlyResource(template, 'AWS::OpenSearchServerless::Index');
      expect(index.Properties.Settings).toEqual({
        Index: { Knn: true, KnnAlgoParamEfSearch: 512 },
      });
      const properties = index.Properties.Mappings.Properties;
      expect(properties['bedrock-knowledge-base-default-vector']).toEqual({
        Type: 'knn_vector',
        Dimension: embeddingDimension('amazon.titan-embed-text-v2:0'),
        Method: {
          Name: 'hnsw',
          Engine: 'faiss',
          SpaceType: 'l2',
          Parameters: { EfConstruction: 512, M: 16 },
        },
      });
      expect(properties['bedrock-knowledge-base-default-vector'].Dimension).toBe(1024);
      expect(properties.AMAZON_BEDROCK_TEXT_CHUNK).toEqual({ Type: 'text', Index: true });
      expect(properties.AMAZON_BEDROCK_METADATA).toEqual({ Type: 'text', Index: false });
      expect(index.DependsOn).toEqual(
        expect.arrayContaining([
          logicalIdOf(template, 'AWS::OpenSearchServerless::Collection'),
          logicalIdOf(template, 'AWS::OpenSearchServerless::AccessPolicy'),
        ]),
      );
    });

    it('creates the Knowledge Base after the index, the access policy and the role policy', () => {
      const [, knowledgeBase] = onlyResource(template, 'AWS::Bedrock::KnowledgeBase');
      const rolePolicy = Object.keys(template.findResources('AWS::IAM::Policy')).find((id) =>
        id.startsWith('KnowledgeBaseServiceRolePolicy'),
      );
      expect([...knowledgeBase.DependsOn].sort()).toEqual(
        [
          logicalIdOf(template, 'AWS::OpenSearchServerless::Index'),
          logicalIdOf(template, 'AWS::OpenSearchServerless::AccessPolicy'),
          rolePolicy,
        ].sort(),
      );
      expect(
        knowledgeBase.Properties.StorageConfiguration.OpensearchServerlessConfiguration,
      ).toMatchObject({
        VectorIndexName: 'bedrock-knowledge-base-default-index',
        FieldMapping: {
          VectorField: 'bedrock-knowledge-base-default-vector',
          TextField: 'AMAZON_BEDROCK_TEXT_CHUNK',
          MetadataField: 'AMAZON_BEDROCK_METADATA',
        },
      });
    });

    it('names the KB role and the CloudFormation execution role in the data access policy', () => {
      const [, policy] = onlyResource(template, 'AWS::OpenSearchServerless::AccessPolicy');
      const documents = JSON.parse(
        renderArn(policy.Properties.Policy).replace(/<([A-Za-z]+)\.Arn>/g, 'ROLE:$1'),
      ) as { Principal: string[]; Rules: { Permission: string[] }[] }[];
      expect(documents.map((document) => document.Principal)).toEqual([
        ['ROLE:KnowledgeBaseServiceRole'],
        [
          'arn:<AWS::Partition>:iam::123456789012:role/cdk-hnb659fds-cfn-exec-role-123456789012-us-east-1',
        ],
      ]);
      // The deployer manages the index but never reads documents.
      const deployerPermissions = documents[1]?.Rules.flatMap((rule) => rule.Permission);
      expect(deployerPermissions).toContain('aoss:CreateIndex');
      expect(deployerPermissions).not.toContain('aoss:ReadDocument');
    });

    it('starts an ingestion job whose physical id is the hash of the ticket documents', () => {
      const ingestion = sdkCallResource(template, 'startIngestionJob');
      const create = JSON.parse(renderArn(ingestion.Properties.Create));
      expect(create).toMatchObject({
        service: 'bedrock-agent',
        action: 'startIngestionJob',
        physicalResourceId: { id: `tickets-${hashTicketDocuments(fixturePaths.ticketsPath)}` },
      });
      expect(ingestion.Properties.Update).toEqual(ingestion.Properties.Create);
      expect(ingestion.DependsOn).toEqual(
        expect.arrayContaining([logicalIdOf(template, 'AWS::Bedrock::DataSource')]),
      );
      expect(
        (ingestion.DependsOn as string[]).some((id) => id.startsWith('KnowledgeBaseUploadTickets')),
      ).toBe(true);
    });
  });

  describe('Cognito', () => {
    it('has admin-created users only, a strong password policy and optional MFA', () => {
      template.hasResourceProperties('AWS::Cognito::UserPool', {
        AdminCreateUserConfig: { AllowAdminCreateUserOnly: true },
        MfaConfiguration: 'OPTIONAL',
        Policies: {
          PasswordPolicy: {
            MinimumLength: 12,
            RequireLowercase: true,
            RequireUppercase: true,
            RequireNumbers: true,
            RequireSymbols: true,
          },
        },
      });
    });

    it('has a public SPA client: code flow, no secret, admin password auth for the integration test', () => {
      template.hasResourceProperties('AWS::Cognito::UserPoolClient', {
        GenerateSecret: false,
        AllowedOAuthFlows: ['code'],
        AllowedOAuthFlowsUserPoolClient: true,
        AllowedOAuthScopes: ['openid', 'email', 'profile'],
        ExplicitAuthFlows: Match.arrayWith(['ALLOW_ADMIN_USER_PASSWORD_AUTH']),
      });
    });

    it('points the client callback and logout URLs at the distribution', () => {
      const update = sdkCallResource(template, 'updateUserPoolClient');
      const parameters = JSON.parse(renderArn(update.Properties.Create)).parameters;
      const siteUrl = `https://<${logicalIdOf(template, 'AWS::CloudFront::Distribution').replace(/[0-9A-F]{8}$/, '')}.DomainName>/`;
      expect(parameters.CallbackURLs).toEqual([siteUrl]);
      expect(parameters.LogoutURLs).toEqual([siteUrl]);
      expect(parameters.AllowedOAuthFlows).toEqual(['code']);
    });
  });

  it('outputs what operators and the integration test need', () => {
    const outputs = Object.keys(template.findOutputs('*'));
    expect(outputs.sort()).toEqual(Object.values(stackOutputNames).sort());
  });

  it('matches the snapshot (asset hashes masked)', () => {
    expect(maskAssetHashes(template)).toMatchSnapshot();
  });
});
