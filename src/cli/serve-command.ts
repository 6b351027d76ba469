// `staticmcp serve`: placeholder until the bridge lands.
export async function runServeCommand(_argv: string[]): Promise<number> {
  process.stderr.write('staticmcp serve: not available yet\n');
  return 1;
}
