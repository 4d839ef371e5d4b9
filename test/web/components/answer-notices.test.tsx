import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { AnswerNotices } from '../../../web/src/components/answer-notices.js';
import { createI18n, I18nContext } from '../../../web/src/i18n/i18n-context.js';

const surge = { topic: 'outlook', inquiries: 4, staff: 3, since: '2026-12-07T09:00:00Z' };
const issue = {
  id: 'K1',
  title: 'Outlook が起動しない障害',
  note: '復旧まで Outlook on the web をご利用ください。',
  author: 'lead',
  at: '2026-12-07T09:10:00Z',
};

const render = (fromHistory: boolean, locale: 'ja' | 'en' = 'ja') =>
  renderToStaticMarkup(
    <I18nContext.Provider value={createI18n(locale)}>
      <AnswerNotices surge={surge} knownIssues={[issue]} fromHistory={fromHistory} />
    </I18nContext.Provider>,
  );

describe('AnswerNotices', () => {
  it('shows the same banners from the history, a known issue as of that answer', () => {
    const live = render(false);
    const stored = render(true);
    expect(live).toContain(issue.note);
    expect(live).not.toContain('この回答の時点');
    expect(stored).toContain(issue.note);
    expect(stored).toContain('「outlook」の問い合わせが増えています');
    expect(stored).toContain('この回答の時点のお知らせです（その後終了している場合があります）。');
    expect(render(true, 'en')).toContain('As of this answer; it may have been closed since.');
  });
});
