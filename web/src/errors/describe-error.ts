import type { FailureCode } from '../api/api-error.js';
import type { Locale } from '../i18n/messages.js';

/**
 * The sentences a staff member reads about a failure, in their language: what happened and what
 * they can do. Several codes share one.
 */
const sentences = {
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
  notLead: {
    ja: 'このページはサービスデスクのリーダー専用です。閲覧が必要な場合は管理者に依頼してください。',
    en: 'This page is only for service-desk leads. Ask an administrator if you need access.',
  },
  notSolved: {
    ja: 'この問い合わせはまだ解決していません（最新の回答が完了した回答ではありません）。',
    en: 'This inquiry is not solved yet: its latest answer is not a complete answer.',
  },
  alreadyPublished: {
    ja: 'この問い合わせはすでにナレッジとして公開されています。',
    en: 'This inquiry is already published as knowledge.',
  },
  mailDraftFull: {
    ja: 'このメール下書きの版は上限に達しました。コピーして送信してください。',
    en: 'This e-mail draft has reached its maximum number of versions. Copy it and send it.',
  },
  knowledgeDisabled: {
    ja: 'この環境ではナレッジの保存が有効になっていません。',
    en: 'Knowledge capture is not enabled in this environment.',
  },
  knowledgeStoreUnavailable: {
    ja: 'ナレッジの保存先に一時的に接続できません。少し待ってからもう一度公開してください。',
    en: 'The knowledge store cannot be reached right now. Wait a moment and publish again.',
  },
  timeout: {
    ja: '回答の作成に時間がかかりすぎたため、途中で打ち切りました。もう一度お試しください。',
    en: 'The answer took too long and was cut off. Please try again.',
  },
  superseded: {
    ja: 'この質問は回答の作成中に（別の画面などで）編集または再生成されました。新しい方の質問に回答しています。',
    en: 'This question was edited or regenerated meanwhile (perhaps in another tab); its newer version is answered instead.',
  },
  saveFailed: {
    ja: '回答を保存できませんでした。もう一度お試しください。',
    en: 'The answer could not be saved. Please try again.',
  },
  draftStopped: {
    ja: '下書きの作成を停止しました。',
    en: 'The draft was stopped.',
  },
  attachmentType: {
    ja: 'このファイルの種類は添付できません。画像（PNG・JPEG・WebP・GIF）かテキストファイル（.txt・.log・.csv・.json）を添付してください。',
    en: 'This kind of file cannot be attached. Attach an image (PNG, JPEG, WebP, GIF) or a text file (.txt, .log, .csv, .json).',
  },
  attachmentTooLarge: {
    ja: '添付ファイルが大きすぎます（画像は 4 MB、テキストは 200 KB まで）。',
    en: 'The attachment is too large (images up to 4 MB, text files up to 200 KB).',
  },
  imageTooManyPixels: {
    ja: '画像の解像度が大きすぎます（縦横それぞれ 8,000 ピクセルまで）。',
    en: 'The image is too large in pixels (at most 8,000 on each side).',
  },
  corruptImage: {
    ja: '画像が壊れているため読み取れませんでした。保存し直してから添付してください。',
    en: 'The image is damaged and could not be read. Save it again and attach it.',
  },
  textNotDecodable: {
    ja: 'テキストファイルの文字コードを読み取れませんでした（UTF-8 か Shift_JIS で保存してください）。',
    en: 'The text file could not be read (save it as UTF-8 or Shift_JIS).',
  },
  tooManyAttachments: {
    ja: '添付できるファイルは 1 つのメッセージにつき 5 つまでです。',
    en: 'A message can carry at most 5 attachments.',
  },
  attachmentNotFound: {
    ja: '添付ファイルが見つかりません。削除されたか、別のユーザーのファイルです。もう一度添付してください。',
    en: 'The attachment was not found. It may have been removed or belong to someone else. Attach it again.',
  },
  server: {
    ja: 'サーバーでエラーが発生しました。時間をおいてもう一度お試しください。解決しない場合は管理者に連絡してください。',
    en: 'Something went wrong on the server. Try again later, and tell the administrators if it persists.',
  },
} as const satisfies Record<string, Record<Locale, string>>;

type Sentence = (typeof sentences)[keyof typeof sentences];

/**
 * The explanation of every code the web app can meet. Typed over the whole set — the contract's
 * codes and the browser's own — so a code added to `functions/contract/errors.ts` fails the web
 * typecheck until it has its sentence here.
 */
