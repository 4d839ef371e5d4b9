import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, sep } from 'node:path';

/**
 * SHA-256 over every file's relative path and bytes, in a stable order: changes whenever a
 * document is added, removed, renamed or edited.
 */
export function hashTicketDocuments(directory: string): string {
  if (!existsSync(directory) || !statSync(directory).isDirectory()) {
    throw new Error(`Ticket documents not found: ${directory} is not a directory.`);
  }
  const files = readdirSync(directory, { recursive: true, encoding: 'utf8' })
    .map((name) => join(directory, name))
    .filter((path) => statSync(path).isFile())
    .sort();
  if (files.length === 0) {
    throw new Error(`Ticket documents not found: ${directory} is empty.`);
  }
  const hash = createHash('sha256');
  for (const file of files) {
    hash.update(relative(directory, file).split(sep).join('/'));
    hash.update('\0');
    hash.update(readFileSync(file));
    hash.update('\0');
  }
  return hash.digest('hex');
}
