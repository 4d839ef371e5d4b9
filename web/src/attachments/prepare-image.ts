import type { ImageType } from './attachment-rules.js';
import { type DownscaledImage, downscaleImage, ImagePreparationError } from './downscale-image.js';
import type { DownscaleReply, DownscaleRequest } from './downscale-worker.js';

/**
 * The composer's downscale (`downscale-image.ts`) run in a dedicated worker where the browser
 * has one with `OffscreenCanvas`: the draw and encode then leave the page's thread free, and in
 * Chromium the whole downscale took less time there than on the page. One worker for the page,
 * started on the first image; where there is none, or it cannot start, the page does the work.
 */
export function prepareImage(file: Blob, sourceType: ImageType): Promise<DownscaledImage> {
  const worker = downscaleWorker();
  if (!worker) return downscaleImage(file, sourceType);
  return new Promise((resolve, reject) => {
    const id = nextId++;
    pending.set(id, {
      resolve,
      reject,
      // A worker that failed to start answers nothing: the page does it.
      fallBack: () => downscaleImage(file, sourceType).then(resolve, reject),
    });
    worker.postMessage({ id, file, sourceType } satisfies DownscaleRequest);
  });
}

interface Pending {
  resolve(image: DownscaledImage): void;
  reject(error: unknown): void;
  fallBack(): void;
}

const pending = new Map<number, Pending>();
let nextId = 1;
let worker: Worker | undefined;
let workerFailed = false;

function downscaleWorker(): Worker | undefined {
  if (workerFailed || typeof Worker === 'undefined' || typeof OffscreenCanvas === 'undefined') {
    return undefined;
  }
  if (worker) return worker;
  try {
    worker = new Worker(new URL('./downscale-worker.ts', import.meta.url), { type: 'module' });
  } catch {
    workerFailed = true;
    return undefined;
  }
  worker.onmessage = ({ data }: MessageEvent<DownscaleReply>) => {
    const request = pending.get(data.id);
    pending.delete(data.id);
    if (!request) return;
    if ('image' in data) request.resolve(data.image);
    else request.reject(new ImagePreparationError(data.failure));
  };
  worker.onerror = () => {
    workerFailed = true;
    worker?.terminate();
    worker = undefined;
    const waiting = [...pending.values()];
    pending.clear();
    for (const request of waiting) request.fallBack();
  };
  return worker;
}
