// How people who do not have staticmcp yet get its command, kept in one place: the landing page
// (index.html) and server.json are written from these, so publishing to the npm registry is this
// one switch plus the README's "Installing" section. Until then nothing may promise
// `npx staticmcp`: the name is not on the registry.
export const PUBLISHED_ON_NPM = false;

/** The words that run staticmcp, for snippets: `npx -y staticmcp` once published, the installed command until then. */
export const STATICMCP_COMMAND: readonly string[] = PUBLISHED_ON_NPM ? ['npx', '-y', 'staticmcp'] : ['staticmcp'];

/** What to do when the command is missing. */
export const INSTALL_HINT = PUBLISHED_ON_NPM
  ? 'npx downloads staticmcp from the npm registry on first use (or install it once: npm install -g staticmcp).'
  : 'staticmcp is not on the npm registry yet: in a clone of its repository run npm install && npm pack, then npm install -g ./staticmcp-<version>.tgz (Node 20.19 or newer).';
