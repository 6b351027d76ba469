// `staticmcp serve <project> --http --port 0` for a bench that visits or calls it over HTTP.
import { spawn } from 'node:child_process';
import { cliPath } from './common.mjs';

/** Starts it; resolves with its base URL and a stop function once it says where it listens. */
export function startServeHttp(project) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [cliPath, 'serve', project, '--http', '--port', '0'], {
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (text) => {
      stderr += text;
      const match = /http:\/\/127\.0\.0\.1:\d+/.exec(stderr);
      if (match) resolve({ base: match[0], stop: () => child.kill() });
    });
    child.on('exit', (code) => reject(new Error(`serve exited ${code}: ${stderr}`)));
  });
}
