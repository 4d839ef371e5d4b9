import type { KnowledgeDocuments } from '../../functions/knowledge/ports.js';

/**
 * The Knowledge Base's document bucket as a map of object name → text: what a publish wrote is
 * there to read back (the document and its metadata sidecar), a removal takes both away, and a
 * sync always starts. For API tests that look at what a publish put into the Knowledge Base.
 */
export function createInMemoryKnowledgeDocuments(): {
  readonly documents: KnowledgeDocuments;
  readonly written: Map<string, string>;
} {
  const written = new Map<string, string>();
  const documents: KnowledgeDocuments = {
    async write(files) {
      written.set(files.sidecarName, files.sidecar);
      written.set(files.documentName, files.document);
    },
    async remove(files) {
      written.delete(files.documentName);
      written.delete(files.sidecarName);
    },
    startSync: async () => 'started',
    uploadedCategories: async () => [],
  };
  return { documents, written };
}
