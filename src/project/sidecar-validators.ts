// Checks a project's own metadata files (sidecar-schemas.ts) with validators compiled ahead of time
// by `npm run build` (scripts/compile-validators.mjs) into sidecar-validators.cjs beside this module
// in dist/: otherwise the first sidecar of a cold build loaded ajv and compiled its schema, which
// cost more than the rest of a small build's own work. From src/ (unit tests) each schema is
// compiled here on first use, with the same options and the same messages.
import { createRequire } from 'node:module';
import { compileValidator, type Validator, validatorOf } from '../shared/ajv-validator.js';
import { SIDECAR_SCHEMAS, type SidecarSchemaName } from './sidecar-schemas.js';

type CompiledValidators = Record<SidecarSchemaName, Parameters<typeof validatorOf>[0]>;

/** undefined: not looked for yet; null: not there (running from src/). */
let compiled: CompiledValidators | null | undefined;
const validators = new Map<string, Validator>();

function loadCompiled(): CompiledValidators | null {
  if (compiled !== undefined) return compiled;
  try {
    compiled = createRequire(import.meta.url)('./sidecar-validators.cjs') as CompiledValidators;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'MODULE_NOT_FOUND') throw error;
    compiled = null;
  }
  return compiled;
}

/** The validator of schema `name`; `rootName` names the checked value in its messages. */
export function sidecarValidator(name: SidecarSchemaName, rootName: string): Validator {
  const key = `${name}\0${rootName}`;
  let validator = validators.get(key);
  if (validator === undefined) {
    const ahead = loadCompiled();
    validator = ahead
      ? validatorOf(ahead[name], rootName)
      : compileValidator(SIDECAR_SCHEMAS[name], rootName, { trusted: true });
    validators.set(key, validator);
  }
  return validator;
}
