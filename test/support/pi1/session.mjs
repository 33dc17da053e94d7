/**
 * pi 1.6.0's sessions, for the session differential: `write` plays generated steps (session-ops.ts)
 * on 1.6.0's own persisting `SessionManager` and returns what pi reads from the file it wrote, at
 * several leaves; `read` returns what 1.6.0 reads from a given file text (the 0.73.1-written files).
 * For every context it also names the 1.x context rules that apply on its path, so a mismatch can
 * be classified.
 */
import { readFileSync } from "node:fs";
import {
	buildContextEntries,
	buildSessionContext,
	buildSessionProjection,
	convertToLlm,
	migrateSessionEntries,
	parseSessionEntries,
	SessionManager,
	sessionEntryToContextMessages,
} from "@earendil-works/pi-coding-agent";
import { FAUX_ASSISTANT } from "../faux-assistant.mjs";

const EDITABLE_ROLES = new Set(["user", "assistant", "toolResult"]);
/** The roles whose `content == null` pi 1.x replaces (`[]`, or `""` for system). */
const CONTENT_ROLES = new Set(["system", "user", "assistant", "toolResult"]);

function apply(manager, step, ids) {
	const choose = (n) => ids[n % ids.length];
	switch (step.op) {
		case "message":
			return manager.appendMessage(step.message);
		case "customMessage":
			return manager.appendCustomMessageEntry(step.customType, step.content, step.display, step.details);
		case "compaction":
		case "compaction16": {
			const path = manager.getBranch();
			let kept;
			if (step.op === "compaction") {
				kept = step.unknownId || path.length === 0 ? "ffffffff" : path[step.pick % path.length].id;
			} else if (step.kept === "self") kept = null;
			else if (step.kept === "unknown" || ids.length === 0) kept = "ffffffff";
			else if (step.kept === "any" || path.length === 0) kept = choose(step.pick);
			else kept = path[step.pick % path.length].id;
			return manager.appendCompaction(step.summary, kept, step.tokensBefore);
		}
		case "branch":
			if (ids.length > 0) manager.branch(choose(step.pick));
			return undefined;
		case "branchWithSummary":
			return manager.branchWithSummary(step.fromRoot || ids.length === 0 ? null : choose(step.pick), step.summary);
		case "label":
			return ids.length === 0 ? undefined : manager.appendLabelChange(choose(step.pick), step.label);
		case "sessionInfo":
			return manager.appendSessionInfo(step.name);
		case "model":
			return manager.appendModelChange(step.provider, step.modelId);
		case "thinking":
			return manager.appendThinkingLevelChange(step.level);
		case "customEntry":
			return manager.appendCustomEntry(step.customType, step.data);
		case "resetLeaf":
			manager.resetLeaf();
			return undefined;
		case "contextEdit": {
			const editable = manager
				.getBranch()
				.filter(
					(e) => e.type === "custom_message" || (e.type === "message" && EDITABLE_ROLES.has(e.message?.role)),
				);
			if (editable.length === 0) return undefined;
			return manager.appendContextEdit(editable[step.pick % editable.length].id, step.replacement);
		}
		case "usage":
			return manager.appendUsage(step.kind, step.provider, step.model, step.usage, step.note).id;
		default:
			throw new Error(`unknown step ${step.op}`);
	}
}

/** The entries from the root to `leafId` (the last entry when `leafId` is undefined). */
function pathTo(entries, leafId) {
	const byId = new Map(entries.map((e) => [e.id, e]));
	// As pi's buildSessionPath: null is the empty path, an unknown or missing id the last entry.
	let current = leafId === null ? undefined : ((leafId ? byId.get(leafId) : undefined) ?? entries.at(-1));
	const path = [];
	while (current) {
		path.unshift(current);
		current = current.parentId === null ? undefined : byId.get(current.parentId);
	}
	return path;
}

/** Which of the 1.x context rules (0.86 to 0.87) apply on the path to `leafId`. */
function rulesOnPath(entries, leafId) {
	const rules = new Set();
	const path = pathTo(entries, leafId);
	const compactionIdx = path.findLastIndex((e) => e.type === "compaction");
	if (compactionIdx >= 0) {
		const compaction = path[compactionIdx];
		if (compaction.systemMessage) rules.add("compaction systemMessage checkpoint");
		if (compaction.firstKeptEntryId === compaction.id) rules.add("firstKeptEntryId is the compaction's own id");
		const firstKept = path.findIndex((e) => e.id === compaction.firstKeptEntryId);
		if (firstKept >= 0 && firstKept < compactionIdx) {
			const kept = path.slice(firstKept, compactionIdx);
			if (kept.some((e) => e.type === "message" && e.message?.role === "system")) {
				rules.add("system message in the kept range skipped");
			}
			if (kept.some((e) => e.type === "compaction")) rules.add("older compaction in the kept range");
		}
	}
	const context = buildContextEntries(entries, leafId);
	const inContext = new Set(context.map((e) => e.id));
	for (const entry of context) {
		if (entry.type === "context_edit" && inContext.has(entry.targetId)) {
			rules.add(entry.replacement === null ? "context_edit omits" : "context_edit replaces");
		}
		if (entry.type === "usage") rules.add("usage entry");
		if (entry.type === "message" && CONTENT_ROLES.has(entry.message?.role) && entry.message.content == null) {
			rules.add("message content null");
		}
		if (entry.type === "custom_message" && entry.content == null) rules.add("custom_message content null");
	}
	return [...rules].sort();
}

