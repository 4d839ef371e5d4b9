import { createContext, useContext } from 'react';
import type { MailDraftApi } from '../api/create-mail-draft-api.js';

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
