import type { Locale } from '../i18n/messages.js';

/** What a staff member can do about a failure, in their language. */
const byReason = {
  network: {
    ja: 'サーバーに接続できませんでした。ネットワーク接続を確認して、もう一度お試しください。',
    en: 'Could not reach the server. Check your network connection and try again.',
  },
  unauthorized: {
    ja: 'サインインの有効期限が切れました。ページを再読み込みして、もう一度サインインしてください。',
    en: 'Your sign-in has expired. Reload the page and sign in again.',
  },
  notFound: {
    ja: 'この会話は見つかりません。削除されたか、別のユーザーの会話です。',
    en: 'This conversation was not found. It may have been deleted or belong to someone else.',
  },
  conflict: {
    ja: '別の操作と重なりました。少し待ってからもう一度お試しください。',
    en: 'This clashed with another change. Wait a moment and try again.',
  },
  tooLarge: {
    ja: 'メッセージが長すぎます。短くしてから送信してください。',
    en: 'The message is too long. Shorten it and send again.',
  },
  invalid: {
    ja: '送信内容に問題がありました。入力を確認してください。',
    en: 'The request was not accepted. Check what you entered.',
  },
  busy: {
    ja: '現在混み合っています。しばらく待ってからもう一度お試しください。',
    en: 'The service is busy. Wait a little and try again.',
  },
  unavailable: {
    ja: '会話の保存先に一時的に接続できません。少し待ってからもう一度お試しください。',
    en: 'Conversations cannot be saved or loaded right now. Wait a moment and try again.',
  },
  cut: {
    ja: '回答の途中で接続が切れました。もう一度お試しください。',
    en: 'The connection dropped while the answer was arriving. Please try again.',
  },
  model: {
    ja: 'AI モデルの回答が途中で途切れたか、読み取れませんでした。もう一度お試しください。',
    en: "The AI model's answer broke off or could not be read. Please try again.",
  },
  guardrail: {
    ja: 'コンテンツ安全フィルター（Bedrock Guardrail）がこの回答をブロックしました。問い合わせの書き方を変えるか、引用されるチケットの内容を確認してください。',
    en: 'The content safety filter (Bedrock Guardrail) blocked this answer. Rephrase the inquiry, or check the tickets it would cite.',
  },
  budget: {
    ja: '本日の AI 利用上限に達しました。日本時間 9:00（UTC 0:00）にリセットされます。',
    en: "You have used today's AI allowance. It resets at midnight UTC.",
  },
  deleted: {
    ja: 'この会話は回答の途中で削除されました。新しい会話で質問し直してください。',
    en: 'This conversation was deleted while the answer was being written. Ask again in a new conversation.',
  },
  inProgress: {
    ja: 'この質問はまだ別の画面で回答中です。少し待ってから「再試行」を押すと、その回答が表示されます。',
    en: 'This question is still being answered elsewhere. Wait a moment and retry to see that answer.',
  },
  notLatest: {
    ja: 'この後に新しい質問が追加されています（別の画面からかもしれません）。会話を開き直して最新の質問を編集・再生成してください。',
    en: 'A newer question was added after this one (perhaps in another tab). Reopen the conversation to edit or regenerate the latest question.',
  },
  reusedId: {
    ja: '同じ送信が別の内容で繰り返されました。メッセージをもう一度送信してください。',
    en: 'This send was repeated with different content. Send the message again.',
  },
  notEditor: {
    ja: 'ナレッジを公開する権限がありません。管理者に依頼してください。',
    en: 'You are not allowed to publish knowledge. Ask an administrator.',
  },
  notSolved: {
    ja: 'この問い合わせはまだ解決していません（最新の回答が完了した回答ではありません）。',
    en: 'This inquiry is not solved yet: its latest answer is not a complete answer.',
  },
  alreadyPublished: {
    ja: 'この問い合わせはすでにナレッジとして公開されています。',
    en: 'This inquiry is already published as knowledge.',
  },
  knowledgeDisabled: {
    ja: 'この環境ではナレッジの保存が有効になっていません。',
    en: 'Knowledge capture is not enabled in this environment.',
  },
  knowledgeStoreUnavailable: {
    ja: 'ナレッジの保存先に一時的に接続できません。少し待ってからもう一度公開してください。',
    en: 'The knowledge store cannot be reached right now. Wait a moment and publish again.',
  },
  server: {
    ja: 'サーバーでエラーが発生しました。時間をおいてもう一度お試しください。解決しない場合は管理者に連絡してください。',
    en: 'Something went wrong on the server. Try again later, and tell the administrators if it persists.',
  },
} as const satisfies Record<string, Record<Locale, string>>;