/**
 * Where each message of the context came from, and what each `context_edit` did, from pi's
 * provenance-keeping projection (`buildSessionProjection`), in the shape of our reader's `entryIds`
 * and `contextEdits`: for each entry of the context that the latest edit of it (among the context's
 * entries, as pi collects them) hides or changes, the edit, the effect, the index of its first
 * message in the context, and the roles the entry gives without the edit.
 */
function provenance(entries, leafId) {
	const projection = buildSessionProjection(entries, leafId);
	const edits = new Map();
	for (const { sourceEntry } of projection.entries) {
		if (sourceEntry.type === "context_edit") edits.set(sourceEntry.targetId, sourceEntry);
	}
	const entryIds = [];
	const contextEdits = [];
	projection.entries.forEach(({ sourceEntry, messages }, i) => {
		const edit = edits.get(sourceEntry.id);
		// An older compaction kept in the range contributes nothing, edited or not.
		if (edit && !(sourceEntry.type === "compaction" && i > 0)) {
			contextEdits.push({
				editId: edit.id,
				targetId: sourceEntry.id,
				effect: edit.replacement === null ? "hidden" : "replaced",
				index: entryIds.length,
				roles: sessionEntryToContextMessages(sourceEntry).map((m) => m.role),
			});
		}
		for (let k = 0; k < messages.length; k++) entryIds.push(sourceEntry.id);
	});
	return { entryIds, contextEdits };
}

/** pi 1.6.0 reading a file without writing it: its parser, its migration, its context builder. */
function contextsOf(text, leafIds) {
	const fileEntries = parseSessionEntries(text);
	migrateSessionEntries(fileEntries);
	const entries = fileEntries.filter((e) => e.type !== "session");
	return leafIds.map((leafId) => {
		const context = buildSessionContext(entries, leafId);
		return {
			leafId,
			context,
			converted: convertToLlm(context.messages),
			rules: rulesOnPath(entries, leafId),
			...provenance(entries, leafId),
		};
	});
}

/** What the file holds, by entry type (`message:<role>` for messages), for the run's tallies. */
function entryKinds(entries) {
	const kinds = {};
	for (const entry of entries) {
		const kind = entry.type === "message" ? `message:${entry.message?.role}` : entry.type;
		kinds[kind] = (kinds[kind] ?? 0) + 1;
	}
	return kinds;
}

/**
 * Plays each session's steps on `SessionManager.create(cwd, dir)` and returns, per session: the
 * file, the entry kinds, and pi's contexts (with their conversion and the 1.x rules on the path) at
 * the last entry (through `SessionManager.open`), at the live leaf, and at the entries `picks` name.
 * `live` is the live manager's own context, as JSON (it still holds `undefined` fields).
 */
export function write({ dir, sessions }) {
	return sessions.map(({ ops, picks }) => {
		const manager = SessionManager.create("/work/project", dir);
		const ids = [];
		for (const step of ops) {
			const id = apply(manager, step, ids);
			if (id !== undefined) ids.push(id);
		}
		const entries = manager.getEntries();
		if (!entries.some((e) => e.type === "message" && (e.message.role === "user" || e.message.role === "assistant"))) {
			ids.push(manager.appendMessage(FAUX_ASSISTANT));
		}
		const file = manager.getSessionFile();
		const all = manager.getEntries();
		const liveLeaf = manager.getLeafId();
		const leafIds = [liveLeaf, ...picks.map((n) => all[n % all.length].id)];
		const text = readFileSync(file, "utf8");
		const opened = SessionManager.open(file, dir).buildSessionContext();
		// Every reading compared must be of these bytes; pi's open must not have rewritten them.
		if (readFileSync(file, "utf8") !== text) throw new Error(`SessionManager.open rewrote ${file}`);
		return {
			file,
			entryCount: all.length,
			kinds: entryKinds(all),
			atLast: { context: opened, converted: convertToLlm(opened.messages), rules: rulesOnPath(all, undefined) },
			leaves: contextsOf(text, leafIds),
			live: { leafId: liveLeaf, json: JSON.stringify(manager.buildSessionContext().messages) },
		};
	});
}

/** pi 1.6.0's contexts of each given file text at each given leaf (`undefined`: the last entry). */
export function read({ files }) {
	return files.map(({ text, leafIds }) => contextsOf(text, leafIds));
}
