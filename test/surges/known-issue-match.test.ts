import { describe, expect, it } from 'vitest';
import { knownIssuesMatching } from '../../functions/surges/known-issue-match.js';
import type { StoredKnownIssue } from '../../functions/surges/ports.js';

const issue = (id: string, matches: string[], publishedAt = '2026-12-07T09:00:00.000Z') =>
  ({
    id,
    title: `issue ${id}`,
    note: 'note',
    matches,
    author: 'lead',
    publishedAt,
    endsAt: '2026-12-08T09:00:00.000Z',
  }) satisfies StoredKnownIssue;

describe('knownIssuesMatching', () => {
  it('matches a word as written, folding case and width', () => {
    const outlook = issue('A', ['Outlook']);
    expect(knownIssuesMatching([outlook], 'Outlookが起動しない').map((n) => n.id)).toEqual(['A']);
    expect(knownIssuesMatching([outlook], 'ｏｕｔｌｏｏｋ 起動でエラー').map((n) => n.id)).toEqual([
      'A',
    ]);
    expect(knownIssuesMatching([outlook], 'プリンターで印刷できない')).toEqual([]);
  });

  it('matches through the glossary across languages, and a topic key by its term', () => {
    expect(knownIssuesMatching([issue('M', ['email'])], 'メールが届かない')).toHaveLength(1);
    expect(knownIssuesMatching([issue('P', ['printer'])], 'プリンターが動かない')).toHaveLength(1);
    expect(knownIssuesMatching([issue('K', ['*|outlook'])], 'Outlookが開かない')).toHaveLength(1);
  });

  it('lists the oldest first and carries what the notice shows', () => {
    const notices = knownIssuesMatching(
      [issue('B', ['Outlook'], '2026-12-07T10:00:00.000Z'), issue('A', ['outlook'])],
      'Outlook',
    );
    expect(notices.map((notice) => notice.id)).toEqual(['A', 'B']);
    expect(notices[0]).toEqual({
      id: 'A',
      title: 'issue A',
      note: 'note',
      author: 'lead',
      at: '2026-12-07T09:00:00.000Z',
    });
  });
});
