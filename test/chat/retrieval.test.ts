import { describe, expect, it } from 'vitest';
import type { RetrievedTicket, Retriever } from '../../functions/chat/ports.js';
import {
  fetchReferencedTickets,
  glossaryExpansion,
  MAX_QUERY_LENGTH,
  mergeChunks,
  retrieveTickets,
  toRetrievalQuery,
} from '../../functions/chat/retrieval.js';

describe('toRetrievalQuery', () => {
  it('is the trimmed inquiry text when expansion is off', () => {
    expect(toRetrievalQuery('  VPNにつながらない \n')).toBe('VPNにつながらない');
  });

  it('adds the other language for what the inquiry mentions, after the inquiry', () => {
    expect(toRetrievalQuery('プリンターで印刷できない', { expand: true })).toBe(
      'プリンターで印刷できない\nprinter print',
    );
    expect(toRetrievalQuery('BitLocker asks for the recovery key', { expand: true })).toBe(
      'BitLocker asks for the recovery key\n回復キー',
    );
  });

  it('recognises full-width and half-width spellings staff type', () => {
    expect(glossaryExpansion('ﾌﾟﾘﾝﾀｰが動かない')).toContain('printer');
    expect(glossaryExpansion('ＰＡＳＳＷＯＲＤ expired')).toEqual(
      expect.arrayContaining(['パスワード', '有効期限']),
    );
  });

  it('matches English words whole: "mailbox" is not "mail", "display" is not "play"', () => {
    expect(glossaryExpansion('shared mailbox')).toEqual(['共有メールボックス']);
  });

  it('recognises English plurals of a glossary word, and only whole words', () => {
    expect(glossaryExpansion('no licenses left')).toEqual(['ライセンス']);
    expect(glossaryExpansion('two users, one license')).toEqual(['ユーザー', 'ライセンス']);
    // A plural ending, not any suffix: "pinned" is not "pin", "domains" is "domain".
    expect(glossaryExpansion('pinned tab')).toEqual([]);
    expect(glossaryExpansion('both domains')).toEqual(['ドメイン']);
  });

  it('adds nothing the text already says, and the same words whatever their order in the text', () => {
    expect(glossaryExpansion('printer プリンター')).toEqual([]);
    expect(glossaryExpansion('録画 会議')).toEqual(glossaryExpansion('会議 録画'));
  });

  it('keeps the whole inquiry when the limit cuts, dropping expansion words first', () => {
    const long = `${'プリンター'.repeat(199)}あいう`;
    const query = toRetrievalQuery(long, { expand: true });
    expect(Array.from(query)).toHaveLength(MAX_QUERY_LENGTH);
    expect(query.startsWith(long)).toBe(true);
  });
});

const chunk = (
  issueId: string,
  text: string,
  score: number,
  restricted = false,
): RetrievedTicket => ({ issueId, subject: `subject ${issueId}`, text, score, restricted });

describe('retrieveTickets', () => {
  it('sends the expanded inquiry text and removes restricted tickets the retriever let through', async () => {
    const queries: string[] = [];
    const retriever: Retriever = {
      async search(query) {
        queries.push(query);
        return [chunk('1001', 'printer', 0.5), chunk('1015', 'leaked', 0.9, true)];
      },
      fetchByIssueIds: async () => [],
    };
    const restricted = new Set<string>();
    const tickets = await retrieveTickets(
      retriever,
      'プリンターで印刷できない',
      { numberOfResults: 8, queryExpansion: true },
      undefined,
      restricted,
    );
    expect(queries).toEqual([toRetrievalQuery('プリンターで印刷できない', { expand: true })]);
    expect(tickets.map((ticket) => ticket.issueId)).toEqual(['1001']);
    expect([...restricted]).toEqual(['1015']);
  });
});

describe('fetchReferencedTickets', () => {
  it('asks nothing without references and filters restricted ones from what it fetched', async () => {
    const fetched: string[][] = [];
    const retriever: Retriever = {
      search: async () => [],
      async fetchByIssueIds(issueIds) {
        fetched.push([...issueIds]);
        return [chunk('1002', 'vpn', 0.3), chunk('1015', 'leaked', 0.8, true)];
      },
    };
    expect(await fetchReferencedTickets(retriever, [])).toEqual([]);
    expect(fetched).toEqual([]);
    const tickets = await fetchReferencedTickets(retriever, ['1002', '1015']);
    expect(tickets.map((ticket) => ticket.issueId)).toEqual(['1002']);
  });
});

describe('mergeChunks', () => {
  it('joins the chunks of one ticket at its best score, best first, each text once', () => {
    const merged = mergeChunks([
      chunk('1001', 'step one', 0.4),
      chunk('1002', 'other', 0.6),
      chunk('1001', 'step two', 0.7),
      chunk('1001', 'step one', 0.2),
    ]);
    expect(merged.map(({ issueId, score, text }) => ({ issueId, score, text }))).toEqual([
      { issueId: '1001', score: 0.7, text: 'step one\nstep two' },
      { issueId: '1002', score: 0.6, text: 'other' },
    ]);
  });
});
