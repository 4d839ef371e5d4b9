const encoder = new TextEncoder();

/**
 * Lowercase hex SHA-256 of the UTF-8 bytes of `body`. CloudFront Origin Access Control signs
 * requests to a Lambda Function URL but does not hash the body; the viewer must send it as
 * `x-amz-content-sha256` for every request with a body.
 *
 * @example
 * headers['x-amz-content-sha256'] = await sha256Hex(JSON.stringify(body));
 */
export async function sha256Hex(body: string | Uint8Array): Promise<string> {
  const bytes = typeof body === 'string' ? encoder.encode(body) : body;
  const digest = await crypto.subtle.digest('SHA-256', bytes as BufferSource);
  return Array.from(new Uint8Array(digest), (byte) => byte.toString(16).padStart(2, '0')).join('');
}
