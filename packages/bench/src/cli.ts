const pending: Record<string, string> = {
  als: 'bench:als is not built yet (issue #4)',
  position: 'bench:position is not built yet (issue #6)',
};

const command = process.argv[2] ?? '';
const message =
  pending[command] ?? `unknown benchmark "${command}"; expected one of: ${Object.keys(pending).join(', ')}`;
process.stderr.write(`${message}\n`);
process.exitCode = 1;
