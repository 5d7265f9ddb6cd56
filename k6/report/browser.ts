// Renders a report in headless Chromium, checks its plots were rasterised, and takes screenshots.
import { pathToFileURL } from 'node:url';
import { withChromium } from '../../scripts/test/chromium.js';

export interface DrawnSeries {
  chart: string;
  series: string;
  /** Vertices of the series' SVG path. */
  points: number;
  /** Pixels of the series' colour after the browser rasterised the chart. */
  pixels: number;
}

/**
 * Opens `htmlFile` offline (every non-file request is refused and recorded), counts each
 * series' path vertices and the pixels the browser painted in its colour, and optionally
 * saves a full-page screenshot.
 */
export async function inspectReport(
  htmlFile: string,
  screenshotFile?: string,
): Promise<{ drawn: DrawnSeries[]; externalRequests: string[] }> {
  return withChromium(async (context) => {
    const externalRequests: string[] = [];
    const page = await context.newPage();
    await page.route('**/*', (route) => {
      const url = route.request().url();
      if (url.startsWith('file:')) return route.continue();
      externalRequests.push(url);
      return route.abort();
    });
    await page.goto(pathToFileURL(htmlFile).href, { waitUntil: 'load' });
    const drawn = await page.evaluate(async () => {
      const results: { chart: string; series: string; points: number; pixels: number }[] = [];
      for (const figure of Array.from(document.querySelectorAll('figure'))) {
        const svg = figure.querySelector('svg')!;
        const box = svg.getBoundingClientRect();
        const canvas = document.createElement('canvas');
        canvas.width = Math.ceil(box.width);
        canvas.height = Math.ceil(box.height);
        // Rasterise the plot without its legend swatches, which share the series colours.
        const plot = svg.cloneNode(true) as SVGSVGElement;
        plot.querySelectorAll('[data-legend]').forEach((swatch) => swatch.remove());
        const image = new Image();
        image.src = `data:image/svg+xml;charset=utf-8,${encodeURIComponent(new XMLSerializer().serializeToString(plot))}`;
        await image.decode();
        const context2d = canvas.getContext('2d')!;
        context2d.drawImage(image, 0, 0, canvas.width, canvas.height);
        const { data } = context2d.getImageData(0, 0, canvas.width, canvas.height);
        for (const path of Array.from(svg.querySelectorAll('path[data-series]'))) {
          const hex = path.getAttribute('stroke')!;
          const [r, g, b] = [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16));
          let pixels = 0;
          for (let i = 0; i < data.length; i += 4) {
            if (Math.abs(data[i]! - r!) < 8 && Math.abs(data[i + 1]! - g!) < 8 && Math.abs(data[i + 2]! - b!) < 8 && data[i + 3]! > 200)
              pixels += 1;
          }
          results.push({
            chart: figure.id,
            series: path.getAttribute('data-series')!,
            points: (path.getAttribute('d')!.match(/[ML]/g) ?? []).length,
            pixels,
          });
        }
      }
      return results;
    });
    if (screenshotFile) await page.screenshot({ path: screenshotFile, fullPage: true });
    return { drawn, externalRequests };
  });
}
