// Line charts as inline SVG, drawn here rather than by a charting library so the report is one
// self-contained file with no scripts and no external URLs.

export interface Series {
  name: string;
  color: string;
  /** [x, y]; null y = no data at x (the line breaks there). */
  points: [number, number | null][];
}

export interface ChartSpec {
  id: string;
  title: string;
  xLabel: string;
  yLabel: string;
  series: Series[];
}

const WIDTH = 900;
const HEIGHT = 260;
const PAD = { left: 64, right: 16, top: 32, bottom: 40 };
const TICKS = 5;

const escape = (text: string) => text.replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]!);

/** A round step for about `TICKS` ticks over [0, max]. */
function niceStep(max: number): number {
  const raw = max / TICKS;
  const magnitude = 10 ** Math.floor(Math.log10(raw));
  return ([1, 2, 2.5, 5, 10].find((m) => m * magnitude >= raw) ?? 10) * magnitude;
}

/** Tick labels: at most 3 decimals, no trailing zeros. */
const format = (value: number) => String(Number(value.toFixed(3)));

/** One polyline path per series, broken where y is null. */
function pathData(points: [number, number | null][], x: (v: number) => number, y: (v: number) => number): string {
  let drawing = false;
  const commands: string[] = [];
  for (const [px, py] of points) {
    if (py === null) {
      drawing = false;
      continue;
    }
    commands.push(`${drawing ? 'L' : 'M'}${x(px).toFixed(1)},${y(py).toFixed(1)}`);
    drawing = true;
  }
  return commands.join(' ');
}

export function lineChart(spec: ChartSpec): string {
  const all = spec.series.flatMap((s) => s.points);
  const maxX = Math.max(1, ...all.map(([px]) => px));
  const maxY = Math.max(0, ...all.map(([, py]) => py ?? 0));
  // An all-zero series (e.g. no failures) still gets a readable 0..1 scale.
  const step = niceStep(maxY > 0 ? maxY : 1);
  const top = maxY > 0 ? Math.ceil(maxY / step) * step : 1;
  const plotW = WIDTH - PAD.left - PAD.right;
  const plotH = HEIGHT - PAD.top - PAD.bottom;
  const x = (v: number) => PAD.left + (v / maxX) * plotW;
  const y = (v: number) => PAD.top + plotH - (v / top) * plotH;

  const grid: string[] = [];
  for (let v = 0; v <= top + step / 2; v += step) {
    grid.push(
      `<line x1="${PAD.left}" x2="${WIDTH - PAD.right}" y1="${y(v).toFixed(1)}" y2="${y(v).toFixed(1)}" stroke="#e3e6ea"/>`,
      `<text x="${PAD.left - 6}" y="${(y(v) + 4).toFixed(1)}" text-anchor="end">${format(v)}</text>`,
    );
  }
  const xStep = niceStep(maxX);
  for (let v = 0; v <= maxX; v += xStep) {
    grid.push(`<text x="${x(v).toFixed(1)}" y="${HEIGHT - PAD.bottom + 16}" text-anchor="middle">${format(v)}</text>`);
  }
  const lines = spec.series.map(
    (s) =>
      `<path data-series="${escape(s.name)}" d="${pathData(s.points, x, y)}" fill="none" stroke="${s.color}" stroke-width="2" stroke-linejoin="round"/>`,
  );
  const legend = spec.series.map(
    (s, i) =>
      `<rect data-legend x="${PAD.left + i * 200}" y="10" width="12" height="12" fill="${s.color}"/><text x="${PAD.left + i * 200 + 18}" y="20">${escape(s.name)}</text>`,
  );
  return `<figure id="${escape(spec.id)}">
<figcaption>${escape(spec.title)}</figcaption>
<svg viewBox="0 0 ${WIDTH} ${HEIGHT}" width="${WIDTH}" height="${HEIGHT}" font-family="sans-serif" font-size="11" fill="#333">
${grid.join('\n')}
<line x1="${PAD.left}" x2="${PAD.left}" y1="${PAD.top}" y2="${PAD.top + plotH}" stroke="#888"/>
<line x1="${PAD.left}" x2="${WIDTH - PAD.right}" y1="${PAD.top + plotH}" y2="${PAD.top + plotH}" stroke="#888"/>
<text x="${WIDTH / 2}" y="${HEIGHT - 6}" text-anchor="middle">${escape(spec.xLabel)}</text>
<text transform="translate(14 ${PAD.top + plotH / 2}) rotate(-90)" text-anchor="middle">${escape(spec.yLabel)}</text>
${legend.join('\n')}
${lines.join('\n')}
</svg>
</figure>`;
}
