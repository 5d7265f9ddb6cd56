import { Ajv, type ErrorObject, type Options } from 'ajv';

/** Digits after the point in a number's shortest decimal form (1e-7 has 7). */
function decimalsOf(value: number): number {
  const [mantissa = '', exponent = '0'] = String(value).split('e');
  return Math.max(0, (mantissa.split('.')[1] ?? '').length - Number(exponent));
}

/** Whether `value` is an exact multiple of a decimal `step` such as 0.01, judged on its decimal digits. */
function isDecimalMultiple(step: number, value: number): boolean {
  const places = decimalsOf(step);
  if (decimalsOf(value) > places) return false;
  const scale = 10 ** places;
  return Math.round(value * scale) % Math.round(step * scale) === 0;
}

/**
 * Ajv for every schema the gateway validates against: messages a rule carries (`verbose`),
 * Unicode patterns, and a `multipleOf` that is exact for decimal steps. Ajv's own divides
 * floats: 9999999999.98 / 0.01 is not a whole number there, so a valid price was refused.
 */
export function createAjv(options: Options): Ajv {
  const ajv = new Ajv({ strict: false, ...options, verbose: true, unicodeRegExp: true });
  ajv.removeKeyword('multipleOf');
  ajv.addKeyword({
    keyword: 'multipleOf',
    type: 'number',
    schemaType: 'number',
    error: { message: ({ schema }) => `must be a multiple of ${schema as number}` },
    validate: (step: number, value: number) => isDecimalMultiple(step, value),
  });
  return ajv;
}

function ruleMessage(error: ErrorObject): string | undefined {
  const message = (error.parentSchema as { errorMessage?: string | Record<string, string> } | undefined)?.errorMessage;
  return typeof message === 'string' ? message : message?.[error.keyword];
}

/**
 * The message of the first failing rule: its `errorMessage` (one string, or one per keyword)
 * when the failing keyword or the anyOf around it has one, else Ajv's own. With anyOf, Ajv
 * lists each branch's error first.
 */
export function validationMessage(errors: readonly ErrorObject[]): { path: string; message: string } | undefined {
  const [first] = errors;
  if (!first) return undefined;
  const described = errors.map((error) => (error.instancePath === first.instancePath ? ruleMessage(error) : undefined)).find(Boolean);
  return { path: first.instancePath, message: described ?? first.message ?? 'is invalid' };
}
