import { describe, expect, it } from 'vitest';
import { keyTermsOf, topicOfInquiry } from '../../functions/insights/inquiry-topic.js';

describe('topicOfInquiry', () => {
  it('gives a Japanese and an English inquiry about the same thing the same topic key', () => {
    const japanese = topicOfInquiry('在宅勤務でVPNに接続できません', 'Network');
    const english = topicOfInquiry("VPN won't connect from home since this morning", 'Network');
    expect(japanese.topicKey).toBe('network|vpn');
    expect(english.topicKey).toBe('network|vpn');
  });

  it('names glossary terms by their first English word, whichever language the inquiry used', () => {
    expect(topicOfInquiry('プリンターで印刷できない', 'Devices')).toEqual({
      topicKey: 'devices|printer',
      category: 'devices',
      terms: ['printer', 'print'],
    });
    expect(topicOfInquiry('The printer on floor 3 will not print', 'devices').topicKey).toBe(
      'devices|printer',
    );
  });

  it('puts what the inquiry is about before what happens to it', () => {
    expect(keyTermsOf('VPNにつながらない')).toEqual(['vpn', "can't connect"]);
    expect(keyTermsOf('Outlookでメールが送信できない')).toEqual([
      'outlook',
      'email',
      'cannot send',
    ]);
    expect(keyTermsOf('ＶＰＮ　エラー 809')).toEqual(['vpn', 'error']);
    expect(keyTermsOf('Teams会議で画面共有ができない')).toEqual([
      'teams',
      'meeting',
      'screen sharing',
    ]);
  });

  it('matches English glossary words as whole words only', () => {
    // "sales" is a glossary word; inside "Salesforce" it is not one, and no "force" is left over.
    expect(keyTermsOf('I cannot log in to Salesforce since the update')).toEqual([
      'login',
      'salesforce',
      'update',
    ]);
  });

  it('keeps words the glossary does not know as runs of one script, without stopwords', () => {
    expect(keyTermsOf('経費精算システムの承認ボタンが押せない')).toEqual([
      'expense',
      '精算',
      'ボタン',
      'approval',
    ]);
    // "wipe" is the glossary's reset, after the subject.
    expect(keyTermsOf('Is it ok to wipe the Jamf profile?')).toEqual(['jamf', 'profile', 'reset']);
  });

  it('is uncategorized without a category and keyed "-" without any term', () => {
    expect(topicOfInquiry('???', undefined)).toEqual({
      topicKey: 'uncategorized|-',
      category: 'uncategorized',
      terms: [],
    });
    expect(topicOfInquiry('help please', '  ').topicKey).toBe('uncategorized|-');
  });

  it('keeps at most three terms and never a "|" inside the category', () => {
    const topic = topicOfInquiry('Outlook calendar invite from Teams in Excel', 'mail|calendar');
    expect(topic.terms).toHaveLength(3);
    expect(topic.category).toBe('mail/calendar');
    expect(topic.topicKey).toBe('mail/calendar|outlook');
  });
});
