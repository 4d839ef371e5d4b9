import type { Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { parseServiceDeskConfig } from '../../lib/config.js';
import { type CfnJson, renderArn, synthesizeServiceDesk } from './synthesize.js';

/** Every statement of the policy whose logical id starts with `prefix`, readable. */
const statementsOf = (template: Template, prefix: string) => {
  const [, policy] = Object.entries(template.findResources('AWS::IAM::Policy')).find(([id]) =>
    id.startsWith(prefix),
  ) as [string, CfnJson];
  return (policy.Properties.PolicyDocument.Statement as CfnJson[]).map((statement) => ({
    actions: [statement.Action].flat(),
    resources: [statement.Resource].flat().map(renderArn),
  }));
};
const apiEnvironment = (template: Template) =>
  (
    Object.values(template.findResources('AWS::Lambda::Function')).find(
      (fn) => fn.Properties.Environment?.Variables?.MODEL_ID !== undefined,
    ) as CfnJson
  ).Properties.Environment.Variables as Record<string, unknown>;

describe('rerankingModelId setting', () => {
  it('is off by default and accepts a model only in a region that offers it', () => {
    expect(parseServiceDeskConfig({}).rerankingModelId).toBe('');
    expect(
      parseServiceDeskConfig({ region: 'us-east-1', rerankingModelId: 'cohere.rerank-v3-5:0' })
        .rerankingModelId,
    ).toBe('cohere.rerank-v3-5:0');
    expect(
      parseServiceDeskConfig({ region: 'ap-northeast-1', rerankingModelId: 'amazon.rerank-v1:0' })
        .rerankingModelId,
    ).toBe('amazon.rerank-v1:0');
    expect(() =>
      parseServiceDeskConfig({ region: 'us-east-1', rerankingModelId: 'amazon.rerank-v1:0' }),
    ).toThrowError(
      /rerankingModelId: amazon\.rerank-v1:0 is not offered in us-east-1; it is in ap-northeast-1, ca-central-1, eu-central-1, us-west-2/,
    );
    expect(() =>
      parseServiceDeskConfig({ region: 'eu-west-1', rerankingModelId: 'cohere.rerank-v3-5:0' }),
    ).toThrowError(/cohere\.rerank-v3-5:0 is not offered in eu-west-1/);
    expect(() => parseServiceDeskConfig({ rerankingModelId: 'cohere.rerank-v3:0' })).toThrowError(
      /rerankingModelId/,
    );
  });
});

describe('ServiceDeskStack without reranking (default)', () => {
  let template: Template;
  beforeAll(() => {
    template = synthesizeServiceDesk({}).template;
  });

  it('passes no reranker to the function and grants no reranking', () => {
    expect(apiEnvironment(template).RERANKING_MODEL_ARN).toBe('');
    expect(JSON.stringify(template.toJSON())).not.toMatch(/bedrock:Rerank|rerank-v/);
  });
});

describe('ServiceDeskStack with rerankingModelId amazon.rerank-v1:0 in us-west-2', () => {
  let synthesized: ReturnType<typeof synthesizeServiceDesk>;
  const modelArn = 'arn:<AWS::Partition>:bedrock:us-west-2::foundation-model/amazon.rerank-v1:0';
  beforeAll(() => {
    synthesized = synthesizeServiceDesk({
      region: 'us-west-2',
      modelId: 'us.anthropic.claude-sonnet-4-5-20250929-v1:0',
      rerankingModelId: 'amazon.rerank-v1:0',
    });
  });

  it("gives the function the reranker's foundation-model ARN", () => {
    expect(renderArn(apiEnvironment(synthesized.template).RERANKING_MODEL_ARN)).toBe(modelArn);
  });

  it('lets the function and the Knowledge Base role rerank with that model only', () => {
    const rerank = [
      { actions: ['bedrock:Rerank'], resources: ['*'] },
      { actions: ['bedrock:InvokeModel'], resources: [modelArn] },
    ];
    expect(statementsOf(synthesized.template, 'ApiRoleDefaultPolicy')).toEqual(
      expect.arrayContaining(rerank),
    );
    const knowledgeBaseRole = statementsOf(synthesized.template, 'KnowledgeBaseServiceRolePolicy');
    expect(knowledgeBaseRole).toEqual(expect.arrayContaining(rerank));
    // Amazon's reranker is no Marketplace product: no subscription grant for the KB role.
    expect(knowledgeBaseRole.flatMap((statement) => statement.actions)).not.toContain(
      'aws-marketplace:Subscribe',
    );
  });

  it('passes cdk-nag AwsSolutions with the Rerank wildcard acknowledged', () => {
    expect(synthesized.nagFindings).toEqual([]);
  });
});

describe('ServiceDeskStack with rerankingModelId cohere.rerank-v3-5:0 in us-east-1', () => {
  it('lets the Knowledge Base role subscribe to the Marketplace model on first use', () => {
    const synthesized = synthesizeServiceDesk({ rerankingModelId: 'cohere.rerank-v3-5:0' });
    const knowledgeBaseRole = statementsOf(synthesized.template, 'KnowledgeBaseServiceRolePolicy');
    expect(knowledgeBaseRole).toEqual(
      expect.arrayContaining([
        {
          actions: ['bedrock:InvokeModel'],
          resources: [
            'arn:<AWS::Partition>:bedrock:us-east-1::foundation-model/cohere.rerank-v3-5:0',
          ],
        },
        {
          actions: ['aws-marketplace:Subscribe', 'aws-marketplace:ViewSubscriptions'],
          resources: ['*'],
        },
      ]),
    );
    expect(synthesized.nagFindings).toEqual([]);
  });
});
