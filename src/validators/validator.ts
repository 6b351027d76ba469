// The JSON Schema validator port: the MCP core checks arguments and outputs through it, so the
// Node hosts can plug in ajv (code generation) and the edge worker a validator that needs none.

/** Lists what is wrong with `data` (empty when valid); `rootName` names the checked value in messages. */
export type Validator = (data: unknown, rootName?: string) => string[];

/** Compiles a schema once; throws with a readable message when the schema itself is invalid. */
export type CompileValidator = (schema: object, rootName: string) => Validator;
