import type { ImageType } from '../attachments/attachment-rules.js';
import { downscaleImage } from '../attachments/downscale-image.js';
import { prepareImage } from '../attachments/prepare-image.js';

/**
 * Benchmark page (bench/web/measure-downscale.ts): times the composer's own downscale —
 * header check, decode, draw at the model's long edge, encode, in its worker — of a generated
 * photo-like image, as staff wait for it between pasting and the upload; and, alternating with
 * it run by run so both see the same load, the reference path: on the page, the whole image
 * decoded (the composer's downscale before the reduced JPEG decode and the worker).
 */

export interface DownscaleBenchResult {
  readonly source: { readonly width: number; readonly height: number; readonly bytes: number };
  readonly output: {
    readonly width: number;
    readonly height: number;
    readonly bytes: number;
    readonly type: string;
  };
  /** Wall time of each downscale, in ms, in order (the first includes the decoder's warm-up). */
  readonly runsMs: number[];
  /** The reference path (on the page, `reducedJpegDecode: false`), run by run beside it. */
  readonly referenceMs: number[];
  /** The browser's decode alone (`createImageBitmap` of the source), as many times, for scale. */
  readonly decodeMs: number[];
}

/** Gradients under per-pixel noise: compresses like a camera photo, not like a flat test card. */
async function generatePhoto(width: number, height: number, type: ImageType): Promise<Blob> {
  const canvas = new OffscreenCanvas(width, height);
  const context = canvas.getContext('2d');
  if (!context) throw new Error('no 2d context');
  const pixels = context.createImageData(width, height);
  const data = pixels.data;
  let seed = 12345;
  for (let y = 0; y < height; y += 1) {
    for (let x = 0; x < width; x += 1) {
      seed = (seed * 1103515245 + 12345) & 0x7fffffff;
      const noise = (seed >> 16) & 31;
      const offset = (y * width + x) * 4;
      data[offset] = ((x * 255) / width + noise) & 255;
      data[offset + 1] = ((y * 255) / height + noise) & 255;
      data[offset + 2] = (((x + y) * 127) / (width + height) + noise * 2) & 255;
      data[offset + 3] = 255;
    }
  }
  context.putImageData(pixels, 0, 0);
  return canvas.convertToBlob({ type, quality: 0.92 });
}

async function runDownscaleBench(options: {
  width: number;
  height: number;
  type: ImageType;
  runs: number;
}): Promise<DownscaleBenchResult> {
  const source = await generatePhoto(options.width, options.height, options.type);
  const runsMs: number[] = [];
  const referenceMs: number[] = [];
  let output: DownscaleBenchResult['output'] | undefined;
  const timed = async (composers: boolean) => {
    const started = performance.now();
    const image = composers
      ? await prepareImage(source, options.type)
      : await downscaleImage(source, options.type, { reducedJpegDecode: false });
    (composers ? runsMs : referenceMs).push(performance.now() - started);
    if (composers) {
      output = {
        width: image.width,
        height: image.height,
        bytes: image.blob.size,
        type: image.type,
      };
    }
  };
  for (let run = 0; run < options.runs; run += 1) {
    // Which path goes first alternates, so neither always inherits the other's leftovers.
    for (const composers of run % 2 ? [false, true] : [true, false]) await timed(composers);
  }
  if (!output) throw new Error('runs must be at least 1');
  const decodeMs: number[] = [];
  for (let run = 0; run < options.runs; run += 1) {
    const started = performance.now();
    (await createImageBitmap(source)).close();
    decodeMs.push(performance.now() - started);
  }
  return {
    source: { width: options.width, height: options.height, bytes: source.size },
    output,
    runsMs,
    referenceMs,
    decodeMs,
  };
}

(window as unknown as { runDownscaleBench: typeof runDownscaleBench }).runDownscaleBench =
  runDownscaleBench;
