/**
 * pi's own reading of a session file, for the odd-lines differential: the text is written to a fresh
 * temporary file (pi's `SessionManager.open` may rewrite a migrated file, append a newline or
 * truncate), opened with that pi line's `SessionManager.open`, and the context built at each leaf:
 * `undefined` through the manager (`buildSessionContext()`, pi's resume), any other through pi's
 * exported `buildSessionContext(entries, leafId)`. A throw is reported as `{ error }`, not thrown.
 * Plain JavaScript: the 0.73.1 side runs it in the vitest process, the 1.6.0 side in the pi 1.x child.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const errorOf = (error) => ({ error: String(error?.message ?? error) });

/** `pi` is the pi-coding-agent module of one line; `files` are `{ text, leafIds }`. */
export function openWith(pi, files) {
	return files.map(({ text, leafIds }) => {
		const dir = mkdtempSync(join(tmpdir(), "ctl-pi-open-"));
		try {
			const file = join(dir, "session.jsonl");
			writeFileSync(file, text);
			let manager;
			try {
				manager = pi.SessionManager.open(file, dir);
			} catch (error) {
				return { opened: errorOf(error) };
			}
			const contexts = leafIds.map((leafId) => {
				try {
					const context =
						leafId === undefined
							? manager.buildSessionContext()
							: pi.buildSessionContext(manager.getEntries(), leafId);
					const { messages, thinkingLevel, model } = context;
					return { messages, thinkingLevel, model, converted: pi.convertToLlm(messages) };
				} catch (error) {
					return errorOf(error);
				}
			});
			return { opened: { entries: manager.getEntries().length }, contexts };
		} finally {
			rmSync(dir, { recursive: true, force: true });
		}
	});
}
