// Keeps V8's young generation at its starting size for the rest of the process, for the commands
// whose memory must not grow with the number of calls (build, merge). Every call leaves a little
// short-lived garbage that happens to be alive at a scavenge, and V8 doubles the young generation each time the bytes surviving since the last growth pass its
// size: in any long enough build it reached its 2 x 16 MiB maximum, which was most of the growth of
// peak RSS between 4,000 and 40,000 calls (87 -> 116 MB; 72 -> 88 MB with this). Scavenges become
// more frequent but stay cheap (build time unchanged, bench/build-vs-xargs.mjs).
import v8 from 'node:v8';

export function keepYoungGenerationSmall(): void {
  // Read by V8 each time it grows the young generation, so it takes effect at run time (unlike
  // --max-semi-space-size, fixed when the heap is set up). Checked on Node 20; an engine without
  // the flag prints "unrecognized flag" on stderr and the build goes on.
  v8.setFlagsFromString('--semi-space-growth-factor=1');
}
