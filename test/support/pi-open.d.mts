export interface PiContext {
	messages?: unknown[];
	thinkingLevel?: string;
	model?: unknown;
	converted?: unknown[];
	error?: string;
}
export interface PiOpened {
	opened: { entries: number } | { error: string };
	contexts?: PiContext[];
}
export function openWith(pi: unknown, files: { text: string; leafIds: (string | null | undefined)[] }[]): PiOpened[];
