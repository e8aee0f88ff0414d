/**
 * The command line of a service configured by its environment alone (`eca-worker`, `eca-api`): `--help`
 * prints the usage with the environment it reads, anything else is refused with exit code 2.
 */
import { Command, CommanderError } from 'commander';

/** The exit code when the command line was only `--help` (0) or is refused (2); undefined: run the service. */
export function serviceCommandLine(
  argv: string[],
  service: { name: string; description: string; environment: string },
): number | undefined {
  const program = new Command(service.name)
    .description(service.description)
    .helpOption('-h, --help', 'print this help and exit')
    .addHelpText('after', service.environment)
    .showHelpAfterError(`(${service.name} --help for usage)`)
    .exitOverride();
  try {
    program.parse(argv);
    return undefined;
  } catch (error) {
    if (error instanceof CommanderError) return error.exitCode === 0 ? 0 : 2;
    throw error;
  }
}
