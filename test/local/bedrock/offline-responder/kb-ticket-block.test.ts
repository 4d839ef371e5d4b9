import { describe, expect, it } from 'vitest';
import {
  formatKbTicketBlock,
  parseKbTicketBlocks,
} from '../../../../local/bedrock/offline-responder/kb-ticket-block.js';

describe('parseKbTicketBlocks', () => {
  it('reads back what formatKbTicketBlock writes', () => {
    const tickets = [
      {
        issueId: '1234',
        subject: 'SalesforceにSSOでログインできない',
        category: 'Salesforce',
        score: 0.83,
        text: '# 見出し\n\n## 問い合わせ内容\n\n本文',
      },
      { issueId: '77', subject: 'Printer offline', text: 'issue: not a field line\nmore' },
    ];
    const section = tickets.map(formatKbTicketBlock).join('\n\n');
    expect(parseKbTicketBlocks(section)).toEqual([
      { ...tickets[0], status: undefined, createdAt: undefined },
      {
        ...tickets[1],
        category: undefined,
        status: undefined,
        createdAt: undefined,
        score: undefined,
      },
    ]);
  });

  it('accepts optional fields in any order, a blank line before the text and CRLF', () => {
    const section =
      'note\r\n### Ticket 42: From heading\r\nscore: 0.5\r\nsubject: From field\r\nissue_id: 42\r\nstatus: resolved\r\n\r\nBody';
    expect(parseKbTicketBlocks(section)).toEqual([
      {
        issueId: '42',
        subject: 'From field',
        category: undefined,
        status: 'resolved',
        createdAt: undefined,
        score: 0.5,
        text: 'Body',
      },
    ]);
  });

  it('finds no tickets in a "nothing found" note', () => {
    expect(parseKbTicketBlocks('（類似する過去チケットは見つかりませんでした）')).toEqual([]);
  });
});
