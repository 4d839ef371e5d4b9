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
import { ALL_DESK } from '../../functions/contract/desks.js';

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
  desk: string = ALL_DESK,
): RetrievedTicket => ({ issueId, subject: `subject ${issueId}`, text, score, restricted, desk });

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
      [ALL_DESK],
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
    expect(await fetchReferencedTickets(retriever, [], [ALL_DESK])).toEqual([]);
    expect(fetched).toEqual([]);
    const tickets = await fetchReferencedTickets(retriever, ['1002', '1015'], [ALL_DESK]);
    expect(tickets.map((ticket) => ticket.issueId)).toEqual(['1002']);
  });
});

describe('mergeChunks', () => {
  it('joins the chunks of one ticket at its best score, best first, each text once', () => {
    const merged = mergeChunks(
      [
        chunk('1001', 'step one', 0.4),
        chunk('1002', 'other', 0.6),
        chunk('1001', 'step two', 0.7),
        chunk('1001', 'step one', 0.2),
      ],
      [ALL_DESK],
    );
    expect(merged.map(({ issueId, score, text }) => ({ issueId, score, text }))).toEqual([
      { issueId: '1001', score: 0.7, text: 'step one\nstep two' },
      { issueId: '1002', score: 0.6, text: 'other' },
    ]);
  });
});

describe('desks (ADR 0029): the second exit, whatever the retriever let through', () => {
  const hr = chunk('2001', 'hr leave', 0.9, false, 'hr');
  const open = chunk('1001', 'printer', 0.5);
  const deskless: RetrievedTicket = {
    issueId: '3001',
    subject: 's',
    text: 'old',
    score: 0.7,
    restricted: false,
  };

  it('keeps an HR ticket for HR staff and drops it for IT staff', () => {
    expect(mergeChunks([hr, open], [ALL_DESK, 'hr']).map((t) => t.issueId)).toEqual([
      '2001',
      '1001',
    ]);
    expect(mergeChunks([hr, open], [ALL_DESK, 'it']).map((t) => t.issueId)).toEqual(['1001']);
  });

  it('lets a ticket without a desk reach nobody, as the Knowledge Base filter treats it', () => {
    expect(mergeChunks([deskless, open], [ALL_DESK, 'hr', 'it'])).toHaveLength(1);
  });

  it('passes the caller desks to the retriever and drops another desk by number too', async () => {
    const asked: (readonly string[])[] = [];
    const retriever: Retriever = {
      async search(_query, options) {
        asked.push(options.desks);
        return [hr, open];
      },
      async fetchByIssueIds(_issueIds, options) {
        asked.push(options.desks);
        return [hr];
      },
    };
    const itStaff = [ALL_DESK, 'it'];
    const similar = await retrieveTickets(
      retriever,
      '休暇',
      { numberOfResults: 8, queryExpansion: false },
      itStaff,
    );
    expect(similar.map((t) => t.issueId)).toEqual(['1001']);
    expect(await fetchReferencedTickets(retriever, ['2001'], itStaff)).toEqual([]);
    expect(asked).toEqual([itStaff, itStaff]);
  });
});