type Reason = keyof typeof byReason;

const statusReasons: Record<number, Reason> = {
  0: 'network',
  400: 'invalid',
  401: 'unauthorized',
  403: 'unauthorized',
  404: 'notFound',
  409: 'conflict',
  413: 'tooLarge',
  415: 'invalid',
  429: 'busy',
  503: 'unavailable',
};

/** Error codes (SSE `error` events and JSON bodies) that deserve a specific explanation. */
function reasonFromCode(code: string): Reason | undefined {
  if (code === 'network' || code === 'stream_cut') return code === 'network' ? 'network' : 'cut';
  // Before the generic patterns: `invalid_model_output` is the model's fault, not the user's input.
  if (/^(invalid|empty)_model_output$|^model_(stream_failed|output_truncated)$/.test(code)) {
    return 'model';
  }
  if (code === 'daily_budget_exceeded') return 'budget';
  if (code === 'guardrail_intervened') return 'guardrail';
  if (code === 'conversation_deleted') return 'deleted';
  if (code === 'answer_in_progress') return 'inProgress';
  if (code === 'client_message_id_reused') return 'reusedId';
  if (code === 'not_latest_question') return 'notLatest';
  if (code === 'store_unavailable') return 'unavailable';
  if (code === 'not_a_knowledge_editor') return 'notEditor';
  if (code === 'inquiry_not_solved') return 'notSolved';
  if (code === 'already_published') return 'alreadyPublished';
  if (code === 'knowledge_capture_disabled') return 'knowledgeDisabled';
  if (code === 'knowledge_store_unavailable') return 'knowledgeStoreUnavailable';
  if (/throttl|rate|busy|too_many/i.test(code)) return 'busy';
  if (/unauthori[sz]ed|auth/i.test(code)) return 'unauthorized';
  if (/not_?found/i.test(code)) return 'notFound';
  if (/conflict/i.test(code)) return 'conflict';
  if (/too_?large|payload/i.test(code)) return 'tooLarge';
  if (/invalid|validation|bad_request/i.test(code)) return 'invalid';
  return undefined;
}

/**
 * Whether trying the same request again can succeed: the network, conflicts, throttling and
 * server-side outages (`store_unavailable`, 5xx) may pass on a second try; 400/401/404/413/415
 * will not. The web app offers "Try again" exactly for these.
 */
export function isRetryableFailure(error: {
  readonly code: string;
  readonly httpStatus?: number;
}): boolean {
  if (error.code === 'store_unavailable' || error.code === 'network') return true;
  // A 409 that no retry can change: the question it edits is no longer the latest (ADR 0010).
  if (error.code === 'not_latest_question') return false;
  // The guardrail gives the same verdict on the same inquiry and tickets.
  if (error.code === 'guardrail_intervened') return false;
  const status = error.httpStatus;
  return status === undefined || status === 0 || status === 409 || status >= 429;
}

/**
 * Turns an HTTP status and/or an error code into a sentence for staff — never a stack trace or
 * an internal code (those stay in the console for developers).
 */
export function describeError(
  error: { readonly code: string; readonly httpStatus?: number },
  locale: Locale,
): string {
  const reason =
    reasonFromCode(error.code) ??
    (error.httpStatus !== undefined ? statusReasons[error.httpStatus] : undefined) ??
    'server';
  return byReason[reason][locale];
}
