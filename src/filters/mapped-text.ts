/**
 * A text made of pieces of other strings (text blocks joined as a provider joins them, tool-call
 * arguments as their JSON text), with the way back from a span of it to the strings it came from:
 * what lets `redactSecrets` scan what the provider receives and replace what it finds in the
 * message's own strings.
 */

/** A part of one source string that a span of a {@link MappedText} stands for. */
export interface Piece {
	readonly source: string;
	readonly start: number;
	readonly end: number;
}

/**
 * Characters a reader does not see: default-ignorable code points and format characters (zero-width
 * joiners and spaces, bidi controls, soft hyphens, the BOM, tags), and lone surrogates (pi-ai's
 * providers drop those before sending).
 */
export const INVISIBLE = /[\p{Default_Ignorable_Code_Point}\p{Cf}\p{Cs}]/u;
const INVISIBLE_ALL = /[\p{Default_Ignorable_Code_Point}\p{Cf}\p{Cs}]+/gu;

/**
 * A text and, for each of its segments, what it stands for: a run of a source string (character for
 * character), one source character written as several (a JSON escape: `\n` for a newline), or
 * nothing (a separator, JSON punctuation).
 *
 * Contract: {@link pieces} gives, in order, the parts of the sources that a span of {@link text}
 * covers, each as wide as needed to hold every source character the span touches (an escape touched
 * at all gives its whole character); a span over separators only gives none. Costs a binary search
 * plus the segments it covers.
 *
 * @example
 * const joined = new MappedTextBuilder().source("key: wJal").literal("\n").source("rXUtn").build();
 * joined.pieces(5, 15); // [{ source: "key: wJal", start: 5, end: 9 }, { source: "rXUtn", start: 0, end: 5 }]
 */
export class MappedText {
	constructor(
		readonly text: string,
		/** Where each segment starts in {@link text}; a segment ends where the next starts. */
		private readonly at: readonly number[],
		/** The source of each segment, or `undefined` for text that stands for nothing. */
		private readonly sources: readonly (string | undefined)[],
		/** Where each segment starts in its source. */
		private readonly from: readonly number[],
		/** Whether the segment is one source character written as several. */
		private readonly atom: readonly boolean[],
	) {}

	/** The parts of the sources that `text[start, end)` stands for, adjacent parts of one source merged. */
	pieces(start: number, end: number): Piece[] {
		const out: Piece[] = [];
		const { at, sources, from, atom, text } = this;
		for (let i = this.segmentAt(start); i < at.length && (at[i] as number) < end; i++) {
			const source = sources[i];
			if (source === undefined) continue;
			const segStart = at[i] as number;
			const segEnd = i + 1 < at.length ? (at[i + 1] as number) : text.length;
			if (segEnd <= start) continue;
			const base = from[i] as number;
			const piece = atom[i]
				? { source, start: base, end: base + 1 }
				: {
						source,
						start: base + Math.max(start, segStart) - segStart,
						end: base + Math.min(end, segEnd) - segStart,
					};
			const last = out[out.length - 1];
			if (last !== undefined && last.source === source && last.end === piece.start)
				out[out.length - 1] = { source, start: last.start, end: piece.end };
			else out.push(piece);
		}
		return out;
	}

	/** The index of the segment that holds `position` (the last one starting at or before it). */
	private segmentAt(position: number): number {
		const { at } = this;
		let low = 0;
		let high = at.length - 1;
		while (low < high) {
			const mid = (low + high + 1) >> 1;
			if ((at[mid] as number) <= position) low = mid;
			else high = mid - 1;
		}
		return low;
	}

	/**
	 * This text without the {@link INVISIBLE} characters that stand for a source character (and
	 * without those characters in separators), mapped back to the same sources; `undefined` when it
	 * has none. What a reader sees of a key written with a zero-width joiner inside.
	 */
	withoutInvisible(): MappedText | undefined {
		if (!INVISIBLE.test(this.text)) return undefined;
		const builder = new MappedTextBuilder();
		const { at, sources, from, atom, text } = this;
		for (let i = 0; i < at.length; i++) {
			const segStart = at[i] as number;
			const segEnd = i + 1 < at.length ? (at[i + 1] as number) : text.length;
			const source = sources[i];
			const base = from[i] as number;
			if (atom[i] && source !== undefined) {
				if (!INVISIBLE.test(source.slice(base, base + 1)))
					builder.escaped(text.slice(segStart, segEnd), source, base);
				continue;
			}
			const segment = text.slice(segStart, segEnd);
			let cursor = 0;
			for (const match of segment.matchAll(INVISIBLE_ALL)) {
				const index = match.index;
				if (index > cursor) {
					if (source === undefined) builder.literal(segment.slice(cursor, index));
					else builder.source(source, base + cursor, base + index);
				}
				cursor = index + match[0].length;
			}
			if (cursor < segment.length) {
				if (source === undefined) builder.literal(segment.slice(cursor));
				else builder.source(source, base + cursor, base + segment.length);
			}
		}
		return builder.build();
	}
}

/** Builds a {@link MappedText} piece by piece. */
export class MappedTextBuilder {
	private readonly parts: string[] = [];
	private length = 0;
	private readonly at: number[] = [];
	private readonly sources: (string | undefined)[] = [];
	private readonly from: number[] = [];
	private readonly atom: boolean[] = [];

	/** Text that stands for nothing (a separator, punctuation). */
	literal(text: string): this {
		return this.push(text, undefined, 0, false);
	}

	/** `source[start, end)` as it is. */
	source(source: string, start = 0, end = source.length): this {
		return this.push(start === 0 && end === source.length ? source : source.slice(start, end), source, start, false);
	}

	/** `text`, which stands for the one character `source[index]` (a JSON escape). */
	escaped(text: string, source: string, index: number): this {
		return this.push(text, source, index, true);
	}

	private push(text: string, source: string | undefined, start: number, atom: boolean): this {
		if (text.length === 0) return this;
		this.parts.push(text);
		this.at.push(this.length);
		this.sources.push(source);
		this.from.push(start);
		this.atom.push(atom);
		this.length += text.length;
		return this;
	}

	build(): MappedText {
		return new MappedText(this.parts.join(""), this.at, this.sources, this.from, this.atom);
	}
}
