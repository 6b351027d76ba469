// JSON Schema validators for one loaded tree (tool inputs and outputs, prompt arguments), compiled
// on first use through the host's compiler port and dropped with the tree: `staticmcp dev` reloads
// trees whose schemas changed.
import type { Validator } from '../../validators/validator.js';
import type { LoadedTree } from '../tree-reading/loaded-tree.js';
import type { ServerContext } from './server-context.js';

/** Per tree, per key; `null` when the schema itself cannot be compiled (then nothing is checked). */
const validatorsByTree = new WeakMap<LoadedTree, Map<string, Validator | null>>();

/**
 * The validator for `schema`, cached under `key` for this tree. `rootName` names the checked value
 * in messages ("arguments", "output"); `onBadSchema` hears why a schema could not be compiled.
 */
export async function validatorFor(
  server: ServerContext,
  tree: LoadedTree,
  key: string,
  schema: object,
  rootName: string,
  onBadSchema: (reason: string) => void,
): Promise<Validator | null> {
  let validators = validatorsByTree.get(tree);
  if (!validators) {
    validators = new Map();
    validatorsByTree.set(tree, validators);
  }
  let validator = validators.get(key);
  if (validator === undefined) {
    const compile = await server.loadValidatorCompiler();
    try {
      validator = compile(schema, rootName);
    } catch (error) {
      onBadSchema((error as Error).message);
      validator = null;
    }
    validators.set(key, validator);
  }
  return validator;
}

/**
 * The validator validatorFor has compiled for `key` on this tree (null: its schema cannot be used),
 * or undefined while none is: for answers that must not wait for a compile.
 */
export function peekValidator(tree: LoadedTree, key: string): Validator | null | undefined {
  return validatorsByTree.get(tree)?.get(key);
}
