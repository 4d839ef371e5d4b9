import { describe, expect, it } from 'vitest';
import { vectorStoreOf } from '../../scripts/deployed-stack.js';

const stack = (outputs: Record<string, string>) => ({
  region: 'us-east-1',
  stackName: 'ServiceDeskAssistant',
  outputs,
});

describe('vectorStoreOf', () => {
  it('reads the VectorStore output the eval and the acceptance suite report', () => {
    expect(vectorStoreOf(stack({ VectorStore: 's3-vectors' }))).toBe('s3-vectors');
    expect(vectorStoreOf(stack({ VectorStore: 'other' }))).toBe('other');
  });

  it('takes a stack from before the output for OpenSearch Serverless, the only store then', () => {
    expect(vectorStoreOf(stack({}))).toBe('opensearch-serverless');
  });

  it('refuses an output it does not know rather than guessing a search type', () => {
    expect(() => vectorStoreOf(stack({ VectorStore: 'pinecone' }))).toThrow(
      /unknown VectorStore output: pinecone/,
    );
  });
});
