/**
 * `eca completion bash|zsh|fish`: a completion script made from the command tree itself, so it
 * always knows every command, subcommand and option of this version.
 */
import type { Command, Option } from 'commander';
import { InvalidInputError } from '../errors.js';
import { examples } from './options.js';

const SHELLS = ['bash', 'zsh', 'fish'] as const;
type Shell = (typeof SHELLS)[number];

interface Node {
  /** Command words from the top, e.g. ['schedules', 'pause']. */
  path: string[];
  description: string;
  subcommands: string[];
  options: Array<{ flags: string[]; description: string; choices?: readonly string[] }>;
}

function optionsOf(command: Command): Node['options'] {
  return command.options
    .filter((option: Option) => !option.hidden)
    .map((option: Option) => ({
      flags: [option.short, option.long].filter((flag): flag is string => flag !== undefined),
      description: option.description,
      choices: option.argChoices,
    }));
}

/** Every command of the tree, the program itself first (its path is empty). */
export function commandTree(program: Command): Node[] {
  const nodes: Node[] = [];
  const visit = (command: Command, path: string[]) => {
    nodes.push({
      path,
      description: command.description(),
      subcommands: command.commands.map((sub) => sub.name()),
      options: [...optionsOf(command), { flags: ['-h', '--help'], description: 'help' }],
    });
    for (const sub of command.commands) visit(sub, [...path, sub.name()]);
  };
  visit(program, []);
  return nodes;
}

const quote = (text: string) => `'${text.replace(/'/g, `'\\''`)}'`;

function bash(nodes: Node[]): string {
  const globals = nodes[0]!.options
    .flatMap((option) => option.flags)
    .filter((flag) => !/^(-h|--help|-V|--version)$/.test(flag));
  const cases = nodes
    .map((node) => {
      const words = [...node.subcommands, ...node.options.flatMap((option) => option.flags)];
      const extra = node.path.length > 0 ? globals : [];
      return `    ${quote(node.path.join(' '))}) words=${quote([...words, ...extra].join(' '))} ;;`;
    })
    .join('\n');
  return `# eca completion for bash: eval "$(eca completion bash)"
_eca() {
  local cur path="" word words i
  cur="\${COMP_WORDS[COMP_CWORD]}"
  for ((i = 1; i < COMP_CWORD; i++)); do
    word="\${COMP_WORDS[i]}"
    [[ "$word" == -* ]] && continue
    case "\${path:+$path }$word" in
${nodes
  .slice(1)
  .map((node) => `      ${quote(node.path.join(' '))}) path="${node.path.join(' ')}" ;;`)
  .join('\n')}
    esac
  done
  case "$path" in
${cases}
  esac
  if [[ "$cur" == -* || -n "$words" ]]; then
    COMPREPLY=($(compgen -W "$words" -- "$cur"))
  fi
  [[ \${#COMPREPLY[@]} -eq 0 ]] && COMPREPLY=($(compgen -f -- "$cur"))
  return 0
}
complete -o filenames -F _eca eca
`;
}

function fish(nodes: Node[]): string {
  const lines = ['# eca completion for fish: eca completion fish | source', 'complete -c eca -f'];
  for (const node of nodes) {
    const depth = node.path.length;
    const condition =
      depth === 0
        ? '__fish_use_subcommand'
        : `__fish_seen_subcommand_from ${node.path.at(-1)}; and not __fish_seen_subcommand_from ${node.subcommands.join(' ') || '__none__'}`;
    for (const sub of node.subcommands) {
      const description = nodes.find((n) => n.path.join(' ') === [...node.path, sub].join(' '))?.description ?? '';
      lines.push(`complete -c eca -n ${quote(condition)} -a ${quote(sub)} -d ${quote(description.slice(0, 80))}`);
    }
    for (const option of node.options) {
      const flags = option.flags
        .map((flag) => (flag.startsWith('--') ? `-l ${flag.slice(2)}` : `-s ${flag.slice(1)}`))
        .join(' ');
      const choices = option.choices ? ` -r -a ${quote(option.choices.join(' '))}` : '';
      const where = depth === 0 ? '' : `-n ${quote(`__fish_seen_subcommand_from ${node.path.at(-1)}`)} `;
      lines.push(`complete -c eca ${where}${flags}${choices} -d ${quote(option.description.slice(0, 80))}`);
    }
  }
  return `${lines.join('\n')}\n`;
}

function zsh(nodes: Node[]): string {
  // zsh completes through the bash script, with bashcompinit: one script to keep right.
  return `#compdef eca
# eca completion for zsh: eval "$(eca completion zsh)"
autoload -U +X bashcompinit && bashcompinit
${bash(nodes)}`;
}

/** The completion script of `shell` for the program. */
export function completionScript(program: Command, shell: string): string {
  if (!(SHELLS as readonly string[]).includes(shell)) {
    throw new InvalidInputError('shell', `"${shell}" is not one of ${SHELLS.join(', ')}`);
  }
  const nodes = commandTree(program);
  return ({ bash, zsh, fish } satisfies Record<Shell, (nodes: Node[]) => string>)[shell as Shell](nodes);
}

export function addCompletionCommand(program: Command): void {
  const command = program
    .command('completion')
    .description('print a shell completion script for bash, zsh or fish')
    .argument('<shell>', SHELLS.join(' | '))
    .action((shell: string) => {
      process.stdout.write(completionScript(program, shell));
    });
  examples(command, [
    ['completion bash >> ~/.bashrc', 'or: eval "$(eca completion bash)"'],
    ['completion zsh > "${fpath[1]}/_eca"', 'zsh'],
    ['completion fish > ~/.config/fish/completions/eca.fish', 'fish'],
  ]);
}
