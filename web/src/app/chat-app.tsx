import { type ReactNode, useCallback, useEffect, useMemo, useState } from 'react';
import { createApiFetch } from '../api/create-api-fetch.js';
import { createAttachmentApi } from '../api/create-attachment-api.js';
import { createConversationApi } from '../api/create-conversation-api.js';
import { createHandoffApi } from '../api/create-handoff-api.js';
import type { KnowledgeApi } from '../api/create-knowledge-api.js';
import { createKnowledgeApi } from '../api/create-knowledge-api.js';
import { createMailDraftApi } from '../api/create-mail-draft-api.js';
import { AttachmentsContext, createAttachmentBlobs } from '../attachments/attachment-blobs.js';
import type { AuthSession } from '../auth/auth-session.js';
import { AppHeader } from '../components/app-header.js';
import { ConversationPane } from '../components/conversation-pane.js';
import { MailDraftContext } from '../components/mail-draft.js';
import { Sidebar } from '../components/sidebar.js';
import type { Locale } from '../i18n/messages.js';
import { isDraftKey } from './use-active-conversation.js';
import { useChatController } from './use-chat-controller.js';
import { useConversationList, useConversationSearch } from './use-conversation-list.js';
import { HandoffContext } from './use-handoff-summary.js';
import { KnowledgeCaptureContext, useKnowledgeCapture } from './use-knowledge-capture.js';

interface ChatAppProps {
  readonly apiBase: string;
  readonly session: AuthSession;
  readonly identity: ReactNode;
  readonly onLocaleChange: (locale: Locale) => void;
}

/** The signed-in app: header, conversation sidebar and the open conversation. */
export function ChatApp({ apiBase, session, identity, onLocaleChange }: ChatAppProps) {
  const apiFetch = useMemo(() => createApiFetch(session), [session]);
  const api = useMemo(() => createConversationApi(apiBase, apiFetch), [apiBase, apiFetch]);
  const list = useConversationList(api);
  const search = useConversationSearch(api);
  const { refresh } = list;
  const onConversationsChanged = useCallback(() => void refresh(), [refresh]);
  const chat = useChatController(api, apiBase, apiFetch, onConversationsChanged);
  const knowledgeApi = useMemo(() => createKnowledgeApi(apiBase, apiFetch), [apiBase, apiFetch]);
  const knowledge = useKnowledgeCapture(knowledgeApi, chat);
  const handoffApi = useMemo(() => createHandoffApi(apiBase, apiFetch), [apiBase, apiFetch]);
  const handoffConversationId = isDraftKey(chat.activeKey) ? undefined : chat.activeKey;
  const handoff = useMemo(
    () => ({ api: handoffApi, conversationId: handoffConversationId }),
    [handoffApi, handoffConversationId],
  );
  const mailDraftApi = useMemo(() => createMailDraftApi(apiBase, apiFetch), [apiBase, apiFetch]);
  const { conversationId, title } = chat.view;
  const mailDrafts = useMemo(
    () => ({ api: mailDraftApi, conversationId, title }),
    [mailDraftApi, conversationId, title],
  );
  const attachments = useMemo(() => {
    const attachmentApi = createAttachmentApi(apiBase, apiFetch);
    return { api: attachmentApi, blobs: createAttachmentBlobs(attachmentApi) };
  }, [apiBase, apiFetch]);
  const canViewInsights = useCanViewInsights(knowledgeApi);
  const [sidebarOpen, setSidebarOpen] = useState(false);

  const closeSidebarThen = (action: () => void) => () => {
    setSidebarOpen(false);
    action();
  };

  return (
    <div className="app">
      <AppHeader
        sidebarOpen={sidebarOpen}
        onToggleSidebar={() => setSidebarOpen((open) => !open)}
        onLocaleChange={onLocaleChange}
        identity={identity}
        canViewInsights={canViewInsights}
      />
      <div className="app__body">
        <Sidebar
          conversations={list.items}
          search={search}
          loaded={list.loaded}
          hasMore={list.hasMore}
          onLoadMore={() => void list.loadMore().catch(console.error)}
          activeKey={chat.activeKey}
          open={sidebarOpen}
          onNew={closeSidebarThen(chat.startNew)}
          onOpen={(id) => closeSidebarThen(() => chat.open(id))()}
          onRename={(id, title) => void list.rename(id, title).catch(console.error)}
          onDelete={(id) =>
            void list
              .remove(id)
              .then(() => chat.forget(id))
              .catch(console.error)
          }
        />
        <KnowledgeCaptureContext.Provider value={knowledge}>
          <HandoffContext.Provider value={handoff}>
            <MailDraftContext.Provider value={mailDrafts}>
              <AttachmentsContext.Provider value={attachments}>
                <ConversationPane chat={chat} />
              </AttachmentsContext.Provider>
            </MailDraftContext.Provider>
          </HandoffContext.Provider>
        </KnowledgeCaptureContext.Provider>
      </div>
    </div>
  );
}

/**
 * Whether `GET /api/me` says the caller is a service-desk lead (the same answer knowledge capture
 * reads). Until it answers, and if it fails, the insights link stays hidden; the page itself
 * would refuse a non-lead anyway (403).
 */
function useCanViewInsights(api: KnowledgeApi): boolean {
  const [canViewInsights, setCanViewInsights] = useState(false);
  useEffect(() => {
    let current = true;
    api.caller().then(
      (caller) => {
        if (current) setCanViewInsights(caller.canViewInsights === true);
      },
      () => undefined, // knowledge capture logs the failure of the same request
    );
    return () => {
      current = false;
    };
  }, [api]);
  return canViewInsights;
}
