// The middle rung of the test ladder: the same request table through every host, each answer
// checked against what a client expects, and every host's answers equal to the core's own. Each
// tier replays it through its own hosts: in-process.test.ts (core), protocol-table.test.ts (the
// CLI over stdio and HTTP), runtimes.test.ts (workerd, wrangler, Deno).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PROTOCOL_CASES as LEGACY_CASES, type ProtocolResponse, type TableTree } from './cases.js';
import { type Driver, inProcessDriver } from './drivers.js';
import { MODERN_CASES } from './modern-cases.js';

/** Both eras on one connection: the legacy rows first (after initialize), then the modern ones. */
const PROTOCOL_CASES = [...LEGACY_CASES, ...MODERN_CASES];

/**
 * Replays the table through `drivers` over the tree `findTreeRoot()` names (called in beforeAll),
 * which carries what `tree` says beyond the example's own, and compares every host's answers with
 * the in-process core's, which runs first as the reference.
 */
export function replayProtocolTable(
  drivers: readonly Driver[],
  findTreeRoot: () => string | Promise<string>,
  tree: TableTree = {},
): void {
  let treeRoot: string;
  const answers = new Map<string, ProtocolResponse[]>();

  // A shared host's tree may wait for its build and the host's start, over a minute when loaded.
  beforeAll(async () => {
    treeRoot = await findTreeRoot();
  }, 180_000);

  afterAll(() => {
    answers.clear();
  });

  describe.each([inProcessDriver, ...drivers])('the protocol table through $name', (driver) => {
    it('answers every case as a client expects', async () => {
      const connection = await driver.open(treeRoot);
      const responses: ProtocolResponse[] = [];
      try {
        for (const [index, testCase] of PROTOCOL_CASES.entries()) {
          if (driver.stateless && testCase.needsSession) {
            responses.push(undefined as unknown as ProtocolResponse);
            continue;
          }
          const response = await connection.request(`case-${index}`, testCase.method, testCase.params, testCase.era);
          expect(response.id, testCase.name).toBe(`case-${index}`);
          try {
            testCase.check(response, tree);
          } catch (error) {
            throw new Error(
              `${driver.name}: ${testCase.name}: ${(error as Error).message}\nresponse: ${JSON.stringify(response).slice(0, 1000)}`,
            );
          }
          responses.push(response);
        }
      } finally {
        await connection.close();
      }
      answers.set(driver.name, responses);
    });

    if (driver === inProcessDriver) return;
    it('gives exactly the answers of the core in-process', () => {
      const reference = answers.get(inProcessDriver.name);
      const mine = answers.get(driver.name);
      expect(reference, 'the in-process run must have passed').toBeDefined();
      expect(mine, `the ${driver.name} run must have passed`).toBeDefined();
      for (const [index, testCase] of PROTOCOL_CASES.entries()) {
        if (testCase.sameOnEveryHost === false || (driver.stateless && testCase.needsSession)) continue;
        expect(mine![index], testCase.name).toEqual(reference![index]);
      }
    });
  });
}
