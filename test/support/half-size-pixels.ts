import type { Pixels } from '../../local/bedrock/offline-responder/png-pixels.js';

/**
 * Pixels at half size, each a 2 × 2 box average: what a browser's downscale does to a
 * screenshot, so a test can check the offline responder still recognises its fixture.
 */
export function halfSizePixels(pixels: Pixels): Pixels {
  const width = Math.floor(pixels.width / 2);
  const height = Math.floor(pixels.height / 2);
  const rgba = new Uint8Array(width * height * 4);
  for (let at = 0; at < rgba.length; at += 1) {
    const pixel = Math.floor(at / 4);
    const [x, y, channel] = [pixel % width, Math.floor(pixel / width), at % 4];
    let sum = 0;
    for (const [dx, dy] of [
      [0, 0],
      [1, 0],
      [0, 1],
      [1, 1],
    ] as const) {
      sum += pixels.rgba[((y * 2 + dy) * pixels.width + x * 2 + dx) * 4 + channel] ?? 0;
    }
    rgba[at] = Math.round(sum / 4);
  }
  return { width, height, rgba };
}
