/// <reference lib="dom" />
// Callbacks passed to page.evaluate/waitForFunction run in the browser.
import { readFileSync } from 'node:fs';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { DOWNSCALE_LONG_EDGE_PIXELS } from '../../functions/contract/attachments.js';
import { readImageSize } from '../../web/src/attachments/read-image-size.js';
import { registerBrowserHarness, SCREENSHOTS } from './support/browser-harness.js';
import { ask, WAIT_MS, waitForAnswer } from './support/chat-actions.js';
import { expectAccessible } from './support/expect-accessible.js';

const { open, baseUrl } = registerBrowserHarness();

/** The offline responder's fixture screenshot of an Outlook error dialog, and the ticket it matches. */
const OUTLOOK_SCREENSHOT =
  'local/bedrock/offline-responder/screenshots/outlook-552-message-size.png';
const OUTLOOK_TICKET = '#1026';

/** Where a camera writes its position: must leave the browser nowhere. */
const GPS_MARKER = 'GPS 35.681236N 139.767125E';

/**
 * Pastes a generated image into the composer as a screenshot tool or a copied photo does: a
 * `paste` event whose clipboard holds the file only. `exif` puts an EXIF segment (with a GPS
 * marker) into a JPEG right after its start, as cameras write it — with `orientation`, the tag
 * a phone held upright writes (6: the pixels are stored turned a quarter to the left).
 */
async function pasteGeneratedImage(
  page: Page,
  image: {
    width: number;
    height: number;
    type: 'image/png' | 'image/jpeg';
    exif?: string;
    orientation?: number;
  },
): Promise<void> {
  await page.evaluate(async ({ width, height, type, exif, orientation }) => {
    const canvas = new OffscreenCanvas(width, height);
    const context = canvas.getContext('2d');
    if (!context) throw new Error('no 2d context');
    const gradient = context.createLinearGradient(0, 0, width, height);
    gradient.addColorStop(0, '#2a6f97');
    gradient.addColorStop(1, '#f4a261');
    context.fillStyle = gradient;
    context.fillRect(0, 0, width, height);
    context.fillStyle = '#fff';
    context.font = `${Math.round(height / 10)}px sans-serif`;
    context.fillText('12 MP', width / 10, height / 2);
    let bytes = new Uint8Array(
      await (await canvas.convertToBlob({ type, quality: 0.9 })).arrayBuffer(),
    );
    if (exif !== undefined) {
      // APP1 "Exif\0\0", a big-endian TIFF header, an IFD with the orientation tag (0x0112,
      // SHORT) or none, then the marker text.
      const entries =
        orientation === undefined
          ? [0, 0]
          : [0, 1, 0x01, 0x12, 0, 3, 0, 0, 0, 1, 0, orientation, 0, 0];
      const payload = [
        ...Array.from('Exif\0\0MM\0*\0\0\0\x08', (c) => c.charCodeAt(0)),
        ...entries,
        0,
        0,
        0,
        0,
        ...new TextEncoder().encode(exif),
      ];
      const length = payload.length + 2;
      const segment = [0xff, 0xe1, length >> 8, length & 0xff, ...payload];
      bytes = new Uint8Array([...bytes.subarray(0, 2), ...segment, ...bytes.subarray(2)]);
    }
    const file = new File([bytes], type === 'image/png' ? 'image.png' : 'photo.jpg', { type });
    const clipboardData = new DataTransfer();
    clipboardData.items.add(file);
    const box = document.querySelector('textarea.composer__input');
    if (!box) throw new Error('no composer');
    box.dispatchEvent(
      new ClipboardEvent('paste', { clipboardData, bubbles: true, cancelable: true }),
    );
  }, image);
}

/** Pastes a file's bytes into the composer, as a screenshot tool puts an image on the clipboard. */
async function pasteFile(page: Page, file: { name: string; type: string; bytes: Buffer }) {
  await page.evaluate(
    ({ name, type, base64 }) => {
      const bytes = Uint8Array.from(atob(base64), (character) => character.charCodeAt(0));
      const clipboardData = new DataTransfer();
      clipboardData.items.add(new File([bytes], name, { type }));
      document
        .querySelector('textarea.composer__input')
        ?.dispatchEvent(
          new ClipboardEvent('paste', { clipboardData, bubbles: true, cancelable: true }),
        );
    },
    { name: file.name, type: file.type, base64: file.bytes.toString('base64') },
  );
}

/** The body of the next upload the page sends, and what the server answered. */
async function nextUpload(page: Page) {
  const response = await page.waitForResponse(
    (candidate) =>
      new URL(candidate.url()).pathname === '/api/attachments' &&
      candidate.request().method() === 'POST',
    { timeout: WAIT_MS },
  );
  return {
    sent: new Uint8Array((await response.request().postDataBuffer()) ?? []),
    headers: await response.request().allHeaders(),
    status: response.status(),
    body: (await response.json()) as { attachmentId: string; width?: number; height?: number },
  };
}

