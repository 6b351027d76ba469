// A declared option whose name changes how programs load (LD_PRELOAD, PYTHONSTARTUP, GIT_*, …)
// never becomes an environment variable, at build time or live: the value still reaches the
// script on stdin, and an ordinary option next to it is still exported.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { writeProject } from '../helpers/projects.js';
import { RawBridge } from '../helpers/raw-bridge.js';
import { buildTreeInProcess } from '../helpers/in-process-build.js';

const DENIED = [
  'PYTHONWARNINGS',
  'PYTHONSTARTUP',
  'PYTHONPATH',
  'PYTHONHOME',
  'GLIBC_TUNABLES',
  'LUA_INIT',
  'LUA_INIT_5_4',
  'JAVA_TOOL_OPTIONS',
  '_JAVA_OPTIONS',
  'PERL5LIB',
  'PERLLIB',
  'PERL5OPT',
  'RUBYOPT',
  'RUBYLIB',
  'GCONV_PATH',
  'HOSTALIASES',
  'SHELLOPTS',
  'PS4',
  'PROMPT_COMMAND',
  'GIT_SSH_COMMAND',
  'GIT_CONFIG_GLOBAL',
  'SSL_CERT_FILE',
  'SSL_CERT_DIR',
  'OPENSSL_CONF',
  'CURL_HOME',
  'NODE_OPTIONS',
  'npm_config_script_shell',
  'LD_PRELOAD',
  'LD_LIBRARY_PATH',
  'BASH_ENV',
  'PATH',
  'HOME',
  'IFS',
];
const VALUE = 'attacker-chosen';

/** A script declaring every denied name plus `language`, printing which ones it got with our value. */
function envScript(valueType: unknown, precompute: boolean): string {
  const options = Object.fromEntries(
    [...DENIED, 'language'].map((name) => [
      name,
      {
        description: name,
        required: false,
        value_type: valueType,
        default_value: VALUE,
      },
    ]),
  );
  return `#!/bin/sh
if [ "$1" = "--help" ]; then
  echo '{"description": "Shows which options became variables"${precompute ? '' : ', "precompute": false'}}'
  echo '${JSON.stringify(options)}' >&2
  exit 0
fi
cat > /dev/null
env | grep '=${VALUE}$' | cut -d= -f1 | sort
`;
}

describe('option names that change how programs load', () => {
  it('are never exported to a live script, while an ordinary option is', async () => {
    const project = await writeProject({ 'tools/show-env': { script: envScript('string', false) } });
    await buildTreeInProcess(project);
    const bridge = new RawBridge([project]);
    await bridge.initialize();
    const args = Object.fromEntries([...DENIED, 'language'].map((name) => [name, VALUE]));
    const answer = await bridge.request('tools/call', { name: 'show-env', arguments: args });
    await bridge.close();
    const exported = (answer.result!.content as { text: string }[])[0]?.text.trim().split('\n');
    expect(exported).toEqual(['language']);
  });

  it('are never exported to a script run at build time', async () => {
    const project = await writeProject({ 'tools/show-env': { script: envScript({ enum: [VALUE] }, true) } });
    await buildTreeInProcess(project);
    const calls = path.join(project, 'dist/tools/show-env');
    // One enumerated value per parameter: exactly one call file, one path segment per parameter.
    const file = path.join(calls, ...[...DENIED, 'language'].map(() => VALUE));
    const result = JSON.parse(readFileSync(`${file}.json`, 'utf8')) as { content: { text: string }[] };
    expect(result.content[0]?.text.trim().split('\n')).toEqual(['language']);
  });
});
