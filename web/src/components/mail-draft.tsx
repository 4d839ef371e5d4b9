import { createContext, useContext, useEffect, useId, useRef, useState } from 'react';
import { detectLanguage } from '../../../functions/contract/language.js';
import type {
  MailDraftOrigin,
  MailDraftStyle,
  MailDraftVersion,
} from '../../../functions/contract/mail-draft.js';
import { ApiError } from '../api/api-error.js';
import type { MailDraftApi } from '../api/create-mail-draft-api.js';
import { describeError } from '../errors/describe-error.js';
import { useI18n } from '../i18n/i18n-context.js';
import type { MessageKey } from '../i18n/messages.js';
import type { ReferenceMarks } from '../markdown/render-markdown.js';
import {
  splitUnverifiedLinks,
  UNVERIFIED_LINK_CLASS,
  withoutUnverifiedLinks,
} from '../markdown/unverified-links.js';
import {
  splitUnverifiedReferences,
  UNVERIFIED_REFERENCE_CLASS,
} from '../markdown/unverified-references.js';
import { UnverifiedLinksNotice } from './unverified-links-notice.js';

/**
 * What an answer's e-mail draft needs beyond the answer (ADR 0023): the draft routes and which
 * conversation it belongs to (its title is the mail's subject). Absent (tests of a bubble alone,
 * a conversation not stored yet): the draft is shown read-only with its copy button.
 */
export interface MailDraftEnvironment {
  readonly api: MailDraftApi;
  readonly conversationId?: string;
  readonly title?: string;
}

export const MailDraftContext = createContext<MailDraftEnvironment | undefined>(undefined);

export function useMailDraftEnvironment(): MailDraftEnvironment | undefined {
  return useContext(MailDraftContext);
}

/**
 * Longest `mailto:` URL handed to the mail client. Browsers and mail clients cut or refuse long
 * ones (Outlook on Windows at about 2,000 characters, RFC 6068 sets no limit); beyond this staff
 * are told to copy and paste instead.
 */
export const MAX_MAILTO_LENGTH = 1800;

/**
 * A `mailto:` URL with the subject and body (RFC 6068: percent-encoded, line breaks as CRLF), or
 * undefined when it would be longer than {@link MAX_MAILTO_LENGTH}.
 * @example
 * mailtoUrl('Re: VPN', 'Hello\nWorld'); // 'mailto:?subject=Re%3A%20VPN&body=Hello%0D%0AWorld'
 */
export function mailtoUrl(subject: string, body: string): string | undefined {
  const encode = (text: string) => encodeURIComponent(text.replace(/\r?\n/g, '\r\n'));
  const url = `mailto:?subject=${encode(subject)}&body=${encode(body)}`;
  return url.length > MAX_MAILTO_LENGTH ? undefined : url;
}

const ORIGIN_LABELS: Record<MailDraftOrigin | 'original', MessageKey> = {
  original: 'mailDraftOriginal',
  edit: 'mailDraftOriginEdit',
  shorter: 'mailDraftOriginShorter',
  polite: 'mailDraftOriginPolite',
  other_language: 'mailDraftOriginOtherLanguage',
  numbered_steps: 'mailDraftOriginNumberedSteps',
};

interface ShownVersion {
  readonly text: string;
  readonly origin: MailDraftOrigin | 'original';
  readonly unverified?: readonly string[];
  /** What the server listed for this text (`unverified_links`): marked, and never passed on. */
  readonly links: readonly string[];
  /** A version's own removed links, listed under it (the original's are listed with the answer). */
  readonly linksRemoved?: readonly string[];
}

type Mode =
  | { readonly kind: 'view' }
  | { readonly kind: 'edit'; readonly text: string }
  | { readonly kind: 'refining'; readonly text: string };

/**
 * The e-mail draft to the requester (ADR 0023): the answer's draft and every version made of it,
 * browsed with ‹ ›; edited in place (Save stores a new version, Esc or Cancel leaves it); refined
 * with one click, streamed into a new version; copied as plain text or opened in the mail client.
 * Each copy, open, edit and refinement is counted on the answer (counts, never text). Without a
 * stored answer (`seq`) or a conversation, it is the read-only draft with its copy button.
 * Links are shown, copied and handed to the mail client by one rule (`unverified-links.ts`): a
 * link the page marks never leaves it.
 */
