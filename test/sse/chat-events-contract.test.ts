import { describe, expect, it } from 'vitest';
import { streamEventSchemas } from '../../functions/contract/chat-events.js';
import { turnSchema } from '../../functions/contract/conversations.js';

const answer = { response_type: 'results', general_advice: 'まず再起動してください。' } as const;

describe('the chat event contract', () => {
  it('names the ticket number issue_id in kb_chunks, as in ticket and result', () => {
    const chunk = { issue_id: '1001', subject: 'VPN', score: 0.8, preview: '再接続で解決' };
    expect(streamEventSchemas.kb_chunks.parse({ chunks: [chunk] })).toEqual({ chunks: [chunk] });
    const { issue_id, ...camel } = chunk;
    expect(
      streamEventSchemas.kb_chunks.safeParse({ chunks: [{ ...camel, issueId: issue_id }] }),
    ).toMatchObject({ success: false });
    expect(Object.keys(streamEventSchemas.ticket.shape)).toContain('issue_id');
  });

  it('carries source_chunks_count in result (the web app parses with this schema, dropping unknown keys)', () => {
    const data = { ...answer, source_chunks_count: 3, conversationId: 'C1', version: 2, seq: 2 };
    expect(streamEventSchemas.result.parse({ ...data, status: 'complete' })).toMatchObject({
      source_chunks_count: 3,
    });
  });

  it('carries unverified_references in result and in a stored turn', () => {
    const data = {
      ...answer,
      unverified_references: ['4242'],
      conversationId: 'C1',
      version: 2,
      seq: 2,
    };
    expect(streamEventSchemas.result.parse({ ...data, status: 'truncated' })).toMatchObject({
      unverified_references: ['4242'],
    });
    expect(
      streamEventSchemas.result.safeParse({ ...data, unverified_references: '4242' }),
    ).toMatchObject({ success: false });
  });

  it('still reads a stored answer written before the server-side fields existed, and keeps them', () => {
    const stored = {
      seq: 2,
      role: 'assistant',
      kind: 'answer',
      inquiryId: 'I1',
      text: answer.general_advice,
      result: answer,
      status: 'complete',
      createdAt: '2026-01-01T00:00:00Z',
    };
    expect(turnSchema.parse(stored).result).toEqual(answer);
    const checked = { ...answer, source_chunks_count: 2, unverified_references: ['4242'] };
    expect(turnSchema.parse({ ...stored, result: checked }).result).toEqual(checked);
  });
});