export const SENTENCE_BY_CODE = {
  // Refused requests.
  bad_request: sentences.invalid,
  invalid_text: sentences.invalid,
  empty_text: sentences.invalid,
  invalid_cursor: sentences.invalid,
  not_an_answer: sentences.invalid,
  ticket_not_cited: sentences.invalid,
  no_mail_draft: sentences.invalid,
  unsupported_media_type: sentences.invalid,
  unauthorized: sentences.unauthorized,
  not_a_knowledge_editor: sentences.notEditor,
  not_a_service_desk_lead: sentences.notLead,
  not_found: sentences.notFound,
  turn_not_found: sentences.notFound,
  inquiry_not_found: sentences.notFound,
  method_not_allowed: sentences.server,
  conflict: sentences.conflict,
  not_latest_question: sentences.notLatest,
  answer_in_progress: sentences.inProgress,
  inquiry_not_solved: sentences.notSolved,
  already_published: sentences.alreadyPublished,
  mail_draft_full: sentences.mailDraftFull,
  too_large: sentences.tooLarge,
  client_message_id_reused: sentences.reusedId,
  daily_budget_exceeded: sentences.budget,
  internal: sentences.server,
  knowledge_capture_disabled: sentences.knowledgeDisabled,
  store_unavailable: sentences.unavailable,
  knowledge_store_unavailable: sentences.knowledgeStoreUnavailable,
  attachment_type_refused: sentences.attachmentType,
  attachment_too_large: sentences.attachmentTooLarge,
  image_too_many_pixels: sentences.imageTooManyPixels,
  corrupt_image: sentences.corruptImage,
  text_not_decodable: sentences.textNotDecodable,
  too_many_attachments: sentences.tooManyAttachments,
  attachment_not_found: sentences.attachmentNotFound,
  // `error` events.
  model_throttled: sentences.busy,
  model_unavailable: sentences.busy,
  model_stream_failed: sentences.model,
  model_rejected: sentences.server,
  model_output_truncated: sentences.model,
  invalid_model_output: sentences.model,
  empty_model_output: sentences.model,
  guardrail_intervened: sentences.guardrail,
  timeout: sentences.timeout,
  save_failed: sentences.saveFailed,
  conversation_deleted: sentences.deleted,
  question_superseded: sentences.superseded,
  draft_stopped: sentences.draftStopped,
  // The browser's own.
  network: sentences.network,
  stream_cut: sentences.cut,
  not_event_stream: sentences.server,
  unrecognized_response: sentences.server,
  stored_failure: sentences.server,
  unknown: sentences.server,
} as const satisfies Record<FailureCode, Sentence>;

/**
 * A response without the API's error body (a CDN or Lambda runtime page, a code newer than this
 * build) is explained by its status alone — the one place a status still chooses the words.
 */
const SENTENCE_BY_STATUS: Readonly<Record<number, Sentence>> = {
  0: sentences.network,
  400: sentences.invalid,
  401: sentences.unauthorized,
  403: sentences.unauthorized,
  404: sentences.notFound,
  409: sentences.conflict,
  413: sentences.tooLarge,
  415: sentences.invalid,
  429: sentences.busy,
  503: sentences.unavailable,
};

/** A failure as the web app keeps it: a code and, for a refused request, its status. */
export interface DescribedFailure {
  readonly code: FailureCode;
  readonly httpStatus?: number;
}

/**
 * Whether trying the same request again can succeed: the network, conflicts, throttling and
 * server-side outages (`store_unavailable`, 5xx) may pass on a second try; 400/401/404/413/415
 * will not. The web app offers "Try again" exactly for these.
 */
export function isRetryableFailure(error: DescribedFailure): boolean {
  if (error.code === 'store_unavailable' || error.code === 'network') return true;
  // A 409 that no retry can change: the question it edits is no longer the latest (ADR 0010).
  if (error.code === 'not_latest_question') return false;
  // The guardrail gives the same verdict on the same inquiry and tickets.
  if (error.code === 'guardrail_intervened') return false;
  const status = error.httpStatus;
  return status === undefined || status === 0 || status === 409 || status >= 429;
}

/**
 * Turns a failure into a sentence for staff — never a stack trace or an internal code (those
 * stay in the console for developers).
 */
export function describeError(error: DescribedFailure, locale: Locale): string {
  const sentence =
    error.code === 'unrecognized_response' && error.httpStatus !== undefined
      ? (SENTENCE_BY_STATUS[error.httpStatus] ?? sentences.server)
      : SENTENCE_BY_CODE[error.code];
  return sentence[locale];
}
