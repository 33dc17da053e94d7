/** The suites whose console lines make the parity block. */
export const PARITY_SUITES: readonly string[];
/** README.md and every docs/*.md, relative to the root. */
export function docFiles(): string[];
/** The generated blocks of a text: their source and the body between the markers. */
export function generatedBlocks(text: string): { source: string; bodyStart: number; bodyEnd: number; body: string }[];
/** What the built CLI prints for `<args>` (or `<args> | from <text>`), fenced. */
export function renderCli(source: string): string;
/** The table of `npm run bench`'s output. */
export function renderBench(output: string, date: string): string;
/** The gates of `npm run bench` only (the rows with a limit). */
export function renderGates(output: string, date: string): string;
/** The session reader's figures against pi, from `npm run bench`'s output. */
export function renderSessions(output: string, date: string): string;
/** The parity block from a vitest run's output. */
export function renderParity(output: string): string;
/** Rewrites (or, with `check`, compares) every block it can render; returns the stale ones. */
export function update(
	inputs: { bench?: string; benchDate?: string; parity?: string },
	options: { check: boolean },
): string[];
