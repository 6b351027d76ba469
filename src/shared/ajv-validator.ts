// Every JSON Schema check on Node goes through here (the one module that imports ajv): script `--help`
// documents, sidecars, tool arguments at call time. Errors come back as short readable lines.
import { createRequire } from 'node:module';
import type { Validator } from '../validators/validator.js';
import { enableNodeCompileCache } from './node-compile-cache.js';

export type { Validator } from '../validators/validator.js';
import type { Ajv as AjvInstance, ErrorObject, ValidateFunction } from 'ajv';

interface AjvClasses {
  Ajv: typeof import('ajv').Ajv;
  Ajv2020: typeof import('ajv').Ajv;
}
let ajvClasses: AjvClasses | undefined;

/**
 * ajv costs ~60 ms to load: it is required on the first compile, so commands that never compile a
 * schema never pay. From dist/ it is the one file `npm run build` bundled it into
 * (scripts/bundle-vendored.mjs: the installed package has no node_modules of its own); from src/
 * (unit tests) the package itself.
 */
function loadAjvClasses(): AjvClasses {
  if (ajvClasses) return ajvClasses;
  enableNodeCompileCache();
  const require = createRequire(import.meta.url);
  try {
    ajvClasses = require('../vendor/ajv.cjs') as AjvClasses;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'MODULE_NOT_FOUND') throw error;
    ajvClasses = {
      Ajv: (require('ajv') as typeof import('ajv')).Ajv,
      Ajv2020: (require('ajv/dist/2020') as { Ajv2020: typeof import('ajv').Ajv }).Ajv2020,
    };
  }
  return ajvClasses;
}

function loadAjv(): typeof import('ajv').Ajv {
  return loadAjvClasses().Ajv;
}

let checkingAjv: AjvInstance | undefined;
let trustingAjv: AjvInstance | undefined;

/**
 * Schemas from users are checked against the JSON Schema meta-schema first; our own schemas are
 * not, which saves the ~40 ms that compiling the meta-schema costs every command.
 */
function getAjv(trusted: boolean): AjvInstance {
  if (trusted) {
    trustingAjv ??= new (loadAjv())({ allErrors: true, strict: false, validateSchema: false });
    return trustingAjv;
  }
  checkingAjv ??= new (loadAjv())({ allErrors: true, strict: false, validateSchema: true });
  return checkingAjv;
}

function describeError(error: ErrorObject, rootName: string): string {
  const where = error.instancePath
    ? `${rootName}${error.instancePath
        .split('/')
        .slice(1)
        .map((part) => `.${part.replace(/~1/g, '/').replace(/~0/g, '~')}`)
        .join('')}`
    : rootName;
  switch (error.keyword) {
    case 'required':
      return `${where === rootName ? '' : `${where}: `}missing required ${rootName === 'arguments' ? 'argument' : 'field'} "${(error.params as { missingProperty: string }).missingProperty}"`;
    case 'additionalProperties':
      return `${where}: unknown ${rootName === 'arguments' ? 'argument' : 'field'} "${(error.params as { additionalProperty: string }).additionalProperty}"`;
    case 'enum':
      return `${where} must be one of ${JSON.stringify((error.params as { allowedValues: unknown[] }).allowedValues)}`;
    default:
      return `${where} ${error.message ?? 'is invalid'}`;
  }
}

const vendoredAjv: { draft7?: AjvInstance; draft2020?: AjvInstance } = {};

/**
 * A published schema we vendor (schemas/): trusted, in its own JSON Schema draft, with `format`
 * keywords not enforced (ajv knows no formats without ajv-formats, and would warn on stderr for
 * each; the callers check the URLs that matter themselves).
 */
export function compileVendoredValidator(schema: object, rootName: string, draft: '07' | '2020-12'): Validator {
  const options = { allErrors: true, strict: false, validateSchema: false, validateFormats: false };
  let ajv: AjvInstance;
  if (draft === '07') ajv = vendoredAjv.draft7 ??= new (loadAjv())(options);
  else ajv = vendoredAjv.draft2020 ??= new (loadAjvClasses().Ajv2020)(options);
  return validatorOf(ajv.compile(schema), rootName);
}

/**
 * Compiles a schema once; the returned function lists what is wrong with a value (empty when
 * valid). `rootName` names the checked value in messages ("arguments", "options", …).
 * Throws with a readable message when the schema itself is invalid.
 */
export function compileValidator(schema: object, rootName = 'value', options: { trusted?: boolean } = {}): Validator {
  let validate: ValidateFunction;
  try {
    validate = getAjv(options.trusted === true).compile(schema);
  } catch (error) {
    throw new Error(`invalid JSON Schema: ${(error as Error).message}`);
  }
  return validatorOf(validate, rootName);
}

/** A Validator around an ajv validate function (compiled here, or ahead of time by ajv's standalone code). */
export function validatorOf(
  validate: ((data: unknown) => boolean) & { errors?: ErrorObject[] | null },
  rootName = 'value',
): Validator {
  return (data: unknown, name = rootName) => {
    if (validate(data)) return [];
    return (validate.errors ?? []).map((error) => describeError(error, name));
  };
}
