// The App class of @modelcontextprotocol/ext-apps for an MCP App's page that asks for it: the
// page holds APP_CLASS_MARKER (an empty script naming `staticmcp:ext-apps`) and the build puts
// the class there, inlined (a host renders the page with no network), as globalThis.ExtApps. The
// class is bundled into dist/ when staticmcp itself is built (scripts/bundle-page.mjs), from the
// ext-apps 1.x line the project tests. A page that uses the App API without the class gets a
// warning that says how to ask for it.
import { readFileSync } from 'node:fs';

/** The documented marker: the build replaces this element with the App class, inlined. */
export const APP_CLASS_MARKER = '<script src="staticmcp:ext-apps"></script>';

const BUNDLE_URL = new URL('../page/ext-apps.js', import.meta.url);
let bundle: string | null | undefined;

/** The bundled App class as one inline script, or null when this staticmcp was compiled without it (tsc alone). */
function readAppClassScript(): string | null {
  if (bundle === undefined) {
    try {
      // Inside <script>, a `</script` in the code would end it.
      bundle = `<script>${readFileSync(BUNDLE_URL, 'utf8')
        .trimEnd()
        .replace(/<\/script/gi, '<\\/script')}</script>`;
    } catch {
      bundle = null;
    }
  }
  return bundle;
}

/** What a page's own script calls when it uses the App API (the global the class sets, the package, its methods). */
const USES_APP_API = /\bExtApps\b|@modelcontextprotocol\/ext-apps|\.callServerTool\s*\(/;
/** A string every build of the App class holds: the page carries the class already. */
const HOLDS_APP_CLASS = 'ui/initialize';

/** The page with the App class where its marker is, or a warning (null: nothing to say). */
export function provideAppClass(text: string): { text: string; warning: string | null } {
  if (text.includes(APP_CLASS_MARKER)) {
    const script = readAppClassScript();
    if (script === null)
      return {
        text,
        warning: `asks for the App class (${APP_CLASS_MARKER}), but this staticmcp was compiled without it (npm run build bundles it); inline the class yourself`,
      };
    return { text: text.split(APP_CLASS_MARKER).join(script), warning: null };
  }
  if (USES_APP_API.test(text) && !text.includes(HOLDS_APP_CLASS))
    return {
      text,
      warning: `uses the MCP Apps App API but does not hold the App class, so the app will not start in a host: put ${APP_CLASS_MARKER} before the page's own script (the build inlines the class there as globalThis.ExtApps), or inline the class yourself`,
    };
  return { text, warning: null };
}
