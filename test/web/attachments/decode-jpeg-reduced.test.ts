import { describe, expect, it } from 'vitest';
import { DOWNSCALE_LONG_EDGE_PIXELS } from '../../../functions/contract/attachments.js';
import { reducedJpegDecodeSize } from '../../../web/src/attachments/decode-jpeg-reduced.js';

describe('reducedJpegDecodeSize', () => {
  it('asks for the smallest eighth scale whose long edge still reaches the model size', () => {
    // 3/8 of 4000 is 1500 (< 1568): 4/8 is the smallest that keeps the detail.
    expect(reducedJpegDecodeSize({ width: 4000, height: 3000 })).toEqual({
      width: 2000,
      height: 1500,
    });
    expect(reducedJpegDecodeSize({ width: 3000, height: 4000 })).toEqual({
      width: 1500,
      height: 2000,
    });
    // 8000 px: 2/8 is 2000 (1/8 would be 1000).
    expect(reducedJpegDecodeSize({ width: 8000, height: 6000 })).toEqual({
      width: 2000,
      height: 1500,
    });
  });

  it('rounds a scaled edge up as libjpeg does', () => {
    // 4032 × 3025 at 4/8: 2016 × 1512.5 → 1513.
    expect(reducedJpegDecodeSize({ width: 4032, height: 3025 })).toEqual({
      width: 2016,
      height: 1513,
    });
  });

  it('never asks for a long edge under the model size', () => {
    for (const longEdge of [1569, 2000, 3137, 4000, 4032, 6000, 7999, 12544, 20000]) {
      const size = reducedJpegDecodeSize({ width: longEdge, height: 10 });
      if (size) expect(size.width).toBeGreaterThanOrEqual(DOWNSCALE_LONG_EDGE_PIXELS);
    }
  });

  it('asks for nothing when only the full scale reaches the model size', () => {
    expect(reducedJpegDecodeSize({ width: 1568, height: 1000 })).toBeUndefined();
    expect(reducedJpegDecodeSize({ width: 1200, height: 900 })).toBeUndefined();
    // 7/8 of 1700 is 1488: only 8/8 keeps 1568.
    expect(reducedJpegDecodeSize({ width: 1700, height: 1000 })).toBeUndefined();
  });
});