/** The bytes the server stored for `id`, read as its owner. */
async function storedBytes(devUser: string, id: string): Promise<Uint8Array> {
  const response = await fetch(`${baseUrl()}/api/attachments/${id}`, {
    headers: { 'x-dev-user': devUser },
  });
  expect(response.status).toBe(200);
  return new Uint8Array(await response.arrayBuffer());
}

const contains = (bytes: Uint8Array, text: string) =>
  Buffer.from(bytes).includes(Buffer.from(text, 'latin1'));

/** The composer's list of files being attached (a sent question has a list of the same name). */
const tray = (page: Page) =>
  page.locator('form.composer').getByRole('list', { name: '添付ファイル' });

describe('attachments in the composer', () => {
  it('downscales a pasted 12 MP photo upright and drops its EXIF before it is uploaded', async () => {
    const user = 'browser-attach-photo';
    const { page } = await open(user);
    const upload = nextUpload(page);
    await pasteGeneratedImage(page, {
      width: 4000,
      height: 3000,
      type: 'image/jpeg',
      exif: GPS_MARKER,
      orientation: 6,
    });
    const { sent, headers, status, body } = await upload;
    expect(status).toBe(201);
    // What left the browser: upright (the orientation applied, as the tag goes with the EXIF),
    // at most the model's long edge, no EXIF, signed for CloudFront.
    expect(readImageSize(sent)).toEqual({ width: 1176, height: 1568 });
    expect(contains(sent, 'Exif')).toBe(false);
    expect(contains(sent, GPS_MARKER)).toBe(false);
    expect(headers['content-type']).toBe('image/jpeg');
    expect(headers['x-amz-content-sha256']).toMatch(/^[0-9a-f]{64}$/);
    // What the server stored.
    const stored = await storedBytes(user, body.attachmentId);
    const size = readImageSize(stored);
    expect(Math.max(size?.width ?? Infinity, size?.height ?? Infinity)).toBeLessThanOrEqual(
      DOWNSCALE_LONG_EDGE_PIXELS,
    );
    expect(contains(stored, 'Exif')).toBe(false);
    expect(contains(stored, GPS_MARKER)).toBe(false);
    expect(body).toMatchObject({ width: 1176, height: 1568 });

    // The tray shows the thumbnail as ready, and the file can be removed before sending.
    const item = tray(page).getByRole('listitem');
    await expect(item.getAttribute('data-status')).resolves.toBe('ready');
    await expect(item.locator('img').getAttribute('src')).resolves.toMatch(/^blob:/);
    await expectAccessible(page, 'a ready attachment in the composer');
    await page.getByRole('button', { name: 'photo.jpg を削除' }).click();
    await expect(tray(page).count()).resolves.toBe(0);

    // A file dropped on the composer is attached too.
    await page.evaluate(() => {
      const files = new DataTransfer();
      files.items.add(
        new File(['user,error\nsato,0x800CCC0E\n'], 'errors.csv', { type: 'text/csv' }),
      );
      const form = document.querySelector('form.composer');
      for (const type of ['dragenter', 'dragover', 'drop'])
        form?.dispatchEvent(
          new DragEvent(type, { dataTransfer: files, bubbles: true, cancelable: true }),
        );
    });
    await page.waitForFunction(
      () => document.querySelector('.attachment-draft')?.getAttribute('data-status') === 'ready',
      undefined,
      { timeout: WAIT_MS },
    );
    await expect(tray(page).textContent()).resolves.toContain('errors.csv');
  });

  it('answers a pasted error screenshot sent with 「これが出ます」 from the ticket matching its text, and shows it larger', async () => {
    const user = 'browser-attach-screenshot';
    const { page, chatBodies } = await open(user);
    const upload = nextUpload(page);
    await pasteFile(page, {
      name: 'image.png',
      type: 'image/png',
      bytes: readFileSync(OUTLOOK_SCREENSHOT),
    });
    const { body } = await upload;
    await page.waitForFunction(
      () => document.querySelector('.attachment-draft')?.getAttribute('data-status') === 'ready',
      undefined,
      { timeout: WAIT_MS },
    );
    // Every step the answer shows, as it shows them: reading the image is one of them.
    await page.evaluate(() => {
      const steps = new Set<string>();
      (window as unknown as { __steps: Set<string> }).__steps = steps;
      new MutationObserver(() => {
        for (const step of document.querySelectorAll('.progress-step'))
          steps.add(`${step.getAttribute('data-step')}:${step.textContent}`);
      }).observe(document.body, { subtree: true, childList: true, characterData: true });
    });
    await ask(page, 'これが出ます');
    expect(await waitForAnswer(page, 1)).toBe('complete');
    expect(chatBodies[0]).toMatchObject({
      message: 'これが出ます',
      attachmentIds: [body.attachmentId],
    });
    const steps = await page.evaluate(() => [
      ...(window as unknown as { __steps: Set<string> }).__steps,
    ]);
    expect(steps).toContain('reading_attachment:添付画像を読み取り');
    // The answer cites the ticket whose error text the screenshot shows.
    await expect(
      page.locator('.bubble--assistant .ticket-card').first().textContent(),
    ).resolves.toContain(OUTLOOK_TICKET);
    await expect(tray(page).count()).resolves.toBe(0);

    // The sent question shows the screenshot; it opens larger in a dialog that Esc closes.
    const thumbnail = page
      .locator('.bubble--user')
      .getByRole('button', { name: 'image.png を開く' });
    await expect(thumbnail.locator('img').getAttribute('src')).resolves.toMatch(/^blob:/);
    await thumbnail.click();
    const viewer = page.getByRole('dialog', { name: 'image.png' });
    await viewer.waitFor({ timeout: WAIT_MS });
    await expect(viewer.locator('img').getAttribute('src')).resolves.toMatch(/^blob:/);
    await page.screenshot({ path: `${SCREENSHOTS}/attachment-viewer.png` });
    await expectAccessible(page, 'a sent screenshot opened larger');
    await page.keyboard.press('Escape');
    await viewer.waitFor({ state: 'detached', timeout: WAIT_MS });
    await expect(thumbnail.evaluate((element) => element === document.activeElement)).resolves.toBe(
      true,
    );

    // After a reload the question fetches its screenshot again, with the token.
    await page.reload();
    const reloaded = page
      .locator('.bubble--user')
      .getByRole('button', { name: 'image.png を開く' });
    await expect(reloaded.locator('img').getAttribute('src')).resolves.toMatch(/^blob:/);
  });

  it('names each refused file and why, at 360 px, and keeps the send waiting', async () => {
    const { page } = await open('browser-attach-refusals', { width: 360, height: 740 });
    const picker = page.locator('input[type=file]');
    // A PNG header that declares 20,000 × 20,000 px: refused before the browser decodes it.
    const bomb = Buffer.from('89504e470d0a1a0a0000000d4948445200004e2000004e200806000000', 'hex');
    await picker.setInputFiles([
      { name: 'drawing.svg', mimeType: 'image/svg+xml', buffer: Buffer.from('<svg/>') },
      { name: 'huge.log', mimeType: 'text/plain', buffer: Buffer.alloc(300 * 1024, 'a') },
      { name: 'bomb.png', mimeType: 'image/png', buffer: bomb },
      { name: 'error.log', mimeType: 'text/plain', buffer: Buffer.from('0x800CCC0E\n') },
    ]);
    const refusals = page.getByRole('alert').filter({ hasText: 'drawing.svg' });
    await expect(refusals.textContent()).resolves.toContain(
      '「drawing.svg」は添付できません。画像（PNG・JPEG・WebP・GIF）かテキストファイル',
    );
    await expect(refusals.textContent()).resolves.toContain(
      '「huge.log」は大きすぎます（200 KB まで）',
    );
    await page.waitForFunction(
      () =>
        document
          .querySelector('.attachment-draft--failed')
          ?.textContent?.includes('メガピクセル') ?? false,
      undefined,
      { timeout: WAIT_MS },
    );
    // The bomb blocks the send until it is removed; the text file uploaded meanwhile.
    await page.getByRole('textbox', { name: '問い合わせ内容' }).fill('ログです');
    await expect(
      page.getByRole('button', { name: '送信', exact: true }).isDisabled(),
    ).resolves.toBe(true);
    await page.getByRole('button', { name: 'bomb.png を削除' }).click();
    await page.waitForFunction(
      () =>
        Array.from(document.querySelectorAll('.attachment-draft'))
          .map((item) => item.getAttribute('data-status'))
          .join() === 'ready',
      undefined,
      { timeout: WAIT_MS },
    );
    await expect(
      page.getByRole('button', { name: '送信', exact: true }).isDisabled(),
    ).resolves.toBe(false);
    // The file alone can be the inquiry.
    await page.getByRole('textbox', { name: '問い合わせ内容' }).fill('');
    await expect(
      page.getByRole('button', { name: '送信', exact: true }).isDisabled(),
    ).resolves.toBe(false);

    // Five files at most: of six more, the first four fit beside error.log.
    await picker.setInputFiles(
      Array.from({ length: 6 }, (_, index) => ({
        name: `part-${index + 1}.txt`,
        mimeType: 'text/plain',
        buffer: Buffer.from(`part ${index + 1}\n`),
      })),
    );
    const tooMany = page.getByRole('alert').filter({ hasText: 'part-5.txt' });
    await expect(tooMany.textContent()).resolves.toContain(
      '1 つのメッセージに添付できるのは 5 ファイルまでです',
    );
    await expect(tray(page).getByRole('listitem').count()).resolves.toBe(5);
    // Nothing overflows the narrow screen.
    const overflow = await page.evaluate(
      () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
    );
    expect(overflow).toBe(0);
    await page.screenshot({ path: `${SCREENSHOTS}/attachment-refusals-360.png` });
    await expectAccessible(page, 'refused and attached files at 360 px');
  });
});
