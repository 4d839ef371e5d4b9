import { vi } from 'vitest';

/**
 * The JSON lines the function's Powertools Logger writes while `action` runs (INFO to stdout,
 * WARN and ERROR to stderr, as in Lambda), parsed; nothing reaches the terminal meanwhile.
 */
export async function loggedLinesOf(action: () => unknown): Promise<Record<string, unknown>[]> {
  const written: string[] = [];
  const capture = (chunk: unknown) => {
    written.push(String(chunk));
    return true;
  };
  const spies = [
    vi.spyOn(process.stdout, 'write').mockImplementation(capture),
    vi.spyOn(process.stderr, 'write').mockImplementation(capture),
  ];
  try {
    await action();
  } finally {
    for (const spy of spies) spy.mockRestore();
  }
  return written
    .join('')
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}
