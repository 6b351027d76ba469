// The origins a project allows in staticmcp.json (`http.allowedOrigins`) pass serve --http as
// they pass the edge worker, except `"*"` while live scripts are served: any web page could then
// make this machine run them.
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HttpServe, LATEST, post } from '../helpers/http-serve.js';
import { writeProject } from '../helpers/projects.js';
import { buildTreeInProcess } from '../helpers/in-process-build.js';

let project: string;
const running: HttpServe[] = [];

const TOOL = `#!/bin/sh
if [ "$1" = "--help" ]; then echo '{"description": "Says hi"}'; exit 0; fi
echo hi
`;

beforeAll(async () => {
  project = await writeProject({
    'tools/hi': { script: TOOL },
    'staticmcp.json': JSON.stringify({ http: { allowedOrigins: ['https://app.example', '*'] } }),
  });
  await buildTreeInProcess(project);
});

afterAll(async () => {
  await Promise.all(running.map((serve) => serve.stop()));
});

async function statusFor(serve: HttpServe, origin: string): Promise<number> {
  const answer = await post(
    serve.port,
    {
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: LATEST, capabilities: {}, clientInfo: { name: 't', version: '1' } },
    },
    { origin },
  );
  return answer.status;
}

describe('http.allowedOrigins of the project', () => {
  it('lets listed origins and "*" call a tree served without live scripts', async () => {
    const serve = await HttpServe.start([path.join(project, 'dist')]);
    running.push(serve);
    expect(await statusFor(serve, 'https://app.example')).toBe(200);
    expect(await statusFor(serve, 'https://anyone.example')).toBe(200);
  });

  it('honours only the listed origins, not "*", when live scripts are served', async () => {
    const serve = await HttpServe.start([project]);
    running.push(serve);
    expect(await statusFor(serve, 'https://app.example')).toBe(200);
    expect(await statusFor(serve, 'https://anyone.example')).toBe(403);
  });
});
