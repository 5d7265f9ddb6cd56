// `npm run loadtest -- <scenario> [options]`: runs one k6 scenario against a gateway the user
// already runs (this starts nothing else) and writes k6/results/<scenario>-<time>/.
import { fileURLToPath } from 'node:url';
import { parseRunOptions, UsageError, USAGE } from './runner/options.js';
import { runScenario } from './runner/run-k6.js';

const defaultResultsDir = fileURLToPath(new URL('./results/', import.meta.url));

try {
  const options = parseRunOptions(process.argv.slice(2), defaultResultsDir);
  const result = await runScenario(options);
  console.log(`results: ${result.resultDir}\n  summary ${result.summaryFile}\n  raw     ${result.rawFile}\n  report  ${result.reportFile}`);
  process.exitCode = result.exitCode;
} catch (error) {
  if (!(error instanceof UsageError)) throw error;
  console.error(`${error.message}\n\n${USAGE}`);
  process.exitCode = 2;
}
