// Ending a script run: once its leader is reaped, the run signals only the processes that carry its
// marker, never a process group by the number its own group had (the system may have given that
// number to an unrelated group by then).
import { spawn } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { createRunMarker } from '../../src/script/kill-marked-processes.js';
import { createTerminator } from '../../src/script/run/terminate.js';

/** A process leading a group of its own, carrying no run marker; resolves its exit signal. */
function startStranger() {
  const child = spawn('sleep', ['60'], { detached: true, stdio: 'ignore' });
  const exited = new Promise<string | null>((resolve) => child.once('exit', (_code, signal) => resolve(signal)));
  return { child, exited };
}

describe('createTerminator', () => {
  it('kills the group by its number while the run is not reaped', async () => {
    const stranger = startStranger();
    createTerminator(stranger.child.pid, createRunMarker()).killNow();
    expect(await stranger.exited).toBe('SIGKILL');
  });

  it('leaves a group that only has that number alone once the run forgot its group', async () => {
    const stranger = startStranger();
    try {
      const terminator = createTerminator(stranger.child.pid, createRunMarker(), 50);
      terminator.forgetGroup();
      terminator.terminate();
      terminator.killNow();
      expect(await Promise.race([stranger.exited, sleep(300, 'still running')])).toBe('still running');
      terminator.dispose();
    } finally {
      stranger.child.kill('SIGKILL');
    }
  });
});
