/** Cuts `text` into consecutive fragments whose sizes cycle through `sizes` (each ≥ 1). */
export function splitBySizes(text: string, sizes: readonly number[]): string[] {
  const fragments: string[] = [];
  let index = 0;
  let turn = 0;
  while (index < text.length) {
    const size = Math.max(1, sizes[turn++ % sizes.length] ?? 1);
    fragments.push(text.slice(index, index + size));
    index += size;
  }
  return fragments;
}

/** Cuts a byte array the same way (for SSE transport tests). */
export function splitBytesBySizes(bytes: Uint8Array, sizes: readonly number[]): Uint8Array[] {
  const chunks: Uint8Array[] = [];
  let index = 0;
  let turn = 0;
  while (index < bytes.length) {
    const size = Math.max(1, sizes[turn++ % sizes.length] ?? 1);
    chunks.push(bytes.slice(index, index + size));
    index += size;
  }
  return chunks;
}
