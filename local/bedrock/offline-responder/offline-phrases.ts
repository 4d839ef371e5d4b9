import type { Language } from '../../../functions/contract/language.js';

/** The fixed wording of offline answers, per inquiry language. Variants are picked by seed. */
export const OFFLINE_PHRASES = {
  ja: {
    adviceHeading: ['## 対応の方針', '## 推奨する対応'],
    adviceIntro: (ids: string) => [
      `過去の類似チケット（${ids}）では、次の対応で解決しています。`,
      `${ids} の対応記録が今回の問い合わせに近い内容です。`,
    ],
    checkHeading: '### まず確認すること',
    pointHeading: '### ポイント',
    referenceHeading: '### 参考チケット',
    noMatchHeading: '## 類似チケットなし',
    noMatchAdvice:
      '過去チケットから類似する事例は見つかりませんでした。症状・エラーメッセージ・発生日時・利用端末を依頼者に確認し、切り分けを進めてください。',
    clarifyAdvice: (topics: string) =>
      `この問い合わせに近い過去チケットは複数の分野（${topics}）にまたがっています。対象が分かれば、該当する対応手順に絞り込めます。`,
    clarifyQuestion: [
      'どのシステム・状況についてのお問い合わせですか？',
      '該当するものを選んでください。どの内容に近いですか？',
    ],
    mailGreeting: 'お問い合わせありがとうございます。ITサービスデスクです。',
    mailAbout: (inquiry: string) => `「${inquiry}」の件についてご連絡いたします。`,
    mailSteps: '過去の同様の事例では、次の手順で解決しています。',
    mailNoMatch:
      '状況を詳しく確認させてください。表示されるエラーメッセージ（画面の写真でも構いません）、発生した日時、お使いの端末をお知らせください。',
    mailClosing:
      'お試しいただいても解決しない場合は、エラーが表示された画面を添えてこのメールにご返信ください。\n\nよろしくお願いいたします。\nITサービスデスク',
    todoReply: '依頼者へ回答メールを送付する',
    todoRecord: '対応結果をチケットに記録する',
    todoAsk: '依頼者に症状・エラーメッセージ・発生日時を確認する',
    todoScope: '影響範囲（利用者・端末）を確認する',
    todoEscalate: '必要に応じて担当チームへエスカレーションする',
    reasoningResults: (ids: string) =>
      `オフライン応答（ルールベース）: 検索スコアと問い合わせ語の一致から ${ids} を選びました。`,
    reasoningNone: 'オフライン応答（ルールベース）: 参照できる過去チケットがありませんでした。',
    reasoningClarify: (words: number, topics: string) =>
      `オフライン応答（ルールベース）: 問い合わせの内容語が${words}語と少なく、検索結果が ${topics} に分かれるため確認します。`,
    reasoningArchive:
      '過去の問い合わせ（参照用）は今回の問い合わせから参照されていないため使っていません。',
    knownIssueHeading: (title: string) => `## 既知の問題：${title}`,
    knownIssueIntro: (author: string) =>
      `サービスデスクのリーダー（${author}）が既知の問題として案内しています。依頼者には次のとおり伝えてください。`,
    knownIssueWorkaround: '回避策',
    knownIssueLink: '詳細',
    mailKnownIssue: '現在、次の問題が発生しており、対応中です。',
    draftSubject: 'ITサービスデスクへの問い合わせ',
    draftResolution: 'アシスタントの回答に沿って対応しました。',
  },
  en: {
    adviceHeading: ['## Suggested approach', '## Recommended steps'],
    adviceIntro: (ids: string) => [
      `Similar past tickets (${ids}) were resolved as follows.`,
      `The records of ${ids} are close to this inquiry.`,
    ],
    checkHeading: '### Check first',
    pointHeading: '### Tip',
    referenceHeading: '### Reference tickets',
    noMatchHeading: '## No similar tickets',
    noMatchAdvice:
      'No similar past ticket was found. Ask the requester for the symptom, the exact error message, when it started and which device they use, then narrow the problem down.',
    clarifyAdvice: (topics: string) =>
      `Past tickets close to this inquiry span several areas (${topics}). Knowing which one applies narrows the answer down to the right procedure.`,
    clarifyQuestion: [
      'Which system or situation is this about?',
      'Which of these is closest to the problem?',
    ],
    mailGreeting: 'Thank you for contacting the IT Service Desk.',
    mailAbout: (inquiry: string) => `This is about your request: "${inquiry}".`,
    mailSteps: 'In similar past cases, the following steps solved the problem:',
    mailNoMatch:
      'Could you tell us more? Please send the exact error message (a screenshot is fine), when it started and which device you are using.',
    mailClosing:
      'If this does not solve it, please reply to this e-mail with a screenshot of the error.\n\nBest regards,\nIT Service Desk',
    todoReply: 'Send the reply e-mail to the requester',
    todoRecord: 'Record the outcome in the ticket',
    todoAsk: 'Ask the requester for the symptom, error message and time it started',
    todoScope: 'Check who and which devices are affected',
    todoEscalate: 'Escalate to the owning team if needed',
    reasoningResults: (ids: string) =>
      `Offline responder (rule-based): picked ${ids} by retrieval score and overlap with the inquiry's terms.`,
    reasoningNone: 'Offline responder (rule-based): no past tickets were provided.',
    reasoningClarify: (words: number, topics: string) =>
      `Offline responder (rule-based): the inquiry has only ${words} content word(s) and the retrieved tickets split into ${topics}, so asking first.`,
    reasoningArchive:
      'The earlier inquiries (reference only) were not used: the current inquiry does not refer to them.',
    knownIssueHeading: (title: string) => `## Known issue: ${title}`,
    knownIssueIntro: (author: string) =>
      `A service-desk lead (${author}) has published this as a known issue. Tell the requester:`,
    knownIssueWorkaround: 'Workaround',
    knownIssueLink: 'More',
    mailKnownIssue: 'We are aware of the following problem and are working on it:',
    draftSubject: 'Inquiry to the IT Service Desk',
    draftResolution: "Resolved following the assistant's answer.",
  },
} as const satisfies Record<Language, unknown>;