export function MailDraft({
  draft,
  marks,
  links = [],
  seq,
  storedVersions,
}: {
  readonly draft: string;
  readonly marks?: ReferenceMarks;
  /** The answer's `unverified_links`: what the server found in the draft and beside it. */
  readonly links?: readonly string[];
  /** The stored answer turn; absent while it streams or when it failed. */
  readonly seq?: number;
  readonly storedVersions?: readonly MailDraftVersion[];
}) {
  const { t, locale } = useI18n();
  const environment = useMailDraftEnvironment();
  const conversationId = environment?.conversationId;
  const changeable = environment !== undefined && conversationId !== undefined && seq !== undefined;
  const [versions, setVersions] = useState<readonly MailDraftVersion[]>(storedVersions ?? []);
  // A reload or another tab may know more versions than this view made.
  useEffect(() => {
    if (storedVersions && storedVersions.length > versions.length) setVersions(storedVersions);
  }, [storedVersions, versions.length]);
  const shown: ShownVersion[] = [
    {
      text: draft,
      origin: 'original',
      links,
      ...(marks ? { unverified: marks.unverified } : {}),
    },
    ...versions.map((version) => ({
      text: version.text,
      origin: version.origin,
      ...(version.unverified_references ? { unverified: version.unverified_references } : {}),
      links: version.unverified_links ?? [],
      linksRemoved: version.unverified_links ?? [],
    })),
  ];
  const [index, setIndex] = useState(shown.length - 1);
  const current = shown[Math.min(index, shown.length - 1)] as ShownVersion;
  const number = Math.min(index, shown.length - 1) + 1;
  const [mode, setMode] = useState<Mode>({ kind: 'view' });
  const [notice, setNotice] = useState<string>('');
  const [failure, setFailure] = useState<string>('');
  const [mailTooLong, setMailTooLong] = useState(false);
  const [copied, setCopied] = useState(false);
  const editButton = useRef<HTMLButtonElement>(null);
  // The Edit button is not rendered while the editor is open: focus returns to it once it is back.
  const focusEditButton = useRef(false);
  useEffect(() => {
    if (mode.kind !== 'view' || !focusEditButton.current) return;
    focusEditButton.current = false;
    editButton.current?.focus();
  }, [mode]);
  const leaveEditor = () => {
    focusEditButton.current = true;
    setMode({ kind: 'view' });
  };
  const refining = useRef<AbortController | undefined>(undefined);
  useEffect(() => () => refining.current?.abort(), []);
  const editorId = useId();

  // What leaves the page (copy, the mail client): the text without a link the page marks.
  const passedOn = withoutUnverifiedLinks(current.text, current.links);
  const count = (action: 'copy' | 'open_in_mail') => {
    if (!changeable) return;
    environment.api
      .action(conversationId, seq, { action, version: number })
      .catch((error: unknown) => console.error('mail draft action not counted', error));
  };
  const explain = (error: unknown) =>
    t('mailDraftFailed', {
      reason: describeError(
        error instanceof ApiError
          ? { code: error.code, httpStatus: error.status }
          : { code: 'unknown' },
        locale,
      ),
    });
  const added = (version: MailDraftVersion, stored: number) => {
    setVersions((known) => [...known, version]);
    setIndex(stored - 1);
    setNotice(t('mailDraftSaved', { number: stored }));
  };

  const copy = async () => {
    try {
      await navigator.clipboard.writeText(passedOn);
      setCopied(true);
      setTimeout(() => setCopied(false), 2000);
      count('copy');
    } catch {
      // Clipboard blocked (http, permissions): the text stays selectable by hand.
      setCopied(false);
    }
  };

  const save = async (text: string) => {
    if (!changeable) return;
    setFailure('');
    try {
      const stored = await environment.api.edit(conversationId, seq, text);
      if (stored.version && stored.number) added(stored.version, stored.number);
      leaveEditor();
    } catch (error) {
      setFailure(explain(error));
    }
  };

  const refine = async (style: MailDraftStyle) => {
    if (!changeable) return;
    setFailure('');
    setNotice(t('mailDraftRefining'));
    const controller = new AbortController();
    refining.current = controller;
    setMode({ kind: 'refining', text: '' });
    let streamed = '';
    try {
      await environment.api.refine(
        conversationId,
        seq,
        { style, basedOn: number },
        {
          signal: controller.signal,
          onEvent: (event) => {
            if (event.event === 'mail_draft_token') {
              streamed += event.data.content;
              setMode({ kind: 'refining', text: streamed });
            } else if (event.event === 'mail_draft_version') {
              const { version, number: stored } = event.data;
              if (version && stored) added(version, stored);
            } else if (event.event === 'error') {
              setFailure(t('mailDraftFailed', { reason: describeError(event.data, locale) }));
              setNotice('');
            }
          },
        },
      );
    } catch (error) {
      if (!controller.signal.aborted) {
        setFailure(explain(error));
        setNotice('');
      }
    } finally {
      if (refining.current === controller) refining.current = undefined;
      setMode({ kind: 'view' });
    }
  };

  const subject = t('mailDraftSubject', { title: environment?.title ?? t('mailDraft') });
  const mailto = mailtoUrl(subject, passedOn);
  const busy = mode.kind === 'refining';
  // The server decides the other language by the same rule (`refinementLanguage`).
  const otherLanguage =
    detectLanguage(current.text) === 'ja'
      ? t('mailDraftRefineToEnglish')
      : t('mailDraftRefineToJapanese');
  const refinements: readonly [MailDraftStyle, string][] = [
    ['shorter', t('mailDraftRefineShorter')],
    ['polite', t('mailDraftRefinePolite')],
    ['other_language', otherLanguage],
    ['numbered_steps', t('mailDraftRefineNumbered')],
  ];
  const originLabel = t(ORIGIN_LABELS[current.origin]);

  return (
    <section className="mail-draft" aria-label={t('mailDraft')}>
      <div className="mail-draft__header">
        <h3 className="section-title">{t('mailDraft')}</h3>
        {shown.length > 1 && (
          <nav className="mail-draft__versions" aria-label={t('mailDraftVersions')}>
            <button
              type="button"
              className="button button--small"
              aria-label={t('mailDraftPrevious')}
              disabled={number <= 1 || mode.kind !== 'view'}
              onClick={() => setIndex(number - 2)}
            >
              ‹
            </button>
            <span
              className="mail-draft__counter"
              role="status"
              aria-label={t('mailDraftCounterLabel', {
                current: number,
                total: shown.length,
                origin: originLabel,
              })}
            >
              {t('mailDraftCounter', { current: number, total: shown.length })}
            </span>
            <button
              type="button"
              className="button button--small"
              aria-label={t('mailDraftNext')}
              disabled={number >= shown.length || mode.kind !== 'view'}
              onClick={() => setIndex(number)}
            >
              ›
            </button>
            <span className="mail-draft__origin">{originLabel}</span>
          </nav>
        )}
      </div>
      {mode.kind === 'edit' ? (
        <div className="mail-draft__editor">
          <label htmlFor={editorId} className="mail-draft__editor-label">
            {t('mailDraftEditorLabel')}
          </label>
          <textarea
            id={editorId}
            className="mail-draft__textarea"
            value={mode.text}
            rows={Math.min(20, Math.max(6, mode.text.split('\n').length + 1))}
            // biome-ignore lint/a11y/noAutofocus: the editor opens on the staff member's request
            autoFocus
            onChange={(event) => setMode({ kind: 'edit', text: event.target.value })}
            onKeyDown={(event) => {
              if (event.key === 'Escape') {
                event.preventDefault();
                leaveEditor();
              }
            }}
          />
          <div className="mail-draft__actions">
            <button
              type="button"
              className="button button--small button--primary"
              disabled={mode.text.trim() === '' || mode.text === current.text}
              onClick={() => void save(mode.text)}
            >
              {t('mailDraftSave')}
            </button>
            <button type="button" className="button button--small" onClick={leaveEditor}>
              {t('cancel')}
            </button>
          </div>
        </div>
      ) : (
        <pre className="mail-draft__body" aria-busy={busy}>
          {busy ? mode.text : <MarkedText text={current.text} marks={marks} shown={current} />}
        </pre>
      )}
      {current.linksRemoved && mode.kind === 'view' && (
        <UnverifiedLinksNotice links={current.linksRemoved} message="mailDraftLinksRemoved" />
      )}
      {mode.kind !== 'edit' && (
        <div className="mail-draft__actions">
          <button type="button" className="button button--small" onClick={copy} disabled={busy}>
            {copied ? t('copied') : t('copy')}
          </button>
          {mailto ? (
            <a
              className="button button--small"
              href={busy ? undefined : mailto}
              aria-disabled={busy}
              onClick={(event) => {
                if (busy) {
                  event.preventDefault();
                  return;
                }
                setMailTooLong(false);
                count('open_in_mail');
              }}
            >
              {t('mailDraftOpenInMail')}
            </a>
          ) : (
            <button
              type="button"
              className="button button--small"
              disabled={busy}
              onClick={() => setMailTooLong(true)}
            >
              {t('mailDraftOpenInMail')}
            </button>
          )}
          {changeable && (
            <>
              <button
                ref={editButton}
                type="button"
                className="button button--small"
                disabled={busy}
                // Named apart from the question's 編集 beside it (screen readers list both).
                aria-label={t('mailDraftEditLabel')}
                onClick={() => setMode({ kind: 'edit', text: current.text })}
              >
                {t('mailDraftEdit')}
              </button>
              {/* biome-ignore lint/a11y/useSemanticElements: a group of buttons, not a form's fieldset */}
              <span
                className="mail-draft__refine"
                role="group"
                aria-label={t('mailDraftRefineGroup')}
              >
                {refinements.map(([style, label]) => (
                  <button
                    key={style}
                    type="button"
                    className="button button--small"
                    disabled={busy}
                    onClick={() => void refine(style)}
                  >
                    {label}
                  </button>
                ))}
              </span>
            </>
          )}
        </div>
      )}
      {mailTooLong && !mailto && (
        <p className="status-notice status-notice--info" role="status">
          {t('mailDraftTooLongForMail')}
        </p>
      )}
      {failure && (
        <p className="status-notice status-notice--failed" role="alert">
          {failure}
        </p>
      )}
      <span className="visually-hidden" aria-live="polite">
        {copied ? t('copied') : notice}
      </span>
    </section>
  );
}

