import { describe, expect, it } from 'vitest';
import { buildModelRequest } from '../../../../functions/chat/model-request.js';
import { defaultChatConfig } from '../../../../functions/chat/ports.js';
import type { KnownIssueNotice } from '../../../../functions/contract/surges.js';
import { buildOfflineAnswer } from '../../../../local/bedrock/offline-responder/offline-answers.js';
import type { OfflineRequest } from '../../../../local/bedrock/offline-responder/offline-request.js';
import { readOfflinePrompt } from '../../../../local/bedrock/offline-responder/read-offline-prompt.js';
import { createSeededRandom } from '../../../../local/bedrock/offline-responder/seeded-random.js';
import { TICKET_A, TICKET_B } from './offline-prompt-fixture.js';

// A lead's known issue reaches the offline responder as `known_issue` elements (ADR 0033): the
// answer opens with it and the mail draft carries its note, workaround and link — by element,
// whatever the inquiry or the tickets say.
const issue: KnownIssueNotice = {
  id: '01JKNOWNISSUE0000000000001',
  title: 'Outlook が起動しない障害',
  note: '復旧まで Outlook on the web をご利用ください。<b>太字</b> & 記号もそのまま',
  author: 'lead',
  at: '2026-12-07T09:05:00.000Z',
  workaround: 'ブラウザで開く',
  link: 'https://status.office.com',
};

function answerTo(inquiry: string, knownIssues: readonly KnownIssueNotice[]) {
  const request = buildModelRequest({
    working: [{ role: 'user', text: inquiry }],
    archive: [],
    tickets: [TICKET_A, TICKET_B],
    knownIssues,
    language: 'ja',
    archiveBudget: defaultChatConfig.archiveBudget,
    maxTokens: defaultChatConfig.maxTokens,
  });
  const offline = {
    system: request.system,
    messages: request.messages,
  } as unknown as OfflineRequest;
  return buildOfflineAnswer(readOfflinePrompt(offline), 'ja', createSeededRandom(inquiry));
}

describe('the offline responder and known issues', () => {
  it('opens the advice with the issue and puts its wording in the mail draft', () => {
    const answer = answerTo('Outlookが起動しない', [issue]);
    expect(answer.response_type).toBe('results');
    expect(answer.general_advice.split('\n')[0]).toBe(`## 既知の問題：${issue.title}`);
    expect(answer.general_advice).toContain(issue.note);
    expect(answer.mail_draft).toContain(issue.note);
    expect(answer.mail_draft).toContain(issue.workaround);
    expect(answer.mail_draft).toContain(issue.link);
    // Deterministic: the same request, the same answer.
    expect(answerTo('Outlookが起動しない', [issue])).toEqual(answer);
  });

  it('never asks back over a known issue, and says nothing of one that is absent', () => {
    expect(answerTo('Outlook', [issue]).response_type).toBe('results');
    expect(answerTo('Outlookが起動しない', []).general_advice).not.toContain('既知の問題');
  });
});
