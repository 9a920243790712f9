// How output may look where it goes: colour only on a terminal (or when FORCE_COLOR asks for it),
// not with NO_COLOR (no-color.org) unless FORCE_COLOR says otherwise; lines rewritten in place only on a terminal outside CI.

export interface Look {
  colour: boolean;
  /** Rewrite a "running" line in place; plain lines otherwise (CI logs, pipes, files). */
  inPlace: boolean;
}

export function lookOf(stream: { isTTY?: boolean }, env: NodeJS.ProcessEnv = process.env): Look {
  const tty = stream.isTTY === true;
  const noColour = env.NO_COLOR !== undefined && env.NO_COLOR !== '';
  // As in Node's own tty.getColorDepth: FORCE_COLOR decides when set (0 or false: none), then NO_COLOR.
  const force = env.FORCE_COLOR === undefined ? undefined : !['0', 'false'].includes(env.FORCE_COLOR);
  const ci = Boolean(env.CI) || env.GITHUB_ACTIONS === 'true';
  return { colour: force ?? (!noColour && tty && env.TERM !== 'dumb'), inPlace: tty && !ci };
}

const CODES = { red: 31, green: 32, yellow: 33, grey: 90, bold: 1 } as const;
export type Paint = (colour: keyof typeof CODES, text: string) => string;

export const paintWith = (look: Pick<Look, 'colour'>): Paint => (colour, text) =>
  look.colour ? `\x1b[${CODES[colour]}m${text}\x1b[0m` : text;