/**
 * A version's text with the links it may not pass on marked as the advice marks them, and its
 * unverified ticket references.
 */
function MarkedText({
  text,
  marks,
  shown,
}: {
  readonly text: string;
  readonly marks?: ReferenceMarks;
  readonly shown: ShownVersion;
}) {
  const { t } = useI18n();
  return (
    <>
      {splitUnverifiedLinks(text, shown.links).map((segment, index) =>
        segment.unverified ? (
          // biome-ignore lint/suspicious/noArrayIndexKey: segments of a fixed text
          <span key={index} className={UNVERIFIED_LINK_CLASS} title={t('unverifiedLink')}>
            {segment.text}
          </span>
        ) : (
          // biome-ignore lint/suspicious/noArrayIndexKey: segments of a fixed text
          <ReferencesMarked key={index} text={segment.text} marks={marks} shown={shown} />
        ),
      )}
    </>
  );
}

/** Text with its unverified ticket references marked on screen. */
function ReferencesMarked({
  text,
  marks,
  shown,
}: {
  readonly text: string;
  readonly marks?: ReferenceMarks;
  readonly shown: ShownVersion;
}) {
  const { t } = useI18n();
  const unverified = shown.unverified;
  if (!unverified || unverified.length === 0) return <>{text}</>;
  const title = marks?.title ?? t('unverifiedReference');
  return (
    <>
      {splitUnverifiedReferences(text, unverified).map((segment, index) =>
        segment.unverified ? (
          // biome-ignore lint/suspicious/noArrayIndexKey: segments of a fixed text
          <span key={index} className={UNVERIFIED_REFERENCE_CLASS} title={title}>
            {segment.text}
          </span>
        ) : (
          segment.text
        ),
      )}
    </>
  );
}
