// How people who do not have staticmcp yet get its command, kept in one place: the landing page
// (index.html), server.json and the deploy files `init` writes are written from these, so
// publishing to the npm registry is this one switch plus docs/installing.md. Until
// then nothing may promise `npx staticmcp`: the name is not on the registry.
//
// The release workflow (.github/workflows/release.yml) flips the switch with
// scripts/mark-published.mjs on the source it publishes; it is never flipped by hand, so a
// checkout always describes the package as it is on the registry today.
import { packageInfo } from './version.js';

export const PUBLISHED_ON_NPM = false;

/**
 * The package, pinned to the version that is running: `staticmcp@0.1.0`. Every command we write
 * into a file names it, never a bare `staticmcp`: with `npx --yes`, a bare name runs whatever
 * anyone publishes under it later, and a newer staticmcp could write another tree.
 */
export function pinnedPackage(): string {
  const { name, version } = packageInfo();
  return `${name}@${version}`;
}

/** The words that run staticmcp, for snippets: `npx -y staticmcp@<this version>` once published, the installed command until then. */
export const STATICMCP_COMMAND: readonly string[] = PUBLISHED_ON_NPM ? ['npx', '-y', pinnedPackage()] : ['staticmcp'];

/** What to do when the command is missing. */
export const INSTALL_HINT = PUBLISHED_ON_NPM
  ? `npx downloads staticmcp ${packageInfo().version} from the npm registry on first use (or install it once: npm install -g ${pinnedPackage()}).`
  : 'staticmcp is not on the npm registry yet: in a clone of its repository run npm install && npm pack, then npm install -g ./staticmcp-<version>.tgz (Node 20.19 or newer).';

/** Where `init` puts the packed copy of staticmcp that a project's deploy files install before publication. */
export function projectTarballPath(): string {
  const { name, version } = packageInfo();
  return `deploy/${name}-${version}.tgz`;
}

/**
 * The words a generated deploy file runs staticmcp with, from the project folder (a CI job, a
 * host's build command): `npx --yes staticmcp@0.1.0` once published; until then
 * `npx --yes ./deploy/staticmcp-0.1.0.tgz`, the copy `init` packed beside the deploy files, which
 * the user commits and controls. Either way `--yes` can only ever run this exact package.
 */
export function deployCommandWords(): string[] {
  return ['npx', '--yes', PUBLISHED_ON_NPM ? pinnedPackage() : `./${projectTarballPath()}`];
}
