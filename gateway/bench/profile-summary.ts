/**
 * `node --import tsx gateway/bench/profile-summary.ts <file.cpuprofile> [top N]`: where a V8 CPU
 * profile (--profile-gateway, node --cpu-prof) spent its samples, as self time by function and
 * by file, so a cost shows as one line rather than as a flame graph to read by eye.
 */
import { readFile } from 'node:fs/promises';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}

interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

/** node_modules/<package> or the path inside the repository: files group under their package. */
function fileOf(url: string): string {
  if (url === '') return '(native)';
  const path = url.replace(/^file:\/\//, '');
  const inModules = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(path);
  if (inModules) return `npm:${inModules[1]}`;
  const inRepo = /\/(gateway\/(?:dist|src)\/.*)$/.exec(path);
  return inRepo ? inRepo[1]! : path;
}

function table(title: string, selfMicros: Map<string, number>, totalMicros: number, top: number): string {
  const rows = [...selfMicros].sort((a, b) => b[1] - a[1]).slice(0, top);
  return [
    title,
    ...rows.map(
      ([name, micros]) =>
        `${((100 * micros) / totalMicros).toFixed(1).padStart(5)} %  ${(micros / 1000).toFixed(0).padStart(7)} ms  ${name}`,
    ),
  ].join('\n');
}

const [file, topArgument] = process.argv.slice(2);
if (!file) {
  console.error('usage: profile-summary.ts <file.cpuprofile> [top N]');
  process.exit(2);
}
const top = Number(topArgument ?? 40);
const profile = JSON.parse(await readFile(file, 'utf8')) as CpuProfile;
const byId = new Map(profile.nodes.map((node) => [node.id, node]));
const parentOf = new Map<number, ProfileNode>();
for (const node of profile.nodes) for (const child of node.children ?? []) parentOf.set(child, node);
/** Native time (socket writes, hashing, the collector's) is charged to the JavaScript that called it. */
const callerOf = (id: number): string => {
  for (let node = parentOf.get(id); node; node = parentOf.get(node.id)) {
    const { functionName, url, lineNumber } = node.callFrame;
    if (url && !url.startsWith('node:')) return `${functionName || '(anonymous)'} ${fileOf(url)}:${lineNumber + 1}`;
  }
  return '(none)';
};
const nativeByCaller = new Map<string, number>();
const byFunction = new Map<string, number>();
const byFile = new Map<string, number>();
let total = 0;
let idle = 0;
profile.samples.forEach((id, index) => {
  const micros = profile.timeDeltas[index] ?? 0;
  const { functionName, url, lineNumber } = byId.get(id)!.callFrame;
  if (functionName === '(idle)') {
    idle += micros;
    return;
  }
  total += micros;
  const where = fileOf(url);
  const name = `${functionName || '(anonymous)'} ${where}${url ? `:${lineNumber + 1}` : ''}`;
  byFunction.set(name, (byFunction.get(name) ?? 0) + micros);
  byFile.set(where, (byFile.get(where) ?? 0) + micros);
  if (!url || url.startsWith('node:')) {
    const caller = `${functionName || '(anonymous)'} ← ${callerOf(id)}`;
    nativeByCaller.set(caller, (nativeByCaller.get(caller) ?? 0) + micros);
  }
});
console.log(`busy ${(total / 1000).toFixed(0)} ms, idle ${(idle / 1000).toFixed(0)} ms`);
console.log(table('self time by function', byFunction, total, top));
console.log(table('self time by file (or package)', byFile, total, top));
console.log(table("native and Node's own self time by the package or gateway function that called it", nativeByCaller, total, top));
