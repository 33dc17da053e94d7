/** The path of a context: the chain of parent links from the leaf to a root, stopped where it breaks. */
import type { EntryLinks } from "./entry-links.js";
import { capped, type EntryReporter } from "./project.js";

/** What to do about a broken parent link. */
const ELSEWHERE = "Fix its parentId in the file, or pick another leaf with leafId.";

/**
 * Indices of the entries from the root to `leaf`, each parent found as pi's map finds it
 * ({@link EntryLinks.parentOf}). Stops at a missing parent or a loop (pi would hang on one), and
 * reports it.
 */
export function walkToRoot(links: EntryLinks, leaf: number, reporter: EntryReporter): number[] {
	const parents = links.parents;
	const path: number[] = [];
	const onPath = new Uint8Array(parents.length);
	let current = leaf;
	for (;;) {
		onPath[current] = 1;
		path.push(current);
		const parentId = parents[current];
		if (!parentId) break;
		const parent = links.parentOf(current, parentId);
		if (parent === undefined) {
			const at = current;
			reporter.report(
				"broken-link",
				at,
				() =>
					`${reporter.where(at)} has parent ${capped(parentId)}, which is not in the file; the context starts at this entry. ${ELSEWHERE}`,
			);
			break;
		}
		if (onPath[parent] === 1) {
			const at = current;
			reporter.report(
				"loop",
				at,
				() =>
					`${reporter.where(at)} has parent ${capped(parentId)}, which is already on the path (a loop); the context starts at this entry (pi would hang on this file). ${ELSEWHERE}`,
			);
			break;
		}
		current = parent;
	}
	return path.reverse();
}
