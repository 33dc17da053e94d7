/// <reference lib="dom" />
/**
 * The page's helpers for making elements: every string goes in as a text node (never as HTML), the
 * invisible-character marks the terminal view writes (`⟨U+202E⟩`, `⟨U+FE0F ×12⟩`) are highlighted,
 * and every link points inside the page. Page code: see script.ts for the rules it keeps.
 */

/** What the other page modules make elements with. */
export interface Markup {
	/** Where the invisible-character marks are in `text`: start and end of each, in order. Linear in `text`. */
	marks(text: string): number[];
	/** `text` as text nodes, with each mark in a `<mark class="inv">`. */
	marked(text: string): DocumentFragment;
	el(tag: string, cls?: string, text?: string): HTMLElement;
	/** A link to a model message (`out`) or a history message (`hist`) of the page. */
	link(kind: "out" | "hist", index: number, text: string): HTMLAnchorElement;
	svg(tag: string, attrs: Record<string, string | number>): SVGElement;
	fmt(n: number): string;
	/** The class suffix of a role's colour: the four pi-ai roles, else `other`. */
	roleClass(role: string): string;
}

/** The page's markup helpers. */
export function markup(): Markup {
	// A mark as invisible.ts writes it: one code point, or a run (`U+E0168…U+E0165 ×40`). Every
	// quantifier is bounded and nothing overlaps, so each position is tried a bounded number of
	// steps: linear in the text, whatever it holds (`⟨U+` repeated with one `⟩` at the end too).
	const MARK = /\u27e8U\+[0-9A-F]{4,6}(?:\u2026U\+[0-9A-F]{4,6})?(?: \u00d7[0-9,]{1,15})?\u27e9/g;
	const ROLES = ["user", "assistant", "toolResult", "system"];

	function marks(text: string): number[] {
		const found: number[] = [];
		if (text.indexOf("\u27e8U+") === -1) return found;
		MARK.lastIndex = 0;
		for (let match = MARK.exec(text); match !== null; match = MARK.exec(text)) {
			found.push(match.index, match.index + match[0].length);
		}
		return found;
	}

	function marked(text: string): DocumentFragment {
		const frag = document.createDocumentFragment();
		const spans = marks(text);
		let from = 0;
		for (let i = 0; i < spans.length; i += 2) {
			const start = spans[i] as number;
			const end = spans[i + 1] as number;
			if (start > from) frag.appendChild(document.createTextNode(text.slice(from, start)));
			const mark = document.createElement("mark");
			mark.className = "inv";
			mark.title = "an invisible or bidi character, shown escaped";
			mark.textContent = text.slice(start, end);
			frag.appendChild(mark);
			from = end;
		}
		if (from < text.length) frag.appendChild(document.createTextNode(text.slice(from)));
		return frag;
	}

	function el(tag: string, cls?: string, text?: string): HTMLElement {
		const node = document.createElement(tag);
		if (cls) node.className = cls;
		if (text !== undefined) node.appendChild(marked(String(text)));
		return node;
	}

	function link(kind: "out" | "hist", index: number, text: string): HTMLAnchorElement {
		const a = el("a", "", text) as HTMLAnchorElement;
		a.href = `#${kind}-${index}`;
		a.setAttribute("data-go", `${kind}:${index}`);
		return a;
	}

	function svg(tag: string, attrs: Record<string, string | number>): SVGElement {
		const node = document.createElementNS("http://www.w3.org/2000/svg", tag);
		for (const key of Object.keys(attrs)) node.setAttribute(key, String(attrs[key]));
		return node;
	}

	const fmt = (n: number): string => n.toLocaleString("en-US");
	const roleClass = (role: string): string => (ROLES.indexOf(role) === -1 ? "other" : role);

	return { marks, marked, el, link, svg, fmt, roleClass };
}
