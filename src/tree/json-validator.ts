// Every JSON Schema check goes through here (the one module that imports ajv): script `--help`
// documents, sidecars, tool arguments at call time. Errors come back as short readable lines.
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';

export type Validator = (data: unknown) => string[];

let sharedAjv: Ajv | undefined;

function getAjv(): Ajv {
  sharedAjv ??= new Ajv({ allErrors: true, strict: false, validateSchema: true });
  return sharedAjv;
}

function describeError(error: ErrorObject, rootName: string): string {
  const where = error.instancePath
    ? `${rootName}${error.instancePath.split('/').slice(1).map((part) => `.${part.replace(/~1/g, '/').replace(/~0/g, '~')}`).join('')}`
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

/**
 * Compiles a schema once; the returned function lists what is wrong with a value (empty when
 * valid). `rootName` names the checked value in messages ("arguments", "options", …).
 * Throws with a readable message when the schema itself is invalid.
 */
export function compileValidator(schema: object, rootName = 'value'): Validator {
  let validate: ValidateFunction;
  try {
    validate = getAjv().compile(schema);
  } catch (error) {
    throw new Error(`invalid JSON Schema: ${(error as Error).message}`);
  }
  return (data: unknown) => {
    if (validate(data)) return [];
    return (validate.errors ?? []).map((error) => describeError(error, rootName));
  };
}
